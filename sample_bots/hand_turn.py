"""A Hand turn under construction: the bot's side of building one, the engine's of checking it.

A TURN has no list of legal actions (there are far too many): the referee
checks the whole turn, and the rules it checks have one owner, the engine's
:class:`~waraq.referee.games.hand.turn.PartialTurn` (docs/rules.md "## Hand").
A bot builds its turn on one, from what its view shows, and is refused each
step the referee would refuse, for the referee's reason. :class:`TurnBuilder`
adds what a search wants on top, none of it law: several steps at once or
none (:meth:`TurnBuilder.apply`, :meth:`TurnBuilder.lay`), a step tried and
dropped if refused (:meth:`TurnBuilder.attempt`), no step into a dead end
(a hand emptied with a discard still to come), and the view's ways to lay a
taken discard. The helpers below ask the engine's meld checks what fits
where.

Cards are the engine's ints (``copy * 53 + face``, face 52 the joker).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from waraq.referee.games.hand.decisions import Turn
from waraq.referee.games.hand.engine import IllegalAction
from waraq.referee.games.hand.melds import (
    ACE,
    FACES,
    JOKER,
    Meld,
    MeldError,
    Step,
    TableMeld,
    additions,
    card_name,
    check_add,
    check_swap,
)
from waraq.referee.games.hand.turn import PartialTurn
from waraq.referee.games.hand.view import HandView


def face(card: int) -> int:
    return card % FACES


def is_joker(card: int) -> bool:
    return card % FACES == JOKER


def suit(card: int) -> int:
    return card % FACES // 13


def rank(card: int) -> int:
    """0 for a 2 up to 12 (ACE) for an ace."""
    return card % FACES % 13


class TurnBuilder:
    """A turn being built: the engine's partial turn, stepped on as a search likes.

    Every refusal is the engine's :class:`~waraq.referee.games.hand.engine.IllegalAction`.
    """

    __slots__ = ("turn", "uses")

    def __init__(self, turn: PartialTurn, uses: tuple[tuple[Step, ...], ...] = ()) -> None:
        self.turn = turn
        self.uses = uses  # the ways to lay the taken discard (the view's ``uses``)

    @classmethod
    def of(cls, view: HandView) -> TurnBuilder:
        """The builder for a TURN decision, from the seat's view alone."""
        return cls(PartialTurn.of_view(view), tuple(view.uses))

    def copy(self) -> TurnBuilder:
        return TurnBuilder(self.turn.copy(), self.uses)

    # -- what the turn has come to (the partial turn's own) ------------------------------

    @property
    def hand(self) -> list[int]:
        return self.turn.hand

    @property
    def table(self) -> list[TableMeld]:
        return self.turn.table

    @property
    def steps(self) -> list[Step]:
        return self.turn.steps

    @property
    def opened(self) -> bool:
        """Opened at this point of the turn: before it, or by the melds laid in it."""
        return self.turn.opened

    @property
    def was_open(self) -> bool:
        return self.turn.was_open

    @property
    def laid(self) -> int:
        """What the melds laid this turn are worth."""
        return self.turn.laid

    @property
    def took(self) -> int | None:
        return self.turn.took

    @property
    def opening_points(self) -> int:
        return self.turn.points

    @property
    def needs_use(self) -> bool:
        """The taken discard is in hand: some step must still put it on the table."""
        return self.turn.needs_use

    @property
    def can_end(self) -> bool:
        """Whether the referee would take the turn as it stands, with any card held as the discard."""
        return self.turn.problem() is None

    # -- the steps ------------------------------------------------------------------

    def apply(self, steps: Iterable[Step]) -> None:
        """Take the given steps (one of the view's uses, say): all of them or, on a refusal, none."""
        trial = self.turn.copy()
        for step in steps:
            trial.step(step)
            dead_end = trial.dead_end()
            if dead_end is not None:
                raise IllegalAction(dead_end)
        self.turn = trial

    def lay(self, melds: Iterable[Sequence[int]]) -> None:
        """Lay several melds (each in step order: a run ascending, the joker in its place): all or none."""
        self.apply(Meld(tuple(cards)) for cards in melds)

    def attempt(self, step: Step) -> bool:
        """Take ``step`` if the referee would; say whether it was taken."""
        try:
            self.apply((step,))
        except IllegalAction:
            return False
        return True

    def finish(self, discard: int) -> Turn:
        """The whole turn, ending with ``discard``; IllegalAction if the referee would refuse it."""
        return self.turn.finish(discard)


def swaps_for(meld: TableMeld, card: int) -> bool:
    """Whether ``card`` can take the place of ``meld``'s joker (docs/rules.md, joker swap)."""
    try:
        check_swap(meld, card)
    except MeldError:
        return False
    return True


def fits_at(meld: TableMeld, card: int, at: str | None) -> bool:
    """Whether ``card`` alone can be added to ``meld`` at ``at`` (a run's "low" or "high" end; None for a set)."""
    try:
        check_add(meld, (card,), at)
    except MeldError:
        return False
    return True


def fits(meld: TableMeld, card: int) -> bool:
    """Whether ``card`` alone can be added to ``meld`` (at some end of a run)."""
    return any(f == face(card) for f, _ in additions(meld))


def places(card: int) -> tuple[int, ...]:
    """Where a real card can stand in a run, counting from the 2 (0): an ace below the 2 (-1) or above the king (12)."""
    return (-1, ACE) if rank(card) == ACE else (rank(card),)


def name(card: int) -> str:
    """A card as records and messages spell it: "7H#1", "JK#0"."""
    return card_name(card)


def ends_for(meld: TableMeld) -> tuple[str | None, ...]:
    """Where a card can go on ``meld``: either end of a run, nowhere in particular on a set."""
    return ("low", "high") if meld.kind == "run" else (None,)


def cards_of(faces: Sequence[int], hand: Sequence[int]) -> tuple[int, ...] | None:
    """Cards of ``hand`` showing ``faces`` (in that order, each card once), or None if it lacks one."""
    left = list(hand)
    cards = []
    for f in faces:
        card = next((c for c in left if face(c) == f), None)
        if card is None:
            return None
        left.remove(card)
        cards.append(card)
    return tuple(cards)

"""A Hand turn under construction, on a bot's own copy of its hand and the table.

A TURN has no list of legal actions (there are far too many): the referee
checks the whole turn. So a bot builds its turn step by step on a copy of
what its view shows, and :class:`TurnBuilder` refuses each step the referee
would refuse, by the same rules (docs/rules.md "## Hand", checked with
:mod:`waraq.referee.games.hand.melds`): melds valid, no addition or swap before the
seat has opened, one card kept to discard, an opening worth
``opening_points``, the taken discard on the table by the end. The sample
bots then choose among steps that are legal, and never lose a match by a
fault.

Cards are the engine's ints (``copy * 53 + face``, face 52 the joker).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from waraq.referee.games.hand.engine import HandView, Turn
from waraq.referee.games.hand.melds import (
    ACE,
    FACES,
    JOKER,
    Add,
    Meld,
    MeldError,
    Step,
    Swap,
    TableMeld,
    additions,
    card_name,
    check_add,
    check_meld,
    check_swap,
    meld_value,
)


def face(card: int) -> int:
    return card % FACES


def is_joker(card: int) -> bool:
    return card % FACES == JOKER


def suit(card: int) -> int:
    return card % FACES // 13


def rank(card: int) -> int:
    """0 for a 2 up to 12 (ACE) for an ace."""
    return card % FACES % 13


class TurnError(ValueError):
    """A step the referee would refuse (the bot then tries something else)."""


@dataclass
class TurnBuilder:
    """The state of a turn being built: what the seat holds and what is on the table after its steps."""

    seat: int
    hand: list[int]
    table: list[TableMeld]
    opened: bool  # at this point of the turn: before it, or by the melds laid in it
    opening_points: int
    took: int | None = None
    uses: tuple[tuple[Step, ...], ...] = ()
    steps: list[Step] = field(default_factory=list)
    laid: int = 0  # the value of the melds laid this turn (what an opening is measured by)
    was_open: bool = False  # opened before this turn

    @classmethod
    def of(cls, view: HandView) -> TurnBuilder:
        """The builder for a TURN decision, from the seat's view alone."""
        opened = view.opened[view.seat]
        return cls(
            view.seat,
            list(view.hand),
            list(view.melds),
            opened,
            view.rules.opening_points,
            view.took,
            tuple(view.uses),
            was_open=opened,
        )

    def copy(self) -> TurnBuilder:
        return TurnBuilder(
            self.seat,
            list(self.hand),
            list(self.table),
            self.opened,
            self.opening_points,
            self.took,
            self.uses,
            list(self.steps),
            self.laid,
            self.was_open,
        )

    # -- the steps ------------------------------------------------------------------

    def meld(self, cards: Sequence[int]) -> TableMeld:
        """Lay ``cards`` (in step order: a run ascending, the joker in its place) as a new meld."""
        cards = tuple(cards)
        self._holds(cards, keep=1)
        try:
            kind, ordered, joker_as = check_meld(cards)
        except MeldError as error:
            raise TurnError(f"not a meld: {error}") from None
        laid = TableMeld(self.seat, kind, tuple(ordered), joker_as)
        self._take_out(cards)
        self.table.append(laid)
        self.laid += meld_value(kind, laid.cards, joker_as)
        self.opened = self.opened or self.laid >= self.opening_points
        self.steps.append(Meld(cards))
        return laid

    def lay(self, melds: Iterable[Sequence[int]]) -> None:
        """Lay several melds at once: all of them or (on a refusal) none."""
        trial = self.copy()
        for cards in melds:
            trial.meld(cards)
        self.__dict__.update(trial.__dict__)

    def add(self, index: int, cards: Sequence[int], at: str | None) -> TableMeld:
        """Add ``cards`` (ascending for a run) to table meld ``index``: a run at ``at`` "low" or "high"."""
        cards = tuple(cards)
        target = self._opened_meld(index, "add to")
        self._holds(cards, keep=1)
        grown = joined(target, cards, at)
        self._take_out(cards)
        self.table[index] = grown
        self.steps.append(Add(index, cards, at))
        return grown

    def swap(self, index: int, card: int) -> TableMeld:
        """Put ``card`` in the place of table meld ``index``'s joker; the joker comes to the hand."""
        target = self._opened_meld(index, "swap a joker of")
        self._holds((card,), keep=0)
        try:
            swapped = check_swap(target, card)
        except MeldError as error:
            raise TurnError(f"no swap: {error}") from None
        self.hand[self.hand.index(card)] = target.joker
        self.table[index] = swapped
        self.steps.append(Swap(index, card))
        return self.table[index]

    def apply(self, steps: Iterable[Step]) -> None:
        """Take the given steps (one of the view's uses, say): all of them or (on a refusal) none."""
        trial = self.copy()
        for step in steps:
            if isinstance(step, Meld):
                trial.meld(step.cards)
            elif isinstance(step, Add):
                trial.add(step.meld, step.cards, step.at)
            else:
                trial.swap(step.meld, step.card)
        self.__dict__.update(trial.__dict__)

    def attempt(self, step: Step) -> bool:
        """Take ``step`` if it is legal now; say whether it was."""
        try:
            self.apply((step,))
        except TurnError:
            return False
        return True

    def finish(self, discard: int) -> Turn:
        """The whole turn, ending with ``discard``; refused if the referee would refuse it."""
        self._holds((discard,), keep=0)
        if self.took is not None and self.took in self.hand:
            raise TurnError(f"the taken discard {card_name(self.took)} must end on the table")
        if self.laid and not self.opened:
            raise TurnError(f"an opening must be worth {self.opening_points}: these melds are worth {self.laid}")
        return Turn(tuple(self.steps), discard)

    # -- what it is in the middle of ---------------------------------------------------

    @property
    def needs_use(self) -> bool:
        """The taken discard is still in hand: some step must put it on the table."""
        return self.took is not None and self.took in self.hand

    def _holds(self, cards: Sequence[int], keep: int) -> None:
        missing = [c for c in cards if c not in self.hand]
        if missing or len(set(cards)) != len(cards):
            raise TurnError(f"{[card_name(c) for c in cards]} are not all in hand {[card_name(c) for c in self.hand]}")
        if len(self.hand) - len(cards) < keep:
            raise TurnError("one card must stay in hand to discard")

    def _opened_meld(self, index: int, what: str) -> TableMeld:
        if not self.opened:
            raise TurnError(f"a seat that has not opened may not {what} a meld")
        if not 0 <= index < len(self.table):
            raise TurnError(f"no table meld {index}")
        return self.table[index]

    def _take_out(self, cards: Iterable[int]) -> None:
        for card in cards:
            self.hand.remove(card)


def swaps_for(meld: TableMeld, card: int) -> bool:
    """Whether ``card`` can take the place of ``meld``'s joker (docs/rules.md, joker swap)."""
    try:
        check_swap(meld, card)
    except MeldError:
        return False
    return True


def joined(meld: TableMeld, cards: Sequence[int], at: str | None) -> TableMeld:
    """``meld`` with ``cards`` added (a run: before it at "low", after it at "high"), or TurnError."""
    try:
        return check_add(meld, cards, at)
    except MeldError as error:
        raise TurnError(f"no addition: {error}") from None


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

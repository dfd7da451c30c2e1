"""A Hand turn under way, and the one owner of the rules of a turn (docs/rules.md "## Hand").

A ``TURN`` decision is the whole rest of a turn at once, a
:class:`~waraq.referee.games.hand.decisions.Turn` ``(steps, discard)``: steps
:class:`~waraq.referee.games.hand.melds.Meld` (lay a new meld),
:class:`~waraq.referee.games.hand.melds.Add` (add hand cards to table meld
number ``meld``, a run at ``"low"`` or ``"high"``) and
:class:`~waraq.referee.games.hand.melds.Swap` (win a table joker back with the
card it stands for), applied in order, each checked against what the steps
before it left; then one card to discard, which must still be in hand with at
least that one card left. Discarding the last card goes out.

A seat that has not opened may not add or swap. It opens, during a turn, once
the melds it laid in that turn are worth ``opening_points`` together (ace 11,
even in ``A 2 3``; a joker the face it stands for); from then on it may add
and swap in the same turn. A turn that lays melds but stays below is illegal.
A turn that took the discard must end with that card on the table, and a
seat that had not opened must have it in one of the melds it lays.

:class:`PartialTurn` checks a turn step by step, for the referee and for a
bot alike: a bot may build its turn on one from its view alone, or check a
whole turn with :func:`check_turn`, and be refused exactly as the referee
would refuse it (:class:`IllegalAction`, saying which step is wrong and why).
What a meld, an addition or a swap may be is
:mod:`~waraq.referee.games.hand.melds`'s call.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from waraq.referee.games.hand.decisions import TURN, Turn
from waraq.referee.games.hand.melds import (
    CARD_NAMES,
    CARDS,
    Add,
    Meld,
    MeldError,
    Step,
    Swap,
    TableMeld,
    check_add,
    check_meld,
    check_swap,
    meld_value,
    shown,
)
from waraq.referee.games.hand.view import HandView


class IllegalAction(ValueError):
    """An action that is not legal now; the message quotes it and says why."""


class _Refused(ValueError):
    """A step that is not legal: the reason, to which the caller adds the seat and step."""


class PartialTurn:
    """A TURN under way: the seat's hand and the table after the steps taken so far.

    The one owner of the rules of a turn (the module docstring): the referee
    checks every :class:`~waraq.referee.games.hand.decisions.Turn` with one
    (:meth:`play`), its trusted door takes the same steps unchecked, the
    referee's random turns are built on one
    (:mod:`~waraq.referee.games.hand.random_turn`), and so may a bot, from its view alone (:meth:`of_view`, and
    :mod:`waraq.bots.hand_turn`): :meth:`step` takes one step or refuses it as
    the referee would, :meth:`problem` says whether the turn could end here,
    :meth:`finish` ends it with a discard. Pure: it works on its own copies of
    the hand and the table.

    The hand keeps the order it was given in: a card leaves its place and a
    joker won back takes the place of the card that won it (a bot's search may
    walk the hand in its own order; the state sorts its hands).
    """

    __slots__ = (
        "seat",
        "hand",
        "table",
        "was_open",
        "opened",
        "points",
        "took",
        "laid",
        "laid_cards",
        "touched",
        "steps",
    )

    def __init__(
        self,
        seat: int,
        hand: Iterable[int],
        table: Iterable[TableMeld],
        opened: bool,
        opening_points: int,
        took: int | None = None,
    ) -> None:
        self.seat = seat
        self.hand = list(hand)  # held now; the taken discard, ``took``, among them at the start
        self.table = list(table)
        self.was_open = self.opened = opened  # opened before the turn / by now
        self.points = opening_points
        self.took = took  # the card taken from the discard pile this turn, if one was
        self.laid = 0  # what the melds laid this turn are worth (an opening is measured by it)
        self.laid_cards: set[int] = set()  # the cards of the melds laid this turn
        self.touched = False  # an addition or swap touched another seat's meld
        self.steps: list[Step] = []

    @classmethod
    def of_view(cls, view: HandView) -> PartialTurn:
        """The turn ``view``'s seat is asked to play, before its first step (a TURN view of
        the seat to act: the seat's view is all it takes)."""
        if view.kind != TURN or view.to_act != view.seat:
            raise IllegalAction(
                f"seat {view.seat} has no turn to play: the pending decision is {view.kind} of seat {view.to_act}"
            )
        return cls(view.seat, view.hand, view.melds, view.opened[view.seat], view.rules.opening_points, view.took)

    def copy(self) -> PartialTurn:
        new = PartialTurn.__new__(PartialTurn)
        new.seat, new.was_open, new.opened, new.points = self.seat, self.was_open, self.opened, self.points
        new.took, new.laid, new.touched = self.took, self.laid, self.touched
        new.hand = self.hand[:]
        new.table = self.table[:]
        new.laid_cards = set(self.laid_cards)
        new.steps = self.steps[:]
        return new

    # -- steps -----------------------------------------------------------------

    def step(self, step: Step) -> None:
        """Take ``step``, or raise :class:`IllegalAction` as the referee words it (seat,
        step number, why) and change nothing."""
        self._take(step, True)

    def play(self, turn: Turn) -> None:
        """Take all of ``turn``'s steps and check its end, as the referee's ``apply`` does:
        :class:`IllegalAction` at the first rule broken. The discard stays in :attr:`hand`."""
        if type(turn.steps) is not tuple or type(turn.discard) is not int:
            raise IllegalAction(f"seat {self.seat} answered TURN with {turn!r}: expected steps and a card")
        for step in turn.steps:
            self._take(step, True)
        self.check_discard(turn.discard)

    def _take(self, step: Step, check: bool) -> None:
        """One step; with ``check`` every rule on it is enforced, and everything is checked
        before anything changes. Unchecked, a step is trusted to be legal."""
        hand, table = self.hand, self.table
        try:
            if type(step) is Meld:  # exact types, as a bot may send anything; final, so mypy narrows
                cards = step.cards
                if check:
                    _check_held(hand, cards)
                meld_kind, ordered, joker_as = check_meld(cards)
                for card in cards:
                    hand.remove(card)
                table.append(TableMeld(self.seat, meld_kind, ordered, joker_as))
                self.laid_cards.update(cards)
                self.laid += meld_value(meld_kind, ordered, joker_as)
                self.opened = self.opened or self.laid >= self.points
            elif type(step) is Add or type(step) is Swap:
                index = step.meld
                if check:
                    _check_may_touch(self.opened, self.laid, self.points, table, index)
                target = table[index]
                if type(step) is Add:
                    cards = step.cards
                    if check:
                        _check_held(hand, cards)
                    grown = check_add(target, cards, step.at)
                    for card in cards:
                        hand.remove(card)
                else:
                    card = step.card
                    if check:
                        _check_held(hand, (card,))
                    grown = check_swap(target, card)
                    assert target.joker is not None  # check_swap refuses a meld without one
                    hand[hand.index(card)] = target.joker
                table[index] = grown
                self.touched = self.touched or target.owner != self.seat
            else:
                raise _Refused("is not a step: expected Meld, Add or Swap")
        except (_Refused, MeldError) as error:
            raise IllegalAction(f"seat {self.seat} step {len(self.steps) + 1} {_describe(step)}: {error}") from None
        self.steps.append(step)

    # -- the end -----------------------------------------------------------------

    @property
    def needs_use(self) -> bool:
        """The taken discard is in hand: some step must still put it on the table."""
        return self.took is not None and self.took in self.hand

    def problem(self) -> str | None:
        """Why the turn could not end here, whatever it discards, as the referee words it;
        None when it could (with any card held)."""
        seat, points, took, was_open = self.seat, self.points, self.took, self.was_open
        if not was_open and self.laid_cards and self.laid < points:
            return f"seat {seat} turn: an opening must be worth {points} or more: these melds are worth {self.laid}"
        if took is not None and not any(took in m.cards for m in self.table):
            return (
                f"seat {seat} turn: took {CARD_NAMES[took]} from the discard pile, so it must "
                "lay it in a meld or add it to one this turn"
            )
        if took is not None and not was_open and took not in self.laid_cards:
            return (
                f"seat {seat} turn: took {CARD_NAMES[took]} from the discard pile before opening, "
                f"so it must be part of an opening worth {points} or more: it is in none of the "
                "melds laid this turn"
            )
        return self.dead_end()

    def dead_end(self) -> str | None:
        """Why no steps that follow could make the turn legal, or None: a turn ends with a
        discard, and once the hand is empty no step brings a card back (a swap gives one
        for the joker)."""
        if not self.hand:
            return f"seat {self.seat} turn: keeps no card to discard: one card must stay in hand after melding"
        return None

    def check_discard(self, discard: int) -> None:
        """Raise :class:`IllegalAction` unless the turn may end here by discarding ``discard``."""
        problem = self.problem()
        if problem is not None:
            raise IllegalAction(problem)
        if discard not in self.hand:
            shown = CARD_NAMES[discard] if type(discard) is int and 0 <= discard < CARDS else discard
            held = ", ".join(CARD_NAMES[c] for c in sorted(self.hand))
            raise IllegalAction(f"seat {self.seat} discard {shown!r}: does not hold it (holds {held})")

    def finish(self, discard: int) -> Turn:
        """The whole turn, its steps so far then ``discard``; :class:`IllegalAction` if the
        referee would refuse it."""
        self.check_discard(discard)
        return Turn(tuple(self.steps), discard)


def check_turn(view: HandView, turn: Any) -> None:
    """Raise :class:`IllegalAction`, in the referee's words, unless ``turn`` is a legal
    answer to ``view``'s TURN decision (the view of the seat to act); changes nothing.
    The referee's own check (:meth:`~waraq.referee.games.hand.engine.HandState.apply`) is this
    one, on the state."""
    if type(turn) is not Turn:
        raise IllegalAction(f"seat {view.seat} answered TURN with {turn!r}: expected a Turn(steps, discard)")
    PartialTurn.of_view(view).play(turn)


def _check_held(hand: list[int], cards: Sequence[int]) -> None:
    """Refuse ``cards`` unless they are a tuple of distinct cards, all held."""
    if type(cards) is not tuple or not cards:
        raise _Refused(f"expected a tuple of cards, got {cards!r}")
    for card in cards:
        if type(card) is not int or not 0 <= card < CARDS:
            raise _Refused(f"{card!r} is not a card")
    if len(set(cards)) != len(cards):
        twice = next(c for c in cards if cards.count(c) > 1)
        raise _Refused(f"{CARD_NAMES[twice]} is listed twice")
    strangers = [c for c in cards if c not in hand]
    if strangers:
        raise _Refused(
            f"does not hold {', '.join(CARD_NAMES[c] for c in strangers)} "
            f"(holds {', '.join(CARD_NAMES[c] for c in sorted(hand)) or 'nothing'})"
        )


def _check_may_touch(opened: bool, laid: int, points: int, table: list[TableMeld], index: Any) -> None:
    if not opened:
        raise _Refused(
            f"may add to or swap in a meld only after opening: the melds laid this turn are worth "
            f"{laid} of the {points} an opening needs"
        )
    if type(index) is not int or not 0 <= index < len(table):
        held = f"its melds are numbered 0 to {len(table) - 1}" if table else "it is empty"
        raise _Refused(f"there is no meld {index!r} on the table: {held}")


def _describe(step: Any) -> str:
    """A step as an error message quotes it: ``meld ['KH#0', 'AH#1', '2H#0']``."""
    kind = type(step)
    if kind is Meld:
        return f"meld {shown(step.cards)}"
    if kind is Add:
        at = f" at {step.at}" if step.at is not None else ""
        return f"add {shown(step.cards)} to meld {step.meld!r}{at}"
    if kind is Swap:
        card = shown([step.card])[0]
        return f"swap {card!r} for the joker of meld {step.meld!r}"
    return repr(step)

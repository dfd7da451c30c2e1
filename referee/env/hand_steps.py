"""A Hand turn built one small move at a time, never into a dead end (for the learning environments).

A Hand ``TURN`` is one engine action, a whole
:class:`~waraq.referee.games.hand.decisions.Turn` (steps, then a discard): too many to
list. A learning agent builds it here as a sequence of :class:`Move`\\ s, each one of a
fixed, small set, the way a person builds it on the human page (select cards, then
say what they make):

* ``PICK card``: put a card of the hand into the *selection*, the cards of the next step;
* ``MELD``: lay the selection as a new meld; ``MELD_HIGH``: the same cards with the joker
  at the run's high end, when it could stand at either end (``JK 5H 6H`` / ``5H 6H JK``);
* ``ADD m``: add the selection to table meld number ``m`` (at the run's end it fits, the
  low one when it fits both); ``ADD_HIGH m``: at the high end, when it fits both
  (a lone joker, a lone ace on a run from 2 to K);
* ``SWAP m``: the one selected card wins back the joker of table meld ``m``;
* ``DISCARD card``: with nothing selected, discard ``card``: the turn is finished.

The rules are the engine's: every step is taken on a
:class:`~waraq.referee.games.hand.turn.PartialTurn`, the one owner of the rules of a
turn, and the finished turn is its :meth:`~waraq.referee.games.hand.turn.PartialTurn.finish`.
What is added here is only which moves are *allowed* (:meth:`StepTurn.allowed`):

* a step (MELD, ADD, SWAP) is allowed when the partial turn accepts it **and** the turn
  can still be finished after it (:func:`can_finish`): no step leads to a dead end;
* a PICK is allowed when the selection, with that card, is part of the cards of some
  allowed step: picking never strands a selection, and nothing unpicks;
* a DISCARD is allowed when nothing is selected and the turn could end here
  (``PartialTurn.problem()`` is None).

So a walk of allowed moves always ends, by a legal turn: after any allowed step the
turn can be finished, so some move is always allowed (at worst a discard), and a turn
cannot go on for ever: a meld or an addition shrinks the hand, a swap takes a joker off
the table, and a joker goes back on only by a step that shrinks the hand. The selection
is a set: its cards may be picked in any order (:func:`moves_of` picks in card order).

:func:`can_finish` decides it with the engine's own searches, the ones the referee offers
the discard by: what an opening still lacks
(:func:`~waraq.referee.games.hand.meld_search.best_melds`), how a taken discard can still
go down (:func:`~waraq.referee.games.hand.discard.has_discard_use` and the searches under
it). A yes is always a finish. A no is one but in a single state, which no house bot
enters: a seat that opens this very turn adds the discard it took to a table meld (or
swaps it in), when the rules want it in a meld the seat lays; only a taken joker could
then be won back and laid again. The step into that state is not allowed.

Cards are the engine's ints (``copy * 53 + face``); moves name cards, never faces, so a
turn built here is the very turn a record holds, copies included.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from itertools import combinations, product

from waraq.referee.games.hand.decisions import Turn
from waraq.referee.games.hand.discard import has_discard_use
from waraq.referee.games.hand.meld_search import MeldPool, best_melds, candidates, face_counts
from waraq.referee.games.hand.melds import (
    CARD_NAMES,
    FACES,
    HIGH,
    JOKER,
    LOW,
    POSITION_FACE,
    SET,
    Add,
    Meld,
    Step,
    Swap,
    TableMeld,
    run_span,
    swap_face,
)
from waraq.referee.games.hand.placing import meld_uses
from waraq.referee.games.hand.turn import IllegalAction, PartialTurn
from waraq.referee.games.hand.view import HandView
from waraq.referee.games.hand.won_joker import winnable, won_uses


class MoveKind(StrEnum):
    """The kinds of move; a move is a kind and one integer (:class:`Move`)."""

    TAKE = "TAKE"  # the TAKE decision: 0 the stock, 1 the discard pile
    PICK = "PICK"  # a card id
    DISCARD = "DISCARD"  # a card id
    MELD = "MELD"  # 0
    MELD_HIGH = "MELD_HIGH"  # 0
    ADD = "ADD"  # a table meld's number
    ADD_HIGH = "ADD_HIGH"  # a table meld's number
    SWAP = "SWAP"  # a table meld's number


PICK, DISCARD = MoveKind.PICK, MoveKind.DISCARD
MELD, MELD_HIGH, ADD, ADD_HIGH, SWAP = MoveKind.MELD, MoveKind.MELD_HIGH, MoveKind.ADD, MoveKind.ADD_HIGH, MoveKind.SWAP
STEP_KINDS = (MELD, MELD_HIGH, ADD, ADD_HIGH, SWAP)  # the moves that take an engine step


@dataclass(frozen=True, slots=True)
class Move:
    kind: MoveKind
    arg: int = 0

    def __str__(self) -> str:
        if self.kind in (PICK, DISCARD):
            return f"{self.kind} {CARD_NAMES[self.arg]}"
        if self.kind in (MELD, MELD_HIGH):
            return str(self.kind)
        return f"{self.kind} {self.arg}"


class MoveError(ValueError):
    """A move that is not allowed now; the message names it and says why."""


class StepTurn:
    """One seat's TURN under way, move by move (the module docstring).

    :attr:`turn` is the engine's partial turn after the steps taken so far and
    :attr:`selection` the cards picked for the next one. :meth:`allowed` is the set of
    moves allowed now, :meth:`play` takes one and returns the finished :class:`Turn`
    when it was the discard.
    """

    __slots__ = ("turn", "selection", "_steps", "finished")

    def __init__(self, turn: PartialTurn) -> None:
        self.turn = turn
        self.selection: frozenset[int] = frozenset()
        self._steps: dict[frozenset[int], dict[Move, Step]] | None = None  # allowed steps, by their cards
        self.finished: Turn | None = None

    @classmethod
    def of(cls, view: HandView) -> StepTurn:
        """The turn ``view``'s seat is asked to play (a TURN view of the seat to act)."""
        return cls(PartialTurn.of_view(view))

    # -- what is allowed -------------------------------------------------------------

    def steps(self) -> dict[frozenset[int], dict[Move, Step]]:
        """Every allowed step now, by its cards: each card set's moves and the engine step each takes."""
        if self._steps is None:
            self._steps = allowed_steps(self.turn)
        return self._steps

    def allowed(self) -> set[Move]:
        """The moves allowed now (empty once the turn is finished)."""
        if self.finished is not None:
            return set()
        picked = self.selection
        moves: set[Move] = set()
        for cards, steps in self.steps().items():
            if picked < cards:
                moves.update(Move(PICK, c) for c in cards - picked)
            elif picked == cards:
                moves.update(steps)
        if not picked and self.turn.problem() is None:
            moves.update(Move(DISCARD, c) for c in self.turn.hand)
        return moves

    def why_not(self, move: Move) -> str:
        """Why ``move`` is not allowed now (for error messages)."""
        if self.finished is not None:
            return "the turn is finished"
        picked, turn = self.selection, self.turn
        if move.kind == DISCARD:
            if picked:
                return f"{_cards(picked)} are selected: a step must take them first"
            if move.arg not in turn.hand:
                return f"does not hold it (holds {_cards(turn.hand)})"
            return turn.problem() or "?"
        if move.kind == PICK:
            if move.arg not in turn.hand:
                return f"does not hold it (holds {_cards(turn.hand)})"
            if move.arg in picked:
                return "it is selected already"
            return f"no allowed step holds {_cards(picked | {move.arg})}"
        if move.kind not in STEP_KINDS:
            return f"{move.kind} is no move of a turn"
        return f"no allowed step is {move} with {_cards(picked) or 'nothing'} selected"

    # -- moving ----------------------------------------------------------------------

    def play(self, move: Move) -> Turn | None:
        """Take ``move`` (MoveError naming it and why, when it is not allowed); the finished turn
        when it was the discard, else None."""
        if move not in self.allowed():
            raise MoveError(f"seat {self.turn.seat} {move}: not allowed now: {self.why_not(move)}")
        if move.kind == PICK:
            self.selection = self.selection | {move.arg}
            return None
        if move.kind == DISCARD:
            self.finished = self.turn.finish(move.arg)
            return self.finished
        self.turn.step(self.steps()[self.selection][move])
        self.selection = frozenset()
        self._steps = None
        return None

    def copy(self) -> StepTurn:
        new = StepTurn(self.turn.copy())
        new.selection, new._steps, new.finished = self.selection, self._steps, self.finished
        return new


# -- can the turn still be finished --------------------------------------------------


def can_finish(turn: PartialTurn) -> bool:
    """Whether some legal steps, then a discard, finish ``turn`` from here (see the module docstring:
    sound always; complete but for the one state it names)."""
    hand = turn.hand
    if not hand:
        return False  # no step brings a card back to an empty hand: nothing to discard
    took = turn.took
    owed = took is not None and took in hand  # the taken discard must still go down
    if not turn.opened:  # an opening under way: melds only, worth ``need`` more
        need = turn.points - turn.laid
        if owed:
            assert took is not None
            return has_discard_use(_without(hand, took), took, turn.table, False, need)
        if not turn.laid_cards:
            return True  # nothing laid, nothing owed: the turn may end as it began
        return _openings_reach(hand, need)
    if not owed:
        # The taken discard on the table without being in a meld laid this turn, by a seat
        # that opened in it, could only be won back (a joker) and laid again: refused.
        return took is None or turn.was_open or took in turn.laid_cards
    assert took is not None
    rest = _without(hand, took)
    if not turn.was_open and took not in turn.laid_cards:
        return _meld_holds(rest, took, turn.table)
    if not rest:  # only a swap keeps a card: the joker it wins back
        return any(swap_face(meld) == took % FACES for meld in turn.table)
    return has_discard_use(rest, took, turn.table, True, turn.points)


def _without(hand: Sequence[int], card: int) -> list[int]:
    rest = list(hand)
    rest.remove(card)
    return rest


def _openings_reach(hand: Sequence[int], need: int) -> bool:
    """Whether disjoint melds of ``hand``, a card kept, are worth ``need`` or more."""
    counts, jokers = face_counts(hand)
    pool = MeldPool(candidates(counts, jokers))
    return best_melds(pool, counts, jokers, len(hand) - 1, target=need)[0] >= need


def _meld_holds(rest: Sequence[int], took: int, table: Sequence[TableMeld]) -> bool:
    """Whether ``took`` can still be laid in a new meld (a card kept): with hand cards, or
    with a table joker won back first."""
    if next(meld_uses(rest, took), None) is not None:
        return True
    routes = winnable(face_counts(rest)[0], table)
    return bool(routes) and any(type(use[-1]) is Meld for use in won_uses(rest, took, table, routes))


# -- the steps allowed now ------------------------------------------------------------


def allowed_steps(turn: PartialTurn) -> dict[frozenset[int], dict[Move, Step]]:
    """Every step the partial turn accepts and after which it can still be finished, by its
    cards: each card set's moves (``MELD``/``MELD_HIGH``, ``ADD m``/``ADD_HIGH m``, ``SWAP m``)
    and the engine step each one takes."""
    found: dict[frozenset[int], dict[Move, Step]] = {}
    for cards, moves in _candidate_steps(turn):
        for move, step in moves.items():
            trial = turn.copy()
            try:
                trial.step(step)
            except IllegalAction:
                continue  # the engine is the judge; the candidates only propose
            if can_finish(trial):
                found.setdefault(cards, {})[move] = step
    return found


def _candidate_steps(turn: PartialTurn) -> Iterator[tuple[frozenset[int], dict[Move, Step]]]:
    """The melds, additions and swaps the hand could make, each card set with its moves.

    The two readings of one card set get their moves here, before any is checked, so a
    move's meaning does not depend on which reading the turn allows."""
    hand = turn.hand
    copies = _copies(hand)
    melds: dict[frozenset[int], list[tuple[int, ...]]] = {}
    for cards in _melds(hand, copies):
        melds.setdefault(frozenset(cards), []).append(cards)
    for key, orders in melds.items():
        # At most two orders: the joker below the run's cards or above them (else in its gap, or a set).
        ordered = sorted(set(orders), key=_joker_place)
        assert len(ordered) <= 2, ordered
        yield key, {Move(kind): Meld(cards) for kind, cards in zip((MELD, MELD_HIGH), ordered, strict=False)}
    if not turn.opened:
        return  # adding and swapping wait for the opening
    for index, meld in enumerate(turn.table):
        adds: dict[frozenset[int], list[Add]] = {}
        for add in _adds(index, meld, copies, len(hand)):
            adds.setdefault(frozenset(add.cards), []).append(add)
        for key, both in adds.items():
            both.sort(key=lambda a: a.at == HIGH)  # low (or a set's none) first
            yield key, {Move(kind, index): add for kind, add in zip((ADD, ADD_HIGH), both, strict=False)}
        wanted = swap_face(meld)
        if wanted is not None:
            for card in copies.get(wanted, ()):
                yield frozenset((card,)), {Move(SWAP, index): Swap(index, card)}


def _copies(hand: Sequence[int]) -> dict[int, list[int]]:
    """The hand's cards by face (the joker's face 52 included), in card order."""
    by_face: dict[int, list[int]] = {}
    for card in sorted(hand):
        by_face.setdefault(card % FACES, []).append(card)
    return by_face


def _joker_place(cards: tuple[int, ...]) -> int:
    return next((i for i, c in enumerate(cards) if c % FACES == JOKER), 0)


def _melds(hand: Sequence[int], copies: dict[int, list[int]]) -> Iterator[tuple[int, ...]]:
    """Every meld of the hand's cards that keeps a card in hand, in step order, each copy apart."""
    counts, jokers = face_counts(hand)
    for faces, _, _, _ in candidates(counts, jokers):
        if len(faces) < len(hand):
            yield from product(*(copies[f] for f in faces))


def _adds(index: int, meld: TableMeld, copies: dict[int, list[int]], held: int) -> Iterator[Add]:
    """The additions of hand cards to table meld ``index`` that keep a card in hand."""
    jokers = copies.get(JOKER, []) if meld.joker is None else []
    if meld.kind == SET:
        if len(meld.cards) >= 4:
            return
        rank = next(c for c in meld.cards if c % FACES != JOKER) % FACES % 13
        suits = {c % FACES // 13 for c in meld.cards if c % FACES != JOKER}
        faces = [s * 13 + rank for s in range(4) if s not in suits and s * 13 + rank in copies]
        if jokers:
            faces.append(JOKER)
        for size in range(1, min(4 - len(meld.cards), held - 1) + 1):
            for chosen in combinations(faces, size):
                for cards in product(*(copies[f] for f in chosen)):
                    yield Add(index, cards, None)
        return
    suit, lo, hi = run_span(meld)
    room = min(13 - (hi - lo + 1), held - 1)
    row = POSITION_FACE[suit]
    for at, places in ((LOW, range(lo - 1, -1, -1)), (HIGH, range(hi + 1, 14))):
        for outward in _fillings(list(places)[:room], row, copies, jokers):
            yield Add(index, tuple(reversed(outward)) if at == LOW else outward, at)


def _fillings(
    places: list[int], row: Sequence[int], copies: dict[int, list[int]], jokers: list[int]
) -> Iterator[tuple[int, ...]]:
    """Each way to fill the first 1, 2, ... of ``places`` (outward from a run's end) with hand
    cards of their faces, one place at most with a joker: the cards in ``places`` order."""
    stack: list[tuple[tuple[int, ...], bool]] = [((), False)]
    while stack:
        cards, joker_used = stack.pop()
        if cards:
            yield cards
        depth = len(cards)
        if depth == len(places):
            continue
        for card in copies.get(row[places[depth]], ()):
            stack.append(((*cards, card), joker_used))
        if not joker_used:
            for card in jokers:
                stack.append(((*cards, card), True))


def _cards(cards: Sequence[int] | frozenset[int]) -> str:
    return ", ".join(CARD_NAMES[c] for c in sorted(cards))


# -- a recorded turn as moves -----------------------------------------------------------


def moves_of(view: HandView, turn: Turn) -> list[Move]:
    """The allowed moves that build ``turn``, the answer to ``view``'s TURN (the view of the
    seat to act): each step's cards picked in card order, the step's move, and the discard.

    The rebuilt turn leaves the hand and the table as ``turn`` does; its steps are
    ``turn``'s but for the order a set's cards are listed in (a set is kept by suit, so the
    order changes nothing). IllegalAction when the engine refuses ``turn``; MoveError,
    naming the step, when a step is legal but not allowed here (:func:`can_finish` refused
    the state after it)."""
    built = StepTurn.of(view)
    moves: list[Move] = []
    for number, step in enumerate(turn.steps, 1):
        target = built.turn.copy()
        target.step(step)
        wanted = (sorted(target.hand), target.table)
        try:
            for card in sorted(_step_cards(step)):
                moves.append(Move(PICK, card))
                built.play(moves[-1])
        except MoveError as error:
            raise MoveError(f"turn step {number} ({step}) cannot be built: {error}") from None
        options = built.steps().get(built.selection, {})
        same = [move for move, taken in options.items() if _after(built.turn, taken) == wanted]
        if not same:
            raise MoveError(
                f"turn step {number} ({step}) cannot be built: no allowed step with {_cards(built.selection)} "
                "leaves the hand and the table as it does (the state after it cannot be finished)"
            )
        moves.append(same[0])
        built.play(same[0])
    built.turn.check_discard(turn.discard)  # IllegalAction, in the referee's words, if the turn may not end so
    moves.append(Move(DISCARD, turn.discard))
    try:
        built.play(moves[-1])
    except MoveError as error:
        raise MoveError(f"the turn's discard cannot be built: {error}") from None
    return moves


def _step_cards(step: Step) -> tuple[int, ...]:
    return (step.card,) if type(step) is Swap else step.cards


def _after(turn: PartialTurn, step: Step) -> tuple[list[int], list[TableMeld]]:
    trial = turn.copy()
    trial.step(step)
    return sorted(trial.hand), trial.table

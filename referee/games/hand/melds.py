"""Hand's cards and melds as small integers: names, values, and what a meld may be (docs/rules.md "## Hand").

A Hand card is ``copy * 53 + face``: copy 0 or 1, face 0..51 the standard
card of :mod:`waraq.referee.games.cards` (``suit * 13 + rank``) and face 52 the joker. So
``7H#0`` is 18, ``7H#1`` is 71, the jokers 52 and 105. Names such as ``7H#1``
and ``JK#0`` exist only at the edges (records, messages, people).

A meld is 3 or more cards with at most one joker:

* a **run**, one suit and consecutive ranks, written ascending with the joker
  in the place it stands for. A run lives on *positions* 0..13: ``A 2 3 ... K
  A``, the ace at 0 (low) or 13 (high) but never both, so ``K A 2`` is no run
  and a run has at most 13 cards;
* a **set**, 3 or 4 cards of one rank in different suits, kept by suit
  (S H D C) with the joker last.

This module owns those rules: :func:`check_meld`, :func:`check_add` and
:func:`check_swap` say whether cards make a meld, grow a table meld or win
its joker back, and :func:`additions`, :func:`swap_face` and
:func:`joker_price` what a table meld would take. It also holds the steps of
a turn (:class:`Meld`, :class:`Add`, :class:`Swap`). The searches are
elsewhere: every meld of a hand and the best opening in
:mod:`~waraq.referee.games.hand.meld_search`, the top discard's uses in
:mod:`~waraq.referee.games.hand.discard`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, final

from waraq.referee.games.cards import CARD_NAMES as FACE_CARD_NAMES
from waraq.referee.games.cards import SUIT_NAMES, CardError

JOKER = 52  # the joker's face
FACES = 53  # faces per copy
COPIES = 2
ACE = 12  # rank index of the ace (ranks 2..A are 0..12)
LOW, HIGH = "low", "high"
RUN, SET = "run", "set"
JOKER_CHARGE = 15  # a joker left in hand at the end of a round
JOKER_MAX = 11  # the most a joker is worth in a meld: standing for an ace

FACE_NAMES = (*FACE_CARD_NAMES, "JK")
CARD_NAMES = tuple(f"{FACE_NAMES[card % FACES]}#{card // FACES}" for card in range(FACES * COPIES))
CARDS = len(CARD_NAMES)  # every card of the two decks, the jokers included
CARD_BY_NAME = {name: card for card, name in enumerate(CARD_NAMES)}
FACE_BY_NAME = {name: face for face, name in enumerate(FACE_NAMES)}


def _face_value(face: int) -> int:
    rank = face % 13
    return 11 if rank == ACE else min(rank + 2, 10)


# What a face is worth in a meld (an opening counts these); the joker's entry is
# unused: it is worth the face it stands for.
FACE_VALUE = tuple(_face_value(f) for f in range(52)) + (0,)
# What a card left in hand costs at the end of a round.
CHARGES = tuple(JOKER_CHARGE if c % FACES == JOKER else FACE_VALUE[c % FACES] for c in range(FACES * COPIES))


class MeldError(ValueError):
    """Cards that make no meld, or no meld with a table meld; the message says why."""


# -- names ---------------------------------------------------------------------------


def card_name(card: int) -> str:
    return CARD_NAMES[card]


def parse_card(name: object) -> int:
    """``'7H#1'`` -> 71, ``'JK#0'`` -> 52. Accepts lower case; anything else is refused, quoted."""
    if isinstance(name, str):
        card = CARD_BY_NAME.get(name.strip().upper())
        if card is not None:
            return card
    raise CardError(
        f"{name!r} is not a Hand card: expected a rank 2-10/J/Q/K/A and a suit S/H/D/C, "
        "or JK, then '#' and the copy 0 or 1, as in '7H#1', '10S#0' or 'JK#0'"
    )


def parse_face(name: object) -> int:
    """``'7H'`` -> 18 (a face, as a run's ``joker_as`` is spelled)."""
    if isinstance(name, str):
        face = FACE_BY_NAME.get(name.strip().upper())
        if face is not None and face != JOKER:
            return face
    raise CardError(f"{name!r} is not a card face: expected a rank then a suit, as in '7H' or 'AS'")


def names(cards: Iterable[int]) -> list[str]:
    """Cards as a list of names, for messages: ``['7H#0', 'JK#1']``."""
    return [CARD_NAMES[c] for c in cards]


def shown(cards: Any) -> Any:
    """Cards by name where they are cards; anything else as it came (for messages)."""
    if isinstance(cards, (tuple, list)):
        return [CARD_NAMES[c] if type(c) is int and 0 <= c < CARDS else c for c in cards]
    return cards


def charge(card: int) -> int:
    """What ``card`` costs left in hand at the end of a round: ace 11, pictures 10, joker 15."""
    return CHARGES[card]


def face_value(face: int) -> int:
    """What a face is worth in a meld: ace 11, pictures 10, others their number."""
    return FACE_VALUE[face]


# -- runs on positions -----------------------------------------------------------------


def position_face(suit: int, position: int) -> int:
    """The face at ``position`` (0..13: A 2 3 ... K A) of a run in ``suit``."""
    return suit * 13 + (ACE if position == 0 or position == 13 else position - 1)


# POSITION_FACE[suit][position], and what that face is worth
POSITION_FACE = tuple(tuple(position_face(s, p) for p in range(14)) for s in range(4))
POSITION_VALUE = tuple(tuple(FACE_VALUE[f] for f in row) for row in POSITION_FACE)


# -- the steps of a turn (here, below the searches that return them) -------------------


@final  # final, so that mypy reads `type(step) is Meld` as excluding the other steps
@dataclass(frozen=True, slots=True)
class Meld:
    """Lay ``cards`` from the hand as a new meld (a run ascending, the joker in its place)."""

    cards: tuple[int, ...]

    def __post_init__(self) -> None:
        if type(self.cards) is not tuple:
            object.__setattr__(self, "cards", tuple(self.cards))


@final
@dataclass(frozen=True, slots=True)
class Add:
    """Add hand ``cards`` (ascending) to table meld number ``meld``: a run at ``at``
    ``"low"`` or ``"high"``, a set with ``at`` None."""

    meld: int
    cards: tuple[int, ...]
    at: str | None = None

    def __post_init__(self) -> None:
        if type(self.cards) is not tuple:
            object.__setattr__(self, "cards", tuple(self.cards))


@final
@dataclass(frozen=True, slots=True)
class Swap:
    """Put hand ``card`` in the place of table meld ``meld``'s joker; the joker comes to the hand."""

    meld: int
    card: int


Step = Meld | Add | Swap


@dataclass(frozen=True, slots=True)
class TableMeld:
    owner: int  # the seat that laid it
    kind: str  # RUN or SET
    cards: tuple[int, ...]  # a run ascending with its joker in place; a set by suit, joker last
    joker_as: int | None = None  # the face a run's joker stands for; None in a set or without joker

    @property
    def joker(self) -> int | None:
        """The joker card in this meld, or None."""
        for card in self.cards:
            if card % FACES == JOKER:
                return card
        return None

    @property
    def value(self) -> int:
        return meld_value(self.kind, self.cards, self.joker_as)


# -- checking melds ------------------------------------------------------------------


def check_meld(cards: Sequence[int]) -> tuple[str, tuple[int, ...], int | None]:
    """``(kind, ordered cards, joker_as)`` of the meld ``cards`` make, or :class:`MeldError`.

    A run must come ascending, its joker in the place it stands for (``[JK,
    2H, 3H]``: the joker is the ace); a set may come in any order and is
    returned by suit, the joker last.
    """
    cards = tuple(cards)
    if len(cards) < 3:
        raise MeldError(f"a meld needs at least 3 cards, not {len(cards)}")
    if len(set(cards)) != len(cards):
        twice = next(c for c in cards if cards.count(c) > 1)
        raise MeldError(f"{CARD_NAMES[twice]} is listed twice")
    real = [c for c in cards if c % FACES != JOKER]
    if len(real) < len(cards) - 1:
        jokers = ", ".join(names(c for c in cards if c % FACES == JOKER))
        raise MeldError(f"two jokers in one meld ({jokers})")
    rank = real[0] % FACES % 13
    if all(c % FACES % 13 == rank for c in real):
        return SET, _check_set(real, [c for c in cards if c % FACES == JOKER]), None
    suit = real[0] % FACES // 13
    if all(c % FACES // 13 == suit for c in real):
        return RUN, cards, _check_run(cards)
    raise MeldError(f"{', '.join(names(cards))} are neither of one rank (a set) nor of one suit (a run)")


def _check_set(real: list[int], jokers: list[int]) -> tuple[int, ...]:
    """A set's cards by suit, the joker last; ``real`` are of one rank."""
    if len(real) + len(jokers) > 4:
        raise MeldError(f"a set has at most 4 cards, one of each suit, not {len(real) + len(jokers)}")
    seen: dict[int, int] = {}
    for card in real:
        suit = card % FACES // 13
        if suit in seen:
            raise MeldError(
                f"a set needs different suits: {CARD_NAMES[seen[suit]]} and {CARD_NAMES[card]} "
                f"are both {SUIT_NAMES[suit]}"
            )
        seen[suit] = card
    return (*sorted(real, key=lambda c: c % FACES), *jokers)


def _run_start(cards: Sequence[int]) -> int:
    """The position of a run's first card, read from its first real card (an ace
    that is not first is the high ace)."""
    k = 0
    while cards[k] % FACES == JOKER:
        k += 1
    rank = cards[k] % FACES % 13
    if rank == ACE:
        return (0 if k == 0 else 13) - k
    return rank + 1 - k


def _check_run(cards: Sequence[int]) -> int | None:
    """The face the joker stands for in the run ``cards`` (None without joker), or
    :class:`MeldError`. Real cards are of one suit; at most one joker."""
    n = len(cards)
    if n > 13:
        raise MeldError(f"a run has at most 13 cards (the ace is low or high, never both), not {n}")
    start = _run_start(cards)  # never below 0: a joker first stands before a card above the ace
    suit = next(c for c in cards if c % FACES != JOKER) % FACES // 13
    wanted = POSITION_FACE[suit]
    joker_as = None
    for i, card in enumerate(cards):
        position = start + i
        face = card % FACES
        if position > 13:
            if face == JOKER or face % 13 == 0:
                raise MeldError(f"a run cannot wrap from A to 2: {', '.join(names(cards))}")
            raise MeldError(f"{CARD_NAMES[card]} cannot follow {CARD_NAMES[cards[i - 1]]}: the ace ends a run")
        if face == JOKER:
            joker_as = wanted[position]
        elif face != wanted[position]:
            raise MeldError(
                f"{CARD_NAMES[card]} cannot follow {CARD_NAMES[cards[i - 1]]} in a run: "
                "its cards go up one rank at a time, in order"
            )
    return joker_as


def _check_set_cards(cards: Sequence[int]) -> tuple[int, ...]:
    real = [c for c in cards if c % FACES != JOKER]
    rank = real[0] % FACES % 13
    for card in real:
        if card % FACES % 13 != rank:
            raise MeldError(f"{CARD_NAMES[card]} is not of the set's rank ({CARD_NAMES[real[0]]})")
    return _check_set(real, [c for c in cards if c % FACES == JOKER])


def meld_value(kind: str, cards: Sequence[int], joker_as: int | None) -> int:
    """What a meld is worth toward an opening: its faces' values, the joker worth the
    face it stands for (in a set, the set's rank); ace 11 even in ``A 2 3``."""
    if kind == SET:
        real = next(c for c in cards if c % FACES != JOKER)
        return FACE_VALUE[real % FACES] * len(cards)
    total = 0 if joker_as is None else FACE_VALUE[joker_as]
    for card in cards:
        total += FACE_VALUE[card % FACES]  # the joker's entry is 0
    return total


def check_add(meld: TableMeld, cards: Sequence[int], at: str | None) -> TableMeld:
    """``meld`` grown by ``cards`` (ascending) at ``at``, or :class:`MeldError`.

    To a run, ``at`` is ``"low"`` or ``"high"`` and ``cards + run`` or ``run +
    cards`` must be a run (its joker stays where it stands); to a set ``at``
    is None and the whole must be a set.
    """
    cards = tuple(cards)
    if not cards:
        raise MeldError("adds no card")
    if len(set(cards)) != len(cards):
        twice = next(c for c in cards if cards.count(c) > 1)
        raise MeldError(f"{CARD_NAMES[twice]} is listed twice")
    jokers = sum(1 for c in (*meld.cards, *cards) if c % FACES == JOKER)
    if jokers > 1:
        raise MeldError("two jokers in one meld")
    if meld.kind == SET:
        if at is not None:
            raise MeldError(f"adding to a set takes no 'at' (got {at!r})")
        return TableMeld(meld.owner, SET, _check_set_cards(meld.cards + cards), None)
    if at != LOW and at != HIGH:
        raise MeldError(f"adding to a run needs at = 'low' or 'high', not {at!r}")
    suit, lo, hi = run_span(meld)
    if at == LOW and lo == 0:
        raise MeldError("nothing goes below the ace that starts this run")
    if at == HIGH and hi == 13:
        raise MeldError("nothing goes above the ace that ends this run: a run cannot wrap from A to 2")
    grown = cards + meld.cards if at == LOW else meld.cards + cards
    for card in cards:
        if card % FACES != JOKER and card % FACES // 13 != suit:
            raise MeldError(f"{CARD_NAMES[card]} is not of the run's suit ({SUIT_NAMES[suit]})")
    return TableMeld(meld.owner, RUN, grown, _check_run(grown))


def check_swap(meld: TableMeld, card: int) -> TableMeld:
    """``meld`` with ``card`` in the place of its joker, or :class:`MeldError`.

    In a run ``card`` must be the face the joker stands for (either copy); in a
    set only when the set holds 3 real cards and ``card`` is its rank in the
    fourth suit (docs/rules.md: the real card completes all four suits).
    """
    joker = meld.joker
    if joker is None:
        raise MeldError("the meld has no joker")
    face = card % FACES
    if face == JOKER:
        raise MeldError("a joker cannot replace a joker")
    if meld.kind == RUN:
        wanted = meld.joker_as
        assert wanted is not None  # a run's joker stands for a face
        if face != wanted:
            raise MeldError(f"{CARD_NAMES[card]} is not {FACE_NAMES[wanted]}, which the joker stands for")
        return TableMeld(meld.owner, RUN, tuple(card if c == joker else c for c in meld.cards), None)
    real = [c for c in meld.cards if c != joker]
    if len(real) != 3:
        raise MeldError(
            f"a set's joker can be won back only when the set holds 3 real cards and the fourth "
            f"suit completes it; this set holds {len(real)}"
        )
    rank = real[0] % FACES % 13
    missing = ({0, 1, 2, 3} - {c % FACES // 13 for c in real}).pop()
    wanted = missing * 13 + rank
    if face != wanted:
        raise MeldError(f"{CARD_NAMES[card]} is not {FACE_NAMES[wanted]}, the suit the set misses")
    return TableMeld(meld.owner, SET, tuple(sorted((*real, card), key=lambda c: c % FACES)), None)


@lru_cache(maxsize=4096)
def run_span(meld: TableMeld) -> tuple[int, int, int]:
    """(suit, first position, last position) of a table run."""
    start = _run_start(meld.cards)
    suit = next(c for c in meld.cards if c % FACES != JOKER) % FACES // 13
    return suit, start, start + len(meld.cards) - 1


@lru_cache(maxsize=4096)
def swap_face(meld: TableMeld) -> int | None:
    """The face that wins ``meld``'s joker back (see :func:`check_swap`), or None."""
    if meld.joker is None:
        return None
    if meld.kind == RUN:
        return meld.joker_as
    real = [c % FACES for c in meld.cards if c % FACES != JOKER]
    if len(real) != 3:
        return None
    missing = ({0, 1, 2, 3} - {f // 13 for f in real}).pop()
    return missing * 13 + real[0] % 13


@lru_cache(maxsize=4096)
def joker_price(meld: TableMeld) -> tuple[int, ...]:
    """The faces a seat puts down from its hand, in order, to win ``meld``'s joker back.

    A run's joker: the face it stands for. A set of 3 real cards and the joker:
    the missing suit. A set of 2 real cards and the joker: both missing suits,
    the first added (the set then holds 3 real cards) and the second swapped
    in. Empty without a joker.
    """
    if meld.joker is None:
        return ()
    if meld.kind == RUN:
        assert meld.joker_as is not None  # a run's joker stands for a face
        return (meld.joker_as,)
    real = [c % FACES for c in meld.cards if c % FACES != JOKER]
    suits = {f // 13 for f in real}
    return tuple(s * 13 + real[0] % 13 for s in range(4) if s not in suits)


@lru_cache(maxsize=4096)  # asked for every table meld at every turn: melds are few and immutable
def additions(meld: TableMeld) -> tuple[tuple[int, str | None], ...]:
    """The faces that can be added alone to ``meld``, each with its ``at``: a run's
    next face at either end, a set's missing suits; the joker (face 52) where the
    meld has none and a place for one."""
    out: list[tuple[int, str | None]] = []
    has_joker = meld.joker is not None
    if meld.kind == SET:
        if len(meld.cards) < 4:
            real = [c for c in meld.cards if c % FACES != JOKER]
            rank = real[0] % FACES % 13
            suits = {c % FACES // 13 for c in real}
            out = [(s * 13 + rank, None) for s in range(4) if s not in suits]
            if not has_joker:
                out.append((JOKER, None))
        return tuple(out)
    suit, lo, hi = run_span(meld)
    if hi - lo + 2 > 13:  # already 13 cards
        return ()
    if lo > 0:
        out.append((POSITION_FACE[suit][lo - 1], LOW))
        if not has_joker:
            out.append((JOKER, LOW))
    if hi < 13:
        out.append((POSITION_FACE[suit][hi + 1], HIGH))
        if not has_joker:
            out.append((JOKER, HIGH))
    return tuple(out)

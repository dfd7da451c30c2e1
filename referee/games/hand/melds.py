"""Hand's cards and melds as small integers: checks, values and searches (docs/rules.md "## Hand").

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

The searches work on *faces*, since the two copies of a card are
interchangeable: :func:`melds_in` lists every distinct meld of a hand,
:func:`best_opening` finds the most valuable disjoint melds by branch and
bound, and :func:`discard_uses` / :func:`has_discard_use` say how the top
discard could go on the table this turn (a table joker won back first
included), which decides whether the referee offers it at all (so
:func:`has_discard_use` runs at every turn: it stops at the first use, prunes
by value bounds, and looks further only when the hand can pay for a table
joker).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from typing import final

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


# -- the steps of a turn (here because discard_uses returns them) ---------------------


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
    raise MeldError(
        f"{', '.join(names(cards))} are neither of one rank (a set) nor of one suit (a run)"
    )


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
            raise MeldError(
                f"{CARD_NAMES[card]} cannot follow {CARD_NAMES[cards[i - 1]]}: the ace ends a run"
            )
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


# -- every meld of a hand, by faces --------------------------------------------------


def _counts(hand: Iterable[int]) -> tuple[list[int], int]:
    counts = [0] * 52
    jokers = 0
    for card in hand:
        face = card % FACES
        if face == JOKER:
            jokers += 1
        else:
            counts[face] += 1
    return counts, jokers


# A candidate meld: (faces in meld order, value, real faces, uses the joker).
Candidate = tuple[tuple[int, ...], int, tuple[int, ...], bool]


def _candidates(
    counts: Sequence[int],
    jokers: int,
    suits: Iterable[int] = range(4),
    ranks: Iterable[int] = range(13),
) -> list[Candidate]:
    """Every distinct meld the face counts form: runs of ``suits``, sets of ``ranks``.

    A run is a window of 3 to 13 positions, every place held by a real card
    but at most one, which the joker fills; with a joker and a full window, the
    joker may also stand in any one place (each is another meld).
    """
    out: list[Candidate] = []
    spare = 1 if jokers else 0
    for suit in suits:
        held = counts[suit * 13 : suit * 13 + 13]
        if len(held) - held.count(0) < 3 - spare:
            continue  # too few cards of the suit for any run
        row = POSITION_FACE[suit]
        present = [counts[f] for f in row]
        values = POSITION_VALUE[suit]
        for a in range(12):
            if not present[a] and not (spare and present[a + 1]):
                continue  # a window starts on a card, or on the joker before one
            missing = -1
            value = 0
            for b in range(a, min(a + 13, 14)):
                value += values[b]
                if not present[b]:
                    if missing >= 0 or not spare:
                        break
                    missing = b
                if b - a < 2:
                    continue
                window = row[a : b + 1]
                if missing < 0:
                    out.append((window, value, window, False))
                    if spare:
                        for q in range(b - a + 1):
                            faces = window[:q] + (JOKER,) + window[q + 1 :]
                            out.append((faces, value, window[:q] + window[q + 1 :], True))
                else:
                    q = missing - a
                    real = window[:q] + window[q + 1 :]
                    out.append((window[:q] + (JOKER,) + window[q + 1 :], value, real, True))
    for rank in ranks:
        held = [f for f in (rank, rank + 13, rank + 26, rank + 39) if counts[f]]
        if len(held) < 3 - spare:
            continue
        worth = FACE_VALUE[rank]
        for size in (3, 4):
            for real in combinations(held, size):
                out.append((real, worth * size, real, False))
            if spare:
                for real in combinations(held, size - 1):
                    out.append((real + (JOKER,), worth * size, real, True))
    return out


def melds_in(hand: Iterable[int]) -> list[tuple[int, ...]]:
    """Every distinct legal meld formable from ``hand``, as tuples of faces (copies are
    interchangeable): runs ascending with the joker (52) where it stands, sets by
    suit with the joker last. Sorted."""
    counts, jokers = _counts(hand)
    return sorted(faces for faces, _, _, _ in _candidates(counts, jokers))


def assign(
    melds: Iterable[Sequence[int]], hand: Iterable[int], prefer: int | None = None
) -> tuple[tuple[int, ...], ...]:
    """Disjoint melds of faces (as :func:`melds_in` gives them) as melds of ``hand``'s
    cards: of two copies the lower is used first, and ``prefer`` before any."""
    pool: dict[int, list[int]] = {}
    for card in sorted(hand):
        pool.setdefault(card % FACES, []).append(card)
    if prefer is not None:
        same = pool[prefer % FACES]
        same.remove(prefer)
        same.insert(0, prefer)
    return tuple(tuple(pool[f].pop(0) for f in meld) for meld in melds)


# -- the best opening: branch and bound ------------------------------------------------


class _Found(Exception):
    """Raised inside the search to stop at the first solution reaching the target."""


class _Pool:
    """Candidate melds arranged for :func:`_search`: by their lowest real face, the
    most valuable first (so the bound bites sooner). Built once, searched often."""

    __slots__ = ("by_low", "lows", "faces", "wild")

    def __init__(self, cands: list[Candidate]) -> None:
        by_low: dict[int, list[Candidate]] = {}
        for cand in cands:
            by_low.setdefault(min(cand[2]), []).append(cand)
        for group in by_low.values():
            group.sort(key=lambda c: -c[1])
        self.by_low = by_low
        self.lows = sorted(by_low)
        self.faces = sorted({f for c in cands for f in c[2]})  # every face some meld uses
        self.wild = any(c[3] for c in cands)


def _search(
    pool: _Pool,
    counts: list[int],
    jokers: int,
    limit: int,
    must: int | None = None,
    target: int | None = None,
    floor: int = 0,
) -> tuple[int, list[tuple[int, ...]]]:
    """The most valuable multiset of the pool's melds that the face counts (changed
    during the search, restored after) and ``jokers`` can supply at once, using at
    most ``limit`` cards and, if ``must`` is a face (52: the joker), that face.

    Returns ``(value, melds as faces)``; value -1 when ``must`` cannot be met.
    With ``target``, stops at the first solution worth that much, and returns
    value -1 when there is none. With ``floor``, only solutions worth that much
    count (the bound prunes the rest), value -1 when there is none.

    Faces are settled in increasing order: at face f every meld whose lowest
    real face is f is tried (again, while the copies allow), then the rest of f
    is left in hand; so each multiset of melds is met once. Whatever is chosen
    so far is itself a solution (the rest stays in hand). The bound is the
    value so far plus every unsettled card at its face value, a joker at 11.
    """
    by_low = pool.by_low
    order = [f for f in pool.lows if counts[f]]
    useful = [f for f in pool.faces if counts[f]]
    wild_cands = jokers > 0 and pool.wild
    if must is not None and (must not in useful if must != JOKER else not wild_cands):
        return -1, []
    potential = sum(counts[f] * FACE_VALUE[f] for f in useful) + (JOKER_MAX * jokers if wild_cands else 0)
    best_value = -1 if must is not None else 0
    if target is not None:
        floor = target
    if floor > 0:
        best_value = floor - 1
    best: list[tuple[int, ...]] = []
    chosen: list[tuple[int, ...]] = []
    jokers_left = jokers
    n = len(order)

    def visit(i: int, start: int, value: int, used: int, potential: int, done: bool) -> None:
        nonlocal best_value, best, jokers_left
        if value + potential <= best_value:
            return
        if done and value > best_value:
            best_value, best = value, chosen[:]
            if target is not None:
                raise _Found
        if i == n:
            return
        face = order[i]
        count = counts[face]
        if not count:
            visit(i + 1, 0, value, used, potential, done)
            return
        group = by_low[face]
        for k in range(start, len(group)):
            faces, worth, real, wild = group[k]
            size = len(faces)
            if used + size > limit or (wild and not jokers_left):
                continue
            for g in real:
                if not counts[g]:
                    break
            else:
                lost = 0
                for g in real:
                    counts[g] -= 1
                    lost += FACE_VALUE[g]
                if wild:
                    jokers_left -= 1
                    lost += JOKER_MAX
                chosen.append(faces)
                met = done or (wild if must == JOKER else must in real)
                visit(i, k, value + worth, used + size, potential - lost, met)
                chosen.pop()
                if wild:
                    jokers_left += 1
                for g in real:
                    counts[g] += 1
        if face == must and not done:
            return  # leaving every copy of the face that must be used: nothing below
        counts[face] = 0
        visit(i + 1, 0, value, used, potential - count * FACE_VALUE[face], done)
        counts[face] = count

    try:
        visit(0, 0, 0, 0, potential, must is None)
    except _Found:
        pass
    if floor > 0 and best_value < floor:
        return -1, []
    return best_value, best


def best_opening(
    hand: Sequence[int], must_include: int | None = None, keep: int = 1
) -> tuple[int, tuple[tuple[int, ...], ...]]:
    """The most valuable set of disjoint melds from ``hand`` (card ids) that leaves at
    least ``keep`` cards, optionally containing the card ``must_include`` (of the
    hand). Returns ``(value, melds)``, each meld as cards in meld order; ``(0, ())``
    when no melds (containing ``must_include``) can be laid."""
    counts, jokers = _counts(hand)
    must = None if must_include is None else must_include % FACES
    value, melds = _search(_Pool(_candidates(counts, jokers)), counts, jokers, len(hand) - keep, must)
    if value <= 0:
        return 0, ()
    return value, assign(melds, hand, must_include)


# -- the top discard: can it go on the table this turn? -------------------------------


def _melds_with(counts: Sequence[int], jokers: int, face: int) -> bool:
    """Whether ``face`` makes a 3-card meld with two of the counted cards (a joker
    among them at most). Every longer meld holding a card holds such three, so this
    says whether any meld holds it."""
    if face == JOKER:  # two real cards the joker completes
        for rank in range(13):
            if sum(1 for f in (rank, rank + 13, rank + 26, rank + 39) if counts[f]) >= 2:
                return True
        for row in POSITION_FACE:
            last = -3
            for p, f in enumerate(row):
                if counts[f]:
                    if p - last <= 2:
                        return True
                    last = p
        return False
    suit, rank = divmod(face, 13)
    others = sum(1 for s in range(4) if s != suit and counts[s * 13 + rank])
    if others >= 2 or (others and jokers):
        return True
    row = POSITION_FACE[suit]
    for p in (0, 13) if rank == ACE else (rank + 1,):
        m2, m1, p1, p2 = (0 <= q <= 13 and counts[row[q]] > 0 for q in (p - 2, p - 1, p + 1, p + 2))
        if (m1 and (m2 or p1)) or (p1 and p2) or (jokers and (m2 or m1 or p1 or p2)):
            return True
    return False


def _meld_uses(hand: Sequence[int], card: int) -> Iterator[Candidate]:
    """Melds of ``hand`` + ``card`` containing ``card`` that leave a card to discard."""
    counts, jokers = _counts(hand)
    face = card % FACES
    if face == JOKER:
        cands = _candidates(counts, jokers + 1)
    else:
        counts[face] += 1
        cands = _candidates(counts, jokers, (face // 13,), (face % 13,))
    room = len(hand)  # hand + card - meld >= 1
    for cand in cands:
        if len(cand[0]) <= room and (cand[3] if face == JOKER else face in cand[2]):
            yield cand


def _joined(hand: Sequence[int], card: int, table: Sequence[TableMeld]) -> Iterator[Step]:
    """Adds and swaps putting ``card`` on a table meld (with the hand cards that
    bridge a gap to a run, if any), leaving at least one card in hand."""
    face = card % FACES
    for index, meld in enumerate(table):
        for wanted, at in additions(meld):
            if wanted == face:
                yield Add(index, (card,), at)
        if face == swap_face(meld):
            yield Swap(index, card)
    if face == JOKER:
        return  # a joker goes next to any run: it never needs a bridge
    by_face, spare_joker = _by_face(hand)
    suit = face // 13
    for index, meld in enumerate(table):
        if meld.kind == RUN and run_span(meld)[0] == suit:
            for step in _bridges(index, meld, card, by_face, spare_joker):
                if len(step.cards) - 1 < len(hand):
                    yield step


def _by_face(hand: Iterable[int]) -> tuple[dict[int, int], int | None]:
    """The hand's real cards by face and one of its jokers (None without), the lower copy first."""
    by_face: dict[int, int] = {}
    spare_joker = None
    for c in sorted(hand, reverse=True):  # the lower copy wins
        if c % FACES == JOKER:
            spare_joker = c
        else:
            by_face[c % FACES] = c
    return by_face, spare_joker


def _bridges(
    index: int, meld: TableMeld, card: int, by_face: dict[int, int], spare_joker: int | None
) -> Iterator[Add]:
    """Adds of ``card`` to the run ``meld`` beyond the next place at one end, the
    places between filled by hand cards (``by_face``), or all but one of them
    with the hand's joker where the run has none."""
    suit, lo, hi = run_span(meld)
    row = POSITION_FACE[suit]
    rank = card % FACES % 13
    high = 13 if rank == ACE else rank + 1
    low = 0 if rank == ACE else rank + 1
    for position, at in ((high, HIGH), (low, LOW)):
        if at == HIGH:
            gap = range(hi + 1, position)
            size = position - lo + 1
        else:
            gap = range(position + 1, lo)
            size = hi - position + 1
        if not gap or size > 13:
            continue
        fill = [by_face.get(row[p]) for p in gap]
        holes = [i for i, c in enumerate(fill) if c is None]
        if len(holes) == 1 and spare_joker is not None and meld.joker is None:
            fill[holes[0]] = spare_joker
        elif holes:
            continue
        # fill holds no None by now: its one hole took the spare joker, or the run was skipped.
        yield Add(index, (*fill, card) if at == HIGH else (card, *fill), at)  # type: ignore[arg-type]


# -- a joker won back first -------------------------------------------------------------
#
# A seat may first win a table joker back, swapping a hand card for it (after
# adding a set's third suit, when the set holds only 2 real cards), and then use
# the discard with that joker: in a new meld with hand cards, or added with it
# across a gap to a run without a joker (the run just freed of its joker
# included); a discard that is itself a joker can go on the run just freed. One
# joker won back is enough: two jokers never share a meld, and a won joker wins
# no other (only real cards do). A seat that has not opened may swap only once
# the melds it laid this turn reach the opening, without the discard and without
# that joker (it does not hold it yet), and must then lay the discard in a meld.


Route = tuple[int, tuple[int, ...]]  # (table meld index, the faces paid for its joker)


def _winnable(counts: Sequence[int], table: Sequence[TableMeld]) -> list[Route]:
    """The table jokers the counted hand can pay for: the gate of the searches below,
    asked at every turn, so it reads the melds as stored (a run's ``joker_as``, a
    set's joker last) without hashing them."""
    routes: list[Route] = []
    for index, meld in enumerate(table):
        wanted = meld.joker_as
        if wanted is not None:  # a run with a joker: the face it stands for wins it
            if counts[wanted]:
                routes.append((index, (wanted,)))
        elif meld.cards[-1] % FACES == JOKER:  # a set with a joker
            price = joker_price(meld)
            if all(counts[f] for f in price):  # a set's two missing suits are two faces
                routes.append((index, price))
    return routes


# Per face: its bit among a suit's run places (an ace at both 0 and 13) and its suit's bit.
_PLACE_BIT = tuple((2 << f % 13) | (1 if f % 13 == ACE else 0) for f in range(52))
_SUIT_BIT = tuple(1 << f // 13 for f in range(52))
_SUITS_HELD = tuple(bin(m).count("1") for m in range(16))


def _meld_bound(cards: Sequence[int]) -> int:
    """A quick upper bound on what disjoint melds of ``cards`` are worth together: the
    value of every real card that some meld could hold (its rank in enough suits,
    or enough cards of its suit within a window of 3 places around it; one place
    may be empty if a joker is held), and 11 a joker. Refutes most hands without
    listing their melds."""
    places = [0, 0, 0, 0]  # per suit: the run places held
    suits = [0] * 13  # per rank: the suits held
    faces = []
    for card in cards:
        face = card % FACES
        if face != JOKER:
            places[face // 13] |= _PLACE_BIT[face]
            suits[face % 13] |= _SUIT_BIT[face]
            faces.append(face)
    jokers = len(faces) < len(cards)
    inside = []  # per suit: the places in some 3-place window holding enough cards
    for a in places:
        b, c = a >> 1, a >> 2
        starts = (a & b) | (a & c) | (b & c) if jokers else a & b & c
        inside.append(starts | starts << 1 | starts << 2)
    need = 2 if jokers else 3
    total = JOKER_MAX * (len(cards) - len(faces))
    for face in faces:
        if inside[face // 13] & _PLACE_BIT[face] or _SUITS_HELD[suits[face % 13]] >= need:
            total += FACE_VALUE[face]
    return total


def _win(
    hand: Sequence[int], table: Sequence[TableMeld], route: Route
) -> tuple[tuple[Step, ...], list[int], int, list[TableMeld]]:
    """Winning a table joker back by ``route``, paid with the hand's lower copies: the
    steps, the hand's other cards, the joker won and the table after the steps."""
    index, price = route
    rest = sorted(hand)
    paid = []
    for face in price:
        card = next(c for c in rest if c % FACES == face)
        rest.remove(card)
        paid.append(card)
    meld = table[index]
    joker = meld.joker
    assert joker is not None  # the route wins this meld's joker back
    steps: list[Step] = []
    if len(paid) == 2:  # the third suit first: a set's joker is won only beside 3 real cards
        steps.append(Add(index, (paid[0],), None))
        meld = check_add(meld, paid[:1], None)
    steps.append(Swap(index, paid[-1]))
    after = list(table)
    after[index] = check_swap(meld, paid[-1])
    return tuple(steps), rest, joker, after


def _suit_of_run(meld: TableMeld) -> int:
    """A run's suit, from its first real card (of the first two: one joker at most)."""
    first = meld.cards[0] % FACES
    return (first if first != JOKER else meld.cards[1] % FACES) // 13


def _won_uses(
    hand: Sequence[int], card: int, table: Sequence[TableMeld], routes: Sequence[Route]
) -> Iterator[tuple[Step, ...]]:
    """An opened seat's uses of ``card`` with a joker won back first, each keeping a
    card to discard: the steps winning the joker, then the one laying ``card``."""
    face = card % FACES
    counts, _ = _counts(hand)
    suit = face // 13
    runs = face != JOKER and any(m.kind == RUN and _suit_of_run(m) == suit for m in table)
    for route in routes:
        # Quick refusals first: a set freed of its joker is full; a real card needs a
        # card left to meld with it and the joker, or a run of its suit to go on.
        if face == JOKER:
            if table[route[0]].kind != RUN:
                continue
            melds = False
        else:
            left = counts[:]
            for f in route[1]:
                left[f] -= 1
            melds = _melds_with(left, 1, face)
            if not melds and not runs:
                continue
        win, rest, joker, after = _win(hand, table, route)
        held = [*rest, joker]
        if face == JOKER:  # onto the run just freed of its joker
            index = route[0]
            for wanted, at in additions(after[index]):
                if wanted == JOKER:
                    yield (*win, Add(index, (card,), at))
            continue
        if melds:
            whole = [*held, card]
            for faces, _, _, wild in _meld_uses(held, card):
                if wild:
                    yield (*win, Meld(assign((faces,), whole, card)[0]))
        by_face, _ = _by_face(rest)
        for index, meld in enumerate(after):
            if meld.kind == RUN and meld.joker is None and run_span(meld)[0] == suit:
                for step in _bridges(index, meld, card, by_face, joker):
                    if joker in step.cards and len(step.cards) - 1 < len(held):
                        yield (*win, step)


def _won_openings(
    hand: Sequence[int],
    card: int,
    table: Sequence[TableMeld],
    routes: Sequence[Route],
    points: int,
    known: set[tuple[int, ...]],
    shortest: bool = False,
    pool: _Pool | None = None,
) -> Iterator[tuple[Step, ...]]:
    """A seat that has not opened: an opening of hand cards alone worth ``points``,
    then a table joker won back, then ``card`` laid in a meld with that joker, a
    card kept. One use per meld holding ``card`` (by faces) not in ``known``, which
    gains it. With ``shortest`` only 3-card melds are tried: a longer meld holding
    the card and the joker holds three such, which leave more for the opening.
    ``pool``: the melds of ``hand`` + ``card``, if already built (the search's
    counts keep ``card`` out of the opening)."""
    face = card % FACES
    if face == JOKER:
        return  # it shares no meld with the won joker, and melds without one need no swap
    if _meld_bound(hand) < points:
        return  # the usual end: a hand that has not opened rarely holds an opening
    counts, jokers = _counts(hand)
    for route in routes:
        left = counts[:]
        for f in route[1]:
            left[f] -= 1
        if not _melds_with(left, 1, face):
            continue  # no card left to meld with it and the joker
        if pool is None:  # built only now: most positions never get this far
            whole = counts[:]
            whole[face] += 1
            pool = _Pool(_candidates(whole, jokers))
        # An opening with one card more to spare than any meld of card and joker leaves
        # (a bound, quick to refute): else no meld below can be laid.
        room = len(hand) - len(route[1]) - 2
        if _search(pool, left[:], jokers, room, target=points)[0] < points:  # stopped, it restores nothing
            continue
        win, rest, joker, _ = _win(hand, table, route)
        left[face] += 1  # so that taking the meld's real faces out leaves the rest
        for faces, _, real, wild in _meld_uses([*rest, joker], card):
            if not wild or faces in known or (shortest and len(faces) > 3):
                continue
            for g in real:
                left[g] -= 1
            room = len(rest) - (len(faces) - 2) - 1  # the opening's cards, one card kept
            value, melds = _search(pool, left[:], jokers, room, target=points)
            for g in real:
                left[g] += 1
            if value < points:
                continue
            known.add(faces)
            opening = assign(melds, rest)
            used = {c for m in opening for c in m}
            spare = [c for c in rest if c not in used]
            laid = assign((faces,), [*spare, joker, card], card)[0]
            yield (*(Meld(m) for m in opening), *win, Meld(laid))


def _placed(step: Step) -> tuple[object, ...]:
    """What a use's last step lays, by faces (copies are interchangeable)."""
    if type(step) is Meld:
        return (Meld, tuple(c % FACES for c in step.cards))
    if type(step) is Add:
        return (Add, step.meld, tuple(c % FACES for c in step.cards), step.at)
    return (Swap, step.meld)


# -- the top discard: its uses, and whether it has one ----------------------------------


def discard_uses(
    hand: Sequence[int],
    card: int,
    table: Sequence[TableMeld],
    opened: bool,
    opening_points: int,
) -> tuple[tuple[Step, ...], ...]:
    """Every legal use of ``card`` (the top discard, not in ``hand``) this turn, as step tuples.

    An opened seat: each distinct meld (by faces) of hand cards with ``card``,
    each Add of ``card`` to a table meld at either end (with the hand cards
    that bridge a gap, if needed), each Swap of a table joker for it; then each
    other meld or addition that a table joker won back first makes possible
    (the swap, after adding a set's third suit if needed, then the step).
    A seat that has not opened: for each distinct meld containing ``card`` that
    can be part of an opening worth ``opening_points``, that meld followed by
    the most valuable melds of what is left; then each other meld holding
    ``card`` and a table joker, laid after an opening of hand cards alone and
    the joker's swap. Every use leaves a card to discard, and every use is a
    step tuple :meth:`HandState.apply` accepts (with a discard). Empty when
    there is none.
    """
    whole = [*hand, card]
    uses: list[tuple[Step, ...]] = []
    if opened:
        for cand in _meld_uses(hand, card):
            uses.append((Meld(assign((cand[0],), whole, card)[0]),))
        uses.extend((step,) for step in _joined(hand, card, table))
        routes = _winnable(_counts(hand)[0], table)
        if routes:
            seen = {_placed(use[-1]) for use in uses}
            for use in _won_uses(hand, card, table, routes):
                key = _placed(use[-1])
                if key not in seen:
                    seen.add(key)
                    uses.append(use)
        return tuple(uses)
    counts, jokers = _counts(whole)
    pool = _Pool(_candidates(counts, jokers))
    laid: set[tuple[int, ...]] = set()
    for cand in _meld_uses(hand, card):
        faces, worth, real, wild = cand
        for g in real:
            counts[g] -= 1
        rest = jokers - wild
        # The best completion, if the meld needs one to reach the opening's points.
        value, more = _search(pool, counts, rest, len(whole) - len(faces) - 1, floor=opening_points - worth)
        for g in real:
            counts[g] += 1
        if value >= 0:
            laid.add(faces)
            melds = assign((faces, *more), whole, card)
            uses.append(tuple(Meld(m) for m in melds))
    routes = _winnable(_counts(hand)[0], table)
    if routes:
        uses.extend(_won_openings(hand, card, table, routes, opening_points, laid, pool=pool))
    return tuple(uses)


def has_discard_use(
    hand: Sequence[int],
    card: int,
    table: Sequence[TableMeld],
    opened: bool,
    opening_points: int,
) -> bool:
    """Whether :func:`discard_uses` would find a use: the referee's question before
    offering the discard, asked at every turn, so it stops at the first use and
    looks for a joker won back only when the table holds one the hand can pay for."""
    face = card % FACES
    counts, jokers = _counts(hand)
    if opened:
        for _ in _joined(hand, card, table):
            return True
        if len(hand) >= 3 and _melds_with(counts, jokers, face):  # a 3-card meld leaves one
            return True
        routes = _winnable(counts, table)
        return bool(routes) and next(_won_uses(hand, card, table, routes), None) is not None
    near = _melds_with(counts, jokers, face)  # some meld of hand cards could hold it
    pool = None
    if near:
        whole = counts[:]
        if face == JOKER:
            held = jokers + 1
        else:
            held = jokers
            whole[face] += 1
        pool = _Pool(_candidates(whole, held))
        value, _ = _search(pool, whole, held, len(hand), face, opening_points)
        if value >= opening_points:
            return True
    # The common case ends here: no table joker the hand can pay for, or no card of
    # the hand to make a meld with the discard and a joker.
    if face == JOKER or (jokers and not near):
        return False
    routes = _winnable(counts, table)
    if not routes or not (near or _melds_with(counts, 1, face)):
        return False
    uses = _won_openings(hand, card, table, routes, opening_points, set(), True, pool)
    return next(uses, None) is not None

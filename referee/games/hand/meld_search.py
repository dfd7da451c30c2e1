"""Finding Hand's melds in a hand: every meld, and the most valuable disjoint ones (docs/rules.md "## Hand").

The searches work on *faces*, since the two copies of a card are
interchangeable (a hand is read as :func:`face_counts`): :func:`melds_in`
lists every distinct meld of a hand, and :func:`best_opening` finds the most
valuable disjoint melds by branch and bound (:func:`best_melds`, which the
discard's searches share). :func:`assign` turns melds of faces back into a
hand's cards. What makes a meld is :mod:`~waraq.referee.games.hand.melds`'s
call; these only list what its rules allow.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import combinations

from waraq.referee.games.hand.melds import FACE_VALUE, FACES, JOKER, JOKER_MAX, POSITION_FACE, POSITION_VALUE

# -- every meld of a hand, by faces --------------------------------------------------


def face_counts(hand: Iterable[int]) -> tuple[list[int], int]:
    """How many of each real face ``hand`` holds, and how many jokers."""
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


def candidates(
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
    counts, jokers = face_counts(hand)
    return sorted(faces for faces, _, _, _ in candidates(counts, jokers))


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


class MeldPool:
    """Candidate melds arranged for :func:`best_melds`: by their lowest real face, the
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


def best_melds(
    pool: MeldPool,
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
    useful = [f for f in pool.faces if counts[f]]
    wild_cands = jokers > 0 and pool.wild
    if must is not None and (must not in useful if must != JOKER else not wild_cands):
        return -1, []
    potential = sum(counts[f] * FACE_VALUE[f] for f in useful) + (JOKER_MAX * jokers if wild_cands else 0)
    if target is not None:
        floor = target
    search = _Search(pool, counts, jokers, limit, must, target, floor)
    try:
        search.visit(0, 0, 0, 0, potential, must is None)
    except _Found:
        pass
    if floor > 0 and search.best_value < floor:
        return -1, []
    return search.best_value, search.best


class _Search:
    """One run of :func:`best_melds`: the faces to settle, the melds chosen on the way
    and the best solution so far (see its docstring for the order and the bound)."""

    __slots__ = (
        "by_low",
        "order",
        "n",
        "counts",
        "jokers_left",
        "limit",
        "must",
        "target",
        "best_value",
        "best",
        "chosen",
    )

    def __init__(
        self,
        pool: MeldPool,
        counts: list[int],
        jokers: int,
        limit: int,
        must: int | None,
        target: int | None,
        floor: int,
    ) -> None:
        self.by_low = pool.by_low
        self.order = [f for f in pool.lows if counts[f]]
        self.n = len(self.order)
        self.counts = counts
        self.jokers_left = jokers
        self.limit = limit
        self.must = must
        self.target = target
        # A solution must beat this: nothing yet, or just under the floor.
        self.best_value = floor - 1 if floor > 0 else -1 if must is not None else 0
        self.best: list[tuple[int, ...]] = []
        self.chosen: list[tuple[int, ...]] = []

    def visit(self, i: int, start: int, value: int, used: int, potential: int, done: bool) -> None:
        """Settle face ``order[i]``: lay each meld that starts at it (from the ``start``-th of
        its group), then leave the rest of it in hand and go on to the next face."""
        if value + potential <= self.best_value:
            return
        if done and value > self.best_value:
            self._found(value)
        if i == self.n:
            return
        face = self.order[i]
        counts = self.counts
        count = counts[face]
        if not count:
            self.visit(i + 1, 0, value, used, potential, done)
            return
        self._lay_melds_at(i, face, start, value, used, potential, done)
        if face == self.must and not done:
            return  # leaving every copy of the face that must be used: nothing below
        counts[face] = 0
        self.visit(i + 1, 0, value, used, potential - count * FACE_VALUE[face], done)
        counts[face] = count

    def _lay_melds_at(self, i: int, face: int, start: int, value: int, used: int, potential: int, done: bool) -> None:
        """Each meld whose lowest real face is ``face`` that the counts still supply: take its
        cards, search on from the same face, give them back."""
        counts, chosen, limit, must = self.counts, self.chosen, self.limit, self.must
        group = self.by_low[face]
        for k in range(start, len(group)):
            faces, worth, real, wild = group[k]
            size = len(faces)
            if used + size > limit or (wild and not self.jokers_left):
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
                    self.jokers_left -= 1
                    lost += JOKER_MAX
                chosen.append(faces)
                met = done or (wild if must == JOKER else must in real)
                self.visit(i, k, value + worth, used + size, potential - lost, met)
                chosen.pop()
                if wild:
                    self.jokers_left += 1
                for g in real:
                    counts[g] += 1

    def _found(self, value: int) -> None:
        """Keep the melds chosen so far as the best; stop here if they reach the target."""
        self.best_value, self.best = value, self.chosen[:]
        if self.target is not None:
            raise _Found


def best_opening(
    hand: Sequence[int], must_include: int | None = None, keep: int = 1
) -> tuple[int, tuple[tuple[int, ...], ...]]:
    """The most valuable set of disjoint melds from ``hand`` (card ids) that leaves at
    least ``keep`` cards, optionally containing the card ``must_include`` (of the
    hand). Returns ``(value, melds)``, each meld as cards in meld order; ``(0, ())``
    when no melds (containing ``must_include``) can be laid."""
    counts, jokers = face_counts(hand)
    must = None if must_include is None else must_include % FACES
    value, melds = best_melds(MeldPool(candidates(counts, jokers)), counts, jokers, len(hand) - keep, must)
    if value <= 0:
        return 0, ()
    return value, assign(melds, hand, must_include)

"""Where one card can go this turn: into a new meld with hand cards, or onto a table meld.

The top discard's searches (:mod:`~waraq.referee.games.hand.discard`, and
:mod:`~waraq.referee.games.hand.won_joker` after a joker is won back) ask
these: :func:`melds_with` whether any meld of the hand could hold the card
(a quick gate, asked at every turn), :func:`meld_uses` which melds do, and
:func:`onto_table` which additions and swaps put it on a table meld,
:func:`bridges` included (hand cards filling the gap between a run's end
and the card). Each keeps a card in hand to discard.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from waraq.referee.games.hand.meld_search import Candidate, candidates, face_counts
from waraq.referee.games.hand.melds import (
    ACE,
    FACES,
    HIGH,
    JOKER,
    LOW,
    POSITION_FACE,
    RUN,
    Add,
    Step,
    Swap,
    TableMeld,
    additions,
    run_span,
    swap_face,
)


def melds_with(counts: Sequence[int], jokers: int, face: int) -> bool:
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


def meld_uses(hand: Sequence[int], card: int) -> Iterator[Candidate]:
    """Melds of ``hand`` + ``card`` containing ``card`` that leave a card to discard."""
    counts, jokers = face_counts(hand)
    face = card % FACES
    if face == JOKER:
        cands = candidates(counts, jokers + 1)
    else:
        counts[face] += 1
        cands = candidates(counts, jokers, (face // 13,), (face % 13,))
    room = len(hand)  # hand + card - meld >= 1
    for cand in cands:
        if len(cand[0]) <= room and (cand[3] if face == JOKER else face in cand[2]):
            yield cand


def onto_table(hand: Sequence[int], card: int, table: Sequence[TableMeld]) -> Iterator[Step]:
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
    by_face, spare_joker = cards_by_face(hand)
    suit = face // 13
    for index, meld in enumerate(table):
        if meld.kind == RUN and run_span(meld)[0] == suit:
            for step in bridges(index, meld, card, by_face, spare_joker):
                if len(step.cards) - 1 < len(hand):
                    yield step


def cards_by_face(hand: Iterable[int]) -> tuple[dict[int, int], int | None]:
    """The hand's real cards by face and one of its jokers (None without), the lower copy first."""
    by_face: dict[int, int] = {}
    spare_joker = None
    for c in sorted(hand, reverse=True):  # the lower copy wins
        if c % FACES == JOKER:
            spare_joker = c
        else:
            by_face[c % FACES] = c
    return by_face, spare_joker


def bridges(index: int, meld: TableMeld, card: int, by_face: dict[int, int], spare_joker: int | None) -> Iterator[Add]:
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

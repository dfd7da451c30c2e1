"""The top discard: may the seat take it, and how could it lay it (docs/rules.md "## Hand").

:func:`discard_uses` and :func:`has_discard_use` say how the top discard
could go on the table this turn (a table joker won back first included,
:mod:`~waraq.referee.games.hand.won_joker`), which decides whether the
referee offers it at all. So :func:`has_discard_use` runs at every turn: it
stops at the first use, prunes by value bounds, and looks further only when
the hand can pay for a table joker.
"""

from __future__ import annotations

from collections.abc import Sequence

from waraq.referee.games.hand.meld_search import MeldPool, assign, best_melds, candidates, face_counts
from waraq.referee.games.hand.melds import FACES, JOKER, Add, Meld, Step, Swap, TableMeld
from waraq.referee.games.hand.placing import meld_uses, melds_with, onto_table
from waraq.referee.games.hand.won_joker import winnable, won_openings, won_uses


def _placed(step: Step) -> tuple[object, ...]:
    """What a use's last step lays, by faces (copies are interchangeable)."""
    if type(step) is Meld:
        return (Meld, tuple(c % FACES for c in step.cards))
    if type(step) is Add:
        return (Add, step.meld, tuple(c % FACES for c in step.cards), step.at)
    return (Swap, step.meld)


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
    step tuple :meth:`~waraq.referee.games.hand.engine.HandState.apply` accepts (with a discard). Empty when
    there is none.
    """
    whole = [*hand, card]
    uses: list[tuple[Step, ...]] = []
    if opened:
        for cand in meld_uses(hand, card):
            uses.append((Meld(assign((cand[0],), whole, card)[0]),))
        uses.extend((step,) for step in onto_table(hand, card, table))
        routes = winnable(face_counts(hand)[0], table)
        if routes:
            seen = {_placed(use[-1]) for use in uses}
            for use in won_uses(hand, card, table, routes):
                key = _placed(use[-1])
                if key not in seen:
                    seen.add(key)
                    uses.append(use)
        return tuple(uses)
    counts, jokers = face_counts(whole)
    pool = MeldPool(candidates(counts, jokers))
    laid: set[tuple[int, ...]] = set()
    for cand in meld_uses(hand, card):
        faces, worth, real, wild = cand
        for g in real:
            counts[g] -= 1
        rest = jokers - wild
        # The best completion, if the meld needs one to reach the opening's points.
        value, more = best_melds(pool, counts, rest, len(whole) - len(faces) - 1, floor=opening_points - worth)
        for g in real:
            counts[g] += 1
        if value >= 0:
            laid.add(faces)
            melds = assign((faces, *more), whole, card)
            uses.append(tuple(Meld(m) for m in melds))
    routes = winnable(face_counts(hand)[0], table)
    if routes:
        uses.extend(won_openings(hand, card, table, routes, opening_points, laid, pool=pool))
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
    counts, jokers = face_counts(hand)
    if opened:
        for _ in onto_table(hand, card, table):
            return True
        if len(hand) >= 3 and melds_with(counts, jokers, face):  # a 3-card meld leaves one
            return True
        routes = winnable(counts, table)
        return bool(routes) and next(won_uses(hand, card, table, routes), None) is not None
    near = melds_with(counts, jokers, face)  # some meld of hand cards could hold it
    pool = None
    if near:
        whole = counts[:]
        if face == JOKER:
            held = jokers + 1
        else:
            held = jokers
            whole[face] += 1
        pool = MeldPool(candidates(whole, held))
        value, _ = best_melds(pool, whole, held, len(hand), face, opening_points)
        if value >= opening_points:
            return True
    # The common case ends here: no table joker the hand can pay for, or no card of
    # the hand to make a meld with the discard and a joker.
    if face == JOKER or (jokers and not near):
        return False
    routes = winnable(counts, table)
    if not routes or not (near or melds_with(counts, 1, face)):
        return False
    uses = won_openings(hand, card, table, routes, opening_points, set(), True, pool)
    return next(uses, None) is not None

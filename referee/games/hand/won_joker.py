"""The top discard used with a table joker won back first (docs/rules.md "## Hand", joker swaps).

A seat may first win a table joker back, swapping a hand card for it (after
adding a set's third suit, when the set holds only 2 real cards), and then use
the discard with that joker: in a new meld with hand cards, or added with it
across a gap to a run without a joker (the run just freed of its joker
included); a discard that is itself a joker can go on the run just freed. One
joker won back is enough: two jokers never share a meld, and a won joker wins
no other (only real cards do). A seat that has not opened may swap only once
the melds it laid this turn reach the opening, without the discard and without
that joker (it does not hold it yet), and must then lay the discard in a meld.

:mod:`~waraq.referee.games.hand.discard` asks :func:`winnable` first, at every
turn, and the searches here (:func:`won_uses` for a seat that has opened,
:func:`won_openings` for one that has not) only when the hand can pay for a
table joker.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from waraq.referee.games.hand.meld_search import MeldPool, assign, best_melds, candidates, face_counts
from waraq.referee.games.hand.melds import (
    ACE,
    FACE_VALUE,
    FACES,
    JOKER,
    JOKER_MAX,
    RUN,
    Add,
    Meld,
    Step,
    Swap,
    TableMeld,
    additions,
    check_add,
    check_swap,
    joker_price,
    run_span,
)
from waraq.referee.games.hand.placing import bridges, cards_by_face, meld_uses, melds_with

Route = tuple[int, tuple[int, ...]]  # (table meld index, the faces paid for its joker)


def winnable(counts: Sequence[int], table: Sequence[TableMeld]) -> list[Route]:
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


def meld_bound(cards: Sequence[int]) -> int:
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


def won_uses(
    hand: Sequence[int], card: int, table: Sequence[TableMeld], routes: Sequence[Route]
) -> Iterator[tuple[Step, ...]]:
    """An opened seat's uses of ``card`` with a joker won back first, each keeping a
    card to discard: the steps winning the joker, then the one laying ``card``."""
    face = card % FACES
    counts, _ = face_counts(hand)
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
            melds = melds_with(left, 1, face)
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
            for faces, _, _, wild in meld_uses(held, card):
                if wild:
                    yield (*win, Meld(assign((faces,), whole, card)[0]))
        by_face, _ = cards_by_face(rest)
        for index, meld in enumerate(after):
            if meld.kind == RUN and meld.joker is None and run_span(meld)[0] == suit:
                for step in bridges(index, meld, card, by_face, joker):
                    if joker in step.cards and len(step.cards) - 1 < len(held):
                        yield (*win, step)


def won_openings(
    hand: Sequence[int],
    card: int,
    table: Sequence[TableMeld],
    routes: Sequence[Route],
    points: int,
    known: set[tuple[int, ...]],
    shortest: bool = False,
    pool: MeldPool | None = None,
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
    if meld_bound(hand) < points:
        return  # the usual end: a hand that has not opened rarely holds an opening
    counts, jokers = face_counts(hand)
    for route in routes:
        left = counts[:]
        for f in route[1]:
            left[f] -= 1
        if not melds_with(left, 1, face):
            continue  # no card left to meld with it and the joker
        if pool is None:  # built only now: most positions never get this far
            whole = counts[:]
            whole[face] += 1
            pool = MeldPool(candidates(whole, jokers))
        # An opening with one card more to spare than any meld of card and joker leaves
        # (a bound, quick to refute): else no meld below can be laid.
        room = len(hand) - len(route[1]) - 2
        if best_melds(pool, left[:], jokers, room, target=points)[0] < points:  # stopped, it restores nothing
            continue
        win, rest, joker, _ = _win(hand, table, route)
        left[face] += 1  # so that taking the meld's real faces out leaves the rest
        for faces, _, real, wild in meld_uses([*rest, joker], card):
            if not wild or faces in known or (shortest and len(faces) > 3):
                continue
            for g in real:
                left[g] -= 1
            room = len(rest) - (len(faces) - 2) - 1  # the opening's cards, one card kept
            value, melds = best_melds(pool, left[:], jokers, room, target=points)
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

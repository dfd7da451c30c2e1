"""The top discard's uses that need a table joker won back first (docs/rules.md "## Hand":
"Taking the discard is legal only if that card is laid down in a meld or added to a
meld in the same turn ... The referee offers the discard only when such a use
exists"; "Joker swap"; hand_spec "Turns and decisions").

A seat may swap a hand card for a table joker and then put the discard X on the
table with that joker. The referee must see these uses too: offer TAKE, and list
them in the seat's view (``uses``) once it took X. Each hand-worked case checks
that TAKE is offered, that the uses listed are the ones worked out by hand and
that the engine's checked ``apply`` accepts them, and that without the card that
wins the joker TAKE is not offered. Then a brute force over small random
positions: every sequence of Meld/Add/Swap steps (up to 4) judged by the engine's
own ``apply`` on a clone agrees with ``has_discard_use``, and every use
``discard_uses`` lists is accepted.

Deals are for 2 players, seat 0 first, its melds (with the joker) on the table.
For an opened seat 1: seat 0 lays and discards 2S; seat 1 draws 7S#1, opens with
Q Q Q Q and J J J J (#1, 80: full sets, where no joker fits) and discards 7S#1;
seat 0 draws X and discards it. For a seat 1 not opened, seat 0 discards X at once.
"""

from __future__ import annotations

import random
from itertools import combinations, permutations

import pytest

from tests.support import hand_melds_reference as ref
from tests.support.hand_setup import card, cards, deal, loose, meld, rules, turn
from waraq.referee.games.hand.decisions import DISCARD_PILE, STOCK, TAKE, TURN, Turn
from waraq.referee.games.hand.discard import discard_uses, has_discard_use
from waraq.referee.games.hand.engine import HandState, IllegalAction
from waraq.referee.games.hand.meld_search import best_opening
from waraq.referee.games.hand.melds import (
    HIGH,
    LOW,
    RUN,
    Add,
    Meld,
    MeldError,
    Swap,
    TableMeld,
    check_add,
    check_meld,
    check_swap,
    meld_value,
)
from waraq.referee.games.hand.won_joker import meld_bound

TWO = rules(players=2, rounds=1)

RUN_TABLE = "5H 6H JK 8H | KS KH KD KC"  # the joker stands for 7H; 26 + 40 = 66
SET_TABLE = "9S 9H 9D JK | KS KH KD KC"  # 9C wins the joker; 36 + 40 = 76
TWO_REAL = "KS KH JK | AS AH AD AC"  # KD added, then KC wins the joker; 30 + 44 = 74
EXTRAS = "2S 2D 3D 5D 7D 10C 4S 6S"  # seat 0's other cards, 2S first (discarded)
OPENING_1 = "QS#1 QH#1 QD#1 QC#1 | JS#1 JH#1 JD#1 JC#1"


def melds_of(text: str) -> list[str]:
    return [m.strip() for m in text.split("|")]


def seat_0(table: str, extras: str) -> str:
    laid = table.replace("|", " ").split()
    return " ".join(laid + extras.split()[: 15 - len(laid)])


def answer_stock(state: HandState) -> None:
    """A TAKE that does not matter here is answered ``stock``."""
    if state.kind == TAKE:
        state.apply(STOCK)


def opened_seat(table: str, x: str, rest: str) -> HandState:
    """Seat 1 opened, holding ``rest`` (6 cards), seat 0's ``x`` on top of the pile."""
    hands = [seat_0(table, EXTRAS), OPENING_1.replace("|", " ") + " " + rest]
    state = deal(TWO, 0, hands, stock=f"7S#1 {x} 2H#1")
    state.apply(turn(*map(meld, melds_of(table)), discard="2S"))
    answer_stock(state)
    state.apply(turn(*map(meld, melds_of(OPENING_1)), discard="7S#1"))
    answer_stock(state)
    assert state.drawn == card(x)
    state.apply(turn(discard=x))
    assert state.opened == [True, True] and state.to_act == 1
    assert sorted(c for c in state.hands[1] if c != state.drawn) == sorted(cards(rest))
    return state


def not_offered(state: HandState) -> None:
    """No use: the referee draws for the seat (the stock's next card, 2H#1)."""
    assert (state.kind, state.to_act, state.drawn) == (TURN, 1, card("2H#1"))


def taken(state: HandState) -> set[tuple]:
    assert (state.kind, state.to_act) == (TAKE, 1)
    state.apply(DISCARD_PILE)
    return set(state.uses())


def steps(*steps_) -> tuple:
    return tuple(steps_)


def accepted(state: HandState, use: tuple, discard: str) -> HandState:
    after = state.clone()
    after.apply(Turn(use, card(discard)))
    return after


# -- an opened seat ---------------------------------------------------------------------

# Seat 1 keeps 7H#1 3C#1 2S#1 8S#1 6D#1 10D#1. Seat 0 discards 4C: no meld of seat 1's
# cards holds it (3C and 4C want a 2C, 5C or a joker; no other 4), no table meld takes
# it (hearts, full sets). But 7H#1 wins the run's joker (it stands for 7H), and then
# JK 3C 4C (the joker as 2C) or 3C 4C JK (as 5C) is a meld; 4 cards are kept.
KEEPS = "7H#1 3C#1 2S#1 8S#1 6D#1 10D#1"
NO_WINNER = KEEPS.replace("7H#1", "5S#1")  # nothing to win a joker with (no 7H, no 9C)


def test_a_run_joker_won_back_melds_the_discard():
    state = opened_seat(RUN_TABLE, "4C", KEEPS)
    win = Swap(0, card("7H#1"))
    assert taken(state) == {
        steps(win, meld("JK 3C#1 4C")),
        steps(win, meld("3C#1 4C JK")),
    }
    after = accepted(state, steps(win, meld("3C#1 4C JK")), discard="2S#1")
    assert after.table[0].cards == tuple(cards("5H 6H 7H#1 8H"))
    assert after.table[-1].cards == tuple(cards("3C#1 4C JK"))
    assert sorted(after.hands[1]) == sorted(cards("8S#1 6D#1 10D#1"))


def test_without_the_card_that_wins_the_joker_the_discard_is_not_offered():
    not_offered(opened_seat(RUN_TABLE, "4C", NO_WINNER))


def test_a_run_joker_won_back_bridges_the_discard_to_the_run_it_left():
    # 10H: the run 5H 6H JK 8H cannot take it (9H is missing, and a run holds one
    # joker), nor can seat 1's cards (10D#1 wants a third ten). With 7H#1 in its place
    # the joker stands for the 9H: 5H 6H 7H 8H JK 10H; or it makes 10H 10D#1 JK.
    state = opened_seat(RUN_TABLE, "10H", KEEPS)
    assert taken(state) == {
        steps(Swap(0, card("7H#1")), Add(0, tuple(cards("JK 10H")), HIGH)),
        steps(Swap(0, card("7H#1")), meld("10H 10D#1 JK")),
    }
    after = accepted(state, steps(Swap(0, card("7H#1")), Add(0, tuple(cards("JK 10H")), HIGH)), "3C#1")
    assert after.table[0].cards == tuple(cards("5H 6H 7H#1 8H JK 10H"))
    assert after.table[0].joker_as == card("9H")
    not_offered(opened_seat(RUN_TABLE, "10H", NO_WINNER))


def test_a_joker_discarded_goes_on_the_run_just_freed_of_its_joker():
    # JK#1: no two of seat 1's cards meld with a joker, every table meld holds a joker
    # or is a full set. With 7H#1 swapped in, the run takes it at either end (4H, 9H).
    state = opened_seat(RUN_TABLE, "JK#1", KEEPS)
    win = Swap(0, card("7H#1"))
    joker = (card("JK#1"),)
    assert taken(state) == {steps(win, Add(0, joker, LOW)), steps(win, Add(0, joker, HIGH))}
    after = accepted(state, steps(win, Add(0, joker, LOW)), "JK")
    assert after.table[0].cards == tuple(cards("JK#1 5H 6H 7H#1 8H"))
    not_offered(opened_seat(RUN_TABLE, "JK#1", NO_WINNER))


def test_a_set_joker_won_back_by_the_fourth_suit():
    # 9S 9H 9D JK: 9C#1 completes the four suits and wins the joker (docs/rules.md).
    keeps = KEEPS.replace("7H#1", "9C#1")
    state = opened_seat(SET_TABLE, "4C", keeps)
    win = Swap(0, card("9C#1"))
    assert taken(state) == {steps(win, meld("JK 3C#1 4C")), steps(win, meld("3C#1 4C JK"))}
    after = accepted(state, steps(win, meld("JK 3C#1 4C")), "2S#1")
    assert sorted(after.table[0].cards) == sorted(cards("9S 9H 9D 9C#1"))
    not_offered(opened_seat(SET_TABLE, "4C", NO_WINNER))


@pytest.mark.parametrize("missing", ["", "KD#1", "KC#1"])
def test_a_set_of_two_real_cards_adds_the_third_suit_then_swaps_the_fourth(missing):
    # KS KH JK: KD#1 added makes KS KH KD#1 JK, then KC#1 completes the suits and wins
    # the joker; 3C 4C JK then keeps 3 cards. With one of the two kings only, no use.
    keeps = "KD#1 KC#1 3C#1 2S#1 8S#1 6D#1"
    if missing:
        not_offered(opened_seat(TWO_REAL, "4C", keeps.replace(missing, "5S#1")))
        return
    state = opened_seat(TWO_REAL, "4C", keeps)
    win = (Add(0, (card("KD#1"),), None), Swap(0, card("KC#1")))
    assert taken(state) == {(*win, meld("JK 3C#1 4C")), (*win, meld("3C#1 4C JK"))}
    after = accepted(state, (*win, meld("3C#1 4C JK")), "6D#1")
    assert sorted(after.table[0].cards) == sorted(cards("KS KH KD#1 KC#1"))
    assert sorted(after.hands[1]) == sorted(cards("2S#1 8S#1"))


# -- a seat that has not opened -------------------------------------------------------

# Seat 1 holds QS QH QD QC (40) and JS JH JD (30) #1, then 7H#1 or KD#1 KC#1 (what wins
# the joker), 3C#1 and fillers. Seat 0 lays its melds and discards 4C at once. Seat 1
# opens with 70 without the 4C (and without the joker, which it does not hold yet),
# then may swap, then lay 3C 4C JK: a meld it lays, as the taken discard must be.
JACKS = "JS#1 JH#1 JD#1"


def unopened_seat(table: str, winner: str, jacks: str = JACKS) -> HandState:
    hand = f"QS#1 QH#1 QD#1 QC#1 {jacks} 3C#1 2S#1 8S#1 6D#1 10D#1 {winner}".split()
    hand += ["5S#1", "9D#1"][: 14 - len(hand)]
    state = deal(TWO, 0, [seat_0(table, "4C " + EXTRAS), " ".join(hand)], stock="2H#1")
    state.apply(turn(*map(meld, melds_of(table)), discard="4C"))
    assert state.opened == [True, False]
    return state


def kept(state: HandState, use: tuple) -> list[int]:
    """Seat 1's cards left after the steps of ``use`` (a swap brings the joker in)."""
    hand = list(state.hands[1])
    for step in use:
        if type(step) is Swap:  # of a meld on the table before the turn: its joker is as it was
            hand.remove(step.card)
            hand.append(state.table[step.meld].joker)
            continue
        for c in step.cards:
            hand.remove(c)
    return hand


@pytest.mark.parametrize(
    "table, winner, win",
    [
        (RUN_TABLE, "7H#1", (Swap(0, card("7H#1")),)),
        (TWO_REAL, "KD#1 KC#1", (Add(0, (card("KD#1"),), None), Swap(0, card("KC#1")))),
    ],
)
def test_an_unopened_seat_opens_then_wins_the_joker_for_the_discard(table, winner, win):
    state = unopened_seat(table, winner)
    uses = taken(state)
    # One use per meld holding 4C and the joker: an opening of hand cards worth 51 or
    # more, not holding 4C, then the joker won back, then the meld.
    assert {use[-1] for use in uses} == {meld("JK 3C#1 4C"), meld("3C#1 4C JK")}
    for use in uses:
        opening = use[: -1 - len(win)]
        assert use[-1 - len(win) : -1] == win
        assert all(type(s) is Meld and card("4C") not in s.cards for s in opening)
        assert sum(meld_value(*check_meld(s.cards)) for s in opening) >= 51
        after = state.clone()
        after.apply(Turn(use, kept(state, use)[0]))
        assert after.opened == [True, True]
        assert any(card("4C") in m.cards and card("JK") in m.cards for m in after.table)


@pytest.mark.parametrize("table, winner, instead", [(RUN_TABLE, "7H#1", "5H#1"), (TWO_REAL, "KD#1 KC#1", "5H#1 9H#1")])
def test_an_unopened_seat_cannot_count_the_discard_or_the_joker_toward_the_swap(table, winner, instead):
    # 2D 3D 4D (9) for the jacks: the queens make 49 at most without the 4C; 3C 4C JK
    # would bring the melds to 58 or more, but the joker is won only after the opening.
    not_offered(unopened_seat(table, winner, jacks="2D#1 3D#1 4D#1"))
    # With the jacks but without the card(s) that win the joker, no use either.
    not_offered(unopened_seat(table, instead))


# -- brute force: every short turn, judged by the engine's apply ---------------------------
#
# A position: seat 1 to play its TURN holding ``hand`` and the taken discard X, the
# table of seat 0's melds. The search tries every sequence of up to DEPTH steps:
# each meld of hand cards (every order check_meld accepts), each addition of 1 to 3
# hand cards to a table meld (every order and end check_add accepts), each swap;
# where X has left the hand, the whole turn goes to ``apply`` on a clone, which
# alone says whether it is legal. Two rules only prune: a seat not opened may not
# add or swap (the search tracks the opening's points), and no meld takes the
# whole hand (no step could bring a card back but a swap, which needs one).

DEPTH = 4


def position(hand: list[int], x: int, table: list[TableMeld], opened: bool, points: int) -> HandState:
    """The engine in that position (a dealt match, its fields then set)."""
    state = deal(rules(players=2, rounds=1, opening_points=points), 0, [loose(0) + " AD", loose(1)])
    state.hands = [[], sorted([*hand, x])]
    state.table = list(table)
    state.opened = [True, opened]
    state.pile, state.stock = [], []
    state.kind, state.to_act = TURN, 1
    state.drawn, state.took = None, x
    state.taken = [(1, x)]
    state._uses = None  # the view's uses, cached: computed again for this position
    return state


def meld_steps(hand: list[int]) -> list[tuple[Meld, TableMeld]]:
    out, seen = [], set()
    for size in range(3, len(hand)):
        for picked in combinations(hand, size):
            real = [c % 53 for c in picked if c % 53 != 52]
            if len({f % 13 for f in real}) > 1 and len({f // 13 for f in real}) > 1:
                continue  # neither one rank nor one suit: no order makes a meld
            for order in permutations(picked):
                try:
                    kind, ordered, joker_as = check_meld(order)
                except MeldError:
                    continue
                if (kind, ordered, joker_as) not in seen:
                    seen.add((kind, ordered, joker_as))
                    out.append((Meld(order), TableMeld(1, kind, ordered, joker_as)))
    return out


def touch_steps(hand: list[int], table: list[TableMeld]) -> list[tuple[Add | Swap, TableMeld]]:
    out = []
    for index, target in enumerate(table):
        seen = set()
        for size in range(1, min(3, len(hand) - 1) + 1):
            for picked in combinations(hand, size):
                for order in permutations(picked):
                    for at in (LOW, HIGH) if target.kind == RUN else (None,):
                        try:
                            grown = check_add(target, order, at)
                        except MeldError:
                            continue
                        if grown not in seen:
                            seen.add(grown)
                            out.append((Add(index, order, at), grown))
        for c in hand:
            try:
                out.append((Swap(index, c), check_swap(target, c)))
            except MeldError:
                pass
    return out


def brute_use(state: HandState) -> bool:
    """Whether some turn of up to DEPTH steps puts X on the table, as ``apply`` judges."""
    x, points, was_open = state.took, state.opening_points, state.opened[1]
    seen: set = set()

    def search(steps_: tuple, hand: list[int], table: list[TableMeld], laid: int) -> bool:
        # Whether X was laid in a meld, not added: a seat not opened must lay it.
        melded = any(type(s) is Meld and x in s.cards for s in steps_)
        key = (tuple(sorted(hand)), tuple(table), min(laid, points), x in hand, melded)
        if key in seen:
            return False
        seen.add(key)
        if x not in hand and hand:
            try:
                state.clone().apply(Turn(steps_, hand[0]))
                return True
            except IllegalAction:
                pass
        if len(steps_) == DEPTH:
            return False
        for step, made in meld_steps(hand):
            rest = [c for c in hand if c not in step.cards]
            worth = meld_value(made.kind, made.cards, made.joker_as)
            if search((*steps_, step), rest, [*table, made], laid + worth):
                return True
        if was_open or laid >= points:
            for step, grown in touch_steps(hand, table):
                if type(step) is Add:
                    rest = [c for c in hand if c not in step.cards]
                else:
                    rest = [c for c in hand if c != step.card] + [table[step.meld].joker]
                after = [*table[: step.meld], grown, *table[step.meld + 1 :]]
                if search((*steps_, step), rest, after, laid):
                    return True
        return False

    return search((), list(state.hands[1]), list(state.table), 0)


def small_position(rng: random.Random) -> tuple[list[int], int, list[TableMeld], bool, int]:
    """Cards of 5 neighbouring ranks and the jokers; a table of 1 or 2 melds, most with a
    joker (often a set of 2 real cards and the joker); a hand of 3 to 8 cards, often
    holding what wins a table joker back; X now and then the other joker."""
    low = rng.randrange(0, 9)
    deck = [c * 53 + s * 13 + r for c in (0, 1) for s in range(4) for r in range(low, low + 5)] + [52, 105]
    rng.shuffle(deck)
    table: list[TableMeld] = []
    for _ in range(rng.choice((1, 1, 2))):
        melds = sorted(ref.all_melds(deck[:10]))
        if not melds:
            break
        wild = [m for m in melds if 52 in m]
        short_sets = [m for m in wild if len(m) == 3 and ref.set_reading(list(m))]
        if short_sets and rng.random() < 0.3:
            faces = rng.choice(short_sets)
        else:
            faces = rng.choice(wild if wild and rng.random() < 0.8 else melds)
        picked: list[int] = []
        for f in faces:
            picked.append(next(c for c in deck if c % 53 == f and c not in picked))
        kind, ordered, joker_as = check_meld(picked)
        table.append(TableMeld(0, kind, ordered, joker_as))
        deck = [c for c in deck if c not in picked]
    opened = rng.random() < 0.5
    size = rng.randrange(3, 6) if opened else rng.randrange(5, 9)
    hand: list[int] = []
    for meld_ in table:  # now and then cards that swap for its joker, or join it (a set)
        if any(c % 53 == 52 for c in meld_.cards) and rng.random() < 0.7:
            fitting = [c for c in deck if _swaps_or_adds(meld_, c)]
            rng.shuffle(fitting)
            hand += fitting[:2]
    hand += [c for c in deck if c not in hand][: max(0, size - len(hand))]
    hand = hand[:size]
    deck = [c for c in deck if c not in hand]
    jokers = [c for c in deck if c % 53 == 52]
    x = jokers[0] if jokers and rng.random() < 0.2 else deck[0]
    return hand, x, table, opened, rng.choice((6, 10, 15, 20, 30))


def _swaps_or_adds(meld_: TableMeld, c: int) -> bool:
    for check in (lambda: check_swap(meld_, c), lambda: check_add(meld_, (c,), None)):
        try:
            check()
            return True
        except MeldError:
            pass
    return False


@pytest.mark.parametrize("seed", range(40))
def test_has_discard_use_agrees_with_every_short_turn(seed):
    rng = random.Random(f"won-joker/{seed}")
    for _ in range(25):
        hand, x, table, opened, points = small_position(rng)
        state = position(hand, x, table, opened, points)
        expected = brute_use(state)
        assert has_discard_use(hand, x, table, opened, points) == expected
        uses = discard_uses(hand, x, table, opened, points)
        assert bool(uses) == expected
        for use in uses:  # each listed use is legal as it stands, with a discard
            after = state.clone()
            after.apply(Turn(use, kept(state, use)[0]))


def test_the_quick_bound_on_an_opening_never_refutes_a_real_one():
    # The unopened search skips a hand whose bound is below the opening's points: the
    # bound must be at least what its best melds are worth (best_opening, tested on
    # its own in test_hand_melds.py), on hands rich in melds and on random ones.
    for seed in range(300):
        rng = random.Random(f"meld-bound/{seed}")
        low = rng.randrange(0, 9)
        deck = [c * 53 + s * 13 + r for c in (0, 1) for s in range(4) for r in range(13)] + [52, 105]
        if seed % 2:
            deck = [c for c in deck if c % 53 == 52 or low <= c % 53 % 13 < low + 5]
        hand = rng.sample(deck, rng.randrange(3, 15))
        assert meld_bound(hand) >= best_opening(hand, keep=0)[0]

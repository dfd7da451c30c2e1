"""The engine's turn checks as a library (referee/games/hand/engine.py, ``PartialTurn`` and
``check_turn``): what a bot calls to build or check a turn from its view alone, and what
the referee itself checks every turn with (docs/rules.md "## Hand": Turn, Opening,
Joker swap). Each refusal must be the referee's, word for word; a refused step must
change nothing; and the turn's end (the opening's points, the taken discard on the
table, a card kept to discard) is asked of the turn as it stands.

Deals are for 2 players with seat 0 first (15 cards, no draw on its first turn), built
with tests/support/hand_setup.py (a card written without ``#`` is copy 0).
"""

from __future__ import annotations

import pytest

from tests.support.hand_setup import add, card, cards, deal, loose, meld, names, rules, swap, turn
from waraq.referee.games.hand.decisions import DISCARD_PILE, TAKE, TURN, Turn
from waraq.referee.games.hand.engine import IllegalAction
from waraq.referee.games.hand.melds import TableMeld
from waraq.referee.games.hand.turn import PartialTurn, check_turn

TWO = rules(players=2, rounds=1)

# Seat 0's 15 cards: A 2 3 of hearts (16: the ace counts 11), 5-9 of clubs (35),
# 4 5 6 of spades (15), K A 2 of diamonds (a wrap: no run), a joker.
OPENER = "AH 2H 3H 5C 6C 7C 8C 9C 4S 5S 6S KD AD 2D JK"


def opener():
    return deal(TWO, 0, [OPENER, loose(1)], stock="9D 4H 10H")


def refusal_by_the_referee(state, action) -> str:
    with pytest.raises(IllegalAction) as error:
        state.clone().apply(action)
    return str(error.value)


def refusal_by_the_check(view, action) -> str:
    with pytest.raises(IllegalAction) as error:
        check_turn(view, action)
    return str(error.value)


def progress(p: PartialTurn) -> tuple:
    return (list(p.hand), list(p.table), list(p.steps), p.laid, p.opened, set(p.laid_cards), p.touched)


# -- a whole turn: check_turn is the referee's check ----------------------------------


def test_check_turn_accepts_what_the_referee_accepts():
    state = opener()
    legal = turn(meld("5C 6C 7C 8C 9C"), meld("AH 2H 3H"), discard="KD")  # 35 + 16 = 51
    check_turn(state.view(0), legal)
    state.apply(legal)
    assert state.opened[0]


@pytest.mark.parametrize(
    "action, words",
    [
        # 35 + 15 = 50: one short of the 51 an opening needs.
        (turn(meld("5C 6C 7C 8C 9C"), meld("4S 5S 6S"), discard="KD"), "worth 50"),
        # K A 2 wraps round the ace: no run (step 2).
        (turn(meld("AH 2H 3H"), meld("KD AD 2D"), discard="4S"), "step 2"),
        # Adding before opening.
        (turn(add(0, "JK", "high"), discard="KD"), "only after opening"),
        # A card the seat does not hold.
        (turn(meld("5C 6C 7C 8C 9C"), meld("AH 2H 3H"), discard="QS"), "does not hold it"),
        # Not a turn at all.
        ("discard", "expected a Turn"),
    ],
)
def test_check_turn_refuses_what_the_referee_refuses_in_its_words(action, words):
    state = opener()
    said = refusal_by_the_check(state.view(0), action)
    assert words in said
    assert said == refusal_by_the_referee(state, action)


def test_only_the_seat_to_act_in_a_turn_has_a_turn_to_check():
    state = opener()
    with pytest.raises(IllegalAction, match="seat 1 has no turn to play"):
        check_turn(state.view(1), turn(discard="2S#1"))
    with pytest.raises(IllegalAction, match="seat 1 has no turn to play"):
        PartialTurn.of_view(state.view(1))


# -- step by step ---------------------------------------------------------------------


def test_the_opening_is_measured_as_its_melds_go_down():
    p = PartialTurn.of_view(opener().view(0))
    p.step(meld("5C 6C 7C 8C 9C"))
    assert (p.laid, p.opened) == (35, False)
    assert "worth 35" in p.problem()
    with pytest.raises(IllegalAction, match="only after opening"):
        p.step(add(0, "JK", "high"))
    p.step(meld("AH 2H 3H"))
    assert (p.laid, p.opened, p.problem()) == (51, True, None)
    # Opened in this turn, it may add in this turn: the joker as 10C after 9C.
    p.step(add(0, "JK", "high"))
    assert names(p.table[0].cards) == ["5C#0", "6C#0", "7C#0", "8C#0", "9C#0", "JK#0"]
    done = p.finish(card("KD"))
    assert done == turn(meld("5C 6C 7C 8C 9C"), meld("AH 2H 3H"), add(0, "JK", "high"), discard="KD")
    state = opener()
    state.apply(done)  # and the referee takes it
    assert sorted(state.hands[0]) == sorted(cards("4S 5S 6S AD 2D"))


def test_a_refused_step_changes_nothing_and_says_which_step_and_why():
    p = PartialTurn.of_view(opener().view(0))
    p.step(meld("AH 2H 3H"))
    before = progress(p)
    with pytest.raises(IllegalAction) as error:
        p.step(meld("KD AD 2D"))  # held, but no meld: it is refused after the holding check
    assert str(error.value).startswith("seat 0 step 2 meld ['KD#0', 'AD#0', '2D#0']:")
    assert progress(p) == before
    with pytest.raises(IllegalAction, match="does not hold QS#0"):
        p.step(meld("QS KS AS"))
    assert progress(p) == before


def test_a_hand_emptied_is_a_dead_end():
    # An opened seat melds its last three cards: nothing is left to discard, and no
    # step can bring a card back (a swap gives one for the joker it wins).
    p = PartialTurn(0, cards("5H 6H 7H"), [], True, 51)
    assert p.dead_end() is None
    p.step(meld("5H 6H 7H"))
    assert "keeps no card to discard" in p.dead_end()
    assert p.problem() == p.dead_end()
    with pytest.raises(IllegalAction, match="keeps no card"):
        p.finish(card("5H"))


def test_a_swap_puts_the_joker_in_the_place_of_the_card_that_won_it():
    # The table's 5H 6H JK 8H has the joker as 7H; the hand's order is its own.
    table = [TableMeld(1, "run", tuple(cards("5H 6H JK 8H")), card("7H") % 53)]
    p = PartialTurn(0, cards("KD 7H 2C"), table, True, 51)
    p.step(swap(0, "7H"))
    assert names(p.hand) == ["KD#0", "JK#0", "2C#0"]
    assert names(p.table[0].cards) == ["5H#0", "6H#0", "7H#0", "8H#0"]
    assert p.touched  # seat 1's meld


# -- the taken discard ----------------------------------------------------------------

# Seat 0 throws JK#1 on its first turn. Seat 1 holds 9H#1 10H#1 JH QH KH#1, 10S#1 QS#1
# and JK: JK#1 10H#1 JH QH (the joker as 9H: 9 + 10 + 10 + 10 = 39) and 10S#1 JK QS#1
# (the joker as JS: 30) open with 69, so the referee offers it the JK#1.
THROWER = "2S 5S 8S JS 3H 6H 9H 4D 7D 10D KD 2C 5C 8C JK#1"
TAKER = "6S 7H JH QH AD JK 8S#1 10S#1 QS#1 9H#1 10H#1 KH#1 JD#1 7C#1"
USE = (meld("JK#1 10H#1 JH QH"), meld("10S#1 JK QS#1"))


def joker_taken():
    state = deal(TWO, 0, [THROWER, TAKER])
    state.apply(turn(discard="JK#1"))
    assert (state.kind, state.to_act) == (TAKE, 1)
    state.apply(DISCARD_PILE)
    assert (state.kind, state.took) == (TURN, card("JK#1"))
    return state


def test_a_taken_joker_won_back_by_a_swap_must_go_down_again():
    state = joker_taken()
    p = PartialTurn.of_view(state.view(1))
    assert p.needs_use and "took JK#1" in p.problem()
    for step in USE:
        p.step(step)
    assert p.opened and not p.needs_use and p.problem() is None
    # 9H#1, still in hand, wins the joker back: a legal step that leaves the turn
    # unable to end until the joker is on the table again.
    p.step(swap(0, "9H#1"))
    assert p.needs_use
    problem = p.problem()
    assert "took JK#1 from the discard pile" in problem and "must lay it" in problem
    with pytest.raises(IllegalAction) as error:
        p.finish(card("AD"))
    assert str(error.value) == problem
    whole = Turn((*USE, swap(0, "9H#1")), card("AD"))
    assert problem == refusal_by_the_referee(state, whole)
    # Laid again, as KH after QH, the turn can end.
    p.step(add(0, "JK#1", "high"))
    assert p.problem() is None
    done = p.finish(card("AD"))
    state.apply(done)
    assert any(card("JK#1") in m.cards for m in state.table)
    assert state.hands[1] == sorted(state.hands[1])  # the state keeps its hands sorted after a swap

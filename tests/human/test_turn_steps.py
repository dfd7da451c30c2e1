"""Hand's turn built by clicks: what may come next is the turn rules' own answer, worked by hand here."""

from __future__ import annotations

import pytest
from google.protobuf import json_format

from tests.support import hand_setup as hs
from waraq.referee.games.hand.decisions import TURN
from waraq.referee.human import turn_steps
from waraq.referee.human.desk import Refused
from waraq.referee.wire import codec as wire
from waraq.v1 import bot_pb2 as pb

# Seat 0 plays first, with 15 cards: a heart run from 10 to the ace (51 points: an opening), three fives
# (15 points), and cards that make nothing. Seat 1 holds cards that make nothing either.
FIRST = "10H JH QH KH AH 5S 5H 5D 2C 9D 4S 8C 6D 2S 7C"


@pytest.fixture
def view():
    state = hs.deal(hs.rules(players=2), 0, [FIRST, hs.loose(1, 0)])
    assert state.kind == TURN and state.to_act == 0
    return state.view(0)


def _names(text: str) -> list[str]:
    return [f"{name}#0" for name in text.split()]


def test_before_any_step_a_run_of_the_hand_is_a_meld_and_two_loose_cards_are_not(view):
    run = turn_steps.options(view, [], _names("10H JH QH"))
    assert run["meld"] is True and run["adds"] == [] and run["swaps"] == [] and run["discard"] is False
    loose = turn_steps.options(view, [], _names("10H 5S"))
    assert isinstance(loose["meld"], str) and "10H" in loose["meld"]
    assert len(run["hand"]) == 15 and run["melds"] == [] and run["opened"] is False


def test_an_opening_run_opens_the_seat_and_then_one_card_may_be_discarded_or_added_to_the_run(view):
    opened = [{"meld": _names("10H JH QH KH AH")}]
    discard = turn_steps.options(view, opened, _names("7C"))
    assert discard["opened"] is True and discard["problem"] is None and discard["discard"] is True
    assert "10H#0" not in discard["hand"] and len(discard["hand"]) == 10
    assert discard["melds"] == [{"owner": 0, "kind": "run", "cards": _names("10H JH QH KH AH"), "joker_as": None}]
    # 9H is not held; 9D goes at no end of a heart run; nothing on the table has a joker to swap.
    assert turn_steps.options(view, opened, _names("9D"))["adds"] == []
    assert turn_steps.options(view, opened, _names("9D"))["swaps"] == []


def test_melds_worth_less_than_an_opening_leave_the_turn_unable_to_end(view):
    fives = turn_steps.options(view, [{"meld": _names("5S 5H 5D")}], _names("7C"))
    assert fives["opened"] is False and fives["discard"] is False
    assert "opening must be worth 51" in fives["problem"] and "worth 15" in fives["problem"]
    # ... but after the run too, the seat has opened with both, and may add to its own set.
    both = [{"meld": _names("5S 5H 5D")}, {"meld": _names("10H JH QH KH AH")}]
    assert turn_steps.options(view, both, _names("7C"))["discard"] is True


def test_the_finished_turn_is_the_action_the_referee_reads_back_as_that_turn(view):
    steps = [{"meld": _names("10H JH QH KH AH")}]
    action = turn_steps.finish(view, steps, "7C#0")["action"]
    read = wire.message_to_action(TURN, json_format.ParseDict(action, pb.Action()))
    assert read == hs.turn(hs.meld("10H JH QH KH AH"), discard="7C")


def test_a_step_the_referee_would_refuse_is_refused_in_its_words_and_so_is_a_turn_that_cannot_end(view):
    with pytest.raises(Refused) as illegal:
        turn_steps.options(view, [{"meld": _names("2C 9D")}], [])
    assert illegal.value.status == 422 and "seat 0 step 1" in str(illegal.value)
    with pytest.raises(Refused) as short:
        turn_steps.finish(view, [{"meld": _names("5S 5H 5D")}], "7C#0")
    assert short.value.status == 422 and "opening must be worth 51" in str(short.value)


@pytest.mark.parametrize(
    ("steps", "selected", "words"),
    [
        ("meld", [], "expected a list of steps"),
        ([{"meld": "10H#0"}], [], "is not a list of cards"),
        ([{"jump": 1}], [], "is none of"),
        ([], "10H#0", "expected a list of card names"),
        ([], ["ZZ"], "selected"),
    ],
)
def test_what_spells_no_step_or_no_card_is_refused_as_bad_input(view, steps, selected, words):
    with pytest.raises(Refused) as refused:
        turn_steps.options(view, steps, selected)
    assert refused.value.status == 400 and words in str(refused.value)


def test_cards_selected_out_of_order_are_offered_in_each_order_the_run_could_take(view):
    shuffled = turn_steps.options(view, [], _names("QH 10H JH"))
    assert shuffled["meld"] is True and shuffled["meld_orders"] == [_names("10H JH QH")]
    # A set is one meld whatever the order: offered once, as clicked.
    assert turn_steps.options(view, [], _names("5D 5S 5H"))["meld_orders"] == [_names("5D 5S 5H")]


def test_a_joker_in_a_run_is_offered_at_each_place_it_could_stand_and_an_addition_at_its_end():
    hand = "10D JD QD KD AD 2H 3H JK 4H 5S 9C 4S 8C 6S 2S"
    state = hs.deal(hs.rules(players=2), 0, [hand, hs.loose(1, 0)])
    opened = [{"meld": _names("10D JD QD KD AD")}]
    both = turn_steps.options(state.view(0), opened, ["JK#0", "3H#0", "2H#0"])
    # The joker as the ace below the 2, or as the 4 above the 3: two different melds.
    assert sorted(both["meld_orders"]) == sorted([["JK#0", "2H#0", "3H#0"], ["2H#0", "3H#0", "JK#0"]])
    low = [*opened, {"meld": ["JK#0", "2H#0", "3H#0"]}]
    assert turn_steps.options(state.view(0), low, ["4H#0"])["adds"] == [{"meld": 1, "at": "high", "cards": ["4H#0"]}]

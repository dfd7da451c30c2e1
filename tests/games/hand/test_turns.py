"""Hand turns on hand-worked deals (docs/rules.md "## Hand": Turn, Melds, Opening, Joker
swap; hand_spec "Turns and decisions"): what a turn may lay, add and swap, when the
discard may be taken, the opening's 51 points, the card kept to discard, and how
a refused turn says why and changes nothing.

Most deals are for 2 players with seat 0 first (15 cards, no draw on its first
turn); seat 1 holds a ``loose`` hand (tests/support/hand_setup.py) unless the test needs
more, so it can never open nor take the discard and the referee draws for it.
"""

from __future__ import annotations

import pytest

from tests.support.hand_setup import add, card, cards, deal, decisions, hand, loose, meld, rules, snapshot, swap, turn
from waraq.referee.games.hand.decisions import DISCARD_PILE, STOCK, TAKE, TURN, Turn
from waraq.referee.games.hand.engine import ActionError, IllegalAction, action_from_json, action_to_json

TWO = rules(players=2, rounds=1)


def refused(state, action) -> str:
    """``action`` is refused with IllegalAction and the state is left as it was."""
    before = snapshot(state)
    with pytest.raises(IllegalAction) as error:
        state.apply(action)
    assert snapshot(state) == before
    return str(error.value)


# -- the first turn and the draw --------------------------------------------------


def test_the_first_player_starts_with_15_cards_and_no_draw():
    state = deal(TWO, 0, [loose(0) + " AD", loose(1)], stock="9C")
    assert (state.kind, state.to_act) == (TURN, 0)
    assert [len(h) for h in state.hands] == [15, 14]
    assert state.drawn is None and state.took is None
    assert state.legal_actions() == ()


def test_without_a_use_for_the_discard_the_referee_draws_the_stock_for_the_seat():
    # Seat 1's loose hand can make no opening with AD: TAKE is not asked.
    state = deal(TWO, 0, [loose(0) + " AD", loose(1)], stock="9C 4H")
    state.apply(turn(discard="AD"))
    assert (state.kind, state.to_act) == (TURN, 1)
    assert state.drawn == card("9C") and card("9C") in state.hands[1]
    assert state.stock[0] == card("4H")
    assert len(state.hands[1]) == 15 and state.pile == [card("AD")]
    # No record line for the draw: the replay derives it.
    assert [(s, k) for s, k, _ in decisions(state)] == [(0, TURN)]
    # Taking the discard is then no action at all.
    refused(state, DISCARD_PILE)
    refused(state, STOCK)


# -- melds: what a Meld step may lay ----------------------------------------------------

# Seat 0's 15 cards: A 2 3 of hearts (16: the ace counts 11), 5-9 of clubs (35),
# 4 5 6 of spades (15), K A 2 of diamonds (a wrap), two jokers.
OPENER = "AH 2H 3H 5C 6C 7C 8C 9C 4S 5S 6S KD AD 2D JK"


def opener(**keys):
    return deal(rules(players=2, rounds=1, **keys), 0, [OPENER, loose(1)], stock="9D 4H 10H")


def test_an_opening_of_50_is_refused_and_says_so():
    state = opener()
    message = refused(state, turn(meld("5C 6C 7C 8C 9C"), meld("4S 5S 6S"), discard="KD"))
    assert "50" in message and "51" in message


def test_an_opening_of_51_is_accepted_with_the_ace_at_11_in_a_2_3():
    # 16 + 35 = 51; with the ace at 1 it would be 41.
    state = opener()
    state.apply(turn(meld("AH 2H 3H"), meld("5C 6C 7C 8C 9C"), discard="KD"))
    assert state.opened == [True, False]
    assert [(m.owner, m.kind, m.cards) for m in state.table] == [
        (0, "run", tuple(cards("AH 2H 3H"))),
        (0, "run", tuple(cards("5C 6C 7C 8C 9C"))),
    ]
    assert sorted(state.hands[0]) == hand("4S 5S 6S AD 2D JK")
    assert (state.kind, state.to_act) == (TURN, 1)


def test_the_opening_points_are_a_rule():
    state = opener(opening_points=52)
    message = refused(state, turn(meld("AH 2H 3H"), meld("5C 6C 7C 8C 9C"), discard="KD"))
    assert "51" in message and "52" in message


def test_a_wrapped_run_is_refused_quoting_the_step():
    state = opener()
    message = refused(state, turn(meld("AH 2H 3H"), meld("KD AD 2D"), discard="4S"))
    assert "seat 0" in message and "step 2" in message
    assert "KD#0" in message and "AD#0" in message and "2D#0" in message
    assert "wrap" in message


def test_a_second_joker_in_a_meld_is_refused():
    state = deal(TWO, 0, ["5H 6H JK JK#1 " + loose(0, 1, count=11), loose(1)])
    message = refused(state, turn(meld("5H 6H JK JK#1"), discard="3S"))
    assert "joker" in message.lower()


def test_a_meld_of_cards_not_in_hand_is_refused():
    state = opener()
    message = refused(state, turn(meld("AH 2H 3H"), meld("5C 6C 7C 8C 9C 10C"), discard="KD"))
    assert "10C#0" in message


def test_melding_every_card_is_refused_a_card_must_be_kept_to_discard():
    # 15 cards in melds: the discard is not in hand any more.
    state = deal(TWO, 0, ["AS 2S 3S 4S 5S 6S 7S KH KD KC 8D 9D 10D JD QD", loose(1)])
    everything = (meld("AS 2S 3S 4S 5S 6S 7S"), meld("KH KD KC"), meld("8D 9D 10D JD QD"))
    message = refused(state, Turn(everything, card("QD")))
    assert "seat 0" in message and "discard" in message


def test_the_discard_must_be_a_card_in_hand():
    state = opener()
    assert "10C#0" in refused(state, turn(discard="10C"))
    refused(state, turn(discard="KD#1"))


@pytest.mark.parametrize("bad", ["stock", None, 5, (), ("KD",)])
def test_a_turn_must_be_a_turn(bad):
    refused(opener(), bad)


# -- taking the discard -------------------------------------------------------------

# Seat 0 opens (A 2 3 of hearts + 5-9 of clubs = 51) and discards 10D. Seat 1 has
# not opened: 10S 10H with the 10D make 30, 6-9 of spades 30: an opening of 60 with
# the discard in it. Without it, 6-9 of spades and J Q K of clubs also make 60.
TAKER_0 = "AH 2H 3H 5C 6C 7C 8C 9C 10D 2S 4D 6D QH 9S JD"
TAKER_1 = "10S#1 10H#1 6S#1 7S#1 8S#1 9S#1 JC#1 QC#1 KC#1 2D#1 5D#1 3H#1 4C#1 AS#1"


def taker():
    state = deal(TWO, 0, [TAKER_0, TAKER_1], stock="9D 4H")
    state.apply(turn(meld("AH 2H 3H"), meld("5C 6C 7C 8C 9C"), discard="10D"))
    return state


def test_the_discard_is_offered_when_it_can_be_part_of_an_opening():
    state = taker()
    assert (state.kind, state.to_act) == (TAKE, 1)
    assert set(state.legal_actions()) == {STOCK, DISCARD_PILE}
    assert len(state.hands[1]) == 14


def test_taking_the_discard_into_an_opening():
    state = taker()
    state.apply(DISCARD_PILE)
    assert (state.kind, state.to_act, state.took) == (TURN, 1, card("10D"))
    assert card("10D") in state.hands[1] and state.pile == []
    state.apply(turn(meld("10S#1 10H#1 10D"), meld("6S#1 7S#1 8S#1 9S#1"), discard="2D#1"))
    assert state.opened == [True, True]
    assert state.table[2].cards == tuple(cards("10S#1 10H#1 10D"))
    assert decisions(state)[1:] == [
        (1, TAKE, "discard"),
        (
            1,
            TURN,
            {
                "steps": [{"meld": ["10S#1", "10H#1", "10D#0"]}, {"meld": ["6S#1", "7S#1", "8S#1", "9S#1"]}],
                "discard": "2D#1",
            },
        ),
    ]


def test_a_taken_discard_must_be_in_the_opening():
    state = taker()
    state.apply(DISCARD_PILE)
    # An opening of 60 without it, keeping it or discarding it: both refused.
    message = refused(state, turn(meld("6S#1 7S#1 8S#1 9S#1"), meld("JC#1 QC#1 KC#1"), discard="10D"))
    assert "10D#0" in message
    refused(state, turn(meld("6S#1 7S#1 8S#1 9S#1"), meld("JC#1 QC#1 KC#1"), discard="2D#1"))
    # Nothing laid at all.
    refused(state, turn(discard="2D#1"))


def test_a_taken_discard_in_a_meld_that_is_not_an_opening_is_refused():
    state = taker()
    state.apply(DISCARD_PILE)
    message = refused(state, turn(meld("10S#1 10H#1 10D"), discard="2D#1"))
    assert "30" in message


def test_drawing_from_the_stock_instead():
    state = taker()
    state.apply(STOCK)
    assert (state.kind, state.took, state.drawn) == (TURN, None, card("9D"))
    assert state.pile == [card("10D")]
    state.apply(turn(discard="9D"))
    assert decisions(state)[1:] == [(1, TAKE, "stock"), (1, TURN, {"steps": [], "discard": "9D#0"})]


def test_an_opened_seat_takes_the_discard_for_a_meld_with_its_hand():
    # Seat 0 holds 2S 4D 6D QH 9S JD; seat 1 opens and discards 5D#1, which seat 0
    # can meld with 4D 6D.
    state = taker()
    state.apply(DISCARD_PILE)
    state.apply(turn(meld("10S#1 10H#1 10D"), meld("6S#1 7S#1 8S#1 9S#1"), discard="5D#1"))
    assert (state.kind, state.to_act) == (TAKE, 0)
    state.apply(DISCARD_PILE)
    refused(state, turn(discard="5D#1"))
    state.apply(turn(meld("4D 5D#1 6D"), discard="2S"))
    assert state.table[-1].cards == tuple(cards("4D 5D#1 6D"))


def test_before_opening_the_taken_discard_must_be_in_a_meld_laid_not_added():
    # Seat 0 lays 7D 8D 9D (24) and Q K A of hearts (31) and discards 10D, which would
    # extend its run; seat 1 can open with 10S 10H 10D (30) and 6-9 of spades (30).
    state = deal(TWO, 0, ["7D 8D 9D QH KH AH 10D 2S 4C 6C 3H 5H JS 2D 5D", TAKER_1], stock="9D#1")
    state.apply(turn(meld("7D 8D 9D"), meld("QH KH AH"), discard="10D"))
    assert (state.kind, state.to_act) == (TAKE, 1)
    state.apply(DISCARD_PILE)
    # Opened by 6-9 of spades and J Q K of clubs (60), then the 10D added to seat 0's
    # run: on the table, but not part of the opening.
    opening = (meld("6S#1 7S#1 8S#1 9S#1"), meld("JC#1 QC#1 KC#1"))
    message = refused(state, turn(*opening, add(0, "10D", "high"), discard="2D#1"))
    assert "10D#0" in message and "opening" in message
    state.apply(turn(meld("10S#1 10H#1 10D"), meld("6S#1 7S#1 8S#1 9S#1"), discard="2D#1"))
    assert state.opened == [True, True]


def test_an_addition_before_the_opening_is_complete_is_refused_even_to_its_own_meld():
    # 5H 6H 7H (18), then 8H added to it, then K K K (30) and J Q K of clubs (30):
    # the addition comes before the melds reach 51.
    state = deal(TWO, 0, ["5H 6H 7H 8H KS KH KD JC QC KC 2S 4D 6C 9S AD", loose(1)])
    steps = (meld("5H 6H 7H"), add(0, "8H", "high"), meld("KS KH KD"), meld("JC QC KC"))
    refused(state, Turn(steps, card("2S")))
    # Laid as one meld, or added once the opening is reached, it is fine.
    opening = (meld("5H 6H 7H"), meld("KS KH KD"), meld("JC QC KC"))
    state.apply(turn(*opening, add(0, "8H", "high"), discard="2S"))
    assert state.table[0].cards == tuple(cards("5H 6H 7H 8H"))


# -- adding and swapping need an opening ----------------------------------------------

# Seat 0 opens with 5H 6H JK 8H (26, the joker as 7H) and 9S 9H 9D JK#1 (36) and keeps
# 9C and 7H to swap later. Seat 1 has not opened: 10S 10H 10D (30) and 6-9 of
# spades#1 (30) would open it; it also holds 4H#1, which extends seat 0's run.
SWAPPER_0 = "5H 6H JK 8H 9S 9H 9D JK#1 9C 7H 2C 4C KD QS 3D"
SWAPPER_1 = "10S#1 10H#1 10D#1 6S#1 7S#1 8S#1 4H#1 7D#1 2D#1 5D#1 3S#1 KC#1 QC#1 AD#1"
# Seat 1 draws 9S#1 (completing 6-9 of spades); seat 0 then draws AC.
SWAPPER_STOCK = "9S#1 AC 2H"


def swapper():
    state = deal(TWO, 0, [SWAPPER_0, SWAPPER_1], stock=SWAPPER_STOCK)
    state.apply(turn(meld("5H 6H JK 8H"), meld("9S 9H 9D JK#1"), discard="QS"))
    assert (state.kind, state.to_act, state.drawn) == (TURN, 1, card("9S#1"))
    return state


def test_the_joker_stands_for_the_missing_card():
    state = swapper()
    assert state.table[0].joker_as == card("7H") and state.table[1].joker_as is None


def test_adding_before_opening_is_refused():
    state = swapper()
    message = refused(state, turn(add(0, "4H#1", "low"), discard="AD#1"))
    assert "open" in message
    # Nor before the opening melds in the same turn: steps count in order.
    refused(
        state,
        turn(add(0, "4H#1", "low"), meld("10S#1 10H#1 10D#1"), meld("6S#1 7S#1 8S#1 9S#1"), discard="AD#1"),
    )


def test_swapping_before_opening_is_refused():
    state = deal(TWO, 0, [SWAPPER_0, SWAPPER_1.replace("7D#1", "7H#1")], stock=SWAPPER_STOCK)
    state.apply(turn(meld("5H 6H JK 8H"), meld("9S 9H 9D JK#1"), discard="QS"))
    # QS is offered (opened with the tens and 6-8 of spades, the 7H#1 wins the joker for
    # QS QC#1 JK: test_hand_discard_uses.py); seat 1 draws instead.
    state.apply(STOCK)
    assert state.kind == TURN
    assert "open" in refused(state, turn(swap(0, "7H#1"), discard="AD#1"))


def test_adding_once_opened_in_the_same_turn():
    state = swapper()
    state.apply(turn(meld("10S#1 10H#1 10D#1"), meld("6S#1 7S#1 8S#1 9S#1"), add(0, "4H#1", "low"), discard="AD#1"))
    assert state.table[0].cards == tuple(cards("4H#1 5H 6H JK 8H"))
    assert state.table[0].owner == 0  # the meld stays its layer's
    assert decisions(state)[-1][2]["steps"][-1] == {"add": 0, "cards": ["4H#1"], "at": "low"}


def seat_0_draws_ac(state):
    """Seat 1 discards 9S#1. Seat 0 is offered it (the 7H wins the run's joker back,
    which melds 9S#1 with 9C: test_hand_discard_uses.py) and draws AC instead."""
    state.apply(turn(discard="9S#1"))
    assert (state.kind, state.to_act) == (TAKE, 0)
    state.apply(STOCK)
    assert (state.kind, state.to_act, state.drawn) == (TURN, 0, card("AC"))


def test_a_joker_swap_in_a_run_and_in_a_full_set():
    state = swapper()
    seat_0_draws_ac(state)
    state.apply(turn(swap(0, "7H"), swap(1, "9C"), discard="AC"))
    assert state.table[0].cards == tuple(cards("5H 6H 7H 8H")) and state.table[0].joker_as is None
    assert sorted(state.table[1].cards) == hand("9S 9H 9D 9C")
    assert {card("JK"), card("JK#1")} <= set(state.hands[0])
    assert decisions(state)[-1][2]["steps"] == [{"swap": 0, "card": "7H#0"}, {"swap": 1, "card": "9C#0"}]


def test_a_swap_must_put_the_card_the_joker_stands_for():
    state = swapper()
    seat_0_draws_ac(state)
    refused(state, turn(swap(0, "9C"), discard="AC"))  # the run's joker is the 7H
    refused(state, turn(swap(0, "2C"), discard="AC"))
    refused(state, turn(swap(1, "7H"), discard="AC"))  # the set is of nines


def test_a_set_swap_is_refused_with_only_two_real_cards():
    # docs/rules.md: in a set only when the real card completes all four suits.
    hands = ["9S 9H JK 10C JC QC KC 9D 2H 4H 6D 8D 3S 5S AH", loose(1)]
    state = deal(TWO, 0, hands, stock="7C#1 QS#1")
    state.apply(turn(meld("9S 9H JK"), meld("10C JC QC KC"), discard="AH"))  # 27 + 40
    state.apply(turn(discard="7C#1"))
    assert (state.kind, state.to_act) == (TURN, 0)
    message = refused(state, turn(swap(0, "9D"), discard="QS#1"))
    assert "9D#0" in message


# -- the record's spelling of actions -------------------------------------------------


def test_actions_spelled_as_in_the_record():
    t = Turn((meld("5H 6H JK"), add(2, "8H", "high"), add(0, "7S"), swap(1, "9S#1")), card("KD"))
    spelled = {
        "steps": [
            {"meld": ["5H#0", "6H#0", "JK#0"]},
            {"add": 2, "cards": ["8H#0"], "at": "high"},
            {"add": 0, "cards": ["7S#0"]},
            {"swap": 1, "card": "9S#1"},
        ],
        "discard": "KD#0",
    }
    assert action_to_json(TURN, t) == spelled
    assert action_from_json(TURN, spelled) == t
    assert action_to_json(TAKE, STOCK) == "stock" and action_from_json(TAKE, "discard") == DISCARD_PILE


@pytest.mark.parametrize(
    "kind, value",
    [
        (TAKE, "draw"),
        (TAKE, None),
        (TURN, {"steps": [], "discard": "7H"}),  # no copy
        (TURN, {"steps": [], "discard": "7X#0"}),
        (TURN, {"steps": [], "discard": "7H#2"}),
        (TURN, {"steps": [{"meld": ["5H#0"], "add": 1}], "discard": "KD#0"}),
        (TURN, {"steps": [{"lay": ["5H#0"]}], "discard": "KD#0"}),
        (TURN, {"steps": []}),
        (TURN, "KD#0"),
    ],
)
def test_a_value_that_spells_no_action_is_refused_quoted(kind, value):
    with pytest.raises(ActionError):
        action_from_json(kind, value)


def test_an_unknown_card_name_is_quoted():
    with pytest.raises(ActionError, match="7X#0"):
        action_from_json(TURN, {"steps": [], "discard": "7X#0"})


def test_names_are_case_insensitive():
    assert action_from_json(TURN, {"steps": [], "discard": "jk#1"}) == Turn((), card("JK#1"))

"""Tricks (docs/rules.md 4 players, step 5; `void_rule`): follow suit, the void,
`must_trump`, the trick winner, and how illegal plays are refused."""

from __future__ import annotations

import pytest

from tests.support.hokm_setup import (
    cards,
    deal,
    hand,
    play,
    play_round_out,
    play_tricks,
    rules,
    snapshot,
    suit,
    two_player_match,
    whole_suit,
)
from waraq.referee.games.cards import parse_card
from waraq.referee.games.hokm.engine import IllegalAction, winning_index

# 4 players, hakem 0. Seat 2 holds exactly two hearts, 7H and KH, and the QS.
REVOKE_HANDS = [
    "2H 4H 5H 6H 8H 9H 10H JH QH AH 2S 3S 4S",
    "3H KS AS 2C 3C 4C 5C 6C 7C 8C 9C 10C JC",
    "7H KH QS 2D 3D 4D 5D 6D 7D 8D 9D 10D JD",
    "5S 6S 7S 8S 9S 10S JS QD KD AD QC KC AC",
]


def revoke_deal(**keys):
    """Trump clubs; seat 0 has led 2H and seat 1 followed 3H: seat 2 to play."""
    state = deal(rules(**keys), 0, REVOKE_HANDS, trump="C")
    play(state, "2H 3H")
    assert state.to_act == 2
    return state


# -- follow suit and the void ---------------------------------------------------


def test_a_seat_holding_the_led_suit_must_follow_it():
    state = deal(rules(), 0, REVOKE_HANDS, trump="C")
    play(state, "2H")
    assert state.legal_actions() == (parse_card("3H"),)  # seat 1's only heart
    play(state, "3H")
    assert state.legal_actions() == tuple(cards("7H KH"))


def test_a_revoke_is_rejected_quoting_the_card_and_the_cards_to_follow_with():
    state = revoke_deal()
    before = snapshot(state)
    with pytest.raises(IllegalAction) as error:
        state.apply(parse_card("QS"))
    assert str(error.value) == "seat 2 played 'QS' but must follow hearts: holds 7H, KH"
    assert snapshot(state) == before


def test_the_leader_may_lead_any_card():
    state = deal(rules(), 0, REVOKE_HANDS, trump="C")
    assert sorted(state.legal_actions()) == hand(REVOKE_HANDS[0])


def test_a_void_seat_may_play_any_card_under_the_free_rule():
    state = revoke_deal()
    play(state, "KH")
    # Seat 3 holds no heart; it holds trumps (QC KC AC) but nobody is forced to trump.
    assert sorted(state.legal_actions()) == hand(REVOKE_HANDS[3])
    play(state, "5S")  # a spade: neither the led suit nor trump
    assert state.to_act == 2  # KH won (the highest heart; 5S is off-suit)


# -- illegal actions ----------------------------------------------------------


def test_a_card_not_held_is_rejected():
    state = revoke_deal()
    before = snapshot(state)
    with pytest.raises(IllegalAction) as error:
        state.apply(parse_card("AH"))  # seat 0 holds AH, not seat 2
    assert str(error.value).startswith("seat 2 played 'AH' but does not hold it: holds ")
    assert snapshot(state) == before


@pytest.mark.parametrize("bad", ["3S", True, 1.0, None, 52, -1, (1,)])
def test_a_play_that_is_not_a_card_int_is_rejected(bad):
    # Seat 0 leads and holds 3S, the card 1: True and 1.0 equal 1 but are not cards.
    state = deal(rules(), 0, REVOKE_HANDS, trump="C")
    assert parse_card("3S") == 1 and 1 in state.legal_actions()
    before = snapshot(state)
    with pytest.raises(IllegalAction, match="seat 0 played"):
        state.apply(bad)
    assert snapshot(state) == before


def test_no_action_is_taken_after_the_match_is_over():
    # Target 1: seat 0 holds every spade, names spades and wins every trick: over after one round.
    state = deal(rules(target_score=1), 0, [whole_suit(s) for s in "SHDC"], trump="S")
    play_round_out(state)
    assert state.kind is None and state.result is not None
    assert state.legal_actions() == ()
    events = len(state.events)
    for action in (parse_card("2S"), 0, True, "keep"):
        with pytest.raises(IllegalAction, match="the match is over"):
            state.apply(action)
    with pytest.raises(IllegalAction, match="the match is over"):
        state.push(0)
    assert len(state.events) == events


# -- the trick winner ---------------------------------------------------------

# Trump spades, hakem 0. Seats 0 and 2 hold hearts and clubs; seats 1 and 3 spades and diamonds.
WINNER_HANDS = [
    "2H 3H 4H 5H 6H 7H AC KC QC JC 10C 9C 8C",
    "2S 3S 4S 5S 6S 7S 3D 4D 5D 6D 7D 8D 9D",
    "8H 9H 10H JH QH KH AH 7C 6C 5C 4C 3C 2C",
    "8S 9S 10S JS QS KS AS 2D 10D JD QD KD AD",
]


def test_the_highest_trump_wins_else_the_highest_card_of_the_led_suit():
    state = deal(rules(), 0, WINNER_HANDS, trump="S")
    winners = play_tricks(
        state,
        # 5H led; 2S trumps; KH is the highest heart but loses to trumps; 9S over-trumps.
        "5H 2S KH 9S",
        # Seat 3 leads 2D; AC and AH are off-suit, not trump: they lose to 3D.
        "2D AC 3D AH",
        # Seat 1 leads 4D; 10D is the highest diamond; KC (seat 0) is off-suit.
        "4D 2C 10D KC",
    )
    assert winners == [3, 1, 3]
    assert state.tricks_won == [0, 1, 0, 2]
    assert state.to_act == 3  # the winner leads the next trick


@pytest.mark.parametrize(
    "trick, trump, index",
    [
        ("5H 2S KH 9S", "S", 3),  # the higher of two trumps
        ("2D AC 3D AH", "S", 2),  # the highest of the led suit; off-suit aces lose
        ("2D AC 3D AH", "C", 1),  # the same cards with clubs trump: AC trumps
        ("QS 2S AS 3S", "H", 2),  # all one suit, no trump in it
        ("AH KH 2D", "D", 2),  # a lone low trump beats the led suit's ace
        ("7C 2H 3H", "H", 2),  # trumps on a non-trump lead: the higher trump
    ],
)
def test_winning_index(trick, trump, index):
    assert winning_index(cards(trick), suit(trump)) == index


# -- must_trump ----------------------------------------------------------------

# 4 players, hakem 0, trump spades. Seat 0 holds every heart; seat 1 diamonds and
# clubs (no trump); seat 2 seven high spades and six clubs; seat 3 six spades
# (AS and 2S-6S) and seven diamonds, no clubs.
MUST_TRUMP_HANDS = [
    whole_suit("H"),
    "AD KD QD JD 10D 9D 8C 7C 6C 5C 4C 3C 2C",
    "KS QS JS 10S 9S 8S 7S AC KC QC JC 10C 9C",
    "AS 6S 5S 4S 3S 2S 8D 7D 6D 5D 4D 3D 2D",
]


def must_trump_deal(void_rule="must_trump"):
    state = deal(rules(void_rule=void_rule), 0, MUST_TRUMP_HANDS, trump="S")
    play(state, "AH")
    return state


def test_must_trump_a_void_seat_without_trump_plays_any_card():
    state = must_trump_deal()
    # Seat 1: no heart, no spade.
    assert sorted(state.legal_actions()) == hand(MUST_TRUMP_HANDS[1])


def test_must_trump_a_void_seat_whose_partner_is_winning_plays_any_card():
    state = must_trump_deal()
    play(state, "2C")
    # Seat 2: no heart, holds spades, but its partner seat 0 is winning with AH.
    assert sorted(state.legal_actions()) == hand(MUST_TRUMP_HANDS[2])


def test_must_trump_a_void_seat_whose_partner_is_not_winning_must_trump():
    state = must_trump_deal()
    play(state, "2C 9C")
    # Seat 3: no heart; its partner seat 1 is not winning (AH is): only its spades.
    assert state.legal_actions() == tuple(hand("AS 6S 5S 4S 3S 2S"))
    before = snapshot(state)
    with pytest.raises(IllegalAction) as error:
        state.apply(parse_card("8D"))
    message = str(error.value)
    assert message.startswith("seat 3 played '8D'")
    assert "must trump" in message and "spades" in message
    assert snapshot(state) == before


def test_must_trump_has_no_duty_to_over_trump():
    state = must_trump_deal()
    play(state, "2C KS")
    # KS (seat 2) is winning; seat 3 must trump but any spade will do, 2S included.
    assert state.legal_actions() == tuple(hand("AS 6S 5S 4S 3S 2S"))
    play(state, "2S")
    assert state.to_act == 2  # KS won: under-trumping lost the trick


def test_must_trump_second_to_play_must_trump_since_the_partner_has_not_played():
    state = must_trump_deal()
    play(state, "2C KS 2S")  # KS wins; seat 2 leads
    play(state, "AC")
    # Seat 3: void in clubs, holds spades; its partner (seat 1) has not played yet.
    assert state.legal_actions() == tuple(hand("AS 6S 5S 4S 3S"))


def test_free_rule_in_the_same_position_allows_any_card():
    state = must_trump_deal(void_rule="free")
    play(state, "2C 9C")
    assert sorted(state.legal_actions()) == hand(MUST_TRUMP_HANDS[3])


# 3 players, hakem 0, trump spades (2D is out of the deck).
THREE_HANDS = [
    whole_suit("H") + " AC KC QC JC",
    "AS KS QS JS 10S 9S 8S 7S 6S 5S AD KD QD JD 10D 9D 8D",
    "4S 3S 2S 7D 6D 5D 4D 3D 10C 9C 8C 7C 6C 5C 4C 3C 2C",
]


@pytest.mark.parametrize(
    "void_rule, seat1_legal",
    [
        ("must_trump", "AS KS QS JS 10S 9S 8S 7S 6S 5S"),
        ("free", THREE_HANDS[1]),
    ],
)
def test_three_players_void_and_holding_trump_means_trumping(void_rule, seat1_legal):
    state = deal(rules(players=3, void_rule=void_rule), 0, THREE_HANDS, trump="S")
    play(state, "AH")
    assert sorted(state.legal_actions()) == hand(seat1_legal)


def test_three_players_must_trump_even_when_the_trump_cannot_win():
    # No partner: seat 2 must play one of its spades although AS already wins.
    state = deal(rules(players=3, void_rule="must_trump"), 0, THREE_HANDS, trump="S")
    play(state, "AH AS")
    assert state.legal_actions() == tuple(hand("2S 3S 4S"))


def two_player_hearts_trump(void_rule):
    """Seat 0 (hakem) ends with AS-2S; seat 1 with 6H-AH and 2C-5C. Trump hearts."""
    return two_player_match(
        rules(players=2, void_rule=void_rule),
        0,
        fives=["AS KS QS 3D 4D", "4H 5H 6H 7H 8H"],
        discards=["3D 4D", "4H 5H"],
        kept=["JS 10S 9S 8S 7S 6S 5S 4S 3S 2S", "9H 10H JH QH KH AH 2C 3C 4C 5C"],
        trump="H",
    )


@pytest.mark.parametrize(
    "void_rule, seat1_legal",
    [
        ("must_trump", "6H 7H 8H 9H 10H JH QH KH AH"),
        ("free", "6H 7H 8H 9H 10H JH QH KH AH 2C 3C 4C 5C"),
    ],
)
def test_two_players_void_and_holding_trump_means_trumping(void_rule, seat1_legal):
    state = two_player_hearts_trump(void_rule)
    play(state, "AS")
    assert sorted(state.legal_actions()) == hand(seat1_legal)

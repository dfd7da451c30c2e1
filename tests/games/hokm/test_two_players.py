"""Hokm for 2 players (docs/rules.md "Hokm, 2 players"; `burn_visible`, `bam`): the
deal, DISCARD, the draw-and-burn phase, what each seat sees of it, and play."""

from __future__ import annotations

import pytest

from tests.support.hokm_setup import (
    assert_fields,
    cards,
    deal,
    hand,
    last_round_end,
    match_on,
    play_round_out,
    play_tricks,
    plays_in_round,
    rules,
    snapshot,
    two_player_match,
)
from waraq.referee.games.cards import parse_card
from waraq.referee.games.hokm.engine import DrawStep, IllegalAction

TWO = rules(players=2)


# -- the deal and the discard -------------------------------------------------------


@pytest.mark.parametrize("hakem", [0, 1])
def test_hakem_gets_the_first_five_and_the_dealer_the_next_five(hakem):
    state = match_on(TWO, hakem, [list(TWO.deck)])  # card order: 2S 3S ... (2D is out)
    dealer = 1 - hakem
    assert (state.kind, state.to_act) == ("TRUMP", hakem)
    assert state.hands[hakem] == hand("2S 3S 4S 5S 6S")
    assert state.hands[dealer] == hand("7S 8S 9S 10S JS")
    assert state.view(hakem).cards_seen() == set(cards("2S 3S 4S 5S 6S"))
    assert state.view(hakem).hand_sizes == (5, 5)


def discard_deal():
    """Hakem 1 holds 2S-6S, the dealer (seat 0) 7S-JS; trump named."""
    return deal(TWO, 1, ["7S 8S 9S 10S JS", "2S 3S 4S 5S 6S"], trump="H")


def test_each_seat_discards_exactly_two_the_hakem_first():
    state = discard_deal()
    assert (state.kind, state.to_act) == ("DISCARD", 1)
    # Any two of its five: 5 * 4 / 2 = 10 choices.
    assert len(state.legal_actions()) == 10
    assert all(len(pair) == 2 and set(pair) <= set(state.hands[1]) for pair in state.legal_actions())
    state.apply(tuple(cards("2S 3S")))
    assert state.hands[1] == hand("4S 5S 6S")
    assert (state.kind, state.to_act) == ("DISCARD", 0)
    state.apply(tuple(cards("7S JS")))
    assert state.hands[0] == hand("8S 9S 10S")
    # Each seat sees its own discards only.
    assert state.view(1).discarded == tuple(cards("2S 3S"))
    assert state.view(0).discarded == tuple(cards("7S JS"))
    # Then the draw phase, the hakem first.
    assert (state.kind, state.to_act) == ("DRAW", 1)


@pytest.mark.parametrize(
    "bad",
    [
        (parse_card("2S"),),  # one card
        tuple(cards("2S 3S 4S")),  # three cards
        (parse_card("2S"), parse_card("2S")),  # the same card twice
        tuple(cards("2S 7S")),  # 7S is the dealer's
        ("2S", "3S"),  # names, not cards
        "2S 3S",
        None,
    ],
)
def test_a_discard_that_is_not_two_held_cards_is_rejected(bad):
    state = discard_deal()
    before = snapshot(state)
    with pytest.raises(IllegalAction, match="seat 1 discarded"):
        state.apply(bad)
    assert snapshot(state) == before


@pytest.mark.parametrize("bad", [(True, 2), (1.0, 2)])
def test_a_discard_with_a_bool_or_float_for_a_card_is_rejected(bad):
    # Seat 1 holds 3S, the card 1, and 4S, the card 2: True and 1.0 equal 1 but are not
    # cards, just as PLAY refuses them (see test_hokm_tricks.py).
    state = discard_deal()
    before = snapshot(state)
    with pytest.raises(IllegalAction, match="seat 1 discarded"):
        state.apply(bad)
    assert snapshot(state) == before


def test_discarding_a_card_not_held_names_it():
    state = discard_deal()
    with pytest.raises(IllegalAction, match="does not hold 7S"):
        state.apply(tuple(cards("2S 7S")))


# -- the draw phase -------------------------------------------------------------

# Hakem 0. Nothing of the stock is given, so it follows in card order from 2S:
# 2S 3S 4S 5S 6S 7S 8S 9S 2H 3H 4H 5H 6H 7H 8H 9H 3D 4D ... AD 2C ... AC (41 cards).
# Draw k turns stock cards 2k and 2k+1; the hakem makes the even draws.
DRAW_FIVES = ["AS KS QS JS 10S", "AH KH QH JH 10H"]
HAKEM_DRAWS = [
    ("2S", "3S"),
    ("6S", "7S"),
    ("2H", "3H"),
    ("6H", "7H"),
    ("3D", "4D"),
    ("7D", "8D"),
    ("JD", "QD"),
    ("2C", "3C"),
    ("6C", "7C"),
    ("10C", "JC"),
]
OTHER_DRAWS = [
    ("4S", "5S"),
    ("8S", "9S"),
    ("4H", "5H"),
    ("8H", "9H"),
    ("5D", "6D"),
    ("9D", "10D"),
    ("KD", "AD"),
    ("4C", "5C"),
    ("8C", "9C"),
    ("QC", "KC"),
]


def draw_deal(**keys):
    state = deal(rules(players=2, **keys), 0, DRAW_FIVES, trump="S")
    state.apply(tuple(cards("AS KS")))
    state.apply(tuple(cards("AH KH")))
    return state


def test_keep_takes_the_top_card_and_burns_the_next():
    state = draw_deal()
    assert (state.kind, state.to_act) == ("DRAW", 0)
    assert state.legal_actions() == ("keep", "pass")
    assert state.view(0).offered == parse_card("2S")
    assert state.view(1).offered is None
    state.apply("keep")
    assert state.hands[0] == hand("QS JS 10S 2S")
    assert parse_card("3S") not in state.hands[0] + state.hands[1]  # burned
    # The burned card went unseen.
    assert state.view(0).draws == (DrawStep(parse_card("2S"), "keep", None),)
    assert parse_card("3S") not in state.view(0).cards_seen()


def test_keep_with_burn_visible_shows_the_burned_card_to_the_drawer_only():
    state = draw_deal(burn_visible=True)
    state.apply("keep")
    assert state.view(0).draws == (DrawStep(parse_card("2S"), "keep", parse_card("3S")),)
    assert parse_card("3S") in state.view(0).cards_seen()
    assert parse_card("3S") not in state.view(1).cards_seen()


def test_pass_burns_the_top_card_and_takes_the_next():
    state = draw_deal()
    state.apply("keep")
    assert (state.to_act, state.view(1).offered) == (1, parse_card("4S"))
    state.apply("pass")
    assert state.hands[1] == hand("QH JH 10H 5S")
    assert parse_card("4S") not in state.hands[0] + state.hands[1]
    # The drawer saw both: the passed card and the one it had to take.
    assert state.view(1).draws == (DrawStep(parse_card("4S"), "pass", parse_card("5S")),)
    assert {parse_card("4S"), parse_card("5S")} <= state.view(1).cards_seen()


@pytest.mark.parametrize("bad", ["take", "KEEP", True, None])
def test_a_draw_answer_must_be_keep_or_pass(bad):
    state = draw_deal()
    with pytest.raises(IllegalAction, match="DRAW"):
        state.apply(bad)
    assert state.kind == "DRAW" and state.hands[0] == hand("QS JS 10S")


@pytest.mark.parametrize("burn_visible", [False, True])
def test_draw_phase_alternates_until_both_hold_13_and_leaves_one_card(burn_visible):
    state = draw_deal(burn_visible=burn_visible)
    # The hakem always keeps, the other seat always passes.
    for k in range(20):
        assert (state.kind, state.to_act) == ("DRAW", k % 2)
        state.apply("keep" if k % 2 == 0 else "pass")
    kept = [top for top, _ in HAKEM_DRAWS]
    taken = [second for _, second in OTHER_DRAWS]
    assert state.hands[0] == hand(" ".join(["QS JS 10S", *kept]))
    assert state.hands[1] == hand(" ".join(["QH JH 10H", *taken]))
    assert [len(h) for h in state.hands] == [13, 13]
    # 51 = 26 in hands + 4 discarded + 20 burned + 1 unused: AC, the stock's last card.
    burned = [second for _, second in HAKEM_DRAWS] + [top for top, _ in OTHER_DRAWS]
    assert len(set(burned)) == 20
    in_hands = set(state.hands[0]) | set(state.hands[1])
    assert not in_hands & set(cards(" ".join(burned) + " AS KS AH KH AC"))
    # Play begins, the hakem leading.
    assert (state.kind, state.to_act) == ("PLAY", 0)
    # What each seat saw: its hand, its discards, its own draws; nothing of the other's.
    hakem_burned = set(cards(" ".join(second for _, second in HAKEM_DRAWS)))
    expected0 = set(state.hands[0]) | set(cards("AS KS")) | (hakem_burned if burn_visible else set())
    assert state.view(0).cards_seen() == expected0
    passed = set(cards(" ".join(top for top, _ in OTHER_DRAWS)))
    assert state.view(1).cards_seen() == set(state.hands[1]) | set(cards("AH KH")) | passed
    assert state.view(1).draws[6] == DrawStep(parse_card("KD"), "pass", parse_card("AD"))
    assert len(state.view(0).draws) == len(state.view(1).draws) == 10


def test_the_dealer_draws_second_when_seat_1_is_hakem():
    state = discard_deal()
    state.apply(tuple(cards("2S 3S")))
    state.apply(tuple(cards("7S 8S")))
    # 2S-JS were dealt; the rest of the stock follows in card order, so QS is on top.
    assert (state.kind, state.to_act, state.view(1).offered) == ("DRAW", 1, parse_card("QS"))
    state.apply("keep")  # QS kept, KS burned
    assert state.hands[1] == hand("4S 5S 6S QS")
    assert (state.to_act, state.view(0).offered) == (0, parse_card("AS"))


# -- play, kot and bam -------------------------------------------------------------

# Seat 0 (hakem) ends with all 13 spades, seat 1 with all 13 hearts.
ALL_SUIT_FIVES = ["AS KS QS 4C 5C", "AH KH QH 2C 3C"]
ALL_SUIT_DISCARDS = ["4C 5C", "2C 3C"]
ALL_SUIT_KEPT = ["JS 10S 9S 8S 7S 6S 5S 4S 3S 2S", "JH 10H 9H 8H 7H 6H 5H 4H 3H 2H"]


def all_suit_match(trump, **keys):
    r = rules(players=2, **keys)
    return two_player_match(r, 0, ALL_SUIT_FIVES, ALL_SUIT_DISCARDS, ALL_SUIT_KEPT, trump)


@pytest.mark.parametrize(
    "trump, tricks, winners, points, kot, next_hakem",
    [
        ("S", [7, 0], [0], [2, 0], "kot", 0),  # the hakem holds every trump; stays hakem
        ("H", [0, 7], [1], [0, 3], "hakem_kot", 1),  # the dealer does; becomes hakem
    ],
)
def test_play_to_seven_tricks_and_score_as_four_players(trump, tricks, winners, points, kot, next_hakem):
    state = all_suit_match(trump)
    assert state.hands[0] == hand("AS KS QS " + ALL_SUIT_KEPT[0])
    play_round_out(state)
    assert_fields(last_round_end(state), tricks=tricks, winners=winners, points=points, kot=kot)
    assert plays_in_round(state, 1) == 14  # 7 tricks of 2 cards
    assert (state.round, state.hakem) == (2, next_hakem)


def test_first_to_seven_tricks_wins_even_at_seven_six():
    # Seat 0 (hakem): AS-8S and 2H-7H. Seat 1: 7S-2S and AH-8H. Trump spades.
    state = two_player_match(
        rules(players=2, target_score=1),
        0,
        fives=["AS KS QS 2C 3C", "7S 6S 5S 4C 5C"],
        discards=["2C 3C", "4C 5C"],
        kept=["JS 10S 9S 8S 2H 3H 4H 5H 6H 7H", "4S 3S 2S AH KH QH JH 10H 9H 8H"],
        trump="S",
    )
    # Seat 0 leads 2H; seat 1 wins with AH and cashes its hearts, seat 0 following low.
    winners = play_tricks(state, "2H AH", "KH 3H", "QH 4H", "JH 5H", "10H 6H", "9H 7H")
    assert winners == [1] * 6
    # Seat 1 leads 8H; seat 0, out of hearts, trumps with 8S and cashes its spades.
    winners = play_tricks(state, "8H 8S", "AS 2S", "KS 3S", "QS 4S", "JS 5S", "10S 6S")
    assert winners == [0] * 6
    assert state.tricks_won == [6, 6] and state.result is None
    play_tricks(state, "9S 7S")  # the 13th trick: 7-6
    assert_fields(last_round_end(state), tricks=[7, 6], winners=[0], points=[1, 0], kot=None)
    assert state.result.winners == (0,) and state.result.score == (1, 0)


def test_bam_accepted_and_all_thirteen_taken_wins_the_game():
    state = all_suit_match("S", bam=True)
    play_round_out(state)
    assert (state.kind, state.to_act, state.tricks_won) == ("BAM", 0, [7, 0])
    state.apply(True)
    play_round_out(state)
    assert state.result.reason == "bam" and state.result.winners == (0,)
    assert_fields(last_round_end(state), tricks=[13, 0], bam="won")
    assert plays_in_round(state, 1) == 26


def test_bam_declined_is_a_kot():
    state = all_suit_match("H", bam=True)
    play_round_out(state)
    assert (state.kind, state.to_act, state.tricks_won) == ("BAM", 1, [0, 7])
    state.apply(False)
    assert_fields(last_round_end(state), points=[0, 3], kot="hakem_kot")
    assert state.round == 2


def test_bam_accepted_and_a_trick_lost_scores_one():
    # Seat 0 (hakem): AS-8S and 2H-7H; seat 1: 7S-2S and AH-8H. Trump spades.
    state = two_player_match(
        rules(players=2, bam=True),
        0,
        fives=["AS KS QS 2C 3C", "7S 6S 5S 4C 5C"],
        discards=["2C 3C", "4C 5C"],
        kept=["JS 10S 9S 8S 2H 3H 4H 5H 6H 7H", "4S 3S 2S AH KH QH JH 10H 9H 8H"],
        trump="S",
    )
    winners = play_tricks(state, "AS 2S", "KS 3S", "QS 4S", "JS 5S", "10S 6S", "9S 7S", "8S 8H")
    assert winners == [0] * 7
    assert (state.kind, state.to_act) == ("BAM", 0)
    state.apply(True)
    play_tricks(state, "2H AH")
    assert_fields(last_round_end(state), tricks=[7, 1], points=[1, 0], kot=None, bam="lost")
    assert plays_in_round(state, 1) == 16
    assert (state.round, state.hakem) == (2, 0)

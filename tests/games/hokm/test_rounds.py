"""Rounds and the game (docs/rules.md 4 players, steps 6-9; 3 players; `bam`,
`hakem_rotation`, `target_score`, `kot_points`, `hakem_kot_points`)."""

from __future__ import annotations

import random

import pytest

from tests.support.hokm_setup import (
    assert_fields,
    deal,
    deck,
    events_of,
    last_round_end,
    match_on,
    play_round_out,
    play_tricks,
    plays_in_round,
    rules,
    suit,
    whole_suit,
)
from tests.support.replay_records import record_header, write_played
from waraq.referee.games.cards import suit_of
from waraq.referee.games.hokm import engine as hokm
from waraq.referee.games.hokm.engine import IllegalAction
from waraq.referee.games.hokm.rules import MAX_POINTS
from waraq.referee.replay.render_hokm import result_line
from waraq.referee.replay.walk import OK, load

# Seat s holds the whole suit "SHDC"[s]. Whoever names a trump hands every trick to the seat
# holding that suit: it leads trumps nobody can follow, and trumps in when void.
SUIT_PER_SEAT = [whole_suit(s) for s in "SHDC"]

# 4 players, hakem 0, trump spades: team {0, 2} wins 7-1.
ONE_POINT_HANDS = [
    "AS KS QS JS 10S 9S 8S 2D 3D 4D 5D 6D 7D",
    whole_suit("H"),
    whole_suit("C"),
    "7S 6S 5S 4S 3S 2S 8D 9D 10D JD QD KD AD",
]
ONE_POINT_TRICKS = (
    "2D 2H 2C AD",  # seat 0 leads a low diamond: seat 3's AD wins (team 1: 1)
    "2S 8S 3H 3C",  # seat 3 leads 2S: seat 0's 8S wins
    "AS 4H 4C 3S",  # seat 0 leads its top spades: seat 3 follows, 1 and 2 are void
    "KS 5H 5C 4S",
    "QS 6H 6C 5S",
    "JS 7H 7C 6S",
    "10S 8H 8C 7S",  # team 0: 6
    "9S 9H 9C KD",  # team 0: 7, the round ends; each seat still holds 5 cards
)


def one_point_round(r, later=()):
    state = deal(r, 0, ONE_POINT_HANDS, trump="S", later=later)
    assert play_tricks(state, *ONE_POINT_TRICKS[:7]) == [3, 0, 0, 0, 0, 0, 0]
    assert state.tricks_won == [6, 0, 0, 1]
    play_tricks(state, ONE_POINT_TRICKS[7])
    return state


# -- 4 players: the end of a round and its score -------------------------------------


def test_four_players_round_ends_as_soon_as_a_team_has_seven_tricks():
    state = one_point_round(rules())
    assert_fields(
        last_round_end(state),
        round=1,
        tricks=[7, 0, 0, 1],
        winners=[0, 2],
        points=[1, 0],
        score=[1, 0],
        kot=None,
    )
    assert plays_in_round(state, 1) == 32  # 8 tricks; the last 5 cards each were not played
    # The next round is dealt at once; the hakem's team won, so the hakem stays.
    assert events_of(state, "deal")[-1]["round"] == 2
    assert (state.round, state.hakem, state.scores) == (2, 0, [1, 0])


@pytest.mark.parametrize(
    "hakem, trump, tricks, winners, points, kot",
    [
        # The hakem (seat 0) holds every trump: its team takes 7-0.
        (0, "S", [7, 0, 0, 0], [0, 2], [2, 0], "kot"),
        # The hakem's partner (seat 2) holds every trump: still the hakem's team.
        (0, "D", [0, 0, 7, 0], [0, 2], [2, 0], "kot"),
        # An opponent holds every trump: the hakem's team takes none.
        (0, "H", [0, 7, 0, 0], [1, 3], [0, 3], "hakem_kot"),
        (0, "C", [0, 0, 0, 7], [1, 3], [0, 3], "hakem_kot"),
        # Hakem seat 1; seat 0 holds every trump.
        (1, "S", [7, 0, 0, 0], [0, 2], [3, 0], "hakem_kot"),
    ],
)
def test_kot_and_hakem_kot(hakem, trump, tricks, winners, points, kot):
    state = deal(rules(), hakem, SUIT_PER_SEAT, trump=trump)
    play_round_out(state)
    assert_fields(last_round_end(state), tricks=tricks, winners=winners, points=points, score=points, kot=kot)
    assert plays_in_round(state, 1) == 28


@pytest.mark.parametrize("trump, points", [("S", [4, 0]), ("H", [0, 6])])
def test_custom_kot_points(trump, points):
    state = deal(rules(kot_points=4, hakem_kot_points=6), 0, SUIT_PER_SEAT, trump=trump)
    play_round_out(state)
    assert last_round_end(state)["points"] == points


@pytest.mark.parametrize(
    "kot, hakem_side, scored",
    [
        (False, True, (1, None)),
        (False, False, (1, None)),
        (True, True, (4, "kot")),
        (True, False, (6, "hakem_kot")),
    ],
)
def test_round_points_is_the_scoring_rule_bots_read(kot, hakem_side, scored):
    assert hokm.round_points(rules(kot_points=4, hakem_kot_points=6), kot=kot, hakem_side=hakem_side) == scored


# -- 3 players ----------------------------------------------------------------

# Hakem 0, trump diamonds (2D is out). Each seat owns a suit and holds four diamonds.
OWN_SUIT = {0: "S", 1: "H", 2: "C"}
THREE_HANDS = [
    whole_suit("S") + " 3D 6D JD QD",
    whole_suit("H") + " 5D 7D 9D AD",
    whole_suit("C") + " 4D 8D 10D KD",
]


def three_player_deal(**keys):
    return deal(rules(players=3, **keys), 0, THREE_HANDS, trump="D")


def own_suit_tricks(state, count):
    """``count`` tricks in which the leader leads its own suit and the others, void in it,
    throw the lowest card of their own suit (no trump): the leader wins each."""
    for _ in range(count):
        leader, round_ = state.to_act, state.round
        for _ in range(3):
            seat = state.to_act
            state.apply(min(c for c in state.hands[seat] if suit_of(c) == suit(OWN_SUIT[seat])))
        if state.round == round_ and state.result is None:
            assert state.to_act == leader


def diamond_trick(state, trick):
    """A trick of diamonds (trump), everyone following: the highest diamond wins."""
    (winner,) = play_tricks(state, trick)
    return winner


def test_three_players_six_six_five_the_seat_with_five_wins():
    state = three_player_deal()
    own_suit_tricks(state, 3)  # 3-0-0
    assert diamond_trick(state, "3D 5D 4D") == 1  # 3-1-0
    own_suit_tricks(state, 3)  # 3-4-0 after 7 tricks: no kot
    assert diamond_trick(state, "7D 8D 6D") == 2  # seat 1 leads, seat 2's 8D wins: 3-4-1
    own_suit_tricks(state, 4)  # 3-4-5
    assert diamond_trick(state, "10D JD 9D") == 0  # seat 2 leads, seat 0's JD wins: 4-4-5
    own_suit_tricks(state, 2)  # 6-4-5, 2 left: seat 2 could still reach 7
    assert diamond_trick(state, "QD AD KD") == 1  # 6-5-5, 1 left: either 5 could tie at 6
    assert (state.round, state.tricks_won) == (1, [6, 5, 5])
    own_suit_tricks(state, 1)  # 6-6-5, all 17 played
    assert_fields(
        last_round_end(state),
        round=1,
        tricks=[6, 6, 5],
        winners=[2],
        points=[0, 0, 1],
        score=[0, 0, 1],
        kot=None,
    )
    assert plays_in_round(state, 1) == 51


def test_three_players_round_decided_when_the_leader_cannot_be_caught():
    state = three_player_deal()
    assert diamond_trick(state, "3D 5D 4D") == 1  # 0-1-0
    assert diamond_trick(state, "7D 8D 6D") == 2  # 0-1-1
    assert diamond_trick(state, "10D JD 9D") == 0  # 1-1-1
    own_suit_tricks(state, 6)  # 7-1-1 after 9 tricks: seven tricks alone do not end it
    assert (state.round, state.kind, state.tricks_won) == (1, "PLAY", [7, 1, 1])
    own_suit_tricks(state, 1)  # 8-1-1, 7 left: a rival taking all 7 would tie at 8
    assert (state.round, state.kind, state.tricks_won) == (1, "PLAY", [8, 1, 1])
    own_suit_tricks(state, 1)  # 9-1-1, 6 left: 1 + 6 = 7 < 9, decided
    assert_fields(last_round_end(state), tricks=[9, 1, 1], winners=[0], points=[1, 0, 0], kot=None)
    assert plays_in_round(state, 1) == 33


def test_three_players_kot_by_the_hakem():
    state = three_player_deal()
    own_suit_tricks(state, 7)  # the hakem (seat 0) wins the first seven tricks
    assert_fields(last_round_end(state), tricks=[7, 0, 0], winners=[0], points=[2, 0, 0], kot="kot")
    assert plays_in_round(state, 1) == 21


def test_three_players_kot_by_another_seat():
    state = three_player_deal()
    assert diamond_trick(state, "3D 5D 4D") == 1
    own_suit_tricks(state, 6)  # seat 1 wins the first seven tricks
    assert_fields(last_round_end(state), tricks=[0, 7, 0], winners=[1], points=[0, 3, 0], kot="hakem_kot")


# -- bam (4 players; 2 players in test_hokm_two_players.py) ---------------------------

# Hakem 0 names spades, which seat 2 holds all of: seat 2 wins every trick.
BAM_HANDS = [whole_suit(s) for s in "HDSC"]


def bam_offered():
    state = deal(rules(bam=True), 0, BAM_HANDS, trump="S")
    play_round_out(state)
    return state


def test_bam_is_asked_of_the_seat_that_won_the_seventh_trick_at_seven_nil():
    state = bam_offered()
    assert (state.kind, state.to_act, state.round) == ("BAM", 2, 1)
    assert state.tricks_won == [0, 0, 7, 0]
    assert state.legal_actions() == (False, True)
    assert events_of(state, "round_end") == []


def test_bam_declined_scores_the_kot_as_usual():
    state = bam_offered()
    state.apply(False)
    assert_fields(last_round_end(state), points=[2, 0], kot="kot", tricks=[0, 0, 7, 0])
    assert state.round == 2 and state.result is None


def test_bam_accepted_and_all_thirteen_taken_wins_the_game_at_once():
    state = bam_offered()
    state.apply(True)
    assert (state.kind, state.to_act) == ("PLAY", 2)  # the winner of the 7th trick leads on
    assert all(state.view(s).bam for s in range(4))
    play_round_out(state)
    assert state.kind is None
    assert state.result.reason == "bam" and state.result.winners == (0, 2)
    assert_fields(last_round_end(state), tricks=[0, 0, 13, 0], bam="won", winners=[0, 2])
    assert_fields(state.events[-1], type="result", winners=[0, 2], reason="bam")
    assert plays_in_round(state, 1) == 52
    assert state.scores[0] < 7  # far from the target: the bam alone ended the game


# Hakem 2 names spades and leads AS-8S; seat 1 follows with 2S-7S. Then seat 2 leads 2H
# and seat 3's AH wins.
BAM_LOST_HANDS = [
    whole_suit("C"),
    "7S 6S 5S 4S 3S 2S AD KD QD JD 10D 9D 8D",
    "AS KS QS JS 10S 9S 8S 2H 3H 4H 5H 6H 7H",
    "AH KH QH JH 10H 9H 8H 7D 6D 5D 4D 3D 2D",
]


def test_bam_accepted_and_a_trick_lost_stops_play_and_scores_one():
    state = deal(rules(bam=True), 2, BAM_LOST_HANDS, trump="S")
    winners = play_tricks(
        state,
        "AS 2D 2C 2S",
        "KS 3D 3C 3S",
        "QS 4D 4C 4S",
        "JS 5D 5C 5S",
        "10S 6D 6C 6S",
        "9S 7D 7C 7S",
        "8S 8H 8C 8D",  # seat 1 is out of spades; seat 3 throws a heart
    )
    assert winners == [2] * 7
    assert (state.kind, state.to_act) == ("BAM", 2)
    state.apply(True)
    play_tricks(state, "2H AH 9C 9D")  # AH: the other team takes a trick
    assert_fields(
        last_round_end(state),
        tricks=[0, 0, 7, 1],
        winners=[0, 2],
        points=[1, 0],
        kot=None,
        bam="lost",
    )
    assert plays_in_round(state, 1) == 32  # play stopped at once
    assert (state.round, state.hakem) == (2, 2)  # the hakem's team won the round


def test_bam_is_not_offered_when_the_other_team_has_a_trick():
    state = one_point_round(rules(bam=True))  # 7-1
    assert_fields(last_round_end(state), points=[1, 0], kot=None, bam=None)
    assert state.round == 2 and state.kind != "BAM"


def test_bam_is_not_offered_when_the_variant_is_off():
    state = deal(rules(), 0, BAM_HANDS, trump="S")
    play_round_out(state)
    assert_fields(last_round_end(state), points=[2, 0], kot="kot")
    assert "bam" not in last_round_end(state)


@pytest.mark.parametrize("bad", [1, 0, "true", None])
def test_a_bam_answer_must_be_a_bool(bad):
    state = bam_offered()
    with pytest.raises(IllegalAction, match="BAM"):
        state.apply(bad)
    assert state.kind == "BAM"


# -- the next hakem -------------------------------------------------------------


@pytest.mark.parametrize(
    "rotation, hakem, trump, next_hakem",
    [
        # Trump spades: seat 0 (team 0) wins; trump hearts: seat 1 (team 1) wins.
        ("on_loss", 0, "S", 0),  # the hakem's team won: the hakem stays
        ("on_loss", 0, "H", 1),  # lost: the next seat in play order
        ("on_loss", 3, "S", 0),  # lost: after seat 3 comes seat 0
        ("on_loss", 2, "S", 2),  # won by the hakem's partner: the hakem stays
        ("every_round", 0, "S", 1),
        ("every_round", 0, "H", 1),
        ("every_round", 3, "H", 0),
        ("on_loss_previous", 0, "S", 0),
        ("on_loss_previous", 0, "H", 3),  # lost: the previous seat
        ("on_loss_previous", 2, "H", 1),
    ],
)
def test_four_players_next_hakem(rotation, hakem, trump, next_hakem):
    state = deal(rules(hakem_rotation=rotation), hakem, SUIT_PER_SEAT, trump=trump)
    play_round_out(state)
    assert (state.round, state.hakem, state.to_act) == (2, next_hakem, next_hakem)
    assert_fields(events_of(state, "deal")[-1], round=2, hakem=next_hakem)


@pytest.mark.parametrize(
    "rotation, hakem_wins, next_hakem",
    [
        ("on_loss", True, 0),
        ("on_loss", False, 1),
        ("every_round", True, 1),
        ("every_round", False, 1),
        ("on_loss_previous", True, 0),
        ("on_loss_previous", False, 2),
    ],
)
def test_three_players_next_hakem(rotation, hakem_wins, next_hakem):
    state = three_player_deal(hakem_rotation=rotation)
    if hakem_wins:
        own_suit_tricks(state, 7)  # kot by the hakem, seat 0
    else:
        diamond_trick(state, "3D 5D 4D")
        own_suit_tricks(state, 6)  # kot by seat 1
    assert (state.round, state.hakem, state.to_act) == (2, next_hakem, next_hakem)


# -- the end of the game ----------------------------------------------------------


def test_target_one_ends_the_game_after_one_won_round():
    state = one_point_round(rules(target_score=1))
    assert state.kind is None and state.to_act is None
    assert (state.result.winners, state.result.reason, state.result.score) == ((0, 2), "score", (1, 0))
    assert state.events[-1] == {"type": "result", "score": [1, 0], "winners": [0, 2], "reason": "score"}
    assert len(events_of(state, "deal")) == 1


def test_short_game_to_three_kot_then_a_point():
    r = rules(preset="short")
    assert r.target_score == 3
    later = [deck(r, 0, ONE_POINT_HANDS)]
    state = deal(r, 0, SUIT_PER_SEAT, trump="S", later=later)
    play_round_out(state)  # kot by the hakem's team: 2-0, not yet 3
    assert (state.scores, state.result, state.round, state.hakem) == ([2, 0], None, 2, 0)
    state.apply(suit("S"))
    play_tricks(state, *ONE_POINT_TRICKS)  # 7-1: 3-0
    assert state.result.winners == (0, 2) and state.result.score == (3, 0)
    assert_fields(state.events[-1], type="result", score=[3, 0], winners=[0, 2], reason="score")


def test_a_kot_may_carry_the_score_past_the_target():
    r = rules(target_score=3)
    state = deal(r, 0, SUIT_PER_SEAT, trump="S", later=[deck(r, 0, SUIT_PER_SEAT)])
    play_round_out(state)  # 2-0
    state.apply(suit("S"))
    play_round_out(state)  # 4-0
    assert state.result.score == (4, 0) and state.result.winners == (0, 2)


def test_game_to_five_hakem_kot_then_kot_for_the_other_team():
    r = rules(target_score=5)
    later = [deck(r, 1, SUIT_PER_SEAT)]
    state = deal(r, 0, SUIT_PER_SEAT, trump="H", later=later)
    play_round_out(state)  # seat 1 takes 7: hakem-kot, 0-3; seat 1 becomes hakem
    assert (state.scores, state.hakem, state.result) == ([0, 3], 1, None)
    state.apply(suit("H"))
    play_round_out(state)  # seat 1, now hakem, takes 7 again: kot, 0-5
    assert state.result.winners == (1, 3) and state.result.score == (0, 5)
    assert state.events[-1] == {"type": "result", "score": [0, 5], "winners": [1, 3], "reason": "score"}


def test_three_players_game_won_by_one_seat():
    state = match_on(rules(players=3, target_score=1), 0, [deck(rules(players=3), 0, THREE_HANDS)])
    state.apply(suit("D"))
    # The 6-6-5 round of test_three_players_six_six_five_the_seat_with_five_wins.
    own_suit_tricks(state, 3)
    diamond_trick(state, "3D 5D 4D")
    own_suit_tricks(state, 3)
    diamond_trick(state, "7D 8D 6D")
    own_suit_tricks(state, 4)
    diamond_trick(state, "10D JD 9D")
    own_suit_tricks(state, 2)
    diamond_trick(state, "QD AD KD")
    own_suit_tricks(state, 1)
    assert state.result.winners == (2,) and state.result.score == (0, 0, 1)


# -- the safety net ---------------------------------------------------------------------


def test_the_longest_match_valid_rules_allow_ends_well_inside_the_bound():
    # Every round gives a side at least one point: with three sides, to the largest target.
    longest = 3 * (MAX_POINTS - 1) + 1
    assert longest == 298 < hokm.MAX_ROUNDS


def test_a_match_still_going_at_the_bound_is_aborted_with_the_scores_so_far_and_its_record_verifies(
    monkeypatch, tmp_path
):
    monkeypatch.setattr(hokm, "MAX_ROUNDS", 3)  # rather than play 1000 rounds: the same code path
    r = rules(target_score=MAX_POINTS)
    state = hokm.new_match(r, 8)
    rng = random.Random(8)
    while not state.is_over:
        state.apply(state.random_action(rng))
    assert len(events_of(state, "round_end")) == 3
    result = state.events[-1]
    assert result == {"type": "result", "score": list(state.scores), "winners": [], "reason": "aborted"}
    assert (state.result.winners, state.result.reason) == ((), "aborted")
    replay = load(write_played(tmp_path / "bound.jsonl", record_header(r, 8), state.events, lambda n, e: None))
    assert replay.status == OK, replay.problem  # the engine's abort is re-played and checked, not trusted
    assert result_line(result).startswith("Result: aborted, the match reached its bound of rounds: nobody wins")

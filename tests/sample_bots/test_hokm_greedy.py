"""The greedy house bot (sample_bots/hokm_greedy.py): its rules on hand-worked positions, every
decision kind answered legally, and better than random play.

Expected moves are worked out from the rules in the module's docstring, not read off the bot.
"""

from __future__ import annotations

import pytest

from tests.support.hokm_players import Checked, win_rate_lower_bound
from tests.support.hokm_setup import cards, rules, suit
from tests.support.hokm_views import all_trumps_at_bam, draw_view, play_view, trump_view
from waraq.bots.hokm_greedy import GreedyPlayer, discard_choice, greedy_follow, greedy_lead, trump_choice
from waraq.bots.hokm_random import RandomPlayer
from waraq.referee.games.cards import CARD_NAMES, parse_card
from waraq.referee.match.inprocess import play_match

# -- helpers ------------------------------------------------------------------------


def card(name: str) -> int:
    return parse_card(name)


def test_leads_its_highest_side_card_and_a_trump_only_when_it_holds_nothing_else():
    assert greedy_lead(cards("2H KD 9D AS"), suit("S")) == card("KD")
    assert greedy_lead(cards("3S 10S"), suit("S")) == card("10S")


def test_takes_the_trick_with_its_cheapest_card_that_beats_it():
    # Hearts led, QH winning: KH and AH both take it; KH is cheaper.
    assert greedy_follow(cards("2H KH AH"), cards("5H QH"), suit("S"), partner_winning=False) == card("KH")
    # Void in hearts: a trump takes it, the lowest of them.
    assert greedy_follow(cards("3S 9S 4D"), cards("QH"), suit("S"), partner_winning=False) == card("3S")


def test_gives_the_lowest_card_when_the_partner_wins_or_nothing_wins():
    # The partner's QH wins: AH would win too, but 2H is given.
    assert greedy_follow(cards("2H AH"), cards("5H QH"), suit("S"), partner_winning=True) == card("2H")
    # Nothing beats the trumped trick (9S on a heart): the lowest side card, not the trump 2S.
    assert greedy_follow(cards("2S 7D 4C"), cards("QH 9S"), suit("S"), partner_winning=False) == card("4C")


def test_names_its_longest_suit_trump_and_between_equals_the_higher_cards():
    assert trump_choice(cards("2H 3H 4H AS KS")) == suit("H")
    assert trump_choice(cards("2H 3H AS 4S QD")) == suit("S")  # two hearts, two spades: AS is higher than 3H


def test_discards_the_lowest_side_cards_before_any_trump():
    pair = discard_choice(cards("2S 3S 9H 5D KC"), suit("S"))
    assert {CARD_NAMES[c] for c in pair} == {"5D", "9H"} and list(pair) == sorted(pair)  # sorted, as DISCARD's legal


def test_every_note_names_the_action_it_explains():
    player = GreedyPlayer()
    view = play_view(1, "2H KH AH 3C", trick="QH")
    assert player(view) == card("KH") and player.note.startswith("follow KH: the cheapest card that takes QH")
    player(trump_view("2H 3H 4H AS KS"))
    assert player.note == "trump H: the longest suit, 3 of 5"
    player(draw_view("KC"))
    assert player.note.startswith("draw keep KC")


def test_takes_the_kot_rather_than_a_bam():
    state = all_trumps_at_bam()
    player = GreedyPlayer()
    assert player(state.view(state.to_act)) is False and "kot" in player.note


LEGALITY_CONFIGS = [
    {"players": 4, "void_rule": "must_trump", "max_redeals": 2},
    {"players": 4, "bam": True, "hakem_rotation": "every_round"},
    {"players": 3, "void_rule": "must_trump", "max_redeals": 2},
    {"players": 2, "void_rule": "must_trump", "bam": True, "burn_visible": True, "max_redeals": 2},
]


@pytest.mark.parametrize("keys", LEGALITY_CONFIGS, ids=str)
def test_always_returns_a_legal_action(keys):
    rules_ = rules(**keys, target_score=3)
    n = rules_.players
    met: set[str] = set()
    for k in range(12):
        players = [Checked(GreedyPlayer(), met) if s == k % n else RandomPlayer(k * 10 + s) for s in range(n)]
        assert play_match(rules_, f"greedy-legal/{k}", players).result is not None
    assert {"TRUMP", "PLAY"} <= met
    if n == 2:
        assert {"DISCARD", "DRAW"} <= met


@pytest.mark.parametrize("preset, matches, chance", [("classic", 40, 1 / 2), ("three", 45, 1 / 3), ("two", 40, 1 / 2)])
def test_beats_random_players(preset, matches, chance):
    # Greedy on one side (a team, or one seat), random elsewhere; every side in turn. The exact
    # binomial bound at confidence 1 - 1e-6 must clear the chance rate: deterministic seeds, no flake.
    rules_ = rules(preset=preset)
    n = rules_.players
    wins = 0
    for k in range(matches):
        side = k % (2 if n == 4 else n)
        ours = {s for s in range(n) if (s % 2 == side if n == 4 else s == side)}
        players = [GreedyPlayer() if s in ours else RandomPlayer(f"r{k}/{s}") for s in range(n)]
        wins += bool(ours & set(play_match(rules_, f"greedy-random/{k}", players).result.winners))
    assert win_rate_lower_bound(wins, matches, 1e-6) > chance, f"{wins}/{matches}"

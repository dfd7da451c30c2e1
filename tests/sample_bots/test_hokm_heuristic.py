"""The heuristic sample bot (sample_bots/hokm_heuristic.py): it plays the strategy
tips of source 000, always legally, from the view alone, and beats random play.

Positions are either dealt with the engine (tests/support/hokm_setup.py) or written as
views by hand (tests/support/hokm_views.py). Expected moves are worked out from the tips, not read off the bot.
"""

from __future__ import annotations

import pytest

from tests.support.hokm_players import Checked, win_rate_lower_bound
from tests.support.hokm_setup import cards, deal, play, play_first_legal, rules, suit
from tests.support.hokm_views import all_trumps_at_bam, draw_view, play_view, trump_view
from waraq.bots.hokm_heuristic import HeuristicPlayer
from waraq.bots.hokm_random import RandomPlayer
from waraq.referee.games.cards import CARD_NAMES
from waraq.referee.games.hokm.engine import HokmView
from waraq.referee.match.inprocess import play_match

# -- helpers ------------------------------------------------------------------------


def bot_choice(view: HokmView, seed: int = 0):
    action = HeuristicPlayer(seed)(view)
    assert action in view.legal
    return action


def name(card: int) -> str:
    return CARD_NAMES[card]


def names_of(cs) -> list[str]:
    return [CARD_NAMES[c] for c in cs]


def heuristic_wins(preset_rules, matches: int) -> int:
    """Matches won by the heuristic side: one team (4 players, seats {0, 2} in
    half the matches, {1, 3} in the other half) or one seat (2 and 3 players,
    every seat in turn); random players elsewhere."""
    n = preset_rules.players
    wins = 0
    for k in range(matches):
        side = k % (2 if n == 4 else n)
        ours = {s for s in range(n) if (s % 2 == side if n == 4 else s == side)}
        players = [HeuristicPlayer(f"h{k}/{s}") if s in ours else RandomPlayer(f"r{k}/{s}") for s in range(n)]
        state = play_match(preset_rules, f"beats-random/{k}", players)
        wins += bool(ours & set(state.result.winners))
    return wins


# -- it beats random play ---------------------------------------------------------------


# Random play wins a 2-sided match half the time and a 3-player match a third of
# the time. The assertion: even at confidence 1 - 1e-6, the heuristic side's win
# rate is above that chance rate (an exact binomial bound; the matches are fixed
# by their seeds, so the test is deterministic).
@pytest.mark.parametrize(
    "preset, matches, chance",
    [("classic", 80, 1 / 2), ("three", 90, 1 / 3), ("two", 60, 1 / 2)],
)
def test_beats_random_players(preset, matches, chance):
    wins = heuristic_wins(rules(preset=preset), matches)
    bound = win_rate_lower_bound(wins, matches, 1e-6)
    print(f"{preset}: heuristic won {wins}/{matches} = {wins / matches:.3f} (bound {bound:.3f})")
    assert bound > chance


# -- it always plays legally, from the view alone -----------------------------------------

LEGALITY_CONFIGS = [
    ({"players": 4}, {"TRUMP", "PLAY"}),
    ({"players": 4, "void_rule": "must_trump", "max_redeals": 2}, {"TRUMP", "PLAY", "REDEAL"}),
    ({"players": 4, "bam": True, "hakem_rotation": "every_round"}, {"TRUMP", "PLAY", "BAM"}),
    ({"players": 3, "void_rule": "must_trump", "max_redeals": 2}, {"TRUMP", "PLAY", "REDEAL"}),
    ({"players": 3, "hakem_rotation": "on_loss_previous"}, {"TRUMP", "PLAY"}),
    ({"players": 2}, {"TRUMP", "PLAY", "DISCARD", "DRAW"}),
    (
        {"players": 2, "void_rule": "must_trump", "bam": True, "burn_visible": True, "max_redeals": 2},
        {"TRUMP", "PLAY", "DISCARD", "DRAW", "REDEAL", "BAM"},
    ),
]


@pytest.mark.slow
@pytest.mark.parametrize("keys, kinds", LEGALITY_CONFIGS, ids=lambda v: str(sorted(v) if isinstance(v, set) else v))
def test_always_returns_a_legal_action(keys, kinds):
    # Seats mix heuristic and random players, so the bot meets many kinds of
    # positions; every seat is the bot in some match. Checked asserts legality.
    rules_ = rules(**keys, target_score=3)
    n = rules_.players
    met: set[str] = set()
    for k in range(40):
        bots = {s for s in range(n) if (k + 1) >> s & 1} or {0}
        players = [Checked(HeuristicPlayer(k), met) if s in bots else RandomPlayer(k * 10 + s) for s in range(n)]
        assert play_match(rules_, f"legal/{k}", players).result is not None
    # The variants asked the bot every decision kind they have.
    assert met == kinds


def test_same_seed_same_decisions():
    def events(seed):
        players = [HeuristicPlayer(seed) for _ in range(4)]
        return play_match(rules(), "determinism", players).events

    assert events(7) == events(7)


def test_answers_a_replayed_decision_the_same_out_of_order():
    # A bot may be asked about decisions out of order: the answers must depend
    # on the view only. Record a match's views, ask a fresh bot backwards.
    asked: list[tuple[HokmView, object]] = []
    first = HeuristicPlayer(3)

    def recording(view):
        action = first(view)
        asked.append((view, action))
        return action

    play_match(rules(preset="two", bam=True, max_redeals=1), "replayed", [recording, recording])
    fresh = HeuristicPlayer(3)
    assert [fresh(v) for v, _ in reversed(asked)] == [a for _, a in reversed(asked)]


# -- TRUMP: the longest suit, weighted by high cards -------------------------------------


@pytest.mark.parametrize(
    "five, expected",
    [
        ("2D 3D 4D 5D AS", "D"),  # four small beat a lone ace
        ("AS KS 2H 3H 4H", "H"),  # three small beat two bare high cards (source 000)
        ("KH 5H QC 4C 9D", "H"),  # equal length: the king outweighs the queen
        ("JC 2C AD 3D 7S", "D"),  # equal length: the ace outweighs the jack
    ],
)
def test_trump_is_the_longest_suit_weighted_by_high_cards(five, expected):
    assert bot_choice(trump_view(five)) == suit(expected)


# -- PLAY: second hand low, third hand high ------------------------------------------------


def test_second_hand_plays_low():
    # Seat 0 led 5H. Seat 1's KH is not sure: the AH is unseen and seat 2, an
    # opponent still to play, may hold it. So low: 3H; partner seat 3 plays last.
    view = play_view(1, "KH 3H 7D 9C 2S", trick="5H")
    assert name(bot_choice(view)) == "3H"


def test_third_hand_plays_high():
    # Partner led 4H, seat 1 beat it with 6H. Seat 2 plays its best heart, KH
    # (not 10H, the cheapest winner: JH and QH are unseen), so that seat 3 must
    # spend the AH or lose the trick.
    view = play_view(2, "KH 10H 3H 7D 2S", trick="4H 6H")
    assert name(bot_choice(view)) == "KH"


def test_third_hand_high_plays_the_lower_of_equal_cards():
    # KH and QH are equals (nothing unseen between them): QH does the same work.
    view = play_view(2, "KH QH 3H 7D", trick="4H 6H")
    assert name(bot_choice(view)) == "QH"


# -- PLAY: never overtake a partner who is sure to win -------------------------------------


def test_does_not_overtake_a_partner_holding_the_highest_outstanding_card():
    # Partner (seat 0) led KH; the only higher heart, AH, is ours, and seat 3 has
    # not shown out of hearts: the KH wins. Play low, keep the ace.
    view = play_view(2, "AH 2H 7D 2S", trick="KH 5H")
    assert name(bot_choice(view)) == "2H"


def test_does_not_trump_a_partner_holding_the_highest_outstanding_card():
    # Partner's AH was the master (the KH fell in an earlier trick). Void in
    # hearts, seat 2 throws off (from clubs, its shortest side suit) rather than trump.
    view = play_view(
        2,
        "2S 5S 4D 9D JD 6C",
        trick="AH 3H",
        tricks=((0, "KH 4H 5H 6H"),),
    )
    assert name(bot_choice(view)) == "6C"


def test_with_three_players_there_is_no_partner_to_spare():
    # The same cards as the 4-player partner case, but seat 0 is a rival: win it.
    view = play_view(2, "AH 2H 7D 2S", trick="KH 5H", players=3)
    assert name(bot_choice(view)) == "AH"


# -- PLAY: win as cheaply as possible; throw the lowest when lost --------------------------


def test_last_hand_wins_with_the_cheapest_winning_card():
    # Seat 3 last: opponents' QH leads the trick; KH and AH both win: KH.
    view = play_view(3, "2H KH AH 5D", trick="9H 3H QH")
    assert name(bot_choice(view)) == "KH"


def test_trumps_with_the_cheapest_trump_that_wins():
    # Seat 2 (an opponent) trumped with 5S; void in hearts, seat 3 needs a trump
    # above 5S: 7S, not the 3S (too low) nor the QS (wasted).
    view = play_view(3, "3S 7S QS 5D", trick="9H 3H 5S")
    assert name(bot_choice(view)) == "7S"


def test_throws_off_from_the_shortest_side_suit_when_the_trick_is_lost():
    # Opponents hold the trick with AH; seat 3 has no heart and no trump. It
    # empties clubs (two cards) rather than throw its lowest card, 3D.
    view = play_view(3, "3D 4D 5D 6C 7C", trick="AH 4H 5H")
    assert name(bot_choice(view)) == "6C"


def test_follows_with_the_lowest_card_when_the_trick_is_lost():
    # Seat 3 cannot beat the AH: it gives its lowest heart.
    view = play_view(3, "4H 9H KH 5D", trick="AH 2H 3H")
    assert name(bot_choice(view)) == "4H"


# -- PLAY: leading ---------------------------------------------------------------------


def test_leads_trumps_when_long_in_trumps():
    # Six trumps (source 000: five or more, draw trumps early).
    view = play_view(0, "AS KS QS 5S 4S 3S 7H 8H 9D 10D 5C 6C 7C")
    assert bot_choice(view) // 13 == suit("S")


# Seat 0 is hakem, trump spades. Trick 1: seat 0 leads KD and wins it; then it
# leads again holding AD QD JD, now the highest diamonds out, and no other
# winner (AH, AC are out), only two trumps and clubs as its shortest suit. In
# VOID_HANDS seat 1 has no diamond and shows out with 2C; in FOLLOW_HANDS seats
# 1 and 2 swap 2C and 3D, so seat 1 follows.
VOID_HANDS = [
    "KD AD QD JD 2S 3S 5H 6H 7H 8H 9H 7C 8C",
    "2C 3C 4C 5C 6C JC QC 4S 5S 6S 10H JH QH",
    "3D 5D 6D 7D 8D 9D 10D 9C 10C 7S 8S 9S 10S",
    "4D JS QS KS AS 2H 3H 4H KH AH KC AC 2D",
]
FOLLOW_HANDS = [
    VOID_HANDS[0],
    VOID_HANDS[1].replace("2C", "3D"),
    VOID_HANDS[2].replace("3D", "2C"),
    VOID_HANDS[3],
]


def second_lead(hands, first_trick):
    state = deal(rules(), 0, hands, trump="S")
    play(state, first_trick)
    assert state.to_act == 0 and state.view(0).trick == ()
    return state.view(0)


def test_leads_a_winner_when_nobody_can_trump_it():
    # AD, QD and JD are equals, each beating every unseen diamond: one of them,
    # not a low club from the shortest suit.
    view = second_lead(FOLLOW_HANDS, "KD 3D 5D 2D")
    assert name(bot_choice(view)) in {"AD", "QD", "JD"}


def test_avoids_leading_a_suit_an_opponent_has_shown_out_of():
    # Seat 1 showed out of diamonds and may hold trumps: a diamond would be
    # trumped. The bot has hearts and clubs to lead instead.
    view = second_lead(VOID_HANDS, "KD 2C 3D 2D")
    assert bot_choice(view) // 13 != suit("D")


@pytest.mark.parametrize("void_rule, diamond_led", [("free", False), ("must_trump", True)])
def test_a_void_seat_that_did_not_trump_under_must_trump_holds_no_trump(void_rule, diamond_led):
    # 3 players, trump spades. Seat 1 showed out of diamonds with 2C. Under
    # `free` it may still hold a spade and trump the AD: lead something else.
    # Under `must_trump` it would have had to trump: it holds none, so the AD
    # (the highest diamond out) is a safe winner to lead.
    view = play_view(
        0,
        "AD 5H 6H 7C 8C 3S",
        tricks=((0, "KD 2C 3D"),),
        players=3,
        void_rule=void_rule,
    )
    assert (name(bot_choice(view)) == "AD") is diamond_led


# -- BAM and REDEAL -------------------------------------------------------------------


def test_calls_bam_holding_every_remaining_trump():
    state = all_trumps_at_bam()
    assert state.kind == "BAM" and state.to_act == 0
    assert bot_choice(state.view(0)) is True


def test_declines_bam_with_cards_that_can_lose():
    # Seat 0 wins seven tricks with 8S..AS, the top trumps, but then holds six
    # low hearts that higher hearts can beat: no bam.
    hands = [
        "8S 9S 10S JS QS KS AS 2H 3H 4H 5H 6H 7H",
        "2S 3S 8H 9H 10H JH QH KH AH 2D 3D 4D 5D",
        "4S 5S 6D 7D 8D 9D 10D JD QD KD AD 2C 3C",
        "6S 7S 4C 5C 6C 7C 8C 9C 10C JC QC KC AC",
    ]
    state = deal(rules(bam=True), 0, hands, trump="S")
    play_first_legal(state, 28)
    assert state.kind == "BAM" and state.to_act == 0
    assert bot_choice(state.view(0)) is False


def test_asks_for_a_redeal_when_offered():
    # The hakem's first five hold no A, K, Q or J: the redeal is offered.
    hakem = cards("2S 3H 4D 5C 6S 7S 8S 9S 10S 2H 4H 5H 6H")
    rest = [c for c in rules().deck if c not in hakem]
    hands = [hakem, rest[:13], rest[13:26], rest[26:]]
    state = deal(rules(max_redeals=1), 0, hands)
    assert state.kind == "REDEAL"
    assert bot_choice(state.view(0)) is True


# -- 2 players: DISCARD and DRAW -----------------------------------------------------------


def test_two_player_discard_keeps_trumps():
    # Three trumps and two side aces/kings: the two side cards go, not a trump.
    state = deal(rules(players=2), 0, ["2H 3H 4H AS KC", "5S 6S 7S 8S 9S"], trump="H")
    pair = bot_choice(state.view(0))
    assert sorted(names_of(pair)) == ["AS", "KC"]


def test_two_player_discard_drops_the_low_card_of_a_short_side_suit():
    # The 2C is alone in clubs and the lowest card: it goes; the trump AH stays.
    state = deal(rules(players=2), 0, ["2H 3H 4H AS KC", "AH 7S 8S 2C 9D"], trump="H")
    state.apply(tuple(sorted(cards("AS KC"))))
    pair = bot_choice(state.view(1))
    assert "2C" in names_of(pair) and "AH" not in names_of(pair)


@pytest.mark.parametrize(
    "offered, choice",
    [
        ("2H", "keep"),  # a trump, however small
        ("QD", "keep"),  # an honour
        ("7S", "pass"),  # a low card of a suit we do not hold: the unseen next card is worth more
        ("6C", "pass"),  # clubs would hold two of four cards: not long
    ],
)
def test_two_player_draw_keeps_trumps_and_honours_and_passes_low_cards(offered, choice):
    assert bot_choice(draw_view(offered)) == choice

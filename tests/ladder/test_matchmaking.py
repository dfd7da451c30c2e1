"""Matchmaking: deterministic, balanced over seats and partners, duplicate seatings,
uncertain and close matches first."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest

from waraq.ladder.play.matchmaking import History, MatchmakingError, Planner, rotations
from waraq.ladder.stats import ratings as rt
from waraq.ladder.stats.design import OpenLinks
from waraq.ladder.storage.config import Matchmaking, TrueSkillSettings

ENV = rt.environment(TrueSkillSettings())


def plan(bots, players=4, ratings=None, seed=1, batch=0, matches=16, history=None, open_links=None, **settings):
    planner = Planner(ENV, players, Matchmaking(**settings), ratings or {}, history or History(), open_links)
    return planner.plan(bots, seed, batch, matches)


def seatings(deals):
    return [s for deal in deals for s in deal]


def test_the_same_state_and_seed_give_the_same_plan():
    bots = [1, 2, 3, 4, 5, 6]
    ratings = {b: rt.Rating(20 + b, 8 - b / 2) for b in bots}
    assert plan(bots, ratings=ratings) == plan(bots, ratings=ratings)
    plans = {repr(plan(bots, ratings=ratings, seed=s)) for s in range(5)}
    assert len(plans) > 1  # the seed matters where the weighing leaves a choice


def test_four_player_duplicates_swap_the_teams_on_the_same_deal():
    for first, second in plan([1, 2, 3, 4], matches=8):
        # Seats 0+2 are a team: whoever sat there now sits in 1+3, and the other way round.
        assert {first[0], first[2]} == {second[1], second[3]}
        assert {first[1], first[3]} == {second[0], second[2]}


def test_three_player_duplicates_seat_each_bot_once_in_each_seat():
    for deal in plan([1, 2, 3, 4], players=3, matches=9):
        assert len(deal) == 3
        for seat in range(3):
            assert sorted(s[seat] for s in deal) == sorted(deal[0])


def test_two_player_duplicates_swap_the_seats():
    for first, second in plan([1, 2, 3], players=2, matches=6):
        assert first == second[::-1]


def test_without_duplicates_every_deal_is_played_once():
    deals = plan([1, 2, 3, 4], matches=5, duplicate=False)
    assert [len(d) for d in deals] == [1] * 5


def test_mixed_partners_with_four_bots_seat_four_bots_and_rotate_partners_evenly():
    deals = plan([1, 2, 3, 4], matches=48)
    partners: Counter = Counter()
    seats: Counter = Counter()
    for s in seatings(deals):
        assert len(set(s)) == 4
        partners[frozenset((s[0], s[2]))] += 1
        partners[frozenset((s[1], s[3]))] += 1
        seats.update((bot, seat) for seat, bot in enumerate(s))
    # 48 matches: 96 partnerships over the 6 pairs of 4 bots, 16 each when even; 12 per bot and seat.
    assert set(partners) == {frozenset(p) for p in combinations([1, 2, 3, 4], 2)}
    assert max(partners.values()) - min(partners.values()) <= 2
    assert max(seats.values()) - min(seats.values()) <= 2


def test_self_partners_seat_each_bot_with_itself():
    for s in seatings(plan([1, 2, 3], matches=8, partners="self")):
        assert s[0] == s[2] and s[1] == s[3] and s[0] != s[1]


@pytest.mark.parametrize("bots", [[1, 2], [1, 2, 3]])
def test_with_fewer_than_four_bots_a_bot_partners_itself_but_never_faces_itself(bots):
    used = Counter()
    for s in seatings(plan(bots, matches=12)):
        assert not {s[0], s[2]} & {s[1], s[3]}
        used.update(set(s))
    assert set(used) == set(bots)


def test_the_most_uncertain_bots_are_picked_first():
    # Six bots for four seats; bots 5 and 6 are new (sigma 8.3), the others well known (sigma 1).
    ratings = {b: rt.Rating(25, 1) for b in range(1, 5)}
    (first, *_), *_ = plan([1, 2, 3, 4, 5, 6], ratings=ratings, matches=2, balance_weight=0, quality_weight=0)
    assert {5, 6} <= set(first)


def test_close_matches_are_preferred():
    # 2 players; bot 3 is far stronger. Only quality counts: 1 against 2 is the closest match.
    ratings = {1: rt.Rating(25, 2), 2: rt.Rating(25.5, 2), 3: rt.Rating(40, 2)}
    (deal,) = plan([1, 2, 3], players=2, ratings=ratings, matches=2, balance_weight=0, uncertainty_weight=0)
    assert set(deal[0]) == {1, 2}


def test_the_pairs_whose_order_is_least_certain_are_seated_against_each_other():
    # Four bots, mixed partners, equal σ: 2 and 3 are close (P(3 > 2) ≈ 0.5), every other pair far apart.
    # Only the order term counts: 2 and 3 must sit on opposite teams, not as partners.
    ratings = {1: rt.Rating(10, 2), 2: rt.Rating(25, 2), 3: rt.Rating(25.2, 2), 4: rt.Rating(40, 2)}
    deals = plan([1, 2, 3, 4], ratings=ratings, matches=8, balance_weight=0, quality_weight=0, uncertainty_weight=0)
    for seating in seatings(deals):
        assert {seating[0], seating[2]} != {2, 3} and {seating[1], seating[3]} != {2, 3}
    # With the order term off, partnering 2 with 3 is as good as any seating: some plan does it.
    off = [
        plan(
            [1, 2, 3, 4],
            ratings=ratings,
            seed=seed,
            matches=8,
            balance_weight=0,
            quality_weight=0,
            uncertainty_weight=0,
            order_weight=0,
        )
        for seed in range(6)
    ]
    assert any({s[0], s[2]} == {2, 3} or {s[1], s[3]} == {2, 3} for deals in off for s in seatings(deals))


def test_balance_spreads_matches_over_every_bot():
    # Eight bots, four seats: after 16 matches (32 seat-sets) every bot has played.
    history = History()
    deals = plan(list(range(1, 9)), matches=16, history=history)
    played = Counter(b for s in seatings(deals) for b in set(s))
    assert set(played) == set(range(1, 9))
    assert max(played.values()) - min(played.values()) <= 2


def test_the_planner_counts_what_was_planned_before():
    # Bot 1 has sat in seat 0 a hundred times: it is seated elsewhere now.
    history = History()
    for _ in range(100):
        history.add((1, 2, 3, 4), 4)
    deals = plan([1, 2, 3, 4], matches=2, duplicate=False, history=history, quality_weight=0, uncertainty_weight=0)
    assert deals[0][0][0] != 1


def test_rotations_move_every_bot_on_by_one_seat():
    assert rotations((1, 2, 3, 4), 4, True) == [(1, 2, 3, 4), (4, 1, 2, 3)]
    assert rotations((1, 2, 3), 3, True) == [(1, 2, 3), (3, 1, 2), (2, 3, 1)]
    assert rotations((1, 2), 2, False) == [(1, 2)]


@pytest.mark.parametrize(("players", "bots"), [(4, [1]), (3, [1, 2]), (2, [1])])
def test_too_few_bots_is_said_plainly(players, bots):
    with pytest.raises(MatchmakingError, match=f"a {players}-player ladder needs at least"):
        plan(bots, players=players, matches=2)


def covariance(bots, known=100.0, together=()):
    """Each strength known to ±``known`` Elo, independently, except the pairs ``together``: correlated 0.95,
    so their difference is known well (as a fit that has tied them knows it)."""
    out = {(a, b): known**2 if a == b else 0.0 for a in bots for b in bots}
    for a, b in together:
        out[a, b] = out[b, a] = 0.95 * known**2
    return out


def test_with_open_links_a_pair_already_decided_is_not_seated_while_a_link_is_open():
    # Each bot partners itself. Bots 1 and 2 are equal (TrueSkill's closest match, P(1 > 2) = 0.5 for ever);
    # 3 is above them but not yet known to be. Balance off: only the ratings and the rule choose.
    ratings = {1: rt.Rating(25, 2), 2: rt.Rating(25, 2), 3: rt.Rating(28, 2)}
    settings = {"partners": "self", "balance_weight": 0, "matches": 8, "ratings": ratings}
    old = plan([1, 2, 3], **settings)
    assert {frozenset(s) for s in seatings(old)} == {frozenset({1, 2})}  # quality and order both pick 1 v 2
    # The rule has tied 1 and 2 (their difference is well known); 3 over 1 is open. Every match now seats 3.
    elo = {1: 0.0, 2: 0.0, 3: 50.0}
    tied = OpenLinks(((3, 1),), elo, covariance([1, 2, 3], together=[(1, 2)]))
    assert all(3 in s for s in seatings(plan([1, 2, 3], open_links=tied, **settings)))
    # Nothing open (the stop comes first, but a plan must still be made): the rule's terms are 0 for every
    # seating, so the balance alone chooses and every pair plays as often.
    settled = OpenLinks((), elo, covariance([1, 2, 3]))
    spread = Counter(frozenset(s) for s in seatings(plan([1, 2, 3], partners="self", matches=12, open_links=settled)))
    assert spread == {frozenset({1, 2}): 4, frozenset({1, 3}): 4, frozenset({2, 3}): 4}


def test_with_mixed_partners_two_copies_are_measured_by_the_mirrored_seatings_only():
    # Four bots, so every seating is two pairs of partners, one of three splits. Bots 1 and 2 are one bot
    # twice, their link the only one open; 3 and 4 are ordered. {1, 2} v {3, 4} tells nothing about 1 − 2, so
    # although the partner balance asks for every split in turn, no board of it is planned; the other two
    # splits, (1 − 2) ± (3 − 4), come in equal numbers, which is what cancels 3 − 4.
    bots = [1, 2, 3, 4]
    elo = {1: 100.0, 2: 100.0, 3: -50.0, 4: -150.0}
    links = OpenLinks(((1, 2),), elo, covariance(bots, together=[(3, 4)]))
    deals = plan(bots, matches=32, open_links=links)
    splits = Counter(partner_of_1(s) for s in seatings(deals))
    assert splits == {3: 16, 4: 16}
    # Without the rule the partner balance spreads the three splits evenly.
    balanced = Counter(partner_of_1(s) for s in seatings(plan(bots, matches=48)))
    assert balanced == {2: 16, 3: 16, 4: 16}


def partner_of_1(seating):
    return seating[(seating.index(1) + 2) % 4]

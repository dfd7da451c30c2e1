"""Ladder ratings: Hokm results as trueskill sides and ranks, and updates equal to the trueskill package's."""

from __future__ import annotations

import math

import pytest
import trueskill

from waraq.ladder.stats import ratings as rt
from waraq.ladder.storage.config import TrueSkillSettings

LADDER = rt.environment(TrueSkillSettings())  # the ladder's default: no draws
A, B, C, D = 1, 2, 3, 4


def same(got: rt.Rating, want: trueskill.Rating) -> None:
    assert got.mu == pytest.approx(want.mu, abs=1e-9) and got.sigma == pytest.approx(want.sigma, abs=1e-9)


def test_one_against_one_gives_the_numbers_trueskill_publishes():
    # trueskill.org's first example: two new players (25, 25/3), the first wins, draw probability 10 %:
    # the winner goes to 29.396 and the loser to 20.604, both with sigma 7.171.
    env = rt.environment(TrueSkillSettings(draw_probability=0.10))
    new = rt.rate(env, {}, seats=(A, B), players=2, side_ranks=[0, 1])
    assert (round(new[A].mu, 3), round(new[A].sigma, 3)) == (29.396, 7.171)
    assert (round(new[B].mu, 3), round(new[B].sigma, 3)) == (20.604, 7.171)


def test_a_four_player_match_rates_the_two_teams_as_trueskill_does():
    before = {A: rt.Rating(30, 4), B: rt.Rating(22, 6), C: rt.Rating(27, 2), D: rt.Rating(25, 8)}
    # Seats 0+2 are one team, 1+3 the other; seat 1's team won.
    new = rt.rate(LADDER, before, seats=(A, B, C, D), players=4, side_ranks=[1, 0])
    t = {k: LADDER.create_rating(v.mu, v.sigma) for k, v in before.items()}
    (a, c), (b, d) = LADDER.rate([(t[A], t[C]), (t[B], t[D])], ranks=[1, 0])
    for bot, want in ((A, a), (B, b), (C, c), (D, d)):
        same(new[bot], want)
    assert new[B].mu > before[B].mu and new[A].mu < before[A].mu


def test_a_bot_partnering_itself_weighs_twice_in_its_team():
    before = {A: rt.Rating(28, 3), B: rt.Rating(24, 5)}
    new = rt.rate(LADDER, before, seats=(A, B, A, B), players=4, side_ranks=[0, 1])
    ta, tb = LADDER.create_rating(28, 3), LADDER.create_rating(24, 5)
    (a,), (b,) = LADDER.rate([(ta,), (tb,)], ranks=[0, 1], weights=[(2,), (2,)])
    same(new[A], a)
    same(new[B], b)


def test_three_players_are_a_free_for_all_ranked_by_the_result():
    # Seat 2 reached the target; seat 0 scored 3 and seat 1 scored 1: ranks 1, 2, 0.
    side_ranks = rt.ranks(3, winners=[2], score=[3, 1, 7], faulty=[])
    assert side_ranks == [1, 2, 0]
    new = rt.rate(LADDER, {}, seats=(A, B, C), players=3, side_ranks=side_ranks)
    r = LADDER.create_rating()
    (a,), (b,), (c,) = LADDER.rate([(r,), (r,), (r,)], ranks=[1, 2, 0])
    same(new[A], a)
    same(new[B], b)
    same(new[C], c)
    assert new[C].mu > new[A].mu > new[B].mu


@pytest.mark.parametrize(
    ("players", "winners", "score", "faulty", "want"),
    [
        (4, [1, 3], [2, 7], [], [1, 0]),
        (4, [0, 2], [0, 0], [1], [0, 1]),  # a forfeit: the faulty side loses
        (2, [1], [3, 7], [], [1, 0]),
        (3, [0], [7, 2, 2], [], [0, 1, 1]),  # two losers on equal scores share a rank
        (3, [0, 2], [1, 4, 0], [1], [0, 1, 0]),  # 3 players, seat 1 forfeits: the two others win
        (4, [], [3, 3], [0, 1], None),  # every side faulted: nobody won, nothing to rate
    ],
)
def test_ranks_follow_the_match_result(players, winners, score, faulty, want):
    assert rt.ranks(players, winners, score, faulty) == want


def test_rating_returns_new_values_and_leaves_the_old_ones_alone():
    before = {A: rt.Rating(25, 8), B: rt.Rating(25, 8)}
    copy = dict(before)
    new = rt.rate(LADDER, before, seats=(A, B), players=2, side_ranks=[0, 1])
    assert before == copy and new[A] != before[A]
    with pytest.raises(AttributeError):
        before[A].mu = 0  # type: ignore[misc]  # a Rating is frozen: the assignment must fail, as asserted


def test_a_bot_on_both_sides_cannot_be_rated():
    with pytest.raises(ValueError, match="two sides"):
        rt.rate(LADDER, {}, seats=(A, A, B, B), players=4, side_ranks=[0, 1])


def test_p_above_is_the_normal_probability_of_the_skill_difference():
    # (30, 1) against (25, 1): the difference is N(5, 2), so P = Φ(5 / √2) = Φ(3.5355) = 0.99980 (normal table).
    assert rt.p_above(rt.Rating(30, 1), rt.Rating(25, 1)) == pytest.approx(0.99980, abs=1e-5)
    assert rt.p_above(rt.Rating(25, 3), rt.Rating(25, 5)) == 0.5
    # (26, 3) against (25, 4): P = Φ(1 / 5) = Φ(0.2) = 0.5793.
    assert rt.p_above(rt.Rating(26, 3), rt.Rating(25, 4)) == pytest.approx(0.5793, abs=1e-4)


def test_the_table_is_ordered_when_every_two_neighbours_are_at_the_confidence():
    ratings = {A: rt.Rating(40, 1), B: rt.Rating(30, 1), C: rt.Rating(20, 1)}
    assert rt.table_order(ratings) == [A, B, C]
    assert rt.is_ordered(ratings, 0.95)
    ratings[C] = rt.Rating(29, 1)  # B and C now 1 apart with sigma 1 each: Φ(1/√2) = 0.76
    assert not rt.is_ordered(ratings, 0.95)
    assert rt.neighbour_confidence(ratings)[1][2] == pytest.approx(0.7602, abs=1e-4)


def test_replaying_a_history_gives_the_ratings_of_rating_match_by_match():
    matches = [((A, B, C, D), [0, 1]), ((B, A, D, C), [0, 1]), ((A, C, B, D), None), ((C, D, A, B), [1, 0])]
    current: dict[int, rt.Rating] = {}
    for seats, side_ranks in matches:
        if side_ranks is not None:
            current = {**current, **rt.rate(LADDER, current, seats, 4, side_ranks)}
    assert rt.replay(LADDER, 4, matches) == current
    assert all(math.isfinite(r.mu) for r in current.values())

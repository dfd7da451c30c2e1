"""Head-to-head statistics: Elo and score, the board tally, its interval and LOS, and the SPRT's LLR and error rates.

Numbers are worked by hand in the comments; the simulations (seeded) check
every confidence the module claims: the SPRT's α and β under a look after
every board, the interval's coverage, LOS as a one-sided test, and that
paired boards reach a verdict in fewer matches than unpaired matches.
"""

from __future__ import annotations

import functools
import math
import random

import pytest

from tests.support.synthetic_boards import board, edge_for_elo
from waraq.ladder.stats.sprt import (
    Decision,
    Sprt,
    Tally,
    constrained_mle,
    elo_estimate,
    elo_of_score,
    fewest_boards,
    likelihood_of_superiority,
    score_of_elo,
    width_elo,
)

# --- Elo and score ---------------------------------------------------------------------------


def test_known_elo_differences_give_the_scores_of_the_logistic_table():
    # 1 / (1 + 10^(-100/400)) = 1 / (1 + 0.5623) = 0.6401: 100 Elo is a 64.0 % score.
    assert round(score_of_elo(100), 3) == 0.640
    # 400 Elo is odds of 10 to 1: 10/11.
    assert score_of_elo(400) == pytest.approx(10 / 11)
    assert score_of_elo(0) == 0.5
    assert score_of_elo(-100) == pytest.approx(1 - score_of_elo(100))
    # A score of 3/4 is odds 3: 400 log10(3) = 190.85 Elo.
    assert elo_of_score(0.75) == pytest.approx(190.8485, abs=1e-4)


@pytest.mark.parametrize("elo", [-700.0, -250.5, -1.0, 0.0, 3.25, 100.0, 640.0])
def test_elo_and_score_are_each_others_inverse(elo):
    assert elo_of_score(score_of_elo(elo)) == pytest.approx(elo, abs=1e-9)


def test_a_score_of_nothing_or_everything_is_an_infinite_elo_and_outside_scores_are_refused():
    assert elo_of_score(0.0) == -math.inf and elo_of_score(1.0) == math.inf
    with pytest.raises(ValueError, match="1.5"):
        elo_of_score(1.5)


# --- The tally -------------------------------------------------------------------------------


def test_a_tally_counts_boards_by_score_and_gives_their_mean_and_variance():
    tally = Tally.of([1.0, 0.5, 0.5, 0.0, 1.0, 1.0])
    assert tally.counts == {0.0: 1, 0.5: 2, 1.0: 3}
    assert (tally.n, tally.wins, tally.draws, tally.losses) == (6, 3, 2, 1)
    # mean (0 + 1 + 3) / 6 = 2/3; variance (1·(2/3)² + 2·(1/6)² + 3·(1/3)²) / 6 = (4/9 + 1/18 + 1/3) / 6 = 5/36.
    assert tally.mean == pytest.approx(2 / 3)
    assert tally.variance == pytest.approx(5 / 36)
    assert tally.add(0.0) == Tally({0.0: 2, 0.5: 2, 1.0: 3})
    assert tally.counts == {0.0: 1, 0.5: 2, 1.0: 3}  # add returned a new tally


def test_three_room_board_scores_computed_two_ways_fall_in_one_cell():
    # One drawn room and two lost: (0.5 + 0 + 0) / 3, which need not equal 1/6 to the last bit; one cell either way.
    tally = Tally.of([(0.5 + 0 + 0) / 3, 1 / 6, (1 + 1 + 0.5) / 3, 5 / 6])
    assert tally.counts == {round(1 / 6, 12): 2, round(5 / 6, 12): 2}
    assert hash(tally) == hash(Tally({1 / 6: 2, 5 / 6: 2}))


@pytest.mark.parametrize("bad", [-0.25, 1.01, math.nan, "1", True])
def test_a_board_score_outside_zero_to_one_is_refused_with_its_value(bad):
    with pytest.raises(ValueError, match=repr(bad).replace("(", r"\(")):
        Tally.of([0.5, bad])


def test_an_empty_tally_has_no_mean():
    assert Tally.of([]).n == 0 and math.isnan(Tally.of([]).mean)


# --- Elo interval, width, LOS ----------------------------------------------------------------


def test_the_interval_is_the_normal_one_on_the_mean_board_score_mapped_to_elo():
    # 9 wins and 3 losses: mean 3/4, variance 3/16, se √(3/16 / 12) = 1/8.
    tally = Tally({1.0: 9, 0.0: 3})
    elo, low, high = elo_estimate(tally)
    z = 1.959964
    assert elo == pytest.approx(190.8485, abs=1e-4)
    assert score_of_elo(low) == pytest.approx(0.75 - z / 8, abs=1e-6)
    assert score_of_elo(high) == pytest.approx(0.75 + z / 8, abs=1e-6)
    assert width_elo(tally) == pytest.approx(high - low)
    # At 68.27 % the half-width is one standard error.
    _, low, high = elo_estimate(tally, level=0.682689)
    assert (score_of_elo(low), score_of_elo(high)) == pytest.approx((0.625, 0.875), abs=1e-6)
    # At 90 %, ±1.644854 se.
    _, low, _ = elo_estimate(tally, level=0.90)
    assert score_of_elo(low) == pytest.approx(0.75 - 1.644854 / 8, abs=1e-6)


def test_an_interval_that_reaches_past_a_score_of_one_is_open_at_that_end():
    # 3 wins, 1 loss: mean 0.75, se √(0.1875 / 4) = 0.2165; 0.75 + 1.96 · 0.2165 = 1.17 > 1.
    _, low, high = elo_estimate(Tally({1.0: 3, 0.0: 1}))
    assert high == math.inf and math.isfinite(low)
    assert width_elo(Tally({1.0: 3, 0.0: 1})) == math.inf


def test_without_two_distinct_board_scores_the_spread_and_so_the_interval_are_unknown():
    assert elo_estimate(Tally.of([])) == (0.0, -math.inf, math.inf)
    assert elo_estimate(Tally.of([0.5] * 40)) == (0.0, -math.inf, math.inf)
    # A --width rule must not stop on forty tied boards: the width is infinite, not zero.
    assert width_elo(Tally.of([0.5] * 40)) == math.inf


def test_likelihood_of_superiority_is_phi_of_the_mean_edge_over_its_standard_error():
    # 9 wins 3 losses: (0.75 − 0.5) / (1/8) = 2 standard errors: Φ(2) = 0.97725.
    assert likelihood_of_superiority(Tally({1.0: 9, 0.0: 3})) == pytest.approx(0.97725, abs=1e-5)
    assert likelihood_of_superiority(Tally({1.0: 3, 0.0: 9})) == pytest.approx(0.02275, abs=1e-5)
    assert likelihood_of_superiority(Tally({0.0: 2, 0.5: 7, 1.0: 2})) == 0.5
    assert likelihood_of_superiority(Tally.of([])) == 0.5


# --- The LLR ---------------------------------------------------------------------------------

# Worked by hand: 1 board lost, 3 split, 4 won (n = 8, p̂ = 1/8, 3/8, 1/2), H0: s0 = 1/2, H1: s1 = 3/5.
# At s0 the cells are 1/2 away from s0: (−1/2, 0, +1/2). λ = 6/5 makes the denominators 1 + λd =
# 2/5, 1, 8/5, so q0 = (1/8)/(2/5), (3/8)/1, (1/2)/(8/5) = 5/16, 6/16, 5/16: Σ = 1 and mean 6/32 + 5/16 = 1/2.
# At s1: d = (−3/5, −1/10, 2/5); λ = 5/8 gives 5/8, 15/16, 5/4, so q1 = 1/5, 2/5, 2/5: Σ = 1, mean 1/5 + 2/5 = 3/5.
# LLR = 1·ln((1/5)/(5/16)) + 3·ln((2/5)/(6/16)) + 4·ln((2/5)/(5/16)) = ln(16/25) + 3 ln(16/15) + 4 ln(32/25).
HAND = Tally({0.0: 1, 0.5: 3, 1.0: 4})
HAND_SPRT = Sprt(elo0=0.0, elo1=elo_of_score(0.6))


def test_the_most_likely_distributions_under_each_hypothesis_are_the_hand_worked_ones():
    assert constrained_mle(HAND, 0.5) == pytest.approx({0.0: 5 / 16, 0.5: 6 / 16, 1.0: 5 / 16})
    assert constrained_mle(HAND, 0.6) == pytest.approx({0.0: 1 / 5, 0.5: 2 / 5, 1.0: 2 / 5})


def test_the_llr_of_a_small_trinomial_tally_is_the_hand_worked_one():
    want = math.log(16 / 25) + 3 * math.log(16 / 15) + 4 * math.log(32 / 25)
    assert HAND_SPRT.llr(HAND) == pytest.approx(want, abs=1e-12)


def test_the_llr_is_the_sum_of_count_times_log_ratio_for_five_cells_with_draws():
    # Pentanomial pairs, with drawn matches: 0, 1/4, 1/2, 3/4, 1.
    tally = Tally({0.0: 7, 0.25: 19, 0.5: 41, 0.75: 26, 1.0: 9})
    sprt = Sprt(-10.0, 30.0)
    for s in (sprt.s0, sprt.s1):
        q = constrained_mle(tally, s)
        assert sum(q.values()) == pytest.approx(1, abs=1e-12)
        assert sum(a * p for a, p in q.items()) == pytest.approx(s, abs=1e-12)
    q0, q1 = constrained_mle(tally, sprt.s0), constrained_mle(tally, sprt.s1)
    want = sum(count * math.log(q1[a] / q0[a]) for a, count in tally.counts.items())
    assert sprt.llr(tally) == pytest.approx(want, abs=1e-10)


def test_the_most_likely_distribution_is_the_most_likely_among_nearby_ones_with_that_mean():
    # Moving mass ε between cells along a direction that keeps Σq and Σq·a lowers the likelihood.
    tally = Tally({0.0: 7, 0.25: 19, 0.5: 41, 0.75: 26, 1.0: 9})
    q = constrained_mle(tally, 0.55)

    def loglik(dist):
        return sum(count * math.log(dist[a]) for a, count in tally.counts.items())

    # (+1 at 0, −2 at 1/4, +1 at 1/2) and (+1 at 1/4, −2 at 1/2, +1 at 3/4) keep both sums.
    for direction in ({0.0: 1, 0.25: -2, 0.5: 1}, {0.25: 1, 0.5: -2, 0.75: 1}, {0.5: 1, 0.75: -2, 1.0: 1}):
        for eps in (1e-3, -1e-3):
            moved = {a: p + eps * direction.get(a, 0) for a, p in q.items()}
            assert loglik(moved) < loglik(q)


def test_the_llr_agrees_with_its_normal_approximation_on_a_large_tally():
    # LLR ≈ n (s1 − s0)(2x̄ − s0 − s1) / (2 var) when s0 and s1 are close to x̄ on the scale of the spread.
    # x̄ = (2000 + 3100) / 10000 = 0.51; E[x²] = (1000 + 3100) / 10000 = 0.41, so var = 0.41 − 0.2601 = 0.1499.
    # s0 = 0.5, s1 = score_of_elo(10) = 0.514388: 10000 · 0.014388 · (1.02 − 1.014388) / (2 · 0.1499) = 2.693.
    tally = Tally({0.0: 2900, 0.5: 4000, 1.0: 3100})
    sprt = Sprt(0.0, 10.0)
    s0, s1 = sprt.s0, sprt.s1
    approx = tally.n * (s1 - s0) * (2 * tally.mean - s0 - s1) / (2 * tally.variance)
    assert approx == pytest.approx(2.693, abs=2e-3)
    assert sprt.llr(tally) == pytest.approx(approx, rel=0.01)


def test_a_missing_extreme_cell_takes_the_mass_the_seen_cells_cannot_carry():
    # 3 boards split, 1 won, s = 1/2: no distribution on {1/2, 1} has mean 1/2 but one that
    # puts mass t on 1 and t on 0 does; 3 ln(1 − 2t) + ln t is largest at t = 1/8.
    assert constrained_mle(Tally({0.5: 3, 1.0: 1}), 0.5) == pytest.approx({0.0: 1 / 8, 0.5: 3 / 4, 1.0: 1 / 8})


def test_a_bot_that_wins_every_board_is_accepted_after_the_hand_counted_number_of_boards():
    # All wins: the best distribution with mean s puts s on 1, so LLR = n ln(s1/s0).
    # Sprt(0, 100): ln(0.640065 / 0.5) = 0.246963 per board, upper = ln(19) = 2.944439: 11.92, so 12 boards.
    sprt = Sprt(0.0, 100.0)
    assert sprt.llr(Tally({1.0: 5})) == pytest.approx(5 * math.log(score_of_elo(100) / 0.5))
    assert sprt.decide(Tally({1.0: 11})) is Decision.CONTINUE
    assert sprt.decide(Tally({1.0: 12})) is Decision.H1
    # All losses: n ln((1 − s1)/(1 − s0)) = n · ln(0.719870) = −0.328684 n: lower = ln(1/19) reached at 9 boards.
    assert sprt.decide(Tally({0.0: 8})) is Decision.CONTINUE
    assert sprt.decide(Tally({0.0: 9})) is Decision.H0


def test_the_fewest_boards_to_a_decision_are_the_hand_counted_ones():
    # Sprt(0, 100): 12 boards all won, 9 all lost (the test above). Sprt(0, 30), versus's default:
    # s1 = 0.543066, ln(2 s1) = 0.082620 a board won: ln 19 / 0.082620 = 35.64, so 36; a board lost
    # gives ln(2 (1 − s1)) = −0.090159: 32.66, so 33.
    assert fewest_boards(Sprt(0.0, 100.0)) == 12
    assert fewest_boards(Sprt(0.0, 100.0), Decision.H0) == 9
    assert fewest_boards(Sprt(0.0, 30.0)) == 36
    assert fewest_boards(Sprt(0.0, 30.0), Decision.H0) == 33
    with pytest.raises(ValueError, match="H1 or H0"):
        fewest_boards(Sprt(0.0, 30.0), Decision.CONTINUE)


@pytest.mark.parametrize("test", [Sprt(0.0, 30.0), Sprt(0.0, 5.0), Sprt(-10.0, 10.0, 0.01, 0.2), Sprt(0.0, 100.0)])
def test_the_fewest_boards_are_where_the_test_read_after_every_board_stops_on_a_run_of_wins(test):
    tally, boards = Tally.of([]), 0
    while test.decide(tally) is Decision.CONTINUE:
        tally, boards = tally.add(1.0), boards + 1
    assert test.decide(tally) is Decision.H1 and boards == fewest_boards(test)
    tally, boards = Tally.of([]), 0
    while test.decide(tally) is Decision.CONTINUE:
        tally, boards = tally.add(0.0), boards + 1
    assert test.decide(tally) is Decision.H0 and boards == fewest_boards(test, Decision.H0)


def test_no_tally_of_fewer_boards_decides_whatever_its_scores():
    # Every tally of boards of two rooms (0, 1/2, 1) short of the fewest: none reaches either bound.
    test = Sprt(0.0, 100.0)
    for n in range(1, fewest_boards(test)):
        for won in range(n + 1):
            for lost in range(n - won + 1):
                decided = test.decide(Tally({1.0: won, 0.5: n - won - lost, 0.0: lost}))
                assert decided is not Decision.H1, (won, n - won - lost, lost)
                assert decided is not Decision.H0 or n >= fewest_boards(test, Decision.H0), (won, lost)


def test_no_boards_is_no_evidence():
    assert Sprt(0.0, 5.0).llr(Tally.of([])) == 0.0
    assert Sprt(0.0, 5.0).decide(Tally.of([])) is Decision.CONTINUE


def test_the_bounds_are_walds_and_the_llr_is_compared_with_them():
    sprt = Sprt(0.0, 10.0, alpha=0.05, beta=0.1)
    assert sprt.lower == pytest.approx(math.log(0.1 / 0.95))
    assert sprt.upper == pytest.approx(math.log(0.9 / 0.05))
    # The hand tally's LLR is −0.446287 + 3 · 0.064539 + 4 · 0.246860 = 0.734769,
    # inside HAND_SPRT's bounds ±ln(19) = ±2.944439.
    assert HAND_SPRT.decide(HAND) is Decision.CONTINUE
    # Four times the boards in the same shares: 2.939077, still inside; five times: 3.673846, H1.
    for copies, decision in ((4, Decision.CONTINUE), (5, Decision.H1)):
        tally = Tally({a: c * copies for a, c in HAND.counts.items()})
        assert HAND_SPRT.decide(tally) is decision


@pytest.mark.parametrize(
    ("arguments", "named"),
    [
        ((5.0, 5.0), "elo0=5.0 elo1=5.0"),
        ((10.0, 0.0), "elo0=10.0"),
        ((0.0, math.inf), "inf"),
        ((0.0, 20000.0), "elo1=20000.0.*strictly between 0 and 1"),
        ((-1e6, 0.0), "elo0=-1000000.0"),
        ((0.0, 5.0, 0.0), "alpha"),
        ((0.0, 5.0, 0.5), "alpha.*0.5"),
        ((0.0, 5.0, 0.05, 0.7), "beta.*0.7"),
        ((0.0, 5.0, 0.05, -0.1), "beta.*-0.1"),
    ],
)
def test_a_test_that_cannot_be_run_is_refused_naming_the_bad_value(arguments, named):
    with pytest.raises(ValueError, match=named):
        Sprt(*arguments)


# --- Simulations -----------------------------------------------------------------------------

LUCK = 1.0  # a seating's luck on a deal as large as the play's own noise
SPRT = Sprt(0.0, 100.0)
RUNS = 400


def sprt_run(sprt: Sprt, elo: float, rooms: int, rng: random.Random, cap: int = 5000) -> tuple[Decision, int]:
    """Boards at true ``elo`` until the test decides, the LLR read after every board: the decision and boards played."""
    edge = edge_for_elo(elo, LUCK)
    counts: dict[float, int] = {}
    for boards in range(1, cap + 1):
        score = board(rng, edge, LUCK, rooms)
        counts[score] = counts.get(score, 0) + 1
        decision = sprt.decide(Tally(counts))
        if decision is not Decision.CONTINUE:
            return decision, boards
    return Decision.CONTINUE, cap


@functools.cache
def runs_of_sprt(rooms: int, elo: float) -> tuple[tuple[Decision, int], ...]:
    """RUNS seeded runs of SPRT at true ``elo`` on boards of ``rooms`` rooms (shared by the tests below)."""
    rng = random.Random(f"sprt {rooms} {elo}")
    return tuple(sprt_run(SPRT, elo, rooms, rng) for _ in range(RUNS))


@pytest.mark.parametrize("rooms", [1, 2, 3])
def test_the_sprt_keeps_its_error_rates_though_read_after_every_board(rooms):
    # α = β = 0.05: with 400 runs a true error rate of 5 % shows as more than 8.5 % with probability 0.0009.
    tolerance = 0.035
    for true, right in ((SPRT.elo0, Decision.H0), (SPRT.elo1, Decision.H1)):
        results = runs_of_sprt(rooms, true)
        assert all(decision is not Decision.CONTINUE for decision, _ in results)
        right_share = sum(decision is right for decision, _ in results) / RUNS
        assert right_share >= 1 - SPRT.alpha - tolerance, (rooms, true, right_share)


def test_paired_boards_decide_in_fewer_matches_than_unpaired_matches_at_the_same_true_elo():
    for true in (SPRT.elo0, SPRT.elo1):
        matches = {rooms: sum(boards * rooms for _, boards in runs_of_sprt(rooms, true)) for rooms in (1, 2)}
        # The module docstring's 0.76 | 0.77 is over 4,000 runs; over 400 it stays well below 0.85.
        assert matches[2] < 0.85 * matches[1], (true, matches)


def test_the_interval_covers_the_true_elo_and_los_is_a_fair_one_sided_test():
    rng, tallies, true = random.Random(99), 1000, 50.0
    edge = edge_for_elo(true, LUCK)
    covered = 0
    for _ in range(tallies):
        _, low, high = elo_estimate(Tally.of(board(rng, edge, LUCK, 2) for _ in range(100)))
        covered += low <= true <= high
    # 95 % claimed; over 1,000 tallies of 100 boards 3 standard errors are ±2.1 %.
    assert covered / tallies >= 0.925, covered
    # Between equal bots, LOS above 95 % is a false "A is better": it must happen about 5 % of the time.
    edge = edge_for_elo(0.0, LUCK)
    false_claims = sum(
        likelihood_of_superiority(Tally.of(board(rng, edge, LUCK, 2) for _ in range(100))) > 0.95
        for _ in range(tallies)
    )
    assert false_claims / tallies <= 0.075, false_claims


def test_synthetic_boards_have_the_claimed_mean_so_the_simulations_test_what_they_say():
    # The SPRT runs above rest on the board model's mean being score_of_elo(true elo).
    rng = random.Random(3)
    for rooms in (1, 2, 3):
        scores = [board(rng, edge_for_elo(100.0, LUCK), LUCK, rooms) for _ in range(20000)]
        # 3 standard errors of a mean of 20,000 matches' worth: 3 · 0.48 / √20000 = 0.010.
        assert sum(scores) / len(scores) == pytest.approx(score_of_elo(100.0), abs=0.010)

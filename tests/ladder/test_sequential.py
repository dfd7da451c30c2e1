"""The stopping rule: its boundary on hand-worked values, and its error rate measured on simulated ladders.

The simulated ladders (tests/support/paired_ladders.py) draw every room from
the strength model at known Elos, the two rooms of a board correlated as
duplicate deals make them, and are fitted and judged after every batch, as
``--until-stable`` does, until the rule is settled.
"""

from __future__ import annotations

import itertools
import math
import random
from dataclasses import dataclass
from statistics import NormalDist

import pytest

from tests.support.paired_ladders import self_partners
from waraq.ladder.stats import sequential as sq
from waraq.ladder.stats.sequential import PairVerdict, StoppingRule, Verdict
from waraq.ladder.stats.strength import Fit, fit


def fixed_sample_z(alpha: float) -> float:
    return NormalDist().inv_cdf(1 - alpha / 2)


def first_tie(alpha: float, mixture: float, margin: float) -> float:
    """The least information at which the anytime half-width se · boundary is under ``margin`` (by bisection
    on a log scale: the half-width falls as the information grows)."""
    low, high = 1e-9, 1.0
    for _ in range(200):
        middle = math.sqrt(low * high)
        if sq.boundary(middle, alpha, mixture) / math.sqrt(middle) < margin:
            high = middle
        else:
            low = middle
    return high


# The boundary.


def test_the_boundary_on_hand_worked_values():
    # se = 10 Elo, so V = 0.01; α = 0.05, ρ = 0.001:
    # (1 + 0.001/0.01) · (2 ln 20 + ln(1 + 10)) = 1.1 · (5.99146 + 2.39790) = 9.22830, whose root is 3.03781.
    assert sq.boundary(0.01, 0.05, 0.001) == pytest.approx(3.03781, abs=1e-5)
    # V = ρ: 2 · (2 ln 100 + ln 2) = 2 · (9.21034 + 0.69315) = 19.80698: 4.45050.
    assert sq.boundary(0.002, 0.01, 0.002) == pytest.approx(4.45050, abs=1e-5)
    assert sq.boundary(0.0, 0.05, 0.001) == math.inf  # no information, no verdict


def test_the_boundary_grows_with_the_looks_and_stays_above_the_fixed_sample_z():
    alpha = StoppingRule().alpha(4)  # 0.05 over the 6 pairs of 4 bots
    mixture = sq.mixture_for_margin(50, alpha)
    start = first_tie(alpha, mixture, 50)
    looks = [sq.boundary(start * 4**n, alpha, mixture) for n in range(8)]  # information ×4 each time: 4⁷ = 16384
    assert looks == sorted(looks)
    # Slowly: like sqrt(2 ln(1/α) + ln(V/ρ)), so 16,384 times the information widens it by well under half.
    assert looks[-1] / looks[0] < 1.5
    assert looks[-1] == pytest.approx(math.sqrt(2 * math.log(1 / alpha) + math.log(start * 4**7 / mixture)), rel=0.01)
    # Always above the z a single look would use at the same α (2.64), let alone the uncorrected 1.96.
    assert min(looks) > fixed_sample_z(alpha) > 1.96


def test_the_mixture_lets_an_even_pair_be_called_tied_soonest():
    for bots, margin in ((2, 50), (4, 50), (20, 25)):
        alpha = StoppingRule().alpha(bots)
        mixture = sq.mixture_for_margin(margin, alpha)
        soonest = first_tie(alpha, mixture, margin)
        for other in (mixture / 3, mixture / 1.5, mixture * 1.5, mixture * 3):
            assert first_tie(alpha, other, margin) > soonest
    with pytest.raises(ValueError, match="margin -5"):
        sq.mixture_for_margin(-5, 0.05)


def test_alpha_is_the_error_split_over_every_pair():
    rule = StoppingRule(confidence=0.95)
    assert rule.alpha(5) == pytest.approx(0.005)  # 10 pairs
    assert rule.alpha(2) == pytest.approx(0.05)
    assert rule.alpha(1) == pytest.approx(0.05) and rule.alpha(0) == pytest.approx(0.05)


def test_covers_says_what_the_confidence_is_over():
    assert StoppingRule().covers(5) == (
        "95 % that every verdict is right, over all 10 pairs of 5 bots and at every look (a union bound over the"
        " pairs, an anytime confidence sequence over the looks; tied means within 50 Elo)"
    )
    assert "over all 1 pair of 2 bots" in StoppingRule(confidence=0.9, margin_elo=30).covers(2)


def test_the_default_margin_is_a_57_percent_score():
    # 50 Elo: 1 / (1 + 10^(-50/400)) = 1 / (1 + 0.74989) = 0.5715.
    assert 1 / (1 + 10 ** (-sq.DEFAULT_MARGIN / 400)) == pytest.approx(0.5715, abs=1e-4)


def test_a_rule_with_impossible_settings_is_an_error_quoting_them():
    with pytest.raises(ValueError, match="confidence 1.5"):
        StoppingRule(confidence=1.5)
    with pytest.raises(ValueError, match="margin 0"):
        StoppingRule(margin_elo=0)
    with pytest.raises(ValueError, match="min_boards -1"):
        StoppingRule(min_boards=-1)


# Verdicts on hand-built fits.


def hand_fit(elo: dict[int, float], variance: dict[int, float], boards: int = 100) -> Fit:
    """A fit whose bots are uncorrelated, so a difference's variance is the sum of the two."""
    covariance = {(a, b): (variance[a] if a == b else 0.0) for a in elo for b in elo}
    return Fit(tuple(elo), elo, covariance, covariance, boards=boards, comparisons=2 * boards)


def test_judge_gives_each_neighbour_pair_its_verdict():
    # Order 1 (300), 2 (100), 3 (95), 4 (60). α = 0.05 / 6; with these standard errors the half-widths are 3.6 to
    # 3.9 · se (above the fixed-sample 2.64 · se, below 5 · se):
    #   1 − 2: 200 ± ~36 (se 10): ABOVE;  2 − 3: 5 ± ~25 (se 7.07): inside ±50, TIED;  3 − 4: 35 ± ~110: OPEN.
    fit = hand_fit({1: 300.0, 2: 100.0, 3: 95.0, 4: 60.0}, {1: 50.0, 2: 50.0, 3: 0.01, 4: 900.0})
    verdicts = StoppingRule().judge(fit)
    assert [(v.upper, v.lower, v.verdict) for v in verdicts] == [
        (1, 2, Verdict.ABOVE),
        (2, 3, Verdict.TIED),
        (3, 4, Verdict.OPEN),
    ]
    for v, se in zip(verdicts, (10.0, math.sqrt(50.01), math.sqrt(900.01)), strict=True):
        assert v.difference == pytest.approx(fit.elo[v.upper] - fit.elo[v.lower])
        assert v.high - v.difference == pytest.approx(v.difference - v.low)
        assert fixed_sample_z(StoppingRule().alpha(4)) * se < v.high - v.difference < 5 * se
    assert not StoppingRule().settled(verdicts)


def test_above_wins_when_the_interval_is_both_above_zero_and_within_the_margin():
    verdicts = StoppingRule().judge(hand_fit({1: 30.0, 2: 0.0}, {1: 2.0, 2: 2.0}))  # 30 ± ~7: in (0, 50)
    assert [v.verdict for v in verdicts] == [Verdict.ABOVE]


def test_nothing_is_judged_before_min_boards():
    fit = hand_fit({1: 300.0, 2: 0.0}, {1: 1.0, 2: 1.0}, boards=19)
    [verdict] = StoppingRule(min_boards=20).judge(fit)
    assert verdict.verdict is Verdict.OPEN and verdict.low > 0  # the interval is still shown
    assert StoppingRule(min_boards=19).judge(fit)[0].verdict is Verdict.ABOVE


def test_settled_needs_every_pair_ordered_or_tied():
    def verdict(kind: Verdict) -> PairVerdict:
        return PairVerdict(1, 2, 0.0, -1.0, 1.0, kind)

    rule = StoppingRule()
    assert rule.settled([verdict(Verdict.ABOVE), verdict(Verdict.TIED)])
    assert not rule.settled([verdict(Verdict.ABOVE), verdict(Verdict.OPEN)])
    assert rule.settled([])  # one bot or none
    assert rule.judge(fit([], bots=[7])) == []


# Simulated ladders, judged after every batch.


@dataclass(frozen=True)
class FixedSampleRule(StoppingRule):
    """The rule issue 14 found wrong: a plain 95 % interval, looked at after every batch and over every pair."""

    def interval(self, difference: float, standard_error: float, bots: int) -> tuple[float, float]:
        return difference - 1.959964 * standard_error, difference + 1.959964 * standard_error


@dataclass(frozen=True)
class Run:
    boards: int | None  # when it settled; None: not by the cap
    verdicts: list[PairVerdict]  # the last look's
    ever_wrong: bool  # a wrong verdict at some look, stopped or not


def wrong(verdicts: list[PairVerdict], elo: list[float], margin: float) -> bool:
    """ABOVE for a pair not in that order, or TIED for one at least the margin apart."""
    for v in verdicts:
        gap = elo[v.upper] - elo[v.lower]
        if (v.verdict is Verdict.ABOVE and gap <= 0) or (v.verdict is Verdict.TIED and abs(gap) >= margin):
            return True
    return False


def until_settled(rule: StoppingRule, elo: list[float], seed: int, cap: int = 3000) -> Run:
    """Batches of two boards per pair of bots (each bot partnering itself, rooms correlated −0.6 as duplicate
    deals make them), fitted and judged after each, until settled or ``cap`` boards."""
    rng = random.Random(seed)
    pairs = list(itertools.combinations(range(len(elo)), 2)) * 2
    boards: list = []
    previous = None
    ever_wrong = False
    while len(boards) < cap:
        boards += self_partners(rng, elo, pairs, correlation=-0.6)
        fitted = fit(boards, start=previous)
        previous = fitted.elo
        verdicts = rule.judge(fitted)
        ever_wrong = ever_wrong or wrong(verdicts, elo, rule.margin_elo)
        if rule.settled(verdicts):
            return Run(len(boards), verdicts, ever_wrong)
    return Run(None, verdicts, ever_wrong)


RUNS = 80
KNOWN = [0.0, 0.0, 70.0, 300.0]  # two equal bots, one 70 Elo above them (more than the margin), one far above


def test_verdicts_are_wrong_at_most_five_percent_of_the_time_though_looked_at_after_every_batch():
    """80 runs of four bots (0, 0, 70, 300 Elo), margin 50: measured 0 of 80 runs stop with a wrong verdict
    (and 0 ever show one at any look); 400 runs, measured once: 0 at the stop, 1 (0.25 %) at some look. The
    plain 95 % interval looked at the same way stops wrong in 17 of these 80 runs (21 %; 66 of 400, 16.5 %),
    which is what the test would catch if the rule lost its corrections."""
    rule = StoppingRule()
    runs = [until_settled(rule, KNOWN, seed) for seed in range(RUNS)]
    assert all(run.boards is not None for run in runs)
    wrong_at_stop = sum(wrong(run.verdicts, KNOWN, rule.margin_elo) for run in runs)
    assert wrong_at_stop / RUNS <= 0.05
    assert sum(run.ever_wrong for run in runs) / RUNS <= 0.05
    # The two equal bots end TIED, every time, below the others in order.
    for run in runs:
        assert [(v.upper, v.verdict) for v in run.verdicts[:2]] == [(3, Verdict.ABOVE), (2, Verdict.ABOVE)]
        assert {run.verdicts[2].upper, run.verdicts[2].lower} == {0, 1} and run.verdicts[2].verdict is Verdict.TIED
    plain = FixedSampleRule()
    plain_wrong = sum(wrong(until_settled(plain, KNOWN, seed).verdicts, KNOWN, 50) for seed in range(RUNS))
    assert plain_wrong / RUNS > 0.10


def test_bots_far_apart_are_ordered_at_the_first_looks():
    # 150 Elo apart (a team of two copies against another: 300 Elo, an 85 % score): settled at the first look
    # min_boards allows (20 boards) or the next two (measured: 20 in 9 seeds of 10, 22 in one). Much further apart
    # takes longer, not shorter: when one side wins 99 % of its matches, the Elo gap itself is poorly measured.
    for seed in range(10):
        run = until_settled(StoppingRule(), [0.0, 150.0], seed)
        assert run.boards is not None and run.boards <= 24
        assert [(v.upper, v.lower, v.verdict) for v in run.verdicts] == [(1, 0, Verdict.ABOVE)]

"""Head-to-head statistics of two bots over boards: Elo with its interval, LOS, and a sequential test.

Pure: numbers in, numbers out (no I/O, no clock, no numpy), so ``waraq versus``,
the ladder and the benchmarks can all call it.

A *board* is one deal played in every seating of a duplicate set (2 rooms in
4-player Hokm, the teams swapped, and in 2-player Hokm; 3 in 3-player). Bot
A's *board score* is its mean match score against B over the board's rooms
(1 a win, 0 a loss, 0.5 the same rank), so with n rooms a board score is one
of 0, 1/(2n), ..., 1. With two rooms and no drawn matches that is 0, 0.5 or 1:
fastchess's pentanomial model on game pairs, with three cells instead of five.
Unpaired matches are boards of one room (0 or 1).

Rooms of a board share the cards, so card luck that helps A in one room helps
B in the other: the board score varies less than a match score, and a verdict
costs fewer matches. Measured on the synthetic boards of
tests/support/synthetic_boards.py with Sprt(0, 100), the test read after every
board, at true Elo 0 | 100: when a seating's luck is as large as the play's
own noise (A's two rooms correlated ρ = −0.34; 4,000 runs each), boards of 2
rooms decide in 0.76 | 0.77 of the matches unpaired matches need (52 | 54
matches, 26 | 27 boards, against 68 | 70), boards of 3 rooms in 0.84 | 0.86;
with twice that luck (ρ = −0.59; 1,000 runs) in 0.54 | 0.58, with half
(ρ = −0.13) in 0.92 | 0.94. That is near the 1 + ρ by which pairing shrinks
the variance, a little short of it because a board's score is coarse. The
error rates over the 4,000 runs were 0.034 to 0.055 (±0.0035) for
α = β = 0.05.

The sequential test is the generalized SPRT that fishtest, OpenBench and
fastchess run (Michel Van den Bergh's method): the log-likelihood ratio of the
board scores under the most likely distribution with mean score_of_elo(elo1)
against the most likely with mean score_of_elo(elo0). The most likely
distribution with mean s is q_i = p̂_i / (1 + λ (a_i − s)) over the cells a_i
seen with frequency p̂_i, λ solved so that Σ q_i = 1. Where we differ: those
programs give every empty cell a pseudo-count of 0.001 so that λ always
exists; here the maximum is taken over every distribution on [0, 1] (0 and 1
are always possible board scores), so λ lies in [−1/(1 − s), 1/s] and, when
the seen cells cannot make mean s by themselves (say only 0.5 and 1 seen,
s = 0.5), the unseen extreme cell takes the rest of the mass. That is exact,
with no constant to tune, and it needs no second cell: a bot that wins every
board is accepted as better (after 12 boards for Sprt(0, 100)), where a rule
"no test before two distinct board scores are seen" would wait for its first
loss forever.

What this module does not do: play, store or schedule boards; correct the
interval for looking at it after every board (the SPRT's bounds already hold
under repeated looks; an Elo interval read after every board does not).
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from statistics import NormalDist
from types import MappingProxyType

# Board scores are means of halves over a few rooms; rounding the key makes
# 1/6 computed as (0.5 + 0 + 0) / 3 and as 1 / 6 the same cell.
_CELL_DIGITS = 12


def score_of_elo(elo: float) -> float:
    """The expected score of a bot ``elo`` points above its opponent (logistic Elo)."""
    if elo < -400 * 300:  # 10 ** 300 is near the largest float: the score is 0 to the last bit long before
        return 0.0
    return 1 / (1 + 10 ** (-elo / 400))


def elo_of_score(score: float) -> float:
    """The inverse of :func:`score_of_elo`: −inf at 0 and +inf at 1."""
    if not 0 <= score <= 1:
        raise ValueError(f"a score is between 0 and 1, not {score!r}")
    if score == 0:
        return -math.inf
    if score == 1:
        return math.inf
    return -400 * math.log10(1 / score - 1)


def _cell(score: float) -> float:
    if isinstance(score, bool) or not (isinstance(score, (int, float)) and 0 <= score <= 1):
        raise ValueError(f"a board score is a number between 0 and 1, not {score!r}")
    return round(float(score), _CELL_DIGITS)


@dataclass(frozen=True)
class Tally:
    """The board scores seen so far: board score -> number of boards (a value; :meth:`add` returns a new one)."""

    counts: Mapping[float, int]

    def __post_init__(self) -> None:
        merged: dict[float, int] = {}
        for score, count in self.counts.items():
            if not isinstance(count, int) or isinstance(count, bool) or count < 0:
                raise ValueError(f"a count of boards is a whole number ≥ 0, not {count!r} (score {score!r})")
            if count:
                key = _cell(score)
                merged[key] = merged.get(key, 0) + count
        object.__setattr__(self, "counts", MappingProxyType(dict(sorted(merged.items()))))

    def __hash__(self) -> int:
        return hash(tuple(self.counts.items()))

    @classmethod
    def of(cls, scores: Iterable[float]) -> Tally:
        counts: dict[float, int] = {}
        for score in scores:
            key = _cell(score)
            counts[key] = counts.get(key, 0) + 1
        return cls(counts)

    def add(self, score: float) -> Tally:
        key = _cell(score)
        return Tally({**self.counts, key: self.counts.get(key, 0) + 1})

    @property
    def n(self) -> int:
        """The number of boards."""
        return sum(self.counts.values())

    @property
    def cells(self) -> tuple[float, ...]:
        """The distinct board scores seen, lowest first."""
        return tuple(self.counts)

    @property
    def mean(self) -> float:
        """A's mean board score (its expected match score against B); NaN with no boards."""
        n = self.n
        return sum(score * count for score, count in self.counts.items()) / n if n else math.nan

    @property
    def variance(self) -> float:
        """The variance of one board's score: the maximum-likelihood one (divided by n); NaN with no boards."""
        n = self.n
        if not n:
            return math.nan
        mean = self.mean
        return sum(count * (score - mean) ** 2 for score, count in self.counts.items()) / n

    @property
    def wins(self) -> int:
        """Boards A scored above one half on."""
        return sum(count for score, count in self.counts.items() if score > 0.5)

    @property
    def draws(self) -> int:
        """Boards scored exactly one half: A and B even on the same cards."""
        return self.counts.get(0.5, 0)

    @property
    def losses(self) -> int:
        """Boards A scored below one half on."""
        return sum(count for score, count in self.counts.items() if score < 0.5)


def _standard_error(tally: Tally) -> float:
    return math.sqrt(tally.variance / tally.n)


def elo_estimate(tally: Tally, level: float = 0.95) -> tuple[float, float, float]:
    """(Elo, low, high): the normal interval at ``level`` on the mean board score, mapped through :func:`elo_of_score`.

    The standard error is from the board scores' own spread, so pairing's
    smaller spread shows as a narrower interval. With fewer than two distinct
    board scores the spread is unknown and the interval is (−inf, +inf); with
    no boards the estimate is 0.
    """
    if not 0 < level < 1:
        raise ValueError(f"a confidence level is between 0 and 1, not {level!r}")
    if tally.n == 0:
        return 0.0, -math.inf, math.inf
    elo = elo_of_score(tally.mean)
    if len(tally.cells) < 2:
        return elo, -math.inf, math.inf
    half = NormalDist().inv_cdf((1 + level) / 2) * _standard_error(tally)
    low, high = (min(max(tally.mean + sign * half, 0.0), 1.0) for sign in (-1, 1))
    return elo, elo_of_score(low), elo_of_score(high)


def width_elo(tally: Tally, level: float = 0.95) -> float:
    """high − low of :func:`elo_estimate` (``--width W`` stops when it is below W); +inf while unknown."""
    _, low, high = elo_estimate(tally, level)
    return high - low if math.isfinite(low) and math.isfinite(high) else math.inf


def likelihood_of_superiority(tally: Tally) -> float:
    """LOS = Φ((mean − 0.5) / se): how likely A is the better bot; 0.5 with no boards.

    With no spread (one distinct board score) it is the formula's limit: 1, 0 or 0.5.
    """
    if tally.n == 0:
        return 0.5
    edge = tally.mean - 0.5
    se = _standard_error(tally)
    if se == 0:
        return 1.0 if edge > 0 else 0.0 if edge < 0 else 0.5
    return NormalDist().cdf(edge / se)


def _lagrange_multiplier(counts: Mapping[float, int], n: int, s: float) -> float:
    """The λ maximizing Σ p̂_i ln(1 + λ (a_i − s)) over [−1/(1 − s), 1/s] (its derivative is Σ q_i (a_i − s)).

    The function is concave, so its derivative falls: Newton from λ = 0, kept
    inside a bracket that halves when a step leaves it. An end of the range
    is the answer when the derivative has not changed sign there, which
    happens only when that end's extreme cell (0 at 1/s, 1 at −1/(1 − s)) was
    not seen: the unseen cell takes the missing mass.
    """
    shifts = [(count / n, score - s) for score, count in counts.items()]

    def slope(lam: float) -> float:
        return sum(p * d / (1 + lam * d) for p, d in shifts)

    low, high = -1 / (1 - s), 1 / s
    if 0.0 not in counts and slope(high) >= 0:
        return high
    if 1.0 not in counts and slope(low) <= 0:
        return low
    lam = 0.0
    for _ in range(200):
        g = curvature = 0.0
        for p, d in shifts:
            ratio = d / (1 + lam * d)
            g += p * ratio
            curvature += p * ratio * ratio
        if g == 0:
            return lam
        if g > 0:
            low = lam
        else:
            high = lam
        step = lam + g / curvature if curvature > 0 else math.nan
        if not low < step < high:
            step = (low + high) / 2
        if abs(step - lam) <= 1e-12 * (1 + abs(lam)):
            return step
        lam = step
    return lam


def constrained_mle(tally: Tally, mean: float) -> dict[float, float]:
    """The most likely distribution of board scores on [0, 1] whose mean is ``mean``, cell -> probability.

    Seen cells get p̂_i / (1 + λ (a_i − mean)); an unseen 0 or 1 appears only
    when it carries mass (see the module docstring).
    """
    if not 0 < mean < 1:
        raise ValueError(f"a constrained mean is strictly between 0 and 1, not {mean!r}")
    n = tally.n
    if n == 0:
        raise ValueError("no boards: every distribution with that mean is as likely")
    lam = _lagrange_multiplier(tally.counts, n, mean)
    q = {score: count / n / (1 + lam * (score - mean)) for score, count in tally.counts.items()}
    rest = 1 - sum(q.values())
    if rest > 1e-12:
        extreme = 0.0 if lam > 0 else 1.0
        q[extreme] = q.get(extreme, 0.0) + rest
    return dict(sorted(q.items()))


def _mean_log_tilt(counts: Mapping[float, int], n: int, s: float) -> float:
    """Σ p̂_i ln(1 + λ (a_i − s)): the mean log-likelihood of the data under p̂ over under the constrained MLE."""
    lam = _lagrange_multiplier(counts, n, s)
    return sum(count * math.log1p(lam * (score - s)) for score, count in counts.items()) / n


class Decision(enum.Enum):
    H1 = "H1"  # A is at least elo1 better: accept
    H0 = "H0"  # A is at most elo0 better: reject the change
    CONTINUE = "continue"  # neither bound reached: play more boards


@dataclass(frozen=True)
class Sprt:
    """A sequential probability ratio test of elo0 against elo1 on board scores (``--sprt elo0 elo1 alpha beta``).

    ``alpha`` is the chance of accepting H1 when A is elo0 better, ``beta`` of
    accepting H0 when A is elo1 better; Wald's bounds keep both although the
    test is read after every board.
    """

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not (math.isfinite(self.elo0) and math.isfinite(self.elo1)):
            raise ValueError(f"elo0 and elo1 are finite numbers, not {self.elo0!r} and {self.elo1!r}")
        if not self.elo0 < self.elo1:
            raise ValueError(f"elo0 must be below elo1, not elo0={self.elo0!r} elo1={self.elo1!r}")
        if not (0 < self.s0 and self.s1 < 1):
            raise ValueError(f"elo0={self.elo0!r} and elo1={self.elo1!r} must give scores strictly between 0 and 1")
        for name, value in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0 < value < 0.5:
                raise ValueError(f"{name} is a probability above 0 and below 0.5, not {value!r}")

    @property
    def lower(self) -> float:
        """ln(β / (1 − α)): at or below it, H0 is accepted."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """ln((1 − β) / α): at or above it, H1 is accepted."""
        return math.log((1 - self.beta) / self.alpha)

    @property
    def s0(self) -> float:
        return score_of_elo(self.elo0)

    @property
    def s1(self) -> float:
        return score_of_elo(self.elo1)

    def llr(self, tally: Tally) -> float:
        """ln of the likelihood of the boards under the best H1 distribution over the best H0 one; 0 with no boards.

        Equal to Σ count_i · ln(q1_i / q0_i) with q the :func:`constrained_mle` at s1 and s0.
        """
        n = tally.n
        if n == 0:
            return 0.0
        return n * (_mean_log_tilt(tally.counts, n, self.s0) - _mean_log_tilt(tally.counts, n, self.s1))

    def decide(self, tally: Tally) -> Decision:
        llr = self.llr(tally)
        if llr >= self.upper:
            return Decision.H1
        if llr <= self.lower:
            return Decision.H0
        return Decision.CONTINUE


def fewest_boards(test: Sprt, decision: Decision = Decision.H1) -> int:
    """The fewest boards after which ``test`` can reach ``decision``: every board won by A (H1), or lost (H0).

    However much stronger A is, a board is at most won: with every board won
    the best distribution of mean s puts mass s on a win, so the LLR grows by
    ln(s1 / s0) a board (every board lost: by ln((1 − s1) / (1 − s0))), and
    Wald's bound is reached only after upper / ln(s1 / s0) boards:
    Sprt(0, 30) at α = β = 0.05 needs ln 19 / ln(2 s1) = 35.6, so 36 boards,
    for a 500 Elo gap as for a 30 Elo one. The closed form is then checked on
    the tally itself, so the count is the test's own.
    """
    if decision is Decision.CONTINUE:
        raise ValueError("a count of boards is to a decision, H1 or H0, not to continuing")
    score = 1.0 if decision is Decision.H1 else 0.0
    per_board = math.log(test.s1 / test.s0) if score else math.log((1 - test.s1) / (1 - test.s0))
    bound = test.upper if score else test.lower
    n = max(1, math.ceil(bound / per_board))
    while test.decide(Tally({score: n})) is not decision:
        n += 1
    while n > 1 and test.decide(Tally({score: n - 1})) is decision:
        n -= 1
    return n

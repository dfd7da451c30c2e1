"""When a ladder has seen enough: verdicts on neighbours whose confidence holds at every look, and that know a tie.

The rule is looked at after every batch and over every two neighbours at
once, so a fixed-sample 95 % interval checked that way is wrong far more
often than 5 % of the time (issue 14 measured a "stable" ladder with two
neighbours in the wrong order). Two things make the confidence true here:

* **Every look.** Each pair's Elo difference gets a time-uniform confidence
  sequence, Robbins' normal mixture (Howard, Ramdas, McAuliffe and Sekhon,
  "Time-uniform, nonparametric, nonasymptotic confidence sequences", Annals
  of Statistics 2021, the two-sided normal mixture boundary): with Z = d/se
  and information V = 1/se², ``|Z| >= sqrt((1 + ρ/V) (2 ln(1/α) + ln(1 + V/ρ)))``
  happens with probability at most α at *any* look, however many. It widens
  like sqrt(ln V) as the information grows, against a fixed 1.96.
* **Every pair.** α is the error left over, 1 − confidence, split evenly over
  all K(K−1)/2 pairs of the K bots fitted (a union bound), not only the K−1
  neighbours: which pairs are neighbours depends on the data.

So P(any verdict ever issued is wrong) ≤ 1 − confidence, up to one
approximation: that the MAP's difference (ladder/stats/strength.py) is normal
around the truth with its cluster-robust standard error, as it is once a
few dozen boards are in (hence ``min_boards``, also what keeps the robust
standard error from being estimated from a handful of boards). The prior's
pull towards 0, which makes a tie slightly easier to show, is negligible: a
400 Elo prior against the hundreds of boards a tie takes.

A verdict is ABOVE when the interval lies above 0, TIED when it lies inside
(−margin, +margin), else OPEN (ABOVE wins when both hold: it says more). The
margin is what lets two copies of one bot end: equal bots can never be
ordered, but they can be shown within a margin of each other.

The mixture's ρ (a precision, 1/Elo², nothing to do with the room correlation
of ladder/stats/strength.py) says at which information the boundary is tightest. It
is chosen for the earliest tie: the half-width at information V is
``sqrt((V + ρ)(2 ln(1/α) + ln(1 + V/ρ))) / V``; for a target information m,
ρ = m / (2 ln(1/α) + ln(1 + 2 ln(1/α))) makes it all but its least there
(within 0.01 % at the α used here), and m is taken as the information at which that
least half-width equals the margin, the first look at which an exactly even
pair could be called TIED. Any other ρ calls it later.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from waraq.ladder.stats.strength import Fit

DEFAULT_CONFIDENCE = 0.95
DEFAULT_MARGIN = 50.0  # Elo: one side scores 57 % against the other (see StoppingRule)
DEFAULT_MIN_BOARDS = 20


class Verdict(Enum):
    ABOVE = "above"  # the upper bot is the stronger, at the rule's confidence
    TIED = "tied"  # the two are within the margin of each other, at the rule's confidence
    OPEN = "open"  # neither yet


@dataclass(frozen=True)
class PairVerdict:
    upper: int  # neighbours in Fit.order(): upper ranked just above lower
    lower: int
    difference: float  # elo[upper] - elo[lower], never negative
    low: float  # its anytime interval at the rule's level
    high: float
    verdict: Verdict


def boundary(information: float, alpha: float, mixture: float) -> float:
    """The |Z| that a difference with this information (1/se²) crosses with probability at most ``alpha`` at any
    look: Robbins' two-sided normal mixture of precision ``mixture`` (Howard et al. 2021)."""
    if information <= 0:
        return math.inf
    return math.sqrt((1 + mixture / information) * (2 * math.log(1 / alpha) + math.log(1 + information / mixture)))


def mixture_for_margin(margin: float, alpha: float) -> float:
    """The mixture precision that lets a difference of exactly 0 be shown within ``margin`` soonest.

    With ρ = m / k, k = 2 ln(1/α) + ln(1 + 2 ln(1/α)), the half-width at
    information m is sqrt((1 + 1/k)(2 ln(1/α) + ln(1 + k)) / m); setting it to
    the margin gives m, hence ρ.
    """
    if margin <= 0:
        raise ValueError(f"margin {margin!r} Elo must be positive")
    log_odds = 2 * math.log(1 / alpha)
    k = log_odds + math.log(1 + log_odds)
    first_tie = (1 + 1 / k) * (log_odds + math.log(1 + k)) / margin**2
    return first_tie / k


@dataclass(frozen=True)
class StoppingRule:
    """Judge a fit's neighbours; settled when every neighbour pair is ABOVE or TIED.

    The default margin, 50 Elo, is a difference a user reads at once: the
    stronger of two bots scores 57 % against the other head to head (100 Elo:
    64 %). In 4-player Hokm with each bot partnering itself a team holds its
    bot twice, so 50 Elo between two bots is 100 between their teams. Measured
    on simulated ladders of four bots each partnering itself, two of them equal
    and the others 100 and 400 Elo below (tests/support/paired_ladders.py, 16
    seeds, card luck from none to strong): a run settles, the equal two TIED,
    after a median of 276 to 420 boards (550 to 840 matches; 624 boards at
    most). A 25 Elo margin needs about five times as many (a median of 1,000 to
    2,100 boards), beyond the ladder's usual cap of 2,000 matches; 100 Elo
    settles in 96 to 168 boards but calls bots a 64 % score apart equal.
    """

    confidence: float = DEFAULT_CONFIDENCE
    margin_elo: float = DEFAULT_MARGIN
    min_boards: int = DEFAULT_MIN_BOARDS

    def __post_init__(self) -> None:
        if not 0 < self.confidence < 1:
            raise ValueError(f"confidence {self.confidence!r} must be between 0 and 1")
        if not self.margin_elo > 0:
            raise ValueError(f"margin {self.margin_elo!r} Elo must be positive")
        if self.min_boards < 0:
            raise ValueError(f"min_boards {self.min_boards!r} must not be negative")

    def alpha(self, bots: int) -> float:
        """The error each pair may use: 1 − confidence over the K(K−1)/2 pairs of K bots (all of it with fewer
        than two)."""
        return (1 - self.confidence) / max(1, bots * (bots - 1) // 2)

    def interval(self, difference: float, standard_error: float, bots: int) -> tuple[float, float]:
        """The anytime interval of a difference among ``bots`` bots."""
        if standard_error <= 0:
            return -math.inf, math.inf  # no spread measured is no evidence, not certainty
        alpha = self.alpha(bots)
        half = standard_error * boundary(1 / standard_error**2, alpha, mixture_for_margin(self.margin_elo, alpha))
        return difference - half, difference + half

    def judge(self, fit: Fit) -> list[PairVerdict]:
        """Each two neighbours of ``fit.order()``, best first."""
        order = fit.order()
        verdicts = []
        for upper, lower in zip(order, order[1:], strict=False):  # each bot with the one below it
            difference, error = fit.difference(upper, lower)
            low, high = self.interval(difference, error, len(fit.bots))
            if fit.boards < self.min_boards:
                verdict = Verdict.OPEN
            elif low > 0:
                verdict = Verdict.ABOVE
            elif -self.margin_elo < low and high < self.margin_elo:
                verdict = Verdict.TIED
            else:
                verdict = Verdict.OPEN
            verdicts.append(PairVerdict(upper, lower, difference, low, high, verdict))
        return verdicts

    def settled(self, verdicts: Sequence[PairVerdict]) -> bool:
        """Every neighbour pair ABOVE or TIED (true with one bot or none: nothing left to judge)."""
        return all(v.verdict is not Verdict.OPEN for v in verdicts)

    def covers(self, bots: int) -> str:
        """One line for the output: what the confidence covers."""
        pairs = bots * (bots - 1) // 2
        level = f"{self.confidence * 100:g} %"
        return (
            f"{level} that every verdict is right, over all {pairs} pair{'s' if pairs != 1 else ''} of {bots} bots"
            " and at every look (a union bound over the pairs, an anytime confidence sequence over the looks;"
            f" tied means within {self.margin_elo:g} Elo)"
        )

"""What a ladder's results say: its boards, the batch rating fitted to them, and the stopping rule's verdicts.

One reading of the database (inside a snapshot) feeds everything that
judges the ladder: the table (ladder/present/table.py), ``--until-stable`` (the
ledger's stop), ``waraq versus`` and the benchmarks. So the figure a table
shows and the verdict a run stops on are the same computation.

The batch rating (ladder/stats/strength.py) is fitted to every board's
comparisons, each board one cluster; the stopping rule (ladder/stats/sequential.py)
judges the fit's neighbours. Beside them, two figures say what the pairing
bought: ρ, the correlation between the rooms of a board of the result on the
same cards (high when the cards decide much), and the effective matches per
board, the rooms over the design effect.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import trueskill

from waraq.ladder.play.matchmaking import group_size
from waraq.ladder.stats import boards as bd
from waraq.ladder.stats import ratings as rt
from waraq.ladder.stats import strength
from waraq.ladder.stats.ratings import Layout
from waraq.ladder.storage.config import LadderConfig
from waraq.ladder.storage.store import RATED, UNRATED, Store


@dataclass(frozen=True)
class Evidence:
    layout: Layout
    boards: tuple[bd.Board, ...]
    fit: strength.Fit  # narrowed to the bots asked about
    full: strength.Fit  # every bot fitted: those asked about and every bot that played
    clusters: tuple[list[strength.Comparison], ...]  # each board's comparisons, as fitted

    @property
    def everyone(self) -> tuple[int, ...]:
        return self.full.bots

    @property
    def complete_boards(self) -> int:
        return sum(1 for board in self.boards if board.complete)

    def rho(self) -> float | None:
        """The correlation between a board's rooms of the result on the same cards; None without
        boards of two rooms or more."""
        residuals = []
        for board in self.boards:
            if len(board.rated) < 2:
                continue
            residuals.append([c.score - probability(self.full, c) for c in bd.same_cards(board, self.layout)])
        if not residuals:
            return None
        value = strength.room_correlation(residuals)
        return None if value is None or math.isnan(value) else value

    def effective_matches(self) -> float | None:
        """What a board is worth in independent matches: its rooms over the design effect."""
        if not any(len(board.rated) >= 2 for board in self.boards):
            return None
        effect = strength.design_effect(self.clusters, self.full)
        rooms = sum(len(b.rated) for b in self.boards) / len(self.boards)
        return rooms / effect if effect > 0 else None


def probability(fit: strength.Fit, comparison: strength.Comparison) -> float:
    """P(the comparison's side A beats side B) under the fit."""
    return strength.win_probability(
        sum(fit.elo[b] for b in comparison.plus) - sum(fit.elo[b] for b in comparison.minus)
    )


def gather(store: Store, config: LadderConfig, bots: Sequence[int], *, before: int | None = None) -> Evidence:
    """The evidence of the matches rated before match ``before`` (all with None), judged for ``bots``.

    Every bot that played is fitted (a retired bot's matches tell of its opponents too);
    the fit is then narrowed to ``bots``, the ones the table shows and the rule judges.
    """
    layout = config.layout
    size = group_size(layout, config.matchmaking.duplicate)
    with store.snapshot():
        results = [p for p in store.results((RATED, UNRATED)) if before is None or p.id < before]
    found = tuple(bd.boards(results, layout, size))
    everyone = sorted(set(bots).union(*(board.bots for board in found)))
    clusters = tuple(bd.clusters(found, layout))
    fitted = strength.fit(clusters, everyone)
    return Evidence(layout, found, narrowed(fitted, bots), fitted, clusters)


def narrowed(fit: strength.Fit, bots: Sequence[int]) -> strength.Fit:
    """The fit of these bots only: their strengths and covariances as fitted with everyone."""
    keep = set(bots)
    return replace(
        fit,
        bots=tuple(b for b in fit.bots if b in keep),
        elo={b: v for b, v in fit.elo.items() if b in keep},
        covariance={k: v for k, v in fit.covariance.items() if k[0] in keep and k[1] in keep},
        model_covariance={k: v for k, v in fit.model_covariance.items() if k[0] in keep and k[1] in keep},
    )


def fitted_beta(store: Store, config: LadderConfig) -> float | None:
    """TrueSkill's β (the spread of one match's performance) that best predicts the ladder's matches.

    The boards are rated again in order with ladder.toml's settings, and each rated room's
    every two sides are predicted from the ratings *before* their board: P(A beats B) =
    Φ((μ_A − μ_B) / √(Σ w²(σ² + β²))), the sides' sums weighted by seats as TrueSkill weighs
    them. The β of the highest predictive likelihood is returned (None without a decided
    comparison); ties are left out. Predicting before the board, not from the final ratings,
    keeps a ladder's own noise from being fitted as skill.
    """
    layout = config.layout
    env = rt.environment(config.trueskill)
    with store.snapshot():
        results = store.results((RATED, UNRATED))
    current: dict[int, rt.Rating] = {}
    seen: list[tuple[float, float, float]] = []  # per decided comparison: _side's, the winner first
    for board in bd.boards(results, layout, group_size(layout, config.matchmaking.duplicate)):
        found = bd.outcome(board, layout)
        if found is None:
            continue
        for comparison in bd.comparisons(board, layout):
            if comparison.score == 0.5:
                continue
            winner, loser = (
                (comparison.plus, comparison.minus) if comparison.score == 1 else (comparison.minus, comparison.plus)
            )
            seen.append(_side(current, env, winner, loser))
        current.update(rt.rate_sides(env, current, *found))
    if not seen:
        return None

    def loss(beta: float) -> float:
        return -sum(math.log(max(_phi(mu / math.sqrt(var + w * beta * beta)), 1e-300)) for mu, var, w in seen)

    low, high = math.log(config.trueskill.beta / 100), math.log(config.trueskill.beta * 100)
    for _ in range(60):  # golden-section search on ln β: the loss is unimodal in β
        a, b = high - (high - low) / GOLDEN, low + (high - low) / GOLDEN
        if loss(math.exp(a)) < loss(math.exp(b)):
            high = b
        else:
            low = a
    return math.exp((low + high) / 2)


GOLDEN = (1 + math.sqrt(5)) / 2


def _side(
    current: dict[int, rt.Rating], env: trueskill.TrueSkill, winner: Sequence[int], loser: Sequence[int]
) -> tuple[float, float, float]:
    """(μ difference, Σ w²σ², Σ w²) of two sides, each bot weighted by the seats it holds."""
    mu = var = weights = 0.0
    for sign, side in ((1, winner), (-1, loser)):
        for bot in set(side):
            w = side.count(bot)
            rating = current.get(bot) or rt.prior(env)
            mu += sign * w * rating.mu
            var += w * w * rating.sigma**2
            weights += w * w
    return mu, var, weights


def _phi(x: float) -> float:
    return 0.5 * math.erfc(-x / math.sqrt(2))

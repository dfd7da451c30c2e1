"""Simulated ladders of bots of known Elo, whose boards' rooms are correlated as duplicate deals make them.

A board here is one deal of 4-player Hokm played in two rooms, the teams
swapped: team A in seats 0+2 in the first room, team B in the second. Each
room's result is drawn with exactly the probability ladder/stats/strength.py's model
gives (so the truth the fit should find is the Elos drawn from), and the two
rooms are tied together by a Gaussian copula: team A's latent luck in the two
rooms correlates ``correlation``. Negative is what duplicate deals do (A held
the good cards in one room, B in the other: ρ, the correlation of the
same-seat side, is positive); positive is rooms that repeat each other (the
same deal twice in the same seats), the case a model that takes every room as
independent trusts too much.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from statistics import NormalDist

from waraq.ladder.stats.strength import Comparison, win_probability

STANDARD_NORMAL = NormalDist()


def board(
    rng: random.Random, team_a: tuple[int, ...], team_b: tuple[int, ...], elo: Sequence[float], correlation: float
) -> list[Comparison]:
    """One board between two teams (a bot partnering itself appears twice), each comparison as ladder/stats/boards.py
    makes it: the side in seat 0 first."""
    p = win_probability(sum(elo[bot] for bot in team_a) - sum(elo[bot] for bot in team_b))
    threshold = STANDARD_NORMAL.inv_cdf(p)
    first = rng.gauss(0, 1)
    second = correlation * first + math.sqrt(1 - correlation**2) * rng.gauss(0, 1)
    a_won_first = 1.0 if first < threshold else 0.0
    a_won_second = 1.0 if second < threshold else 0.0
    return [Comparison(team_a, team_b, a_won_first), Comparison(team_b, team_a, 1 - a_won_second)]


def mixed_partners(rng: random.Random, elo: Sequence[float], boards: int, correlation: float) -> list[list[Comparison]]:
    """Boards of four bots drawn from all of them, split into two teams at random."""
    out = []
    for _ in range(boards):
        a, b, c, d = rng.sample(range(len(elo)), 4)
        out.append(board(rng, tuple(sorted((a, c))), tuple(sorted((b, d))), elo, correlation))
    return out


def self_partners(
    rng: random.Random, elo: Sequence[float], pairs: Sequence[tuple[int, int]], correlation: float
) -> list[list[Comparison]]:
    """One board per pair, each bot partnering itself."""
    return [board(rng, (a, a), (b, b), elo, correlation) for a, b in pairs]


def centred(elo: Sequence[float]) -> list[float]:
    mean = sum(elo) / len(elo)
    return [value - mean for value in elo]

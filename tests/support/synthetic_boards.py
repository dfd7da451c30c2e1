"""Synthetic boards with card luck, for testing waraq.ladder.stats.sprt's error rates and pairing's saving.

A room is won by A when edge + luck + noise > 0, noise ~ N(0, 1) the play's
own randomness and luck ~ N(0, luck²) what the cards give A's seating. A
board's rooms share one deal: their lucks sum to zero (what one seating gains
on the cards, the other loses), so A's scores in them are anti-correlated and
the board score varies less than one match's. An unpaired match (``rooms=1``)
is a room on a fresh deal. Every room, paired or not, has the same marginal:
A wins it with probability Φ(edge / √(1 + luck²)), so a true Elo means the
same thing in both designs.
"""

from __future__ import annotations

import math
import random
from statistics import NormalDist

from waraq.ladder.stats.sprt import score_of_elo


def edge_for_elo(elo: float, luck: float) -> float:
    """The edge that makes A's expected match score score_of_elo(elo)."""
    return NormalDist().inv_cdf(score_of_elo(elo)) * math.sqrt(1 + luck * luck)


def board(rng: random.Random, edge: float, luck: float, rooms: int) -> float:
    """A's board score: its wins over ``rooms`` rooms of one deal, divided by ``rooms``."""
    lucks = [rng.gauss(0.0, luck) for _ in range(rooms)]
    if rooms > 1:
        # Centre the lucks so they sum to zero, and scale them back to variance luck² each.
        centre = sum(lucks) / rooms
        scale = math.sqrt(rooms / (rooms - 1))
        lucks = [(x - centre) * scale for x in lucks]
    return sum(1 for x in lucks if edge + x + rng.gauss(0.0, 1.0) > 0) / rooms

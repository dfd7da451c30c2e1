"""What a board would tell the stopping rule: the share of the open links' variance it would remove.

The stopping rule (ladder/stats/sequential.py) waits on the table's *open links*,
the neighbours it has not yet ordered or tied, and each link is settled when
the variance of its Elo difference is small enough. So a board is worth
what it removes from those variances, and that can be computed before it is
played (a sequential design, optimal in the sense of Kiefer's A-optimality
restricted to the open links): in the batch fit (ladder/stats/strength.py) the
strengths θ have covariance Σ; a board of this seating observes the
difference x·θ of its sides' strengths (x counts a side's seats: +1 for each
of side A's, −1 for each of side B's) with noise N = 1 / (rooms × I(p)),
I(p) = (ln 10 / 400)² p (1 − p) the information of one comparison won with
probability p. For a link c (+1 for the upper bot, −1 for the lower) the
variance removed is (cᵀΣx)² / (xᵀΣx + N), a share of cᵀΣc.

Why not count the opposed pairs that are open: with mixed partners a board
never observes one bot against another, only a sum of two against another
sum. Seating two tied copies A and A′ with B and C as {A, B} against {A′, C}
observes (A − A′) + (B − C), which tells about A − A′ only once B − C is
known, and {A, A′} against {B, C} tells nothing about it though two of its
opposed pairs are open. The variance removed knows both: the first seating
pays in proportion to how well B − C is known, the second not at all, and
{A, C} against {A′, B}, which observes (A − A′) − (B − C), pays the most
right after the first was played, since together they cancel B − C.

A batch plans several deals from one boundary, so after each deal is
chosen the covariance is updated as if its board had been played (the
Gaussian update Σ ← Σ − ΣXᵀ (XΣXᵀ + N)⁻¹ XΣ, which depends on the seatings,
not the results): the next deal then asks the question left open, not the
same one again.

Pure: no I/O; which links are open is the rule's to say.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from waraq.ladder.stats import dense
from waraq.ladder.stats.ratings import Layout
from waraq.ladder.stats.sequential import PairVerdict, Verdict
from waraq.ladder.stats.strength import DEFAULT_PRIOR_ELO, ELO_SCALE, Fit, win_probability

Vector = Mapping[int, int]  # bot -> its seats on side A minus its seats on side B


@dataclass(frozen=True)
class OpenLinks:
    """The neighbours the rule has not decided, and what the batch fit knows about every strength."""

    links: tuple[tuple[int, int], ...]  # (upper, lower): the neighbours judged OPEN
    elo: Mapping[int, float]
    covariance: Mapping[tuple[int, int], float]  # the fit's model covariance, Elo²

    @classmethod
    def of(cls, fit: Fit, verdicts: Sequence[PairVerdict]) -> OpenLinks:
        links = tuple((v.upper, v.lower) for v in verdicts if v.verdict is Verdict.OPEN)
        return cls(links, fit.elo, fit.model_covariance)


def questions(seating: Sequence[int], layout: Layout) -> list[Vector]:
    """The differences a board on this seating observes: one per two sides (side s holds seats s, s + sides, …)."""
    count = layout.sides
    sides = [Counter(seating[s::count]) for s in range(count)]
    out: list[Vector] = []
    for s in range(count):
        for t in range(s + 1, count):
            vector = Counter(sides[s])
            vector.subtract(sides[t])
            out.append({bot: n for bot, n in vector.items() if n})
    return out


class Knowledge:
    """The covariance of the strengths, as the fit left it and as the boards planned since would leave it."""

    def __init__(self, bots: Sequence[int], known: OpenLinks) -> None:
        self.bots = list(bots)
        self.index = {bot: i for i, bot in enumerate(self.bots)}
        self.elo = known.elo
        # A bot the fit has not seen (none here: the fit names every bot it judges) is at the prior.
        self.sigma = [
            [known.covariance.get((a, b), DEFAULT_PRIOR_ELO**2 if a == b else 0.0) for b in self.bots]
            for a in self.bots
        ]
        self.links = [(self.index[u], self.index[v]) for u, v in known.links if u in self.index and v in self.index]

    def gain(self, vectors: Sequence[Vector], rooms: int) -> float:
        """The open links' shares of variance that a board observing ``vectors`` in ``rooms`` rooms removes, summed."""
        if not self.links:
            return 0.0
        spread, inverse = self._observe(vectors, rooms)
        total = 0.0
        for upper, lower in self.links:
            variance = self.sigma[upper][upper] + self.sigma[lower][lower] - 2 * self.sigma[upper][lower]
            if variance <= 0:
                continue
            a = [column[upper] - column[lower] for column in spread]
            removed = sum(a[i] * inverse[i][j] * a[j] for i in range(len(a)) for j in range(len(a)))
            total += removed / variance
        return total

    def learn(self, vectors: Sequence[Vector], rooms: int) -> None:
        """Update the covariance as if that board had been played: Σ ← Σ − (ΣXᵀ)(XΣXᵀ + N)⁻¹(XΣ)."""
        spread, inverse = self._observe(vectors, rooms)
        m, k = len(spread), len(self.bots)
        for p in range(k):
            left = [sum(spread[i][p] * inverse[i][j] for i in range(m)) for j in range(m)]
            for q in range(k):
                self.sigma[p][q] -= sum(left[j] * spread[j][q] for j in range(m))

    def _observe(self, vectors: Sequence[Vector], rooms: int) -> tuple[list[list[float]], list[list[float]]]:
        """Σx for each vector x (a column over the bots), and (XΣXᵀ + N)⁻¹."""
        known = [{self.index[b]: n for b, n in x.items() if b in self.index} for x in vectors]
        spread = [[sum(self.sigma[p][i] * n for i, n in x.items()) for p in range(len(self.bots))] for x in known]
        gram = [[sum(column[i] * n for i, n in y.items()) for y in known] for column in spread]
        for i, x in enumerate(vectors):
            p = win_probability(sum(self.elo.get(b, 0.0) * n for b, n in x.items()))
            gram[i][i] += 1 / (rooms * ELO_SCALE**2 * max(p * (1 - p), 1e-12))
        return spread, dense.inverse(gram)

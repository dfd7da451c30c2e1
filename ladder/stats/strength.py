"""Strengths from board results: a batch Bradley–Terry fit in Elo, with intervals that count a board as one cluster.

Why beside TrueSkill: a *board* is one deal played in several rooms with the
seatings rotated, so the card luck of one room is paid back in the other. Its
rooms are correlated, and a rating that takes every match alone (TrueSkill per
match) both throws that cancellation away and believes it knows more than it
does. Here the whole history is fitted at once and each board is one cluster.

The model. Each bot has a strength in Elo; a side's strength is the sum over
its entries (a bot partnering itself counts twice, and mixed partners give
individual skills); side A beats side B with probability
``1 / (1 + 10 ** (-(S_A - S_B) / 400))``, so 100 Elo between two sides is a
64 % score. A result of 0.5 (the same rank) is half a win and half a loss
(the binomial quasi-likelihood). The fit is the maximum a posteriori under a
Gaussian prior N(0, prior_elo²) on each strength: without it a bot that wins
everything would sit at +∞, and strengths are otherwise only defined up to a
constant shared by all; 400 Elo is weak beside a few dozen results. Newton's
method on the concave log-posterior, over the distinct design vectors (who
plays on which side) and the distinct boards, so its cost grows with the
variety of the data rather than its size. Strengths are reported *centred*,
mean 0 over the bots fitted: only differences mean anything. Sides must hold
as many seats as each other (every game here seats them so), which is what
makes the centring change no prediction.

Three kinds of interval:

* ``model_covariance``: the inverse Hessian H⁻¹ of the log-posterior, as if
  every comparison were an independent match.
* ``covariance`` (what :meth:`Fit.difference` uses): the cluster-robust
  sandwich H⁻¹ (B + Λ) H⁻¹, B = G/(G−1) Σ_boards g_b g_bᵀ over the G boards,
  g_b a board's gradient of the log-likelihood, Λ the prior's precision. The
  model covariance is the same sandwich with B the expected information J
  (H = J + Λ, so H⁻¹ = H⁻¹ (J + Λ) H⁻¹); counting Λ in both keeps a bot that
  no comparison reaches, or two bots that only ever play as partners, at the
  prior's uncertainty instead of a false certainty, and beside data it is
  negligible. With fewer than two boards there is no spread to measure and the
  robust covariance is the model's.
* :func:`bootstrap`: percentile intervals from refits to whole boards drawn
  with replacement (one fit per resample: for tables, not for every batch).

What the pairing buys is measured two ways: :func:`design_effect` (the
variance of a bot's board-summed residuals over what independent rooms would
give) and :func:`room_correlation` (ρ, the correlation between rooms of the
result on the same cards).

Pure: no I/O, no clock. Building comparisons from matches is ladder/stats/boards.py's
job, and deciding when the ladder has seen enough is ladder/stats/sequential.py's.
"""

from __future__ import annotations

import math
import operator
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from waraq.ladder.stats import dense

ELO_SCALE = math.log(10) / 400  # log-odds per Elo point: 10 ** (d / 400) == exp(ELO_SCALE * d)
DEFAULT_PRIOR_ELO = 400.0
NEWTON_TOLERANCE = 1e-3  # Elo: a step this small, once taken, leaves an error near its square (Newton's speed)
NEWTON_STEPS = 100


@dataclass(frozen=True)
class Comparison:
    """One side against another in one room (match)."""

    plus: tuple[int, ...]  # bot ids of side A, one entry per seat held: a bot partnering itself appears twice
    minus: tuple[int, ...]  # side B likewise (1 entry each in free-for-all games: 2/3-player Hokm, Hand)
    score: float  # side A's result: 1 won, 0 lost, 0.5 the same rank

    def __post_init__(self) -> None:
        if not 0 <= self.score <= 1:
            raise ValueError(f"score {self.score!r} of {self.plus} against {self.minus} is not between 0 and 1")
        if not self.plus or len(self.plus) != len(self.minus):
            raise ValueError(
                f"sides {self.plus} and {self.minus} hold {len(self.plus)} and {len(self.minus)} seats:"
                " a comparison needs two sides of as many seats"
            )


def win_probability(difference: float) -> float:
    """P(a side beats another ``difference`` Elo weaker)."""
    return _logistic(ELO_SCALE * difference)


@dataclass(frozen=True)
class Fit:
    bots: tuple[int, ...]
    elo: Mapping[int, float]  # centred: mean 0 over ``bots``
    covariance: Mapping[tuple[int, int], float]  # cluster-robust (boards are the clusters), Elo², of the centred values
    model_covariance: Mapping[tuple[int, int], float]  # as if every comparison were independent (inverse Hessian)
    boards: int  # boards with at least one comparison
    comparisons: int

    def difference(self, a: int, b: int) -> tuple[float, float]:
        """``elo[a] - elo[b]`` and its cluster-robust standard error."""
        return self.elo[a] - self.elo[b], _standard_error(self.covariance, a, b)

    def model_difference(self, a: int, b: int) -> tuple[float, float]:
        """``elo[a] - elo[b]`` and its standard error as if every comparison were independent."""
        return self.elo[a] - self.elo[b], _standard_error(self.model_covariance, a, b)

    def expected_score(self, bot: int) -> float:
        """The bot's score against the field: its mean win probability against each other bot fitted.

        Unlike a win share it does not depend on whom matchmaking happened to pick
        as opponents. 0.5 with one bot.
        """
        others = [o for o in self.bots if o != bot]
        if not others:
            return 0.5
        return sum(win_probability(self.elo[bot] - self.elo[o]) for o in others) / len(others)

    def order(self) -> list[int]:
        """Best first; equal strengths by id."""
        return sorted(self.bots, key=lambda bot: (-self.elo[bot], bot))


def _standard_error(covariance: Mapping[tuple[int, int], float], a: int, b: int) -> float:
    variance = covariance[a, a] + covariance[b, b] - 2 * covariance[a, b]
    return math.sqrt(max(variance, 0.0))


def fit(
    boards: Sequence[Sequence[Comparison]],
    bots: Sequence[int] | None = None,
    *,
    prior_elo: float = DEFAULT_PRIOR_ELO,
    start: Mapping[int, float] | None = None,
) -> Fit:
    """The MAP strengths of ``bots`` (default: every bot named) from the boards' comparisons.

    A bot of ``bots`` with no comparison sits at 0 with the prior's variance; a
    comparison naming a bot outside ``bots`` is a ValueError naming it.
    ``start`` (say the previous batch's ``Fit.elo``) only saves Newton steps: the
    result does not depend on it.
    """
    if prior_elo <= 0:
        raise ValueError(f"prior_elo {prior_elo!r} must be positive")
    kinds = _kinds(boards)
    sides = _sides(kinds)
    fitted = _bots(sides, bots)
    data = _Data.of(kinds, sides, fitted)
    k = len(fitted)
    precision = 1 / prior_elo**2
    begin = [0.0] * k if start is None else [start.get(bot, 0.0) for bot in fitted]
    strengths, hessian = _newton(data, begin, precision)
    model = dense.inverse(hessian)
    if data.boards >= 2:
        meat = data.board_information(strengths)
        factor = data.boards / (data.boards - 1)
        for i in range(k):
            for j in range(k):
                meat[i][j] *= factor
            meat[i][i] += precision
        robust = dense.product(dense.product(model, meat), model)
    else:
        robust = model
    mean = sum(strengths) / k if k else 0.0
    return Fit(
        bots=fitted,
        elo={bot: strengths[i] - mean for i, bot in enumerate(fitted)},
        covariance=_centred(robust, fitted),
        model_covariance=_centred(model, fitted),
        boards=data.boards,
        comparisons=data.comparisons,
    )


def bootstrap(
    boards: Sequence[Sequence[Comparison]],
    bots: Sequence[int] | None = None,
    *,
    resamples: int = 200,
    seed: int = 0,
    level: float = 0.95,
    prior_elo: float = DEFAULT_PRIOR_ELO,
) -> dict[int, tuple[float, float]]:
    """Each bot's percentile interval of its centred Elo at ``level``, refitting to whole boards drawn with
    replacement (a board's rooms stay together, so their correlation is kept). Deterministic given ``seed``."""
    if not 0 < level < 1:
        raise ValueError(f"level {level!r} must be between 0 and 1")
    if resamples < 1:
        raise ValueError(f"resamples {resamples!r} must be at least 1")
    fitted = _bots(_sides(_kinds(boards)), bots)
    used = [board for board in boards if board]
    whole = fit(used, fitted, prior_elo=prior_elo)  # where every resample's Newton starts: near its own fit
    rng = random.Random(seed)
    draws: dict[int, list[float]] = {bot: [] for bot in fitted}
    for _ in range(resamples):
        sample = [used[rng.randrange(len(used))] for _ in used]
        elo = fit(sample, fitted, prior_elo=prior_elo, start=whole.elo).elo
        for bot in fitted:
            draws[bot].append(elo[bot])
    tail = (1 - level) / 2
    return {bot: (_percentile(sorted(v), tail), _percentile(sorted(v), 1 - tail)) for bot, v in draws.items()}


def design_effect(boards: Sequence[Sequence[Comparison]], fit: Fit) -> float:
    """How much a board's rooms vary together: Σ over boards and bots of the bot's board-summed residual
    squared, over what independent rooms would make it, Σ over rooms and bots of p(1 − p) (NaN without
    comparisons). In the fit's terms, the trace of the sandwich's B over that of the information J.

    A bot's residual in a comparison is its side's score minus the fit's
    probability, times the seats it holds, so its sum over a board is that bot's
    luck on the board. 1 when rooms are independent; below 1 when the pairing
    cancels card luck (the same cards went to the other side in the other room);
    above 1 when rooms repeat one another. A board of n rooms is then worth
    ``n / design_effect`` independent matches.
    """
    kinds = _kinds(boards)
    sides = _sides(kinds)
    _bots(sides, fit.bots)  # a bot the fit does not know is an error naming it
    data = _Data.of(kinds, sides, fit.bots)
    strengths = [fit.elo[bot] for bot in fit.bots]
    p = [win_probability(sum(a * strengths[i] for i, a in vector)) for vector in data.vectors]
    information = data.sums([ELO_SCALE**2 * n * q * (1 - q) for n, q in zip(data.counts, p, strict=True)])
    expected = sum(information[i][i] for i in range(data.size))
    summed = sum(row[i] for i, row in enumerate(data.board_information(strengths)))
    return summed / expected if expected > 0 else math.nan


def room_correlation(boards_rooms: Sequence[Sequence[float]]) -> float:
    """ρ: the intraclass correlation across a board's rooms of the residuals (score − p̂) of the side that sat in
    the same seats, so held the same cards (one inner sequence per board, one residual per room).

    Pooled over boards about the residuals' mean 0: Σ_b Σ_{r≠r'} e_r e_r' over
    Σ_b (n_b − 1) Σ_r e_r²; boards of one room say nothing and are skipped (NaN
    if nothing is left). Positive when the cards decide much.

    What it buys: a competitor whose residuals correlate r across the n rooms of
    a board gets from it ``n / (1 + (n − 1) r)`` effective matches. With two
    rooms a competitor holds the other side's cards in the second room, so
    r = −ρ and a board is worth 2 / (1 − ρ) matches: ρ = 0.5 makes it four.
    """
    together = 0.0
    alone = 0.0
    for rooms in boards_rooms:
        if len(rooms) < 2:
            continue
        squares = sum(e * e for e in rooms)
        together += sum(rooms) ** 2 - squares
        alone += (len(rooms) - 1) * squares
    return together / alone if alone > 0 else math.nan


# The data, reduced once per fit.


Sides = tuple[int, ...]
Kinds = Counter[tuple[tuple[Sides, Sides, float], ...]]  # each distinct board, its (plus, minus, score) triples: times


def _kinds(boards: Sequence[Sequence[Comparison]]) -> Kinds:
    """The boards counted by kind. Plain tuples, because a dataclass's __hash__ and __eq__ run in Python and a
    ladder of few bots repeats its boards so often that they dominated the fit."""
    return Counter(tuple(map(_triple, board)) for board in boards if board)


_triple = operator.attrgetter("plus", "minus", "score")


def _sides(kinds: Kinds) -> set[tuple[Sides, Sides]]:
    """Every distinct (plus, minus) of the boards: far fewer than comparisons, so the rest works on these."""
    return {(plus, minus) for board in kinds for plus, minus, _ in board}


def _bots(sides: set[tuple[Sides, Sides]], bots: Sequence[int] | None) -> tuple[int, ...]:
    named = {bot for plus, minus in sides for bot in (*plus, *minus)}
    if bots is None:
        return tuple(sorted(named))
    fitted = tuple(bots)
    if len(set(fitted)) != len(fitted):
        raise ValueError(f"bots {list(fitted)} name a bot twice")
    unknown = sorted(named - set(fitted))
    if unknown:
        raise ValueError(f"a comparison names bot {unknown[0]}, which is not among the bots fitted {list(fitted)}")
    return fitted


Vector = tuple[tuple[int, int], ...]  # a design vector: (bot index, seats on side A − seats on side B), nonzero


def _vector(plus: Sides, minus: Sides, index: Mapping[int, int]) -> Vector:
    coefficients: dict[int, int] = {}
    for bot in plus:
        i = index[bot]
        coefficients[i] = coefficients.get(i, 0) + 1
    for bot in minus:
        i = index[bot]
        coefficients[i] = coefficients.get(i, 0) - 1
    return tuple(sorted([(i, a) for i, a in coefficients.items() if a]))


@dataclass
class _Data:
    """The boards as the fit needs them: each distinct design vector with its comparisons and summed scores, and
    each distinct board (for its gradient) as how often it occurs and its (vector, comparisons, score) terms.

    A comparison and its mirror image (the sides swapped, the score 1 − score) are
    one vector, signed so that its first coefficient is positive: the two rooms of
    a 4-player board then make one vector, not two.
    """

    size: int  # bots fitted
    vectors: list[Vector] = field(default_factory=list)
    # The vectors seen from the matrices' side, once all are in: for each bot, the vectors it is in and its
    # coefficients; for each entry of the Hessian's upper triangle (flat index i * size + j), the vectors that touch
    # it and their a_i * a_j. The gradient and the Hessian are then sums of products, sum(map(...)) running in C:
    # against Python loops per vector this took a sixth to a quarter off the fit with 20 bots and mixed partners.
    by_bot: list[tuple[tuple[int, ...], tuple[int, ...]]] = field(default_factory=list)
    by_entry: list[tuple[int, tuple[int, ...], tuple[int, ...]]] = field(default_factory=list)
    counts: list[float] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)
    board_kinds: list[tuple[int, list[tuple[int, float, float]]]] = field(default_factory=list)
    boards: int = 0
    comparisons: int = 0
    ids: dict[Vector, int] = field(default_factory=dict)

    @classmethod
    def of(cls, kinds: Kinds, sides: set[tuple[Sides, Sides]], fitted: tuple[int, ...]) -> _Data:
        index = {bot: i for i, bot in enumerate(fitted)}
        data = cls(len(fitted))
        known: dict[tuple[Sides, Sides], tuple[int, bool]] = {}  # (plus, minus) -> (vector, mirrored)
        for plus, minus in sides:
            mirror = known.get((minus, plus))
            known[plus, minus] = (mirror[0], not mirror[1]) if mirror else data._add(_vector(plus, minus, index))
        for board, times in kinds.items():
            terms: dict[int, list[float]] = {}
            for plus, minus, score in board:
                v, mirrored = known[plus, minus]
                if mirrored:
                    score = 1 - score
                term = terms.get(v)
                if term is None:
                    terms[v] = [1, score]
                else:
                    term[0] += 1
                    term[1] += score
            for v, (n, y) in terms.items():
                data.counts[v] += times * n
                data.scores[v] += times * y
            data.board_kinds.append((times, [(v, n, y) for v, (n, y) in terms.items()]))
            data.boards += times
            data.comparisons += times * len(board)
        data._transpose()
        return data

    def _transpose(self) -> None:
        k = self.size
        bot_ids: list[list[int]] = [[] for _ in range(k)]
        bot_coefficients: list[list[int]] = [[] for _ in range(k)]
        entry_ids: list[list[int]] = [[] for _ in range(k * k)]
        entry_products: list[list[int]] = [[] for _ in range(k * k)]
        for v, vector in enumerate(self.vectors):
            for m, (i, a) in enumerate(vector):
                bot_ids[i].append(v)
                bot_coefficients[i].append(a)
                for j, b in vector[m:]:
                    entry_ids[i * k + j].append(v)
                    entry_products[i * k + j].append(a * b)
        self.by_bot = [(tuple(ids), tuple(c)) for ids, c in zip(bot_ids, bot_coefficients, strict=True)]
        self.by_entry = [(f, tuple(entry_ids[f]), tuple(entry_products[f])) for f in range(k * k) if entry_ids[f]]

    def sums(self, per_vector: list[float]) -> list[list[float]]:
        """Σ_v per_vector[v] x_v x_vᵀ."""
        flat = [0.0] * (self.size * self.size)
        for f, ids, products in self.by_entry:
            flat[f] = sum(map(operator.mul, map(per_vector.__getitem__, ids), products))
        return _symmetric(flat, self.size)

    def _add(self, vector: Vector) -> tuple[int, bool]:
        """The vector's id, signed, and whether the sign was turned."""
        mirrored = bool(vector) and vector[0][1] < 0
        if mirrored:
            vector = tuple((i, -a) for i, a in vector)
        if vector not in self.ids:
            self.ids[vector] = len(self.vectors)
            self.vectors.append(vector)
            self.counts.append(0.0)
            self.scores.append(0.0)
        return self.ids[vector], mirrored

    def board_information(self, strengths: list[float]) -> list[list[float]]:
        """Σ_boards g_b g_bᵀ at these strengths, g_b the board's gradient of the log-likelihood."""
        p = [win_probability(sum(a * strengths[i] for i, a in vector)) for vector in self.vectors]
        alone = [0.0] * len(self.vectors)  # boards of one vector (every room of a 4-player board): g_b = r x_v
        meat = [[0.0] * self.size for _ in range(self.size)]
        for times, terms in self.board_kinds:
            if len(terms) == 1:
                v, n, y = terms[0]
                alone[v] += times * (ELO_SCALE * (y - n * p[v])) ** 2
                continue
            gradient: dict[int, float] = {}
            for v, n, y in terms:
                residual = ELO_SCALE * (y - n * p[v])
                for i, a in self.vectors[v]:
                    gradient[i] = gradient.get(i, 0.0) + a * residual
            for i, gi in gradient.items():
                for j, gj in gradient.items():
                    meat[i][j] += times * gi * gj
        single = self.sums(alone)
        return [[m + s for m, s in zip(row, other, strict=True)] for row, other in zip(meat, single, strict=True)]


def _newton(data: _Data, start: list[float], precision: float) -> tuple[list[float], list[list[float]]]:
    """The MAP strengths and the log-posterior's negative Hessian there. The log-posterior is strictly concave,
    so Newton's steps, halved whenever one would go downhill, converge from any start."""
    strengths = start
    value, gradient, hessian = _evaluate(data, strengths, precision)
    for _ in range(NEWTON_STEPS):
        step = dense.solve(dense.cholesky(hessian), gradient)
        if max((abs(d) for d in step), default=0.0) < NEWTON_TOLERANCE:
            # Converged once this step is taken; the Hessian that far away is the same to more digits than any
            # interval shows.
            return [s + d for s, d in zip(strengths, step, strict=True)], hessian
        size = 1.0
        while True:
            trial = [s + size * d for s, d in zip(strengths, step, strict=True)]
            new = _evaluate(data, trial, precision)
            if new[0] >= value or size < 1e-6:
                break
            size /= 2
        strengths, (value, gradient, hessian) = trial, new
    return strengths, hessian


def _evaluate(data: _Data, strengths: list[float], precision: float) -> tuple[float, list[float], list[list[float]]]:
    """The log-posterior (up to a constant), its gradient and its negative Hessian, in Elo."""
    value = -0.5 * precision * sum(s * s for s in strengths)
    residuals = []
    weights = []
    for vector, n, y in zip(data.vectors, data.counts, data.scores, strict=True):
        eta = 0.0
        for i, a in vector:
            eta += a * strengths[i]
        eta *= ELO_SCALE
        if eta >= 0:
            e = math.exp(-eta)
            p = 1 / (1 + e)
            log_p = -math.log1p(e)
            log_q = log_p - eta
        else:
            e = math.exp(eta)
            p = e / (1 + e)
            log_q = -math.log1p(e)
            log_p = log_q + eta
        value += y * log_p + (n - y) * log_q
        residuals.append(ELO_SCALE * (y - n * p))
        weights.append(ELO_SCALE * ELO_SCALE * n * p * (1 - p))
    gradient = [
        sum(map(operator.mul, map(residuals.__getitem__, ids), coefficients)) - precision * s
        for (ids, coefficients), s in zip(data.by_bot, strengths, strict=True)
    ]
    hessian = data.sums(weights)
    for i in range(data.size):
        hessian[i][i] += precision
    return value, gradient, hessian


def _symmetric(upper: list[float], k: int) -> list[list[float]]:
    """The k × k matrix whose upper triangle is ``upper`` (flat, row by row)."""
    return [[upper[i * k + j] if i <= j else upper[j * k + i] for j in range(k)] for i in range(k)]


def _logistic(x: float) -> float:
    if x >= 0:
        return 1 / (1 + math.exp(-x))
    e = math.exp(x)
    return e / (1 + e)


def _centred(covariance: list[list[float]], bots: tuple[int, ...]) -> dict[tuple[int, int], float]:
    """The covariance of the strengths minus their mean: (I − 11ᵀ/k) C (I − 11ᵀ/k)."""
    k = len(bots)
    rows = [sum(row) / k for row in covariance]
    grand = sum(rows) / k if k else 0.0
    return {
        (a, b): covariance[i][j] - rows[i] - rows[j] + grand for i, a in enumerate(bots) for j, b in enumerate(bots)
    }


def _percentile(ordered: list[float], q: float) -> float:
    """The q-quantile of sorted values, interpolated linearly between order statistics."""
    position = q * (len(ordered) - 1)
    below = math.floor(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (position - below) * (ordered[above] - ordered[below])

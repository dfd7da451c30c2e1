"""TrueSkill ratings of matches of any game: pure functions that return new values.

A match has sides (its :class:`Layout`): two teams, seats 0+2 and 1+3, in
4-player Hokm and in Hand with partnership; otherwise each seat alone
(free-for-all: 2 or 3 Hokm players, 2 to 4 Hand players). A side is the bots
on it, each weighted by the seats it holds: a bot that partners itself holds
two seats of its team, and trueskill's partial-play weight 2 makes the team's
performance twice that bot's. A bot is never on two sides.

The sides are ranked by the match result: the winners first; the others by
score (equal scores share a rank; Hokm counts up, so higher is better, Hand
counts penalties, so lower is better); a side that forfeited last. In Hand the
winners are the sides tied for the lowest total, so they share rank 0 too. A
match with no winner (every side faulted, or the referee aborted it) is not
rated.

A ladder with duplicate deals rates a board (the matches of one deal) as one
game, its sides ranked by their ranks summed over its rooms (ladder/stats/boards.py),
with :func:`rate_sides` and a draw probability of its own (a split board is a
tie, ``board_draw_probability``).

Nothing here mutates a rating: :func:`rate` takes the ratings before a match
and returns the ratings after it, so a ladder can be rated again from its
history (:func:`replay`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import trueskill


@dataclass(frozen=True)
class TrueSkillSettings:
    """The TrueSkill environment's parameters (ladder.toml's ``[trueskill]``, read by waraq.ladder.storage.config)."""

    mu: float = 25.0
    sigma: float = 25.0 / 3
    beta: float = 25.0 / 6
    tau: float = 25.0 / 300
    draw_probability: float = 0.0
    # A board of several rooms ties whenever its rooms split (one won each): between equal bots
    # on independent rooms, half the time. TrueSkill must expect ties to learn from them.
    board_draw_probability: float = 0.5


@dataclass(frozen=True)
class Rating:
    mu: float
    sigma: float

    @property
    def conservative(self) -> float:
        """μ − 3σ: the skill the bot has with about 99.9 % certainty."""
        return self.mu - 3 * self.sigma


def environment(settings: TrueSkillSettings, rooms: int = 1) -> trueskill.TrueSkill:
    """The TrueSkill environment that rates boards of ``rooms`` matches (1: single matches)."""
    return trueskill.TrueSkill(
        mu=settings.mu,
        sigma=settings.sigma,
        beta=settings.beta,
        tau=settings.tau,
        draw_probability=settings.draw_probability if rooms == 1 else settings.board_draw_probability,
    )


def prior(env: trueskill.TrueSkill) -> Rating:
    return Rating(env.mu, env.sigma)


@dataclass(frozen=True)
class Layout:
    """How a match's seats make sides, and which way its scores count.

    Seat ``s`` is on side ``s % sides``: with two teams that is seats 0+2 and
    1+3, and with one side a seat it is the seat itself.
    """

    players: int
    sides: int
    low_wins: bool = False  # the lowest score is best (Hand)

    @property
    def teams(self) -> bool:
        """Whether sides are teams of two seats (so partners exist)."""
        return self.sides < self.players

    @classmethod
    def of(cls, rules: Any) -> Layout:
        """The layout of a game's rules (each has ``players``, ``teams`` and ``LOWER_SCORE_WINS``)."""
        return cls(rules.players, rules.teams, rules.LOWER_SCORE_WINS)


def layout(players: int | Layout) -> Layout:
    """``players`` as a :class:`Layout`; a bare count is Hokm's (4 players: two teams)."""
    if isinstance(players, Layout):
        return players
    return Layout(players, 2 if players == 4 else players)


def sides(seats: Sequence[int], players: int | Layout) -> list[dict[int, int]]:
    """Per side, the bots on it and how many seats each holds; seats[i] is seat i's bot."""
    lay = layout(players)
    if len(seats) != lay.players:
        raise ValueError(f"{lay.players} players need {lay.players} seats, {len(seats)} given")
    out: list[dict[int, int]] = [{} for _ in range(lay.sides)]
    for seat, bot in enumerate(seats):
        side = out[seat % lay.sides]
        side[bot] = side.get(bot, 0) + 1
    on = [bot for side in out for bot in side]
    if len(on) != len(set(on)):
        twice = sorted({b for b in on if on.count(b) > 1})
        raise ValueError(f"bot {twice[0]} sits on two sides of one match (seats {list(seats)}): it cannot be rated")
    return out


def ranks(
    players: int | Layout, winners: Sequence[int], score: Sequence[int], faulty: Sequence[int]
) -> list[int] | None:
    """Rank of each side (0 best) from a match's result; None if the match has no winner."""
    lay = layout(players)
    count = lay.sides
    if not winners:
        return None
    won = {seat % count for seat in winners}
    lost = {seat % count for seat in faulty} - won
    scores = list(score) if len(score) == count else [0] * count
    others = sorted({scores[s] for s in range(count) if s not in won and s not in lost}, reverse=not lay.low_wins)
    out = []
    for side in range(count):
        if side in won:
            out.append(0)
        elif side in lost:
            out.append(1 + len(others))
        else:
            out.append(1 + others.index(scores[side]))
    return out


def _groups(ratings: Mapping[int, Rating], env: trueskill.TrueSkill, seats: Sequence[int], players: int | Layout):
    by_side = sides(seats, players)
    groups = [tuple(env.create_rating(*_values(ratings, env, bot)) for bot in side) for side in by_side]
    weights = [tuple(side.values()) for side in by_side]
    return by_side, groups, weights


def _values(ratings: Mapping[int, Rating], env: trueskill.TrueSkill, bot: int) -> tuple[float, float]:
    rating = ratings.get(bot)
    return (env.mu, env.sigma) if rating is None else (rating.mu, rating.sigma)


def rate(
    env: trueskill.TrueSkill,
    ratings: Mapping[int, Rating],
    seats: Sequence[int],
    players: int | Layout,
    side_ranks: Sequence[int],
) -> dict[int, Rating]:
    """The new ratings of the match's bots (a bot missing from ``ratings`` starts at the prior)."""
    return rate_sides(env, ratings, sides(seats, players), side_ranks)


def rate_sides(
    env: trueskill.TrueSkill,
    ratings: Mapping[int, Rating],
    by_side: Sequence[Mapping[int, int]],
    side_ranks: Sequence[int],
) -> dict[int, Rating]:
    """:func:`rate` for sides given as they are (a board's: ladder/stats/boards.py), each bot with its seats."""
    groups = [tuple(env.create_rating(*_values(ratings, env, bot)) for bot in side) for side in by_side]
    weights = [tuple(side.values()) for side in by_side]
    new_groups = env.rate(groups, ranks=list(side_ranks), weights=weights)
    return {
        bot: Rating(new.mu, new.sigma)
        for side, new_group in zip(by_side, new_groups, strict=True)
        for bot, new in zip(side, new_group, strict=True)
    }


def quality(
    env: trueskill.TrueSkill, ratings: Mapping[int, Rating], seats: Sequence[int], players: int | Layout
) -> float:
    """trueskill's match quality (its draw probability) of this seating: 1 is a perfectly even match."""
    _, groups, weights = _groups(ratings, env, seats, players)
    return env.quality(groups, weights=weights)


def p_above(a: Rating, b: Rating) -> float:
    """P(a's skill > b's skill) under the two ratings' normal beliefs.

    Φ((μa − μb) / √(σa² + σb²)): about the skills themselves, so without β
    (the noise of one match's performance). It tends to 0 or 1 as the
    ratings grow certain, which is what "ordered at 95 %" asks.
    """
    spread = math.sqrt(a.sigma**2 + b.sigma**2)
    if spread == 0:
        return 0.5 if a.mu == b.mu else float(a.mu > b.mu)
    return 0.5 * math.erfc(-(a.mu - b.mu) / spread / math.sqrt(2))


def table_order(ratings: Mapping[int, Rating]) -> list[int]:
    """Bots as the table ranks them: by μ − 3σ, then μ, then id (so the order is total)."""
    return sorted(ratings, key=lambda bot: (-ratings[bot].conservative, -ratings[bot].mu, bot))


def neighbour_confidence(ratings: Mapping[int, Rating]) -> list[tuple[int, int, float]]:
    """For each two neighbours of the table (upper, lower): P(upper's skill > lower's), by :func:`p_above`."""
    order = table_order(ratings)
    # order[1:] is one shorter: each bot but the last, paired with the one below it
    return [(a, b, p_above(ratings[a], ratings[b])) for a, b in zip(order, order[1:], strict=False)]


def is_ordered(ratings: Mapping[int, Rating], confidence: float) -> bool:
    """Every two neighbours of the table ordered at ``confidence`` (trivially so with one bot)."""
    return all(p >= confidence for _, _, p in neighbour_confidence(ratings))


def replay(
    env: trueskill.TrueSkill, players: int | Layout, matches: Iterable[tuple[Sequence[int], Sequence[int] | None]]
) -> dict[int, Rating]:
    """Every bot's rating after rating ``matches`` (seats, side ranks or None) in order, from the prior."""
    ratings: dict[int, Rating] = {}
    for seats, side_ranks in matches:
        if side_ranks is not None:
            ratings = {**ratings, **rate(env, ratings, seats, players, side_ranks)}
    return ratings

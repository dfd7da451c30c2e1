"""Who plays whom, in which seats: pure and deterministic given the ratings, the history and a seed.

A batch of matches is planned at once. For each deal the planner weighs
candidate seatings (all of them when there are few, else a seeded sample) by

    quality_weight     × trueskill's match quality (close matches first) [× what it tells]
  + uncertainty_weight × the bots' mean σ / the prior σ (uncertain ratings first)
  + order_weight       × how open the order of its opponents is [what it tells the open links]
  − balance_weight     × imbalance (of matches played, of seats, of partners)

where each imbalance term is 0 for the least-used choice and approaches 1 for
the most used. A run with a stopping rule (``--until-stable``) also gives the
planner the rule's *open links* (the neighbours it has not yet ordered or
tied) and the batch fit's covariance (ladder/stats/design.py). Then the order term
is what a seating's board would tell about the open links, the share of
their variance it would remove, scaled so the most telling candidate of the
deal scores 1, and the quality term is multiplied by it: a close match
between two bots the rule has already ordered or tied buys nothing, and two
equal bots are TrueSkill's closest match forever (P(a > b) stays 0.5), so
without this a ladder with two copies of one bot spent nearly all its
matches on the copies long after they were tied. Before the rule's
``min_boards`` every link is open. Without a rule both terms are as above.

The best seating is taken (ties: the first in the seeded order), the counts
are updated as if it were played, and the next deal is weighed. With
duplicate deals a seating is played once per rotation of the seats by one,
as many times as the match has sides: with two teams the teams swap sides,
with each seat a side each bot sits in each seat once, every time on the same
decks (the same seed).

In Hand that means: the same deck for every deal of the match, in order (the
k-th deck, void redeals counted, is a function of the seed alone), and the
same first player of every round; the bots move on by one seat, so over the
rotations each bot is dealt every seat's hands, the first player's 15 cards
included, and keeps its neighbours: it always takes the discards of the same
bot. Only the deal is common: once the bots play differently, the discard
pile, and so any stock rebuilt from it, differs.

Partners (two teams): ``mixed`` seats four different bots when there are four
(a bot partners itself only when the ladder has fewer); ``self`` seats each
bot with itself. A bot never plays against itself. With mixed partners the
balance term spreads each bot's partners over the others, which is what makes
each bot's own skill identifiable from team results (a bot always seated with
the same partner could only be rated with it); the order term then sends the
matches where they settle the table: to the pairs of bots on opposite sides
whose order is least certain, 1 − |2·P(a > b) − 1| (P from the ratings, as
ratings.p_above computes it), so a pair already ordered stops drawing matches;
with open links, to the seatings whose team sums pin those links down.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import trueskill

from waraq.ladder.stats.design import Knowledge, OpenLinks, questions
from waraq.ladder.stats.ratings import Layout, Rating, layout, p_above, quality
from waraq.ladder.storage.config import Matchmaking

Seating = tuple[int, ...]


class MatchmakingError(ValueError):
    """No match can be made (too few bots): the message says what is needed."""


@dataclass
class History:
    """Counts over the matches planned so far: each bot's matches, seats and partners."""

    games: Counter[int] = field(default_factory=Counter)
    seats: Counter[tuple[int, int]] = field(default_factory=Counter)
    partners: Counter[tuple[int, int]] = field(default_factory=Counter)

    @classmethod
    def of(cls, seatings: Iterable[Seating], players: int | Layout) -> History:
        history = cls()
        for seating in seatings:
            history.add(seating, players)
        return history

    def add(self, seating: Seating, players: int | Layout) -> None:
        for bot in set(seating):
            self.games[bot] += 1
        for seat, bot in enumerate(seating):
            self.seats[bot, seat] += 1
        for pair in partner_pairs(seating, players):
            self.partners[pair] += 1


def partner_pairs(seating: Seating, players: int | Layout) -> list[tuple[int, int]]:
    """The partnerships of a seating with teams (seats 0+2 and 1+3), as sorted pairs."""
    if not layout(players).teams:
        return []
    return [_sorted_pair(seating[0], seating[2]), _sorted_pair(seating[1], seating[3])]


def _sorted_pair(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a <= b else (b, a)


def rotations(seating: Seating, players: int | Layout, duplicate: bool) -> list[Seating]:
    """The seatings that play one deal: the seating alone, or every bot moved on by one seat each time.

    With two teams, one move swaps the teams' sides; a second would only swap partners'
    seats, so a team deal is played twice. When each seat is a side, a deal is played
    once per seat.
    """
    if not duplicate:
        return [seating]
    lay = layout(players)
    return [tuple(seating[(seat - shift) % lay.players] for seat in range(lay.players)) for shift in range(lay.sides)]


def group_size(players: int | Layout, duplicate: bool) -> int:
    return layout(players).sides if duplicate else 1


def minimum_bots(players: int | Layout, partners: str) -> int:
    """One bot a side: a bot never plays against itself (it may partner itself)."""
    return layout(players).sides


def candidates(
    bots: Sequence[int], players: int | Layout, partners: str, limit: int, rng: random.Random
) -> list[Seating]:
    """Seatings to weigh: every legal one in a seeded order, or ``limit`` of them drawn at random."""
    bots = sorted(bots)
    lay = layout(players)
    players = lay.players
    if len(bots) < minimum_bots(lay, partners):
        alone = " (each for himself)" if players == 4 and not lay.teams else ""
        raise MatchmakingError(
            f"a {players}-player ladder{alone} needs at least {minimum_bots(lay, partners)} active bots; "
            f"it has {len(bots)}"
        )
    if lay.teams and partners == "self":
        if len(bots) * (len(bots) - 1) > limit:
            return [_self_seating(rng.sample(bots, 2)) for _ in range(limit)]
        out = [_self_seating(pair) for pair in itertools.permutations(bots, 2)]
    elif lay.teams and len(bots) < 4:
        # Few enough to take them all, however small ``limit`` is.
        out = list(_few_bots_seatings(bots))
    else:
        if math.perm(len(bots), players) > limit:
            return [tuple(rng.sample(bots, players)) for _ in range(limit)]
        out = list(itertools.permutations(bots, players))
    rng.shuffle(out)
    return out


def _self_seating(pair: Sequence[int]) -> Seating:
    a, b = pair
    return (a, b, a, b)


def _few_bots_seatings(bots: Sequence[int]) -> Iterable[Seating]:
    """4 players from 2 or 3 bots: a bot may partner itself, never face itself."""
    for seating in itertools.product(bots, repeat=4):
        if not {seating[0], seating[2]} & {seating[1], seating[3]}:
            yield seating


@dataclass
class Planner:
    """Plans one batch; ``ratings``, ``history`` and ``open_links`` are as of the batch's boundary.

    ``open_links``: what the stopping rule has still to decide, with the batch fit's covariance
    (ladder/stats/design.py), or None without a rule.
    """

    env: trueskill.TrueSkill
    players: int | Layout
    settings: Matchmaking
    ratings: Mapping[int, Rating]
    history: History
    open_links: OpenLinks | None = None
    _quality: dict[tuple, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.layout = layout(self.players)

    def plan(self, bots: Sequence[int], seed: int, batch: int, matches: int) -> list[list[Seating]]:
        """Deals for ``matches`` matches (rounded up to whole deals): per deal, its seatings in order."""
        rng = random.Random(f"waraq-ladder/{seed}/batch/{batch}")
        lay = self.layout
        size = group_size(lay, self.settings.duplicate)
        knowledge = None if self.open_links is None else Knowledge(bots, self.open_links)
        deals = []
        for _ in range(-(-matches // size)):
            options = [
                rotations(s, lay, self.settings.duplicate)
                for s in candidates(bots, lay, self.settings.partners, self.settings.candidates, rng)
            ]
            informs = self._informs(knowledge, options)
            best = max(
                (self.score(bots, deal, None if informs is None else informs[i]), -i) for i, deal in enumerate(options)
            )
            deal = options[-best[1]]
            for seating in deal:
                self.history.add(seating, lay)
            if knowledge is not None:
                knowledge.learn(questions(deal[0], lay), len(deal))
            deals.append(deal)
        return deals

    def _informs(self, knowledge: Knowledge | None, options: Sequence[Sequence[Seating]]) -> list[float] | None:
        """Per candidate deal, the variance its board removes from the open links over the most any removes (None
        without a rule; all 0 when none removes any)."""
        if knowledge is None:
            return None
        gains = [knowledge.gain(questions(deal[0], self.layout), len(deal)) for deal in options]
        most = max(gains, default=0.0)
        return [g / most if most > 0 else 0.0 for g in gains]

    def score(self, bots: Sequence[int], deal: Sequence[Seating], informs: float | None = None) -> float:
        """The deal's weight; ``informs`` (with a rule) is its share of the most any candidate tells the open links."""
        settings = self.settings
        first = deal[0]
        on = sorted(set(first))
        prior = self.env.sigma
        uncertainty = sum(self._rating(b).sigma for b in on) / len(on) / prior
        balance = [self._games(bots, on), self._seats(deal)]
        if self.layout.teams and settings.partners == "mixed":
            balance.append(self._partners(bots, first))
        quality = self._match_quality(first)
        if informs is None:
            order = self._open_order(first)
        else:
            order = informs
            quality *= order
        return (
            settings.quality_weight * quality
            + settings.uncertainty_weight * uncertainty
            + settings.order_weight * order
            - settings.balance_weight * sum(balance) / len(balance)
        )

    def _opposed(self, seating: Seating) -> list[tuple[int, int]]:
        """The sorted pairs of two bots on different sides."""
        count = self.layout.sides
        side_of = {bot: seat % count for seat, bot in enumerate(seating)}
        return [(a, b) for a in side_of for b in side_of if a < b and side_of[a] != side_of[b]]

    def _open_order(self, seating: Seating) -> float:
        """Without open pairs (no stopping rule): the mean, over two bots on opposite sides, of how uncertain
        their order is by the ratings, 1 − |2·P(a > b) − 1|: 1 a coin toss, 0 known. Two equal bots stay at 1
        however many matches they play, which is why a run with a rule weighs what a board tells the open links
        instead (ladder/stats/design.py)."""
        opposed = self._opposed(seating)
        if not opposed:
            return 0.0
        return sum(1 - abs(2 * p_above(self._rating(a), self._rating(b)) - 1) for a, b in opposed) / len(opposed)

    def _rating(self, bot: int) -> Rating:
        return self.ratings.get(bot) or Rating(self.env.mu, self.env.sigma)

    def _match_quality(self, seating: Seating) -> float:
        # The same sides in any seats and order have the same quality: key by the sides.
        count = self.layout.sides
        key = tuple(sorted(tuple(sorted(seating[s::count])) for s in range(count)))
        if key not in self._quality:
            self._quality[key] = quality(self.env, self.ratings, seating, self.layout)
        return self._quality[key]

    def _games(self, bots: Sequence[int], on: Sequence[int]) -> float:
        counts = [self.history.games[b] for b in bots]
        low, high = min(counts), max(counts)
        return sum((self.history.games[b] - low) / (1 + high - low) for b in on) / len(on)

    def _seats(self, deal: Sequence[Seating]) -> float:
        total, terms = 0.0, 0
        for seating in deal:
            for seat, bot in enumerate(seating):
                counts = [self.history.seats[bot, s] for s in range(self.layout.players)]
                low, high = min(counts), max(counts)
                total += (counts[seat] - low) / (1 + high - low)
                terms += 1
        return total / terms

    def _partners(self, bots: Sequence[int], seating: Seating) -> float:
        pairs = partner_pairs(seating, self.layout)
        # With four bots or more nobody partners itself: only pairs of two bots count.
        pairing = itertools.combinations if len(bots) >= 4 else itertools.combinations_with_replacement
        every = [self.history.partners[p] for p in pairing(sorted(bots), 2)]
        low, high = min(every), max(every)
        return sum((self.history.partners[p] - low) / (1 + high - low) for p in pairs) / len(pairs)

"""Hokm bots of known order for the ranking benchmarks: a house bot with a share ε of random moves.

    python bench/known_order.py serve --epsilon 0.25 [--base heuristic|greedy] [--port 0 | --unix PATH]
    python bench/known_order.py strengths [--deals 200] [--epsilons 0 0.25 0.5 0.75 1] [--seed 1]
                                          [--base heuristic|greedy]

:class:`EpsilonPlayer` plays each decision as its base bot would (the
heuristic, :class:`waraq.bots.hokm_heuristic.HeuristicPlayer`, unless told
``greedy``: :class:`waraq.bots.hokm_greedy.GreedyPlayer`), except that with
probability ε it plays a uniformly random legal action instead. ε = 0 is the
base bot itself, move for move; ε = 1 is a random player. A lower ε is a
stronger bot, which is what a ladder of them must find: their true order is
known before a match is played. The greedy family is a second set of bots of
known order, one the ranking's figures were not first measured on (issue
32), and a fast one (a match in less than half the heuristic's time). Like
the house bots, it keeps nothing between calls, and its coin is drawn from a
generator keyed by its seed and the decision itself, so a decision asked
again (a replay, ``waraq replay --reask``) gets the same answer; its ``note``
says whether the base bot or the coin chose.

``serve`` makes it a gRPC bot like the built-in ones (one player per match and
seat, seeded by the match id and seat, as :mod:`waraq.bots.server` seeds
them), so a ladder or ``waraq match`` can seat it by the command spec
``"python bench/known_order.py serve --epsilon 0.25 --port {port}"``.

``strengths`` measures the order of one family (``--base``), in process:
4-player classic Hokm, each ε bot partnering itself, on duplicate deals (every deal played twice on the same
decks, the teams swapped), every pair on the same deals. It prints

1. each ε against the base bot (ε = 0): its match win rate with Wilson's 95 %
   interval (which takes the matches as independent, and the two rooms of a
   deal are not: they share the decks), and its share of the points, with an
   interval from the deals;
2. for each two neighbours, the difference of their scores against the
   base bot deal by deal, with a 95 % interval of the mean difference: an
   interval holding 0 means the two are too close to order that way at this
   number of deals (match wins stop telling the weak apart: they all lose to
   the heuristic, and the points share still orders them);
3. each two neighbours head to head, the stronger's match win rate.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import math
import random
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from waraq.bots.hokm_greedy import GreedyPlayer
from waraq.bots.hokm_heuristic import HeuristicPlayer
from waraq.bots.server import BindError, PlayerBot, serve_until_stopped
from waraq.referee.common import arguments
from waraq.referee.games.hokm.engine import DISCARD, HokmView, action_to_json
from waraq.referee.games.hokm.rules import PRESETS
from waraq.referee.match.inprocess import play_match
from waraq.v1 import bot_pb2 as pb

EPSILONS = (0.0, 0.25, 0.5, 0.75, 1.0)
Z95 = 1.959963984540054  # the standard normal's 97.5 % quantile: two-sided 95 %
PLAYERS = (2, 3, 4)  # the Hokm tables it sits at: both base bots play every one
# The base bots, by the name --base takes.
BASES: dict[str, type[HeuristicPlayer] | type[GreedyPlayer]] = {"heuristic": HeuristicPlayer, "greedy": GreedyPlayer}


class EpsilonPlayer:
    """The base bot (the heuristic, or ``greedy``), but a uniformly random legal action with probability
    ``epsilon``."""

    def __init__(self, epsilon: float, seed: int | str = 0, base: str = "heuristic") -> None:
        if not 0.0 <= epsilon <= 1.0:
            raise ValueError(f"epsilon {epsilon!r}: expected a probability, from 0 to 1")
        if base not in BASES:
            raise ValueError(f"base {base!r}: expected one of {', '.join(BASES)}")
        self.epsilon = epsilon
        self.base = base
        self.player = BASES[base](seed)
        # The coin's key is the heuristic's key for this decision, so the coin repeats wherever the
        # heuristic's tie-breaks do (and the heuristic family plays as it always has); another base's
        # coins are keyed apart from the heuristic's by its name.
        self.keys = self.player if isinstance(self.player, HeuristicPlayer) else HeuristicPlayer(f"{base}/{seed}")
        self.note = ""

    def __call__(self, view: HokmView) -> Any:
        assert view.kind is not None, "a bot is asked only while a decision is pending"
        # Prefixed, so the coin is not the heuristic's tie-breaks' first draw.
        rng = random.Random("epsilon/" + self.keys._decision_key(view))
        if rng.random() < self.epsilon:  # random() < 1 always, < 0 never: ε = 1 and ε = 0 are exact
            action = view.legal[rng.randrange(len(view.legal))]
            self.note = f"random {spelled(view.kind, action)} (ε = {self.epsilon:g})"
            return action
        action = self.player(view)
        self.note = f"{self.base}: {self.player.note}"
        return action


def spelled(kind: str, action: Any) -> str:
    """An action as a note shows it, as records spell it: ``7H``, ``S`` (trump), ``2C 3D``, ``keep``, ``yes``."""
    value = action_to_json(kind, action)
    if kind == DISCARD:
        return " ".join(value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


# -- serve: a real gRPC bot ---------------------------------------------------------------------


class EpsilonBot(PlayerBot):
    """The gRPC servicer of one ε of one base bot: a new player each match and seat; it declares Hokm only."""

    def __init__(self, epsilon: float, base: str = "heuristic") -> None:
        EpsilonPlayer(epsilon, base=base)  # a bad ε is refused before the server starts, not at the first match

        def make(match: str, seat: int, game: str = "hokm") -> EpsilonPlayer:
            if game != "hokm":  # the referee never asks: the Hello below declares Hokm alone
                raise ValueError(f"the ε bot plays Hokm, not {game!r}")
            # Seeded as waraq.bots.server seeds built-in bots.
            return EpsilonPlayer(epsilon, f"{match}/{seat}", base)

        name = f"epsilon-{epsilon:g}" if base == "heuristic" else f"{base}-epsilon-{epsilon:g}"
        super().__init__(name, make, author="Waraq bench")

    async def Hello(self, request: pb.HelloRequest, context: Any) -> pb.HelloReply:
        reply = await super().Hello(request, context)
        del reply.games[:]
        reply.games.append(pb.GameSupport(game="hokm", players=PLAYERS))
        return reply


def serve(args: argparse.Namespace) -> int:
    address = f"unix:{args.unix}" if args.unix else f"{args.host}:{args.port}"
    bot = EpsilonBot(args.epsilon, args.base)
    try:
        asyncio.run(serve_until_stopped(bot, address, bot.name))
    except BindError as error:
        arguments.print_error(str(error))
        return 1
    return 0


# -- strengths: the order, measured -------------------------------------------------------------


@dataclass(frozen=True)
class Deal:
    """One deal played in two rooms on the same decks, the teams swapped: what the first side did."""

    wins: int  # rooms it won: 0, 1 or 2 (an aborted match, no winner, counts as lost)
    points: int  # its points over both rooms
    against: int  # the other side's
    aborted: int

    @property
    def score(self) -> float:
        """Its share of the two matches: 0, 0.5 or 1."""
        return self.wins / 2

    @property
    def point_share(self) -> float:
        return self.points / (self.points + self.against) if self.points + self.against else 0.5


def play_deal(epsilon: float, opponent: float, seed: int, deal: int, base: str = "heuristic") -> Deal:
    """The ε bot (partnering itself) against the ``opponent`` ε bot, both of ``base``, on ``deal``, both rooms.

    Room 0 seats the ε bot at 0 and 2 (team 0), room 1 at 1 and 3 (team 1);
    both are dealt by the same seed, so the same decks and first hakem. Each
    seat's player is seeded by the deal, room and seat alone, so every ε meets
    opponents that play alike. The base bot is ``opponent`` 0 (ε = 0 plays as
    the base bot, move for move).
    """
    rules = PRESETS["classic"]
    wins = points = against = aborted = 0
    for room in (0, 1):
        mine = {room, room + 2}
        players = [
            EpsilonPlayer(epsilon if seat in mine else opponent, f"strengths/{seed}/{deal}/{room}/{seat}", base)
            for seat in range(4)
        ]
        result = play_match(rules, seed * 1_000_000 + deal, players).result
        wins += bool(mine & set(result.winners))
        points += result.score[room]  # team t is seats t and t + 2
        against += result.score[1 - room]
        aborted += not result.winners
    return Deal(wins, points, against, aborted)


@dataclass(frozen=True)
class Series:
    """An ε bot against an opponent over deals ``0 .. n - 1`` of a seed: the same deals for every pair."""

    epsilon: float
    opponent: float
    deals: tuple[Deal, ...]

    @classmethod
    def play(cls, epsilon: float, opponent: float, seed: int, deals: int, base: str = "heuristic") -> Series:
        return cls(epsilon, opponent, tuple(play_deal(epsilon, opponent, seed, d, base) for d in range(deals)))

    @property
    def wins(self) -> int:
        return sum(d.wins for d in self.deals)

    @property
    def matches(self) -> int:
        return 2 * len(self.deals)

    @property
    def aborted(self) -> int:
        return sum(d.aborted for d in self.deals)


def wilson(wins: int, n: int) -> tuple[float, float]:
    """Wilson's 95 % score interval for a win rate of ``wins`` in ``n`` (the ladder's table has its own,
    in a module being rewritten as this is written: the bench does not lean on it)."""
    p, z2 = wins / n, Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def mean_interval(values: Sequence[float]) -> tuple[float, float, float]:
    """The mean and its 95 % normal interval, from values independent of each other (one per deal)."""
    mean = statistics.fmean(values)
    half = Z95 * statistics.stdev(values) / math.sqrt(len(values))
    return mean, mean - half, mean + half


def paired(a: Sequence[float], b: Sequence[float]) -> tuple[float, float, float]:
    """``a`` minus ``b``, deal by deal on the same deals, with the 95 % interval of the mean difference."""
    return mean_interval([x - y for x, y in zip(a, b, strict=True)])


def verdict(low: float, high: float, level: float) -> str:
    """Whether an interval shows its figure above ``level`` (ordered), below it, or neither."""
    return "ordered" if low > level else "REVERSED" if high < level else "too close to order"


def strengths(args: argparse.Namespace) -> int:
    epsilons, deals, base = sorted(args.epsilons), args.deals, args.base
    print(
        f"{base} with ε random moves; 4-player classic Hokm, each ε bot partnering itself, {deals} deals of seed "
        f"{args.seed}, each played twice (the teams swapped, the same decks); in process",
        flush=True,
    )
    began = time.perf_counter()
    against_base = [Series.play(e, 0.0, args.seed, deals, base) for e in epsilons]
    print(f"\n1. each ε against {base}")
    print(f"  {'ε':>5}  {'match wins':>10}  {'win rate':>8}  {'95 % (Wilson)':>15}  {'points share (95 %)':>24}")
    for series in against_base:
        low, high = wilson(series.wins, series.matches)
        share = mean_interval([d.point_share for d in series.deals])
        aborted = f"  ({series.aborted} aborted, counted lost)" if series.aborted else ""
        print(
            f"  {series.epsilon:>5g}  {series.wins:>4}/{series.matches:<5}  {series.wins / series.matches:>8.1%}  "
            f"{low:>6.1%} - {high:<6.1%}  {share[0]:>6.1%} ({share[1]:.1%} - {share[2]:.1%}){aborted}",
            flush=True,
        )
    print(f"\n2. neighbours against {base}, the stronger minus the weaker, deal by deal on the same deals")
    print(f"  {'pair':>14}  {'match score (95 %)':>28}  {'points share (95 %)':>28}")
    unordered = 0
    for a, b in itertools.pairwise(against_base):
        score = paired([d.score for d in a.deals], [d.score for d in b.deals])
        share = paired([d.point_share for d in a.deals], [d.point_share for d in b.deals])
        unordered += not (score[1] > 0 or share[1] > 0)
        print(
            f"  {f'ε {a.epsilon:g} - {b.epsilon:g}':>14}  {_difference(score)} {verdict(score[1], score[2], 0):<18}  "
            f"{_difference(share)} {verdict(share[1], share[2], 0)}",
            flush=True,
        )
    print("\n3. neighbours head to head: the stronger's match wins against the weaker")
    print(f"  {'pair':>14}  {'match wins':>10}  {'win rate':>8}  {'95 % (Wilson)':>15}  {'points share (95 %)':>24}")
    for a, b in itertools.pairwise(epsilons):
        series = Series.play(a, b, args.seed, deals, base)
        low, high = wilson(series.wins, series.matches)
        share = mean_interval([d.point_share for d in series.deals])
        print(
            f"  {f'ε {a:g} - {b:g}':>14}  {series.wins:>4}/{series.matches:<5}  {series.wins / series.matches:>8.1%}  "
            f"{low:>6.1%} - {high:<6.1%}  {share[0]:>6.1%} ({share[1]:.1%} - {share[2]:.1%})  "
            f"{verdict(low, high, 0.5)}",
            flush=True,
        )
    print(
        f"\n{time.perf_counter() - began:.0f} s. Each interval is at 95 % for its pair alone. "
        + (
            f"Every neighbour pair is ordered against {base} by match score or points share."
            if not unordered
            else f"{unordered} neighbour pair(s) not ordered against {base} at {deals} deals."
        ),
        flush=True,
    )
    return 0 if not unordered else 1


def _difference(found: tuple[float, float, float]) -> str:
    mean, low, high = found
    return f"{mean:+.3f} ({low:+.3f} to {high:+.3f})"


def probability(text: str) -> float:
    """An argparse type: an ε, from 0 to 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number: expected a probability from 0 to 1") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{value:g} is not a probability: expected one from 0 to 1")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    parser = arguments.Parser(prog="bench/known_order.py", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    serving = commands.add_parser("serve", help="serve one ε as a gRPC bot (waraq.v1.Bot)")
    serving.add_argument("--epsilon", type=probability, required=True, help="the probability of a random legal action")
    serving.add_argument("--port", type=arguments.port, default=0, help="TCP port on 127.0.0.1 (0: any free port)")
    serving.add_argument("--host", default="127.0.0.1")
    serving.add_argument("--unix", help="listen on this Unix socket path instead of TCP")
    serving.add_argument("--base", choices=list(BASES), default="heuristic", help="the bot it plays as when not random")
    measuring = commands.add_parser("strengths", help="each ε's win rate against its base bot, in process")
    measuring.add_argument(
        "--deals", type=arguments.integer_at_least(2), default=200, help="deals, each played twice (teams swapped)"
    )
    measuring.add_argument("--epsilons", type=probability, nargs="+", default=list(EPSILONS))
    measuring.add_argument("--seed", type=int, default=1, help="deal d is dealt by seed × 1,000,000 + d")
    measuring.add_argument("--base", choices=list(BASES), default="heuristic", help="the family: the base bot")
    args = parser.parse_args(argv)
    return serve(args) if args.command == "serve" else strengths(args)


if __name__ == "__main__":
    sys.exit(main())

"""The search bot's speed and a quick look at its strength, in-process.

    python bench/search.py speed [--players 4 3 2] [--matches 5]
    python bench/search.py strength [--bot search] [--against heuristic greedy] [--boards 20] [--first 0] [--players 4]
                                    [--worlds N | --ms MS] [--jobs K]

``speed`` prints, per player count: the engine's ``clone`` per call on a state
in the middle of a round, and ``push`` per card (with its ``legal_actions``)
over the rest of rounds; the search's worlds per second (a world is
sampled, dealt, and every legal action still in the race rolled out or
solved in it) over real
PLAY decisions of random matches; and for matches of search at 100 ms a
decision against the heuristic, its decisions per second and the CPU seconds
one search seat spends on a match, the mean of ``--matches`` (what a ladder of
it costs).

``strength`` plays duplicate boards: each board's decks go to the same seats
whoever deals (the ladder's SeatDealer), once with the bot (search, unless
``--bot`` names another house bot, to grade the others too) on one side and
once on the other (2 and 4 players; with 3, it takes each seat in turn against
two of the other bot). It prints the matches search won, with an exact 95 %
interval, and the share of the round points it took. A few dozen boards tell
a large difference from none; the 400-board figures of #16 are for
``waraq versus``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from itertools import repeat
from math import comb
from typing import Any

from waraq.bots.hokm_greedy import GreedyPlayer
from waraq.bots.hokm_heuristic import HeuristicPlayer
from waraq.bots.hokm_random import RandomPlayer
from waraq.bots.hokm_search import Budget, SearchPlayer, search
from waraq.referee.games.dealers import SeatDealer
from waraq.referee.games.hokm.engine import PLAY, HokmState, new_match
from waraq.referee.games.hokm.rules import PRESETS
from waraq.referee.match.inprocess import play_match

RULES = {4: PRESETS["classic"], 3: PRESETS["three"], 2: PRESETS["two"]}
OPPONENTS: dict[str, Callable[[str], Any]] = {
    "heuristic": HeuristicPlayer,
    "greedy": GreedyPlayer,
    "random": RandomPlayer,
}


# -- speed ------------------------------------------------------------------------------


def mid_round_positions(players: int, count: int) -> list[HokmState]:
    """PLAY positions of random matches, from the first trick to the last."""
    found: list[HokmState] = []
    rng = random.Random(players)
    seed = 0
    while len(found) < count:
        state = new_match(RULES[players], f"bench/{seed}")
        seed += 1
        while state.result is None and len(found) < count:
            if state.kind == PLAY and len(state.legal_actions()) > 1 and rng.random() < 0.15:
                found.append(state.clone())
            state.apply(rng.choice(state.legal_actions()))
    return found


def per_call_us(fn: Callable[[], Any], calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - start) / calls * 1e6


def clone_and_push_us(players: int) -> tuple[float, float]:
    """``clone`` per call on a mid-round state; ``push`` per card over the rest of rounds from
    many mid-round states, each card the first legal one, its ``legal_actions`` included."""
    states = mid_round_positions(players, 200)
    clone = per_call_us(states[0].clone, 50_000)
    copies = [state.clone() for state in states for _ in range(20)]
    pushes = 0
    start = time.perf_counter()
    for copy in copies:
        round_ = copy.round
        while copy.round == round_ and copy.result is None:
            copy.push(copy.legal_actions()[0])
            pushes += 1
    return clone, (time.perf_counter() - start) / pushes * 1e6


def worlds_per_second(players: int, positions: int = 60, worlds: int = 10) -> float:
    spent = done = 0.0
    for k, state in enumerate(mid_round_positions(players, positions)):
        assert state.to_act is not None
        view = state.view(state.to_act)
        start = time.perf_counter()
        weighed = search(view, random.Random(k), Budget(worlds), stop_at=float("inf"))
        spent += time.perf_counter() - start
        done += weighed.worlds
    return done / spent


class Timed:
    """A player whose decisions are counted and whose CPU time is summed."""

    def __init__(self, player: Any) -> None:
        self.player = player
        self.cpu = 0.0
        self.decisions = 0

    def __call__(self, view: Any) -> Any:
        start = time.process_time()
        action = self.player(view)
        self.cpu += time.process_time() - start
        self.decisions += 1
        return action


def match_cost(players: int, ms: float, matches: int) -> tuple[float, float]:
    """Decisions per second and CPU seconds a match of one search seat, at ``ms`` a decision, over
    ``matches`` matches (one match's length, and so its cost, varies by half either way)."""
    rules = RULES[players]
    decisions = cpu = 0.0
    for match in range(matches):
        timed = Timed(SearchPlayer(f"cost/{match}/0", ms=ms))
        seats: list[Any] = [timed] + [HeuristicPlayer(f"cost/{match}/{s}") for s in range(1, players)]
        play_match(rules, f"cost/{match}", seats)
        decisions += timed.decisions
        cpu += timed.cpu
    return decisions / cpu, cpu / matches


def speed(args: argparse.Namespace) -> None:
    print(f"{'players':>7}  {'clone us':>8}  {'push us':>7}  {'worlds/s':>8}  {'decisions/s':>11}  {'CPU s/match':>11}")
    for players in args.players:
        clone, push = clone_and_push_us(players)
        worlds = worlds_per_second(players)
        decisions, cpu = match_cost(players, args.ms, args.matches)
        print(f"{players:>7}  {clone:>8.2f}  {push:>7.2f}  {worlds:>8.0f}  {decisions:>11.1f}  {cpu:>11.1f}")
    print(
        f"(decisions/s and CPU: one search seat at {args.ms:g} ms, the others heuristic, "
        f"the mean of {args.matches} matches to 7)"
    )


# -- strength -----------------------------------------------------------------------------


def sides(players: int) -> list[set[int]]:
    """The seats search takes in each room of a board."""
    if players == 4:
        return [{0, 2}, {1, 3}]
    return [{s} for s in range(players)]


def play_board(
    players: int,
    board: int,
    make_search: Callable[[str], Any],
    other: str,
    before_each: Callable[[Any, Any], None] | None = None,
) -> list[tuple[bool, float]]:
    """Each room of one board: whether search won, and its share of the round points.
    ``before_each``: as play_match's (bench/search_ceiling.py shows its seats the match)."""
    rules = RULES[players]
    rooms = []
    for room, ours in enumerate(sides(players)):
        seats = [
            make_search(f"b{board}/r{room}/{s}") if s in ours else OPPONENTS[other](f"b{board}/r{room}/{s}")
            for s in range(players)
        ]
        state = play_match(rules, f"board/{board}", seats, SeatDealer(f"board/{board}"), before_each)
        assert state.result is not None
        scores = state.result.score
        mine = scores[min(ours) % rules.teams]  # its team's or its own
        rooms.append((bool(ours & set(state.result.winners)), mine / max(sum(scores), 1)))
    return rooms


def clopper_pearson(wins: int, n: int, level: float = 0.95) -> tuple[float, float]:
    alpha = (1 - level) / 2

    def tail(k: int, p: float) -> float:  # P(X >= k)
        return sum(comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k, n + 1))

    def solve(f: Callable[[float], float]) -> float:
        lo, hi = 0.0, 1.0
        for _ in range(50):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if f(mid) < 0 else (lo, mid)
        return lo

    low = 0.0 if wins == 0 else solve(lambda p: tail(wins, p) - alpha)
    high = 1.0 if wins == n else solve(lambda p: tail(wins + 1, p) - (1 - alpha))
    return low, high


@dataclass(frozen=True)
class Measured:
    """The bot measured, made for a seat: a picklable maker, so boards can play in other processes."""

    bot: str
    ms: float
    worlds: int | None

    def __call__(self, seed: str) -> Any:
        if self.bot != "search":
            return OPPONENTS[self.bot](seed)
        return SearchPlayer(seed, ms=self.ms, worlds=self.worlds)


def strength(args: argparse.Namespace) -> None:
    budget = f"{args.worlds} worlds" if args.worlds else f"{args.ms:g} ms"
    name = f"search ({budget})" if args.bot == "search" else args.bot
    measured = Measured(args.bot, args.ms, args.worlds)
    for players in args.players:
        for other in args.against:
            start = time.perf_counter()
            # Each board in a process of its own: the search's worlds come from its cost model, not
            # the clock, so its decisions are the same however many boards share the cores.
            with ProcessPoolExecutor(args.jobs) as pool:
                numbers = range(args.first, args.first + args.boards)
                boards = pool.map(play_board, repeat(players), numbers, repeat(measured), repeat(other))
                rooms = [room for board in boards for room in board]
            wins = sum(won for won, _ in rooms)
            low, high = clopper_pearson(wins, len(rooms))
            share = statistics.mean(s for _, s in rooms)
            took = time.perf_counter() - start
            print(
                f"{players} players, {name} v {other}: won {wins}/{len(rooms)} matches = "
                f"{wins / len(rooms):.0%} (95 % {low:.1%}-{high:.1%}), {share:.0%} of the points; "
                f"boards {args.first}-{args.first + args.boards - 1} in {took:.0f} s"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    fast = commands.add_parser("speed", help="clone/push cost, worlds/s, decisions/s, CPU per match")
    fast.add_argument("--players", type=int, nargs="+", default=[4, 3, 2], choices=(4, 3, 2))
    fast.add_argument("--ms", type=float, default=100.0, help="the budget of the matches measured (default 100)")
    fast.add_argument("--matches", type=int, default=5, help="matches played to measure the CPU a match (default 5)")
    strong = commands.add_parser("strength", help="search against other bots on duplicate boards")
    strong.add_argument("--bot", default="search", choices=["search", *sorted(OPPONENTS)], help="the bot measured")
    strong.add_argument("--players", type=int, nargs="+", default=[4], choices=(4, 3, 2))
    strong.add_argument("--against", nargs="+", default=["heuristic", "greedy"], choices=sorted(OPPONENTS))
    strong.add_argument("--boards", type=int, default=20)
    strong.add_argument("--first", type=int, default=0, help="the first board's number: a long run in parts")
    strong.add_argument("--ms", type=float, default=100.0, help="search's budget a decision (default 100)")
    strong.add_argument("--worlds", type=int, help="a fixed number of worlds a decision instead of --ms")
    strong.add_argument("--jobs", type=int, default=1, help="boards played at once, each in its own process")
    args = parser.parse_args()
    speed(args) if args.command == "speed" else strength(args)


if __name__ == "__main__":
    main()

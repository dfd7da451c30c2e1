"""A ladder of bots of known order, played in process: how many matches until its table is right.

    python bench/ranking.py [--seeds 2] [--matches 160] [--keep DIR]

The ladder is the ladder's own code: ``folder.init`` and ``folder.add`` make
it, ``ledger.plan_next`` plans each batch, ``ledger.record`` stores and rates
each result in the SQLite store. Only the transport is replaced: instead of
``waraq ladder run``'s bot processes over gRPC, each planned match is played
by :func:`waraq.referee.match.inprocess.play_match` with the players of its
seats' bots (bench/known_order.py's ε bots). The players are the ones the
served bots would make: dealt under the ladder's key from the match's seed and
seeded by the match id the scheduler sends, so the in-process ladder plays the
very matches ``waraq ladder run`` plays on the same folder (its bots' specs
are the ``serve`` commands). Each batch is played whole before the next is
planned, so ``plan_next`` never waits on a match in flight: there is none.

``main`` plays the five ε bots (ε = 0, 0.25, 0.5, 0.75, 1; mixed partners,
4-player classic) for ``--matches`` matches on each of ``--seeds`` seeds, with
duplicate deals and, on the same seeds and deal key (so the same deals),
without; after every batch it reads the table's order
(:func:`waraq.ladder.table.standings`, rank order) and prints, per seed, the
matches until that order first equals the true order and the count from
which it stays so to the end, then the medians.
"""

from __future__ import annotations

import argparse
import math
import shlex
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from known_order import EPSILONS, EpsilonPlayer  # this file's folder leads sys.path: bench/known_order.py

from waraq.ladder import config as cfg
from waraq.ladder import folder, key_file, ledger, table
from waraq.ladder import ratings as rt
from waraq.ladder.store import PLANNED, RATED, Outcome, Planned, Store
from waraq.referee.games.hokm.rules import PRESETS
from waraq.referee.match import secret_deals
from waraq.referee.match.inprocess import play_match

KNOWN_ORDER = Path(__file__).resolve().parent / "known_order.py"


@dataclass(frozen=True)
class BenchBot:
    name: str
    epsilon: float  # its true strength order: lower ε is stronger

    @property
    def spec(self) -> str:
        """Its command spec in ladder.toml: the served bot, so ``waraq ladder run`` can play the same ladder."""
        command = f"{shlex.quote(sys.executable)} {shlex.quote(str(KNOWN_ORDER))} serve"
        return f"{command} --epsilon {self.epsilon!r} --port {{port}}"


FIVE = tuple(BenchBot(f"eps-{e:g}", e) for e in EPSILONS)


def true_order(bots: Sequence[BenchBot]) -> list[str]:
    return [b.name for b in sorted(bots, key=lambda b: b.epsilon)]


@dataclass(frozen=True)
class Stats:
    matches: int  # played by this call
    seconds: float
    finished: ledger.Finished | None  # why the ledger stopped; None when on_batch stopped it


def make_ladder(
    path: str | Path,
    seed: int,
    bots: Sequence[BenchBot],
    *,
    duplicate: bool,
    partners: str = "mixed",
    rules: Any = PRESETS["classic"],
    batch: int = 16,
) -> Path:
    """A new ladder folder of ``bots``. Its deal key is the seed's own, so two ladders of one seed
    (with and without duplicates) deal alike: deal ``d`` is the same decks in both."""
    path = Path(path)
    folder.init(path, rules, seed=seed, duplicate=duplicate, partners=partners, deal_key=f"bench-{seed}")
    config = cfg.load(path)
    cfg.save(path, replace(config, matchmaking=replace(config.matchmaking, batch=batch)))
    with folder.open_ladder(path) as ladder:
        for bot in bots:
            folder.add(ladder, bot.name, bot.spec, check=False)
    return path


def play_ladder(
    path: str | Path,
    bots: Sequence[BenchBot],
    target: ledger.Target,
    *,
    on_batch: Callable[[Store, int], bool] | None = None,
) -> Stats:
    """Play the ladder at ``path`` until the ledger says it is finished, or ``on_batch`` returns False.

    ``on_batch`` is called after each batch is rated, with the store and the number of matches
    rated in the ladder so far. Matches a killed call left planned are played first.
    """
    began = time.perf_counter()
    played = 0
    with folder.open_ladder(path) as ladder:
        store, config = ladder.store, ladder.config
        env = rt.environment(config.trueskill)
        key = key_file.read(ladder.folder)
        by_name = {b.name: b for b in bots}
        by_entry = {e.id: by_name[e.base] for e in store.entries() if e.base in by_name}
        ledger.advance(store, config, env)  # results a killed call stored but could not rate yet
        while True:
            batch = store.pending()
            if not batch:
                planned = ledger.plan_next(store, config, env, target)
                if isinstance(planned, ledger.Finished):
                    return Stats(played, time.perf_counter() - began, planned)
                if isinstance(planned, str):  # ledger.WAIT; nothing is in flight here, so it waits on nothing
                    raise RuntimeError("planning waits, but every planned match is played and rated")
                batch = planned
            for match in batch:
                if store.status_of(match.id) == PLANNED:  # not cancelled since it was planned
                    ledger.record(store, config, env, play(match, by_entry, key, config.rules), match.seats)
                    played += 1
            if on_batch is not None and not on_batch(store, store.count_by_status()[RATED]):
                return Stats(played, time.perf_counter() - began, None)


def play(planned: Planned, bots: dict[int, BenchBot], key: str, rules: Any) -> Outcome:
    """One planned match, played as the scheduler plays it over gRPC: the same decks, the same players."""
    unknown = [e for e in planned.seats if e not in bots]
    if unknown:
        raise ValueError(f"match {planned.id} seats entries {unknown}, which are none of the bench's bots")
    match_id = secret_deals.match_id(key, f"ladder/{planned.id}")  # what the scheduler sends the bots
    players = [EpsilonPlayer(bots[e].epsilon, f"{match_id}/{seat}") for seat, e in enumerate(planned.seats)]
    began = time.perf_counter()
    state = play_match(rules, secret_deals.dealing_seed(planned.seed, key), players)
    result = state.result
    decisions = sum(1 for e in state.events if e["type"] == "decision")
    return Outcome(
        planned.id, result.reason, tuple(result.winners), tuple(result.score), (), (), decisions,
        time.perf_counter() - began,
    )


def table_order(store: Store, config: cfg.LadderConfig) -> list[str]:
    """The bots' names in the table's rank order, as ``waraq ladder show`` ranks them."""
    return [s.bot for s in table.standings(store, config)]


def matches_until_ordered(
    trajectory: Sequence[tuple[int, Sequence[str]]], true_order: Sequence[str]
) -> tuple[int | None, int | None]:
    """(the first match count at which the order equals ``true_order``, the count from which it
    equals it to the end); None if never. ``trajectory``: (matches rated, the table's order) after
    each batch, in order."""
    wanted = list(true_order)
    first = next((count for count, order in trajectory if list(order) == wanted), None)
    stays = None
    for count, order in reversed(trajectory):
        if list(order) != wanted:
            break
        stays = count
    return first, stays


def median(values: Sequence[int | None]) -> float | None:
    """The median, a None (never ordered) counting as more than any count; None if it lands on one."""
    ordered = sorted(values, key=lambda v: math.inf if v is None else v)
    low, high = ordered[(len(ordered) - 1) // 2], ordered[len(ordered) // 2]
    return None if low is None or high is None else (low + high) / 2


def ordering_run(path: Path, seed: int, duplicate: bool, matches: int) -> tuple[tuple[int | None, int | None], Stats]:
    """One ladder of the five ε bots: its matches until ordered, and its stats."""
    make_ladder(path, seed, FIVE, duplicate=duplicate)
    config = cfg.load(path)
    trajectory: list[tuple[int, list[str]]] = []

    def after_batch(store: Store, rated: int) -> bool:
        trajectory.append((rated, table_order(store, config)))
        return True

    stats = play_ladder(path, FIVE, ledger.Target(matches), on_batch=after_batch)
    return matches_until_ordered(trajectory, true_order(FIVE)), stats


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=2, help="ladder seeds 1 .. N")
    parser.add_argument("--matches", type=int, default=160, help="matches a ladder")
    parser.add_argument("--keep", type=Path, help="make the ladders here and keep them")
    args = parser.parse_args(argv)
    print(
        f"five bots of known order ({', '.join(b.name for b in FIVE)}: the heuristic with a share ε of random "
        f"moves), 4-player classic, mixed partners, {args.matches} matches a ladder; matches until the table's "
        "order is the true order (first, and from when it stays so), with and without duplicate deals, "
        "the same deals on each seed",
        flush=True,
    )
    header = f"  {'seed':>4}  {'duplicates: first':>17}  {'stays':>5}  {'no duplicates: first':>20}  {'stays':>5}"
    print(f"{header}  seconds", flush=True)
    found: dict[bool, list[tuple[int | None, int | None]]] = {True: [], False: []}
    with tempfile.TemporaryDirectory(prefix="waraq-ranking-bench-") as scratch:
        work = args.keep or Path(scratch)
        work.mkdir(parents=True, exist_ok=True)
        for seed in range(1, args.seeds + 1):
            cells, seconds = [], []
            for duplicate in (True, False):
                path = work / f"seed-{seed}-{'duplicates' if duplicate else 'single'}"
                counts, stats = ordering_run(path, seed, duplicate, args.matches)
                found[duplicate].append(counts)
                cells += [_count(c, args.matches) for c in counts]
                seconds.append(f"{stats.seconds:.1f}")
            print(f"  {seed:>4}  {cells[0]:>17}  {cells[1]:>5}  {cells[2]:>20}  {cells[3]:>5}  {' '.join(seconds)}",
                  flush=True)
    for duplicate in (True, False):
        firsts, stays = zip(*found[duplicate], strict=True)
        print(
            f"  {'with' if duplicate else 'without'} duplicates: median first {_count(median(firsts), args.matches)}, "
            f"median stays from {_count(median(stays), args.matches)}"
        )
    return 0


def _count(value: float | None, matches: int) -> str:
    return f">{matches}" if value is None else f"{value:g}"


if __name__ == "__main__":
    sys.exit(main())

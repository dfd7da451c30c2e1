"""The ladder on a local Ray cluster against the local ladder: matches per second, Ray's cost, the head's CPU.

    python bench/ray_ladder.py [--matches 16] [--repeats 3] [--seed 11] [--target 7]

One run plays the same ladder (``random`` and ``heuristic``, 4-player Hokm to
``--target`` points, duplicate deals, one seed and one deal key, so the same
matches) ``--repeats`` times each way, a fresh folder every time, and prints
medians. The four ways take turns, repeat by repeat, so that a change in the
shared machine's load falls on all of them alike:

* the local ladder (ladder/play/scheduler.py) with 1 and with 2 matches at once:
  its bots started once for the run, a process a seat a seating
  (``Scheduler._slots``), each started on first need and kept;
* the ladder on a local Ray cluster (``ray.init(num_cpus=N)``, started for
  the run and shut down after it, so no Ray process runs beside the local
  ladder) with 1 and with 2 workers, 2 matches in flight. A worker is a Ray
  actor (ladder/play/ray_cluster.py's ``MatchWorker``) that keeps the bots it
  launched warm across its matches (ladder/play/warm_bots.py), by the local
  ladder's rule; the head gives each match to the worker whose processes suit
  it. Before, each match was a task that started its four bots and stopped
  them: 0.64 of the local ladder's rate with 2 workers as docs/cluster.md
  first measured it, 0.31 here at 86fea18 (whose local ladder plays 2.6 times as
  fast as at that first measure).

Matches per second count from the first match (the bots' first start left
out). The bot processes a run are those the run started: the local ladder's
starts, the distinct processes that played on the Ray workers. Ray's cost per
match is the time a match takes on one Ray worker less the time it takes on
the local ladder one at a time: the round trip to the worker, the head's
part, and the starts a worker makes before its processes are warm. The head's CPU
per match is this process's CPU time during the Ray runs (the driver: the
planning, the records written, the results stored and rated, and Ray's own
threads) over the matches; its parts are the CPU of ``ledger.plan_next``,
writing the record, and ``ledger.record`` (the result and its rating update,
one transaction). A worker's match time over the head's CPU per match is how
many workers one head keeps busy.

This machine has 2 cores, so 2 workers can show the ratio, not a speed-up.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import ray

from waraq.ladder.play import bots as launch
from waraq.ladder.play import folder, ledger, ray_cluster
from waraq.ladder.play.ledger import Target
from waraq.ladder.play.scheduler import RunState, run
from waraq.referee.games.hokm.rules import PRESETS

BOTS = {"random": "random", "heuristic": "heuristic"}
IN_FLIGHT = 2  # matches at once: the local ladder's concurrency, and the matches the Ray head keeps in flight


@dataclass
class Cpu:
    """CPU seconds of this process spent in each of the head's steps, and the wall seconds (a commit's
    fsync is wall time, not CPU: the head's one loop waits for it all the same)."""

    spent: dict[str, float] = field(default_factory=dict)
    wall: dict[str, float] = field(default_factory=dict)

    def timed(self, name: str, call: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            began, wall = time.process_time(), time.perf_counter()
            try:
                return call(*args, **kwargs)
            finally:
                self.spent[name] = self.spent.get(name, 0.0) + time.process_time() - began
                self.wall[name] = self.wall.get(name, 0.0) + time.perf_counter() - wall

        return wrapper


@dataclass(frozen=True)
class Figures:
    rate: float  # matches a second, from the first match
    head_cpu: float  # CPU seconds of this process a match
    play_seconds: float  # a match's play, as its record's outcome says (bots ready to result)
    processes: int  # bot processes the run started (local) or that played (Ray)
    parts: dict[str, float]  # CPU seconds a match, by step
    walls: dict[str, float]  # wall seconds a match, by step


def make_ladder(path: Path, seed: int, target: int) -> Path:
    folder.init(path, PRESETS["classic"].replace(target_score=target), seed=seed, deal_key=f"bench-ray-{seed}")
    with folder.open_ladder(path) as ladder:
        for name, spec in BOTS.items():
            folder.add(ladder, name, spec, check=False)
    return path


class Processes:
    """The bot processes of a run: started by the local ladder here, or reported by the Ray workers."""

    def __init__(self) -> None:
        self.started = 0
        self.seen: set[tuple[str, int]] = set()  # (worker, pid) of each process a Ray match played in

    def count_starts(self, start: Callable[..., Any]) -> Callable[..., Any]:
        async def counted(*args: Any, **kwargs: Any) -> Any:
            endpoint = await start(*args, **kwargs)
            self.started += endpoint.failure is None
            return endpoint

        return counted

    def count_played(self, call: Callable[..., Any]) -> Callable[..., Any]:
        async def counted(workers: Any, what: str, keys: Any, method: str, *args: Any) -> Any:
            reply = await call(workers, what, keys, method, *args)
            if isinstance(reply, ray_cluster.TaskResult):
                self.seen.update((reply.worker, pid) for pid in reply.pids if pid is not None)
            return reply

        return counted


def play(path: Path, matches: int, concurrency: int, cluster: str | None) -> Figures:
    cpu, processes = Cpu(), Processes()
    originals = (ledger.plan_next, ledger.record, ray_cluster._write_record, launch.start, ray_cluster.Workers.call)
    ledger.plan_next = cpu.timed("planning", ledger.plan_next)
    ledger.record = cpu.timed("storing and rating", ledger.record)
    ray_cluster._write_record = cpu.timed("writing the record", ray_cluster._write_record)
    launch.start = processes.count_starts(launch.start)
    ray_cluster.Workers.call = processes.count_played(ray_cluster.Workers.call)
    try:
        with folder.open_ladder(path) as ladder:
            state = RunState(Target(matches), concurrency, cluster=cluster)
            playing = ray_cluster.run if cluster is not None else run
            began = time.process_time()
            asyncio.run(playing(ladder.folder, ladder.config, ladder.store, state))
            head = time.process_time() - began
            if state.finished is None or state.finished.reason != "target" or state.played != matches:
                raise SystemExit(f"the ladder stopped early: {state.finished}; {state.suspensions}")
            (seconds,) = ladder.store.db.execute("SELECT AVG(seconds) FROM matches").fetchone()
    finally:
        ledger.plan_next, ledger.record, ray_cluster._write_record, launch.start, ray_cluster.Workers.call = originals
    rate = state.played / state.playing_for
    each = {k: v / matches for k, v in cpu.spent.items()}
    count = len(processes.seen) if cluster is not None else processes.started
    return Figures(rate, head / matches, seconds, count, each, {k: v / matches for k, v in cpu.wall.items()})


def on_ray(workers: int, path: Path, matches: int) -> Figures:
    """The ladder on a local Ray cluster of ``workers`` CPUs, started for this run and shut down after it."""
    ray.init(num_cpus=workers, include_dashboard=False, logging_level=logging.WARNING)
    try:
        return play(path, matches, IN_FLIGHT, "auto")
    finally:
        ray.shutdown()


def medians(runs: list[Figures]) -> Figures:
    return Figures(
        statistics.median(r.rate for r in runs),
        statistics.median(r.head_cpu for r in runs),
        statistics.median(r.play_seconds for r in runs),
        round(statistics.median(r.processes for r in runs)),
        {k: statistics.median(r.parts.get(k, 0.0) for r in runs) for k in runs[0].parts},
        {k: statistics.median(r.walls.get(k, 0.0) for r in runs) for k in runs[0].walls},
    )


WAYS = ("local, 1 at once", f"local, {IN_FLIGHT} at once", "Ray, 1 worker", "Ray, 2 workers")


def measure(args: argparse.Namespace) -> dict[str, list[Figures]]:
    """Every way ``args.repeats`` times, taking turns, each run in a fresh folder."""
    runs: dict[str, list[Figures]] = {way: [] for way in WAYS}
    with tempfile.TemporaryDirectory(prefix="waraq-bench-ray-") as scratch:
        made = 0

        def fresh() -> Path:
            nonlocal made
            made += 1
            return make_ladder(Path(scratch) / f"ladder-{made}", args.seed, args.target)

        for _ in range(args.repeats):
            runs[WAYS[0]].append(play(fresh(), args.matches, 1, None))
            runs[WAYS[1]].append(play(fresh(), args.matches, IN_FLIGHT, None))
            runs[WAYS[2]].append(on_ray(1, fresh(), args.matches))
            runs[WAYS[3]].append(on_ray(2, fresh(), args.matches))
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=16, help="matches a run (default 16: 8 boards)")
    parser.add_argument("--repeats", type=int, default=3, help="runs each way; medians are shown (default 3)")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--target", type=int, default=7, help="points a match is played to (default 7)")
    args = parser.parse_args()
    runs = measure(args)
    found = {way: medians(figures) for way, figures in runs.items()}

    print(
        f"{args.matches} matches a run (random and heuristic, 4-player Hokm to {args.target}, duplicate deals), "
        f"medians of {args.repeats} runs each; Ray's workers keep their bots warm:"
    )
    print(f"  {'':22} {'matches/s':>10} {'s a match':>10} {'play s':>8} {'head CPU ms a match':>20} {'processes':>10}")
    for name, f in found.items():
        print(
            f"  {name:22} {f.rate:10.2f} {1 / f.rate:10.2f} {f.play_seconds:8.2f} {1000 * f.head_cpu:20.1f}"
            f" {f.processes:10d}"
        )
    local_1, local_2, ray_1, ray_2 = (found[way] for way in WAYS)
    paired = statistics.median(r.rate / here.rate for r, here in zip(runs[WAYS[3]], runs[WAYS[1]], strict=True))
    print(
        f"Ray 2 workers / local {IN_FLIGHT} at once: {ray_2.rate / local_2.rate:.2f} "
        f"(the median of each repeat's ratio: {paired:.2f}; the goal: 0.9 or more)"
    )
    print(f"Ray 2 workers / Ray 1 worker: {ray_2.rate / ray_1.rate:.2f}")
    overhead = 1 / ray_1.rate - 1 / local_1.rate
    print(f"Ray's cost a match (1 worker against the local ladder one at a time): {overhead:.2f} s")
    head = ray_2.head_cpu
    parts = ", ".join(
        f"{name} {1000 * cpu:.1f} ms ({1000 * ray_2.walls[name]:.1f} ms wall)" for name, cpu in ray_2.parts.items()
    )
    rest = head - sum(ray_2.parts.values())
    print(f"the head's CPU a match (Ray, 2 workers): {1000 * head:.1f} ms, of which {parts}; the rest, Ray's driver")
    print(f"  (sending the match to a worker, receiving its result) and the run's loop: {1000 * rest:.1f} ms")
    worker_match = 1 / ray_1.rate
    print(
        f"workers one head keeps busy: a worker's match ({worker_match:.2f} s) / the head's CPU a match = "
        f"{worker_match / head:.0f}; with four search seats at 100 ms a decision ({SEARCH_MATCH_S:g} s a match) "
        f"{SEARCH_MATCH_S / head:.0f}"
    )


# A 4-player match of search bots at 100 ms a decision, in CPU seconds: 4 seats of 5.4 s each
# (bench/search.py speed at 857e063, the median of 3 runs; docs/bots.md), one decision at a time.
SEARCH_MATCH_S = 21.6


if __name__ == "__main__":
    main()

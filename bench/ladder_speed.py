"""The ladder's speed: matches per second against the transport ceiling.

    python bench/ladder_speed.py [--matches 1000] [--chunks 8] [--concurrency 4 8] [--ceiling-seconds 6]
                           [--keep DIR]

How many matches a ranking needs, with boards and without, is bench/ranking.py's.

A ladder of four sample bots — ``random``, ``heuristic``, the
JavaScript bot ``js`` and a second random process ``random-2`` — plays
``--matches`` 4-player classic matches (to 7 points) with duplicate deals
and records, as ``waraq ladder run`` does (the library call behind it,
without the live view). The run is cut into ``--chunks`` runs of the same
ladder (it resumes), taking turns at each ``--concurrency``, and after each
chunk the transport ceiling of bench/transport.py is measured at the same
number of matches at once: four echo bots answered by a bare grpc.aio loop
replaying the DecisionRequests of this ladder's own records. Each ratio is

    ladder matches/s  ÷  (ceiling decisions/s ÷ mean decisions per ladder match)

i.e. the ladder's decisions per second over the ceiling's. Matches per
second count from the first match (the bots' start-up left out).
"""

from __future__ import annotations

import argparse
import asyncio
import shlex
import statistics
import sys
import tempfile
import time
from pathlib import Path

from waraq.ladder.play import folder
from waraq.ladder.play.ledger import Target
from waraq.ladder.play.scheduler import RunState, run
from waraq.referee.games.hokm.rules import PRESETS

HERE = Path(__file__).resolve().parent

ROOT = HERE.parent
PYTHON = shlex.quote(sys.executable)
BOTS = {
    "random": "random",
    "heuristic": "heuristic",
    "js": f"node {shlex.quote(str(ROOT / 'sample_bots' / 'starters' / 'js' / 'bot.js'))} --port {{port}}",
    "random-2": f"{PYTHON} -m waraq.bots.server random --port {{port}}",
}
RULES = PRESETS["classic"]


def make_ladder(path: Path, seed: int, duplicate: bool, bots: dict[str, str] = BOTS) -> Path:
    # A key of the seed's own: the ladders of one seed, with and without duplicates, deal alike.
    folder.init(path, RULES, seed=seed, duplicate=duplicate, deal_key=f"bench-{seed}")
    with folder.open_ladder(path) as ladder:
        for name, spec in bots.items():
            folder.add(ladder, name, spec, check=False)
    return path


def run_ladder(path: Path, matches: int, concurrency: int) -> RunState:
    with folder.open_ladder(path) as ladder:
        state = RunState(Target(matches), concurrency)
        asyncio.run(run(ladder.folder, ladder.config, ladder.store, state))
        if state.finished is None or state.finished.reason != "target":
            raise SystemExit(f"the ladder stopped early: {state.finished}; {state.suspensions}")
        return state


def decisions_of(path: Path, first: int, last: int) -> list[int]:
    with folder.open_ladder(path, readonly=True) as ladder:
        rows = ladder.store.db.execute(
            "SELECT decisions, reason FROM matches WHERE id BETWEEN ? AND ? AND status = 'rated'", (first, last)
        ).fetchall()
    bad = [r for _, r in rows if r not in ("score", "bam")]
    if bad:
        raise SystemExit(f"{len(bad)} matches ended by {bad[0]}: the figures would not be of whole matches")
    return [d for d, _ in rows]


async def ceiling(grpc_bench, records: list[Path], seconds: float, concurrency: int) -> float:
    """Decisions a second of bench/transport.py's bare loop against four echo bots, ``concurrency`` matches at once."""
    logs = Path(tempfile.mkdtemp(prefix="waraq-echo-logs-"))
    echoes = grpc_bench.Bots(grpc_bench.ECHO_BOT, logs)
    await echoes.start()
    try:
        matches = [grpc_bench.recorded_match(p) for p in records]
        figure = await grpc_bench.measure(
            echoes, lambda: grpc_bench.echo_run(echoes.addresses, matches, concurrency, seconds)
        )
        return figure.rate
    finally:
        await echoes.stop()


def throughput(args: argparse.Namespace, work: Path) -> None:
    import transport as grpc_bench  # its folder leads sys.path: bench/transport.py

    path = make_ladder(work / "throughput", seed=2024, duplicate=True)
    print(
        f"1. {args.matches} matches of 4-player classic Hokm (to 7), duplicate deals, records on; "
        f"bots: {', '.join(BOTS)}; {args.chunks} chunks, taking turns at {' and '.join(map(str, args.concurrency))} "
        "matches at once, each followed by the ceiling at the same number at once",
        flush=True,
    )
    rows: dict[int, list[tuple[int, float, float, float]]] = {k: [] for k in args.concurrency}
    done = 0
    for chunk in range(args.chunks):
        concurrency = args.concurrency[chunk % len(args.concurrency)]
        goal = round(args.matches * (chunk + 1) / args.chunks)
        began = time.perf_counter()
        state = run_ladder(path, goal, concurrency)
        wall = time.perf_counter() - began
        mean = statistics.mean(decisions_of(path, done + 1, goal))
        records = sorted((path / "records").glob("*.jsonl"))[done : done + 40]
        ceiling_rate = asyncio.run(ceiling(grpc_bench, records, args.ceiling_seconds, concurrency))
        rate = state.played / state.playing_for
        rows[concurrency].append((state.played, state.playing_for, mean, ceiling_rate))
        print(
            f"  chunk {chunk + 1}, {concurrency} at once: {state.played} matches in {state.playing_for:.1f} s "
            f"({wall:.1f} s with start-up): {rate:.2f} matches/s, {rate * mean:.0f} decisions/s, "
            f"{mean:.0f} decisions a match; "
            f"ceiling {ceiling_rate:.0f} decisions/s = {ceiling_rate / mean:.2f} matches/s; "
            f"ratio {rate / (ceiling_rate / mean):.2f}",
            flush=True,
        )
        done = goal
    mean = statistics.mean(decisions_of(path, 1, args.matches))
    print(f"  {args.matches} matches, {mean:.1f} decisions a match on average")
    for concurrency, group in rows.items():
        played = sum(r[0] for r in group)
        seconds = sum(r[1] for r in group)
        decisions = sum(r[0] * r[2] for r in group)
        ceiling_median = statistics.median(r[3] for r in group)
        ratios = [(r[0] / r[1]) / (r[3] / r[2]) for r in group]
        print(
            f"  {concurrency} at once: {played} matches in {seconds:.0f} s of play = {played / seconds:.2f} matches/s "
            f"({decisions / seconds:.0f} decisions/s); ceiling (median) {ceiling_median:.0f} decisions/s "
            f"= {ceiling_median / (decisions / played):.2f} matches/s; "
            f"ratio {decisions / seconds / ceiling_median:.2f} "
            f"(chunks {min(ratios):.2f}-{max(ratios):.2f})",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=1000)
    parser.add_argument("--chunks", type=int, default=8)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[4, 8], help="matches at once, in turn by chunk")
    parser.add_argument("--ceiling-seconds", type=float, default=6.0)
    parser.add_argument("--keep", type=Path, help="make the ladders here and keep them")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="waraq-ladder-bench-") as folder_:
        work = args.keep or Path(folder_)
        work.mkdir(parents=True, exist_ok=True)
        throughput(args, work)


if __name__ == "__main__":
    main()

"""The ladder's figures: matches per second against the transport ceiling, and matches until ordered.

    python bench/ladder_speed.py [--matches 1000] [--chunks 8] [--concurrency 4 8] [--ceiling-seconds 6]
                           [--order-seeds 10] [--order-matches 60] [--order-bots four two]
                           [--skip-throughput] [--skip-order] [--keep DIR]

1. Throughput. A ladder of four sample bots — ``random``, ``heuristic``, the
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

2. Matches until ordered. For each of ``--order-seeds`` seeds, the same four
   bots (and, in a second table, ``random`` and ``heuristic`` alone: each then
   partners itself) play ``--order-matches`` matches with duplicate deals and,
   on the same seeds (deal ``d`` of ladder seed ``s`` is the same deal in
   both), without.
   After every rated match P(heuristic's skill > random's) is computed from
   the two ratings (ratings.p_above, without β). Reported: the first match
   count at which it reaches 95 %, and the count from which it stays there to
   the end.
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

from waraq.ladder import folder
from waraq.ladder import ratings as rt
from waraq.ladder.ledger import Target
from waraq.ladder.scheduler import RunState, run
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
TWO_BOTS = {"random": "random", "heuristic": "heuristic"}  # 4 players: each partners itself
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


def p_history(path: Path, a: str, b: str) -> list[float]:
    """P(a > b) after each rated match, in order."""
    with folder.open_ladder(path, readonly=True) as ladder:
        store = ladder.store
        ids = {e.name: e.id for e in store.entries()}
        prior = rt.prior(rt.environment(ladder.config.trueskill))
        current = {ids[a]: prior, ids[b]: prior}
        out = []
        rows = store.db.execute(
            "SELECT m.id, r.bot_id, r.mu, r.sigma FROM matches m LEFT JOIN ratings r ON r.match_id = m.id"
            " WHERE m.status = 'rated' ORDER BY m.id"
        ).fetchall()
    last = None
    for match_id, bot, mu, sigma in rows:
        if last is not None and match_id != last:
            out.append(rt.p_above(current[ids[a]], current[ids[b]]))
        if bot in current:
            current[bot] = rt.Rating(mu, sigma)
        last = match_id
    out.append(rt.p_above(current[ids[a]], current[ids[b]]))
    return out


def first_at(ps: list[float], level: float) -> tuple[int | None, int | None]:
    """(first match count with P >= level, match count from which it stays >= level), 1-based."""
    first = next((i + 1 for i, p in enumerate(ps) if p >= level), None)
    stays = None
    for i in range(len(ps), 0, -1):
        if ps[i - 1] < level:
            break
        stays = i
    return first, stays


def ordering(args: argparse.Namespace, work: Path, bots: dict[str, str]) -> None:
    print(
        f"\n2. matches until P(heuristic > random) >= 95 %, bots: {', '.join(bots)}, 4-player classic, "
        f"{args.order_matches} matches a ladder; with and without duplicate deals on the same seeds",
        flush=True,
    )
    print(
        f"  {'seed':>5}  {'duplicates: first':>17}  {'stays':>5}  {'no duplicates: first':>20}  {'stays':>5}",
        flush=True,
    )
    results: dict[bool, list[tuple[int | None, int | None]]] = {True: [], False: []}
    for seed in range(1, args.order_seeds + 1):
        row = []
        for duplicate in (True, False):
            path = make_ladder(work / f"order-{len(bots)}-{seed}-{duplicate}", seed, duplicate, bots)
            run_ladder(path, args.order_matches, 8)
            found = first_at(p_history(path, "heuristic", "random"), 0.95)
            results[duplicate].append(found)
            row += [str(v) if v is not None else f">{args.order_matches}" for v in found]
        print(f"  {seed:>5}  {row[0]:>17}  {row[1]:>5}  {row[2]:>20}  {row[3]:>5}", flush=True)
    for duplicate in (True, False):
        firsts = [f for f, _ in results[duplicate] if f is not None]
        stays = [s for _, s in results[duplicate] if s is not None]
        print(
            f"  {'with' if duplicate else 'without'} duplicates: first reached after "
            f"{statistics.mean(firsts) if firsts else float('nan'):.1f} matches on average "
            f"(median {statistics.median(firsts) if firsts else float('nan'):.0f}, "
            f"{len(firsts)}/{len(results[duplicate])} reached); "
            f"stays from {statistics.mean(stays) if stays else float('nan'):.1f} on average "
            f"(median {statistics.median(stays) if stays else float('nan'):.0f})",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=1000)
    parser.add_argument("--chunks", type=int, default=8)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[4, 8], help="matches at once, in turn by chunk")
    parser.add_argument("--ceiling-seconds", type=float, default=6.0)
    parser.add_argument("--order-seeds", type=int, default=10)
    parser.add_argument("--order-matches", type=int, default=60)
    parser.add_argument("--order-bots", nargs="+", choices=("four", "two"), default=["four", "two"],
                        help="the ladders of part 2: the four bots, and random against heuristic alone")
    parser.add_argument("--skip-throughput", action="store_true")
    parser.add_argument("--skip-order", action="store_true")
    parser.add_argument("--keep", type=Path, help="make the ladders here and keep them")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="waraq-ladder-bench-") as folder_:
        work = args.keep or Path(folder_)
        work.mkdir(parents=True, exist_ok=True)
        if not args.skip_throughput:
            throughput(args, work)
        if not args.skip_order:
            for kind in args.order_bots:
                ordering(args, work, BOTS if kind == "four" else TWO_BOTS)


if __name__ == "__main__":
    main()

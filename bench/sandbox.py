"""What confining a launched bot costs: start-up, and decisions per second; and what a CPU hog costs its victims.

    python bench/sandbox.py [--rounds 5] [--games 20] [--concurrency 2]
    python bench/sandbox.py hog [--matches 6] [--processes 30] [--cpus 1] [--no-share]

Start-up: the time from launching a bot to its ``Hello`` answered, for the
``random`` bot (a ``{socket}`` command) and the JavaScript bot (a ``{port}``
command, reached through socat inside its sandbox), unconfined and sandboxed,
interleaved round by round so that the machine's noise falls on both; and
``bwrap ... true`` against ``true`` alone, the sandbox's own cost.
Decisions: 4-player Hokm between random bots, unconfined and sandboxed,
``--concurrency`` matches at once. Each figure is the median of its rounds;
the ratio is taken within a round.

``hog`` (issue 30, item 5): three ``search`` bots (100 ms a decision) against
``tests/bots/hostile.py``, which at its first decision starts ``--processes``
spinning processes, each in a session of its own; and the same matches with
the hostile bot honest, interleaved match by match. It prints the search
bots' median decision time and their faults, with and without the hog.
``--cpus`` is every bot's CPU quota (``Limits.cpus``); ``--no-share`` makes
no cpu cgroup at all, as the sandbox was before issue 30, where each of the
hog's processes weighed as much as a victim.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from waraq.referee.games.hokm.rules import HokmRules
from waraq.referee.launch import sandbox
from waraq.referee.launch.bots import BotSpec, Endpoint
from waraq.referee.match.play import TimeControl
from waraq.referee.records.record_file import read_record
from waraq.referee.run.runner import RunConfig, run

HERE = Path(__file__).resolve().parent

REPO = HERE.parent
HOSTILE = REPO / "tests" / "bots" / "hostile.py"
BOTS = {"random ({socket})": "random", "js ({port} + socat)": "node sample_bots/starters/js/bot.js --port {port}"}
MODES = (sandbox.Isolation.OFF, sandbox.Isolation.ON)


async def start_once(spec: str, mode: sandbox.Isolation) -> float:
    endpoint = Endpoint(BotSpec.parse(spec), startup_ms=60_000, cwd=str(REPO), confinement=sandbox.Config(mode=mode))
    begun = time.perf_counter()
    await endpoint.start()
    took = time.perf_counter() - begun
    assert endpoint.failure is None, endpoint.failure
    await endpoint.stop()
    return took * 1000


def bare(mode: sandbox.Isolation) -> float:
    launch = sandbox.confine(["true"], cwd=str(REPO), config=sandbox.Config(mode=mode))
    begun = time.perf_counter()
    subprocess.run(launch.argv, env=launch.env, check=True, pass_fds=launch.pass_fds)
    took = time.perf_counter() - begun
    launch.cleanup()
    return took * 1000


async def decisions_per_second(mode: sandbox.Isolation, games: int, concurrency: int, cpus: int) -> float:
    config = RunConfig(
        rules=HokmRules(),
        bots=[BotSpec.parse("random")] * 4,
        games=games,
        concurrency=concurrency,
        time_control=TimeControl(startup_ms=60_000),
        confinement=sandbox.Config(mode=mode, limits=sandbox.Limits(cpus=cpus)),
    )
    ended: list[tuple[float, int]] = []  # from the first match's end to the last's: no start-up in it
    report = await run(config, on_outcome=lambda o: ended.append((time.perf_counter(), o.decisions)))
    assert all(o.reason == "score" for o in report.outcomes), report.outcomes
    return sum(d for _, d in ended[1:]) / (ended[-1][0] - ended[0][0])


def hog(matches: int, processes: int, cpus: int) -> int:
    """The search bots' decision times beside an honest bot and beside a CPU hog, match by match."""
    search = BotSpec.parse("search")
    flags = {"alone": [], "beside the hog": ["--hog", str(processes)]}
    times: dict[str, list[float]] = {label: [] for label in flags}
    # The search spends a fixed cost model, not the clock: starved of CPU it takes longer, and past twice
    # its budget its clock stops it short ("stopped by the clock"), a weaker decision.
    clocked: dict[str, int] = dict.fromkeys(flags, 0)
    faults: dict[str, int] = dict.fromkeys(flags, 0)
    with tempfile.TemporaryDirectory() as folder:
        for match in range(matches):
            for label, extra in flags.items():
                bad = BotSpec.parse(shlex.join([sys.executable, str(HOSTILE), *extra]) + " --unix {socket}")
                config = RunConfig(
                    rules=HokmRules(target_score=1),
                    bots=[search, bad, search, search],
                    seed=match + 1,
                    time_control=TimeControl(startup_ms=60_000),
                    record_dir=Path(folder) / f"{label}-{match}",
                    confinement=sandbox.Config(mode=sandbox.Isolation.ON, limits=sandbox.Limits(cpus=cpus)),
                )
                [outcome] = asyncio.run(run(config)).outcomes
                faults[label] += sum(1 for f in outcome.faults if f.seat != 1)
                events = read_record(outcome.record).events
                victims = [e for e in events if e["type"] == "decision" and e["seat"] != 1]
                times[label] += [e["ms"] for e in victims]
                clocked[label] += sum(1 for e in victims if "stopped by the clock" in e.get("note", ""))
    alone = statistics.median(times["alone"])
    print(f"search's decisions over {matches} matches, {processes} spinning processes at seat 1, {cpus} cpus a bot:")
    for label in flags:
        median = statistics.median(times[label])
        print(
            f"  {label:15} median {median:6.1f} ms ({median / alone:.2f}x alone), "
            f"90th percentile {statistics.quantiles(times[label], n=10)[-1]:6.1f} ms, "
            f"{clocked[label]} stopped by the clock, "
            f"{len(times[label])} decisions, {faults[label]} faults"
        )
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", nargs="?", choices=["cost", "hog"], default="cost")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--games", type=int, default=20, help="matches per decisions-per-second run")
    parser.add_argument("--concurrency", type=int, default=2, help="matches at once in the decisions-per-second run")
    parser.add_argument("--matches", type=int, default=6, help="hog: matches with the hog, and as many without")
    parser.add_argument("--processes", type=int, default=30, help="hog: spinning processes the hog starts")
    parser.add_argument("--cpus", type=int, default=sandbox.Limits.cpus, help="every bot's CPU quota")
    parser.add_argument("--no-share", action="store_true", help="hog: no cpu cgroup, as before issue 30")
    args = parser.parse_args()
    support = sandbox.probe()
    if not support.usable:
        print(f"no sandbox here: {support.problem}")
        return 1
    if args.what == "hog":
        if args.no_share and support.cgroups is not None:
            parents = {c: p for c, p in support.cgroups.parents.items() if c is not sandbox.Controller.CPU}
            unshared = dataclasses.replace(support, cgroups=dataclasses.replace(support.cgroups, parents=parents))
            sandbox.probe = lambda: unshared  # what the launches read: a machine without a cpu cgroup
        return hog(args.matches, args.processes, args.cpus)
    cgroups = support.cgroups
    limits = ", ".join(f"{c} {cgroups.describe(c)}" for c in cgroups.parents) if cgroups else "rlimits only"
    print(f"bubblewrap {support.bwrap_version}; limits by {limits}; root: {support.root}")
    starts: dict[tuple[str, sandbox.Isolation], list[float]] = {}
    ratios: dict[str, list[float]] = {}
    for _ in range(args.rounds):
        for label, spec in BOTS.items():
            took = {mode: asyncio.run(start_once(spec, mode)) for mode in MODES}
            for mode in MODES:
                starts.setdefault((label, mode), []).append(took[mode])
            ratios.setdefault(label, []).append(took[sandbox.Isolation.ON] / took[sandbox.Isolation.OFF])
        took = {mode: bare(mode) for mode in MODES}
        for mode in MODES:
            starts.setdefault(("true (no bot)", mode), []).append(took[mode])
    print(f"\nstart-up to Hello answered, ms (median of {args.rounds} rounds)")
    print(f"{'bot':24} {'unconfined':>11} {'sandboxed':>10} {'extra':>8} {'ratio':>6}")
    for label in [*BOTS, "true (no bot)"]:
        off = statistics.median(starts[(label, sandbox.Isolation.OFF)])
        on = statistics.median(starts[(label, sandbox.Isolation.ON)])
        ratio = statistics.median(ratios[label]) if label in ratios else on / off
        print(f"{label:24} {off:11.1f} {on:10.1f} {on - off:8.1f} {ratio:6.2f}")
    rates: dict[sandbox.Isolation, list[float]] = {}
    for _ in range(max(1, args.rounds // 2)):
        for mode in MODES:
            rate = asyncio.run(decisions_per_second(mode, args.games, args.concurrency, args.cpus))
            rates.setdefault(mode, []).append(rate)
    off, on = (statistics.median(rates[m]) for m in MODES)
    print(
        f"\ndecisions/s, 4 random bots, {args.concurrency} matches at once: "
        f"unconfined {off:,.0f}, sandboxed {on:,.0f} ({on / off:.2f})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""What confining a launched bot costs: start-up, and decisions per second.

    python bench/sandbox.py [--rounds 5] [--games 20]

Start-up: the time from launching a bot to its ``Hello`` answered, for the
``random`` bot (a ``{socket}`` command) and the JavaScript bot (a ``{port}``
command, reached through socat inside its sandbox), unconfined and sandboxed,
interleaved round by round so that the machine's noise falls on both; and
``bwrap ... true`` against ``true`` alone, the sandbox's own cost.
Decisions: 4-player Hokm between random bots, unconfined and sandboxed.
Each figure is the median of its rounds; the ratio is taken within a round.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import time
from pathlib import Path

from waraq.referee.games.hokm.rules import HokmRules
from waraq.referee.launch import sandbox
from waraq.referee.launch.bots import BotSpec, Endpoint
from waraq.referee.match.play import TimeControl
from waraq.referee.match.runner import RunConfig, run

HERE = Path(__file__).resolve().parent

REPO = HERE.parent
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


async def decisions_per_second(mode: sandbox.Isolation, games: int) -> float:
    config = RunConfig(
        rules=HokmRules(),
        bots=[BotSpec.parse("random")] * 4,
        games=games,
        concurrency=2,
        time_control=TimeControl(startup_ms=60_000),
        confinement=sandbox.Config(mode=mode),
    )
    ended: list[tuple[float, int]] = []  # from the first match's end to the last's: no start-up in it
    report = await run(config, on_outcome=lambda o: ended.append((time.perf_counter(), o.decisions)))
    assert all(o.reason == "score" for o in report.outcomes), report.outcomes
    return sum(d for _, d in ended[1:]) / (ended[-1][0] - ended[0][0])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--games", type=int, default=20, help="matches per decisions-per-second run")
    args = parser.parse_args()
    support = sandbox.probe()
    if not support.usable:
        print(f"no sandbox here: {support.problem}")
        return 1
    print(f"bubblewrap {support.bwrap_version}; memory limit by {support.memory}; root: {support.root}")
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
            rates.setdefault(mode, []).append(asyncio.run(decisions_per_second(mode, args.games)))
    off, on = (statistics.median(rates[m]) for m in MODES)
    print(
        "\ndecisions/s, 4 random bots, 2 matches at once: "
        f"unconfined {off:,.0f}, sandboxed {on:,.0f} ({on / off:.2f})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""How long ``waraq check-bot`` takes on each house bot and starter kit.

    python bench/check_bot.py [--rounds 3]

Each round runs ``waraq check-bot SPEC --json`` once per bot, the bots in
turn, so that the machine's noise falls on all of them alike; the figure is
each bot's median wall time over the rounds, with its cases passed, failed
and skipped. The Python kit's stubs are generated first (``generate.sh``);
the Go kit must be built (``sample_bots/starters/go/build.sh``), or it is left
out, saying so.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
STARTERS = REPO / "sample_bots" / "starters"
WARAQ = str(Path(sys.executable).with_name("waraq"))
BOTS = {
    "random": "random",
    "heuristic": "heuristic",
    "Python starter": f"{sys.executable} {STARTERS / 'python' / 'bot.py'} --port {{port}}",
    "JavaScript starter": f"node {STARTERS / 'js' / 'bot.js'} --port {{port}}",
    "Go starter": f"{STARTERS / 'go' / 'bin' / 'bot'} --port {{port}}",
}


def check_once(spec: str, record: Path) -> tuple[float, dict[str, object]]:
    begun = time.perf_counter()
    run = subprocess.run(
        [WARAQ, "check-bot", spec, "--json", "--record", str(record)], capture_output=True, text=True, cwd=REPO
    )
    return time.perf_counter() - begun, json.loads(run.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    subprocess.run(
        [str(STARTERS / "python" / "generate.sh")],
        check=True,
        capture_output=True,
        env={**os.environ, "PYTHON": sys.executable},
    )
    bots = dict(BOTS)
    if not (STARTERS / "go" / "bin" / "bot").exists():
        print("Go starter left out: run sample_bots/starters/go/build.sh first")
        del bots["Go starter"]
    times: dict[str, list[float]] = {name: [] for name in bots}
    reports: dict[str, dict[str, object]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        for _ in range(args.rounds):
            for name, spec in bots.items():
                seconds, reports[name] = check_once(spec, Path(scratch) / "check")
                times[name].append(seconds)
    print(f"waraq check-bot, wall time over {args.rounds} rounds (median; each run)")
    for name, runs in times.items():
        report = reports[name]
        cases = f"{report['passed']} pass, {report['failed']} fail, {report['skipped']} skipped"
        each = ", ".join(f"{s:.1f}" for s in runs)
        print(f"  {name:20} {statistics.median(runs):6.1f} s   ({each})   {cases}")


if __name__ == "__main__":
    main()

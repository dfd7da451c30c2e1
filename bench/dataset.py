"""Decisions per second that ``waraq export --dataset`` turns from records into training rows.

    python bench/dataset.py [--records 200] [--runs 3] [--players 4]

First plays ``--records`` matches of the preset for ``--players`` (classic,
three, two) between the built-in ``random`` bots, in-process through the
referee's match runner, and records them in a temporary folder as ``waraq
match`` would. Then exports the folder ``--runs`` times with
:func:`waraq.referee.env.dataset.export_dataset` and prints the median:
decisions per second, and beside it the referee's walk alone
(:func:`waraq.referee.replay.walk.load` of every record, which the export
makes) so the cost of encoding and writing can be read off; and the file's
bytes per decision.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from waraq.bots.server import builtin_players
from waraq.referee.env.dataset import export_dataset
from waraq.referee.games.hokm.rules import PRESETS
from waraq.referee.match.play import MatchConfig, run_match
from waraq.referee.match.seats import InProcessSeat
from waraq.referee.records.record_file import RecordWriter
from waraq.referee.replay.walk import load, record_paths
from waraq.referee.run.runner import match_id

PRESET = {4: "classic", 3: "three", 2: "two"}


def make_records(folder: Path, players: int, count: int) -> None:
    rules = PRESETS[PRESET[players]]
    random_player = builtin_players()["random"]

    async def play_all() -> None:
        for seed in range(1, count + 1):
            seats = [
                InProcessSeat(lambda match, seat: random_player(match, seat, "hokm"), "random") for _ in range(players)
            ]
            with RecordWriter(folder / f"hokm-{seed}.jsonl") as record:
                await run_match(MatchConfig(rules, seed, match_id(seed)), seats, record)

    asyncio.run(play_all())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--players", type=int, choices=sorted(PRESET), default=4)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "records"
        folder.mkdir()
        make_records(folder, args.players, args.records)
        out = Path(scratch) / "out.npz"
        exports, walks = [], []
        for _ in range(args.runs):
            begun = time.perf_counter()
            summary = export_dataset([folder], out)
            exports.append(time.perf_counter() - begun)
            begun = time.perf_counter()
            walked = sum(sum(s.action is not None for s in load(p).steps) for p in record_paths([folder]))
            walks.append(time.perf_counter() - begun)
            assert walked == summary.rows and summary.skipped == 0
            out.unlink()
    rows = summary.rows
    export_s, walk_s = statistics.median(exports), statistics.median(walks)
    print(f"{args.records} records of {PRESET[args.players]} Hokm, random bots: {rows:,} decisions")
    print(f"export --dataset: {rows / export_s:,.0f} decisions/s (median of {args.runs}: {export_s:.2f} s)")
    print(f"  the walk alone: {rows / walk_s:,.0f} decisions/s ({walk_s:.2f} s, {walk_s / export_s:.0%} of the export)")
    print(f"  the file: {summary.bytes:,} bytes, {summary.bytes / rows:.1f} bytes a decision")


if __name__ == "__main__":
    main()

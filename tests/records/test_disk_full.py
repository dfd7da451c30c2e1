"""A disk that fills up mid-run: the run stops with one line, keeps what it stored, and goes on later.

Both ``waraq match`` and ``waraq ladder run`` are real processes writing to a
real full disk (a small tmpfs, :mod:`tests.support.small_disk`). Each run is then
run again with space, and must end exactly where a run on a roomy disk ends
with the same seed and deal key: the same records, the same results, nothing
lost and nothing played twice.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.bad_inputs import THREE_RANDOM
from tests.support.ladders import make
from waraq.referee.records.record_file import read_record

pytestmark = pytest.mark.system("root", "sandbox")  # a small tmpfs is mounted; the runs print no warning

WARAQ = str(Path(sys.executable).with_name("waraq"))
KEY = "d1" * 32  # a fixed deal key for these tests
TIMES = ("ms", "bot_ms", "started")


def waraq(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1", "WARAQ_DEAL_KEY": KEY}
    return subprocess.run([WARAQ, *args], capture_output=True, text=True, timeout=300, env=env, cwd=cwd)


def records_of(path: Path) -> dict[str, list[dict[str, Any]]]:
    """Every record of a folder by name, without the times (which differ from run to run)."""
    out = {}
    for record in sorted(path.glob("*.jsonl")):
        read = read_record(record)
        assert read.complete, (record, read.problem)
        out[record.name] = [{k: v for k, v in e.items() if k not in TIMES} for e in read.events]
    return out


def test_waraq_match_stops_at_a_full_disk_keeps_its_records_and_the_same_command_goes_on(small_disk, tmp_path):
    command = ["match", "--bots", "random", "--rules", "short", "--games", "12", "--concurrency", "2"]
    roomy = waraq(*command, "--record", str(tmp_path / "roomy"))
    assert roomy.returncode == 0, roomy.stderr
    folder_ = small_disk.path / "records"
    small_disk.fill(leave=60_000)  # room for a few of the twelve records
    full = waraq(*command, "--record", str(folder_))
    assert full.returncode == 1 and "Traceback" not in full.stdout + full.stderr, full.stderr
    (line,) = full.stderr.strip().splitlines()
    assert line.startswith(f"error: disk full writing {folder_}/hokm-") and ".jsonl: " in line
    kept = int(line.split(": ")[2].split()[0])
    assert 0 < kept < 12
    assert line.endswith(
        f"match(es) kept in {folder_}/; run the same command again when there is space to play the other {12 - kept}"
    )
    small_disk.free_up()
    again = waraq(*command, "--record", str(folder_))
    assert again.returncode == 0, again.stderr
    assert f"{kept} match(es) kept from the records of this run in {folder_}/" in again.stdout
    assert "12 match(es): 12 by score" in again.stdout
    assert records_of(folder_) == records_of(tmp_path / "roomy")


def test_waraq_match_json_says_the_run_stopped_which_record_and_how_many_are_unplayed(small_disk):
    folder_ = small_disk.path / "records"
    small_disk.fill(leave=60_000)  # room for a few of the twelve records
    full = waraq("match", "--bots", "random", "--rules", "short", "--games", "12", "--concurrency", "2", "--json",
                 "--record", str(folder_))  # fmt: skip
    assert full.returncode == 1, full.stderr
    found = json.loads(full.stdout)  # the whole of stdout: one object, the run stopped or not
    assert found["exit_status"] == 1
    stopped, played = found["stopped"], found["matches"]
    assert stopped["disk_full"] is True and stopped["error"] == f"disk full writing {stopped['path']}"
    assert stopped["path"].startswith(f"{folder_}/hokm-") and not any(m["record"] == stopped["path"] for m in played)
    assert 0 < len(played) < 12 and stopped["unplayed"] == 12 - len(played)
    assert sorted(p.name for p in folder_.glob("*.jsonl") if read_record(p).complete) == sorted(
        Path(m["record"]).name for m in played
    )
    assert "fresh_deal_key" not in found  # the key was given ($WARAQ_DEAL_KEY)
    (line,) = full.stderr.strip().splitlines()  # the error, as without --json, but for where a key is told
    assert line.startswith(f"error: disk full writing {folder_}/hokm-")


def ladder_rows(path: Path) -> list[dict[str, Any]]:
    exported = waraq("ladder", "export", "--json", "-C", str(path))
    assert exported.returncode == 0, exported.stderr
    data = json.loads(exported.stdout)
    drop = ("planned_at", "finished_at", "seconds")
    return [{k: v for k, v in m.items() if k not in drop} for m in data["matches"]] + data["ratings"]


def make_ladder(path: Path) -> Path:
    return make(path, THREE_RANDOM)  # one deal key for both: they play the same matches


def test_ladder_run_stops_at_a_full_disk_keeps_every_stored_result_and_a_rerun_plays_the_rest(small_disk, tmp_path):
    roomy = make_ladder(tmp_path / "roomy")
    assert waraq("ladder", "run", "--matches", "24", "--quiet", "-C", str(roomy)).returncode == 0
    path = make_ladder(small_disk.path / "ladder")
    # Room for a few results (their records, the bots' logs, the database's journal), not for 24.
    small_disk.fill(leave=400_000)
    stops = []
    for _ in range(3):  # full at a record, or at the database: each time it stops clean, nothing lost
        full = waraq("ladder", "run", "--matches", "24", "--concurrency", "2", "--quiet", "-C", str(path))
        assert full.returncode == 1 and "Traceback" not in full.stdout + full.stderr, full.stderr
        (line,) = full.stderr.strip().splitlines()
        assert line.startswith(f"error: disk full writing {path}/") and line.endswith(
            f"; `waraq ladder run -C {path}` goes on with the others when there is space"
        )
        stops.append(line)
        assert not alive_bots(path), "a run stopped by a full disk left its bots running"
    assert "the ladder keeps the 0 matches" not in stops[0], "the disk should fill after a few results"
    shown = waraq("ladder", "show", "-C", str(path))  # reading needs no space
    assert shown.returncode == 0, shown.stderr
    small_disk.free_up()
    again = waraq("ladder", "run", "--matches", "24", "--quiet", "-C", str(path))
    assert again.returncode == 0, again.stderr
    assert "the ladder has 24 matches" in again.stdout
    assert ladder_rows(path) == ladder_rows(roomy), stops


def alive_bots(path: Path) -> list[int]:
    """The bot processes the ladder remembers that still run (a row a full disk kept is no bot)."""
    with sqlite3.connect(f"file:{path / 'ladder.sqlite'}?mode=ro", uri=True) as db:
        rows = db.execute("SELECT pid, cmdline FROM processes").fetchall()
    alive = []
    for pid, cmdline in rows:
        try:
            if Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace") == cmdline:
                alive.append(pid)
        except OSError:
            pass
    return alive

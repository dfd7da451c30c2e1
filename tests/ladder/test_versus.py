"""`waraq versus A B`, for real: built-in bots over gRPC, boards until the SPRT decides, exit status by verdict,
and a run that stops at its cap goes on where it stopped."""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from waraq.referee.records.record_file import read_record

PYTHON = sys.executable


def versus(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1"}
    return subprocess.run(
        [PYTHON, "-m", "waraq.referee.cli.main", "versus", *args], capture_output=True, text=True, timeout=240, env=env
    )


@pytest.fixture
def short_two(tmp_path) -> Path:
    """Two-player Hokm to one point: a match is a single round, so a board takes a fraction of a second."""
    path = tmp_path / "two-to-1.toml"
    path.write_text('preset = "two"\ntarget_score = 1\n')
    return path


def rows(folder: Path, query: str) -> list[tuple]:
    db = sqlite3.connect(folder / "ladder.sqlite")
    try:
        return db.execute(query).fetchall()
    finally:
        db.close()


def test_a_stronger_bot_is_accepted_as_stronger_and_every_board_is_recorded(tmp_path):
    where = tmp_path / "h-r"
    done = versus("heuristic", "random", "--rules", "two", "--dir", str(where), "--sprt", "0", "100", "0.05", "0.05")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "H1 accepted (heuristic − random = 100 Elo)" in done.stdout
    for heading in ("matches", "boards", "paired score", "Elo", "LOS", "SPRT", "LLR"):
        assert heading in done.stdout
    matches = rows(where, "SELECT deal, position, seed, record, status FROM matches ORDER BY id")
    assert matches and {m[4] for m in matches} == {"rated"}
    # Boards of two rooms: the same seed (so the same deck), the bots swapped.
    by_deal: dict[int, list[tuple]] = {}
    for match in matches:
        by_deal.setdefault(match[0], []).append(match)
    assert all(len(rooms) == 2 and rooms[0][2] == rooms[1][2] for rooms in by_deal.values())
    for _, _, _, record, _ in matches:
        events = read_record(where / record).events
        assert events[-1]["type"] == "result"
    first, second = (read_record(where / r[3]).events[0] for r in by_deal[0])
    assert [s["bot"] for s in first["seats"]] == list(reversed([s["bot"] for s in second["seats"]]))


def test_two_copies_of_one_bot_accept_the_null_hypothesis_and_exit_1(tmp_path, short_two):
    where = tmp_path / "r-r"
    sprt = ("--sprt", "0", "100", "0.1", "0.1")
    done = versus("random", "random", "--rules", str(short_two), "--dir", str(where), *sprt)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "H0 accepted (random − random-b = 0 Elo)" in done.stdout


def test_a_run_that_reaches_its_cap_exits_2_and_the_same_command_goes_on_from_its_boards(tmp_path, short_two):
    where = tmp_path / "cap"
    # An SPRT that cannot decide between two copies in a few boards: the cap comes first.
    args = ("random", "random", "--rules", str(short_two), "--dir", str(where), "--sprt", "-5", "5", "0.01", "0.01")
    first = versus(*args, "--boards", "3")
    assert first.returncode == 2, first.stdout + first.stderr
    assert "the cap of 6 matches came first" in first.stdout
    before = rows(where, "SELECT id, seed, record FROM matches ORDER BY id")
    records = {r[2]: (where / r[2]).read_bytes() for r in before}
    again = versus(*args, "--boards", "5")
    assert again.returncode == 2, again.stdout + again.stderr
    after = rows(where, "SELECT id, seed, record FROM matches ORDER BY id")
    assert after[: len(before)] == before and len(after) == 10  # two more boards, the first three kept
    assert all((where / name).read_bytes() == data for name, data in records.items())
    assert re.search(r"boards\s+5:", again.stdout)
    target = rows(where, "SELECT value FROM meta WHERE key = 'target'")
    assert target == [("sprt 10 -5.0 5.0 0.01 0.01",)]


def test_another_head_to_head_in_the_same_folder_is_refused_by_name(tmp_path, short_two):
    where = tmp_path / "taken"
    args = ("--rules", str(short_two), "--dir", str(where), "--boards", "1")
    assert versus("random", "heuristic", *args).returncode in (0, 1, 2)
    refused = versus("heuristic", "random", *args)
    assert refused.returncode == 2
    assert f"{where} holds another head to head (random against heuristic" in refused.stderr
    assert "Traceback" not in refused.stderr


def test_bad_options_are_one_line_each(tmp_path):
    for args, message in (
        (("--sprt", "10", "0", "0.05", "0.05"), "elo0"),
        (("--width", "0"), "--width 0"),
        (("--boards", "0"), "--boards 0"),
    ):
        done = versus("random", "heuristic", "--dir", str(tmp_path / "x"), *args)
        assert done.returncode == 2 and message in done.stderr, (args, done.stderr)
        assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "x").exists()


def test_bots_are_named_as_given(tmp_path, short_two):
    where = tmp_path / "named"
    done = versus("old=random", "new=heuristic", "--rules", str(short_two), "--dir", str(where), "--boards", "2")
    assert done.returncode in (0, 1, 2), done.stderr
    toml = (where / "ladder.toml").read_text()
    assert 'name = "old"' in toml and 'name = "new"' in toml
    assert "old against new" in done.stdout and "old " in done.stdout.splitlines()[1]

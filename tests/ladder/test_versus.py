"""`waraq versus A B`, for real: built-in bots over gRPC, boards until the SPRT decides, exit status by verdict,
and a run that stops at its cap goes on where it stopped."""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from waraq.referee.records.record_file import read_record

PYTHON = sys.executable


KEY = "5e" * 32


def versus(*args: str, key: str | None = None) -> subprocess.CompletedProcess[str]:
    """``waraq versus`` in a subprocess; ``key`` is its deal key ($WARAQ_DEAL_KEY), else a fresh one."""
    env = {k: v for k, v in os.environ.items() if k != "WARAQ_DEAL_KEY"} | {"COLUMNS": "200", "NO_COLOR": "1"}
    if key is not None:
        env["WARAQ_DEAL_KEY"] = key
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


@pytest.mark.slow
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


@pytest.mark.slow
def test_two_copies_of_one_bot_accept_the_null_hypothesis_and_exit_1(tmp_path, short_two):
    where = tmp_path / "r-r"
    # An SPRT of α 0.1 accepts H1 between two copies in up to one run in ten: this is one run, pinned
    # by its seed and deal key (the next test shows they pin it), so the test cannot be that run by luck.
    sprt = ("--sprt", "0", "100", "0.1", "0.1")
    done = versus("random", "random", "--rules", str(short_two), "--dir", str(where), "--seed", "7", *sprt, key=KEY)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "H0 accepted (random − random-b = 0 Elo)" in done.stdout


def played(folder: Path) -> list[tuple]:
    """Each match's deal, seating, seed and result, and every event of its record but its clock times."""
    out = []
    for deal, position, seed, record, reason, winners in rows(
        folder, "SELECT deal, position, seed, record, reason, winners FROM matches ORDER BY id"
    ):
        events = [
            {k: v for k, v in e.items() if k not in ("started", "ms", "bot_ms")}
            for e in read_record(folder / record).events
        ]
        out.append((deal, position, seed, reason, winners, events))
    return out


@pytest.mark.slow
def test_the_same_seed_and_deal_key_play_the_same_boards_and_verdict_in_a_new_folder(tmp_path, short_two):
    args = ("random", "random", "--rules", str(short_two), "--seed", "11", "--sprt", "0", "100", "0.1", "0.1")
    first, again = (versus(*args, "--dir", str(tmp_path / name), key=KEY) for name in ("one", "two"))
    assert first.returncode == again.returncode and first.returncode in (0, 1), first.stdout + first.stderr
    verdict = [line for line in first.stdout.splitlines() if " accepted (" in line]
    assert verdict and verdict == [line for line in again.stdout.splitlines() if " accepted (" in line]
    boards = played(tmp_path / "one")
    assert len(boards) >= 4 and boards == played(tmp_path / "two")
    # The seed alone does not give the deals: a fresh key deals others (so no record predicts them).
    other = versus(*args, "--boards", "2", "--dir", str(tmp_path / "fresh"))
    decks = [[e for e in b[5] if e["type"] == "deal"] for b in played(tmp_path / "fresh")]
    assert other.returncode in (0, 1, 2) and decks[0] and decks[0] != [e for e in boards[0][5] if e["type"] == "deal"]


@pytest.mark.slow
def test_a_folder_resumed_under_another_seed_or_key_is_refused_in_one_line(tmp_path, short_two):
    where = tmp_path / "pinned"
    args = ("random", "random", "--rules", str(short_two), "--dir", str(where), "--boards", "1")
    assert versus(*args, "--seed", "3", key=KEY).returncode in (0, 1, 2)
    for extra, key, message in (
        (("--seed", "4"), KEY, f"--seed 4: {where} plays seed 3"),
        (("--seed", "3"), "6f" * 32, f"{where} deals under another key than the one given"),
    ):
        refused = versus(*args, *extra, key=key)
        assert refused.returncode == 2 and message in refused.stderr, refused.stderr
        assert "Traceback" not in refused.stderr and len(refused.stderr.strip().splitlines()) == 1
    resumed = versus(*args, "--boards", "2", "--seed", "3", key=KEY)
    assert resumed.returncode in (0, 1, 2) and len(rows(where, "SELECT id FROM matches")) == 4


@pytest.mark.slow
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


@pytest.mark.slow
def test_another_head_to_head_in_the_same_folder_is_refused_by_name(tmp_path, short_two):
    where = tmp_path / "taken"
    args = ("--rules", str(short_two), "--dir", str(where), "--boards", "1")
    assert versus("random", "heuristic", *args).returncode in (0, 1, 2)
    refused = versus("heuristic", "random", *args)
    assert refused.returncode == 2
    assert f"{where} holds another head to head (random against heuristic" in refused.stderr
    assert "Traceback" not in refused.stderr


@pytest.mark.slow
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


@pytest.mark.slow
def test_bots_are_named_as_given(tmp_path, short_two):
    where = tmp_path / "named"
    done = versus("old=random", "new=heuristic", "--rules", str(short_two), "--dir", str(where), "--boards", "2")
    assert done.returncode in (0, 1, 2), done.stderr
    toml = (where / "ladder.toml").read_text()
    assert 'name = "old"' in toml and 'name = "new"' in toml
    assert "old against new" in done.stdout and "old " in done.stdout.splitlines()[1]


def test_sandbox_options_are_waraq_matchs_and_the_run_keeps_them(tmp_path, short_two):
    refused = versus("random", "heuristic", "--dir", str(tmp_path / "x"), "--memory-mb", "1")
    assert refused.returncode == 2 and len(refused.stderr.strip().splitlines()) == 1, refused.stderr
    assert "argument --memory-mb: '1' is not allowed: expected a whole number from" in refused.stderr
    assert not (tmp_path / "x").exists()
    where = tmp_path / "off"
    args = ("--rules", str(short_two), "--dir", str(where), "--boards", "1", "--sandbox", "off", "--cpus", "2")
    done = versus("random", "heuristic", *args)
    assert done.returncode in (0, 1, 2), done.stdout + done.stderr
    kept = tomllib.loads((where / "ladder.toml").read_text())["sandbox"]
    assert (kept["mode"], kept["cpus"]) == ("off", 2)  # what `waraq ladder run -C` there plays under

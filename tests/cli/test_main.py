"""The `waraq` command as a newcomer runs it: a real process, its output and exit status."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from waraq.bots.hokm_random import RandomPlayer
from waraq.referee.games.hokm.rules import PRESETS
from waraq.referee.match.inprocess import play_match


def waraq(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "waraq.referee.cli.main", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={"COLUMNS": "100", "PATH": "/usr/bin:/bin", "NO_COLOR": "1"},
    )


def test_play_prints_every_round_and_the_result_of_the_same_match():
    run = waraq("play", "--rules", "three", "--seed", "5")
    assert run.returncode == 0, run.stderr
    # The same match in-process: same seed, same seeded players as the command uses.
    rules = PRESETS["three"]
    state = play_match(rules, 5, [RandomPlayer(f"5/{s}") for s in range(3)])
    rounds = [e for e in state.events if e["type"] == "round_end"]
    table_rows = [line for line in run.stdout.splitlines() if line.startswith("│")]
    assert len(table_rows) == len(rounds)
    score = "-".join(map(str, state.result.score))
    assert f"seat {state.result.winners[0]} won, score {score}" in run.stdout


def test_play_with_tricks_shows_each_trick_with_its_winner():
    run = waraq("play", "--rules", "classic", "--seed", "2", "--tricks")
    assert run.returncode == 0, run.stderr
    tricks = [line for line in run.stdout.splitlines() if " leads: " in line]
    assert tricks and all(len(line.split(": ")[1].split(" -> ")[0].split()) == 4 for line in tricks)


def test_a_bad_rules_file_is_one_clear_line_and_exit_status_2(tmp_path):
    bad = tmp_path / "house.toml"
    bad.write_text("players = 3\nbam = true\n")
    run = waraq("play", "--rules", str(bad))
    assert run.returncode == 2
    assert "bam" in run.stderr and "3 players" in run.stderr and not run.stdout
    assert "Traceback" not in run.stdout + run.stderr


def test_rules_prints_every_key_and_the_hash():
    run = waraq("rules", "two")
    assert run.returncode == 0
    assert PRESETS["two"].rules_hash in run.stdout
    for key in PRESETS["two"].to_dict():
        assert f'"{key}"' in run.stdout


@pytest.mark.slow
def test_match_plays_over_grpc_and_says_where_the_records_are(tmp_path):
    run = subprocess.run(
        [
            str(Path(sys.executable).with_name("waraq")),
            "match",
            "--bots",
            "random",
            "--rules",
            "short",
            "--games",
            "3",
            "--concurrency",
            "2",
            "--record",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "100"},
    )
    assert run.returncode == 0, run.stderr
    assert "3 match(es): 3 by score" in run.stdout
    assert f"records in {tmp_path}/" in run.stdout
    assert sorted(p.name for p in tmp_path.glob("*.jsonl")) == ["hokm-1.jsonl", "hokm-2.jsonl", "hokm-3.jsonl"]


def test_match_with_a_bot_that_cannot_start_forfeits_says_which_bot_and_why_and_fails(tmp_path):
    run = subprocess.run(
        [
            str(Path(sys.executable).with_name("waraq")),
            "match",
            "--bots",
            "false {port}",
            "random",
            "--rules",
            "short",
            "--games",
            "2",
            "--record",
            str(tmp_path),
            "--startup-ms",
            "5000",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert run.returncode == 1, run.stderr  # it used to be 0: a run whose bot never played is no success
    assert "error: bot false {port} failed to start: " in run.stderr and "exited with status 1" in run.stderr
    assert "2 match(es): 2 by forfeit" in run.stdout
    assert run.stdout.count(": STARTUP: ") >= 2  # each match names the fault

"""The `waraq` command as a newcomer runs it: a real process, its output and exit status."""

from __future__ import annotations

import subprocess
import sys

from referee.games.hokm_rules import PRESETS
from referee.inprocess import play_match
from sample_bots.random_player import RandomPlayer


def waraq(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "referee.cli", *args],
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
    bad.write_text('players = 3\nbam = true\n')
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

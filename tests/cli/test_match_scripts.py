"""``waraq match`` as a script runs it: ``--json``, the exit status, bots by name, seats filled fairly.

Every case is a real ``waraq`` process playing real bots over gRPC (the
built-in ones, and ``tests/bots/misbehaving.py`` where a fault is wanted),
with the short rules and a match or two. What the JSON must say is read
from elsewhere: the records the run wrote, the rules' own hash, the misbehaving
bot's documented Hello name and fault.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.support import ROOT, TEST_BOTS
from waraq.referee.games.hokm.rules import PRESETS
from waraq.referee.records.record_file import read_record

WARAQ = str(Path(sys.executable).with_name("waraq"))
SHORT = ("--rules", "short", "--startup-ms", "20000")
MISBEHAVING = TEST_BOTS / "misbehaving.py"
# The built-in random bot, launched as a command: another bot to the referee, the same Hello name.
RANDOM_COMMAND = f"{shlex.quote(sys.executable)} -m waraq.bots.server random --unix {{socket}}"


def waraq(*args: str, cwd: Path, key: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "WARAQ_DEAL_KEY"}
    if key is not None:
        env["WARAQ_DEAL_KEY"] = key
    return subprocess.run(
        [WARAQ, *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        env={**env, "COLUMNS": "200", "NO_COLOR": "1"},
    )


def summary(run: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    """The run's stdout as JSON: it must be one JSON object and nothing else (no bar, no table)."""
    found = json.loads(run.stdout)
    assert isinstance(found, dict) and found["format"] == "waraq.match.v1"
    assert found["exit_status"] == run.returncode
    return found


def results_rows(stdout: str) -> list[list[str]]:
    """The results table's body rows, cell by cell."""
    rows = [line for line in stdout.splitlines() if line.startswith("│")]
    return [[cell.strip() for cell in row.strip("│").split("│")] for row in rows]


def misbehaving(mode: str, *flags: str) -> str:
    return shlex.join([sys.executable, str(MISBEHAVING), mode, *flags, "--port", "{port}"])


# --- a clean run ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def clean(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    here = tmp_path_factory.mktemp("clean")
    run = waraq("match", "--bots", "random", "heuristic", *SHORT, "--games", "2", "--seed", "5", "--json",
                "--record", "out", cwd=here)  # fmt: skip
    return here, run


@pytest.mark.system("sandbox")  # unconfined, the run warns on stderr
def test_a_clean_run_exits_0_and_prints_only_its_json(clean):
    _, run = clean
    assert run.returncode == 0, run.stderr
    assert run.stderr == ""
    found = summary(run)
    assert found["startup_failures"] == [] and found["stopped"] is None
    assert len(found["fresh_deal_key"]) == 64  # no key was given: the fresh one, to play the deals again


@pytest.mark.slow
def test_the_json_says_how_the_run_was_made(clean):
    _, run = clean
    assert summary(run)["run"] == {
        "game": "hokm",
        "rules": "short",
        "rules_hash": PRESETS["short"].rules_hash,
        "players": 4,
        "lowest_score_wins": False,
        "games": 2,
        "seed": 5,
        "policy": "forfeit",
        "max_faults": 3,
        "records": "out",
        "bots_given": 2,
        "repeated": True,
    }


def test_the_json_names_each_seat_s_bot_by_its_hello(clean):
    _, run = clean
    bots = summary(run)["bots"]
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]  # the sample bots'
    assert [(b["seat"], b["bot"], b["name"], b["spec"], b["named"]) for b in bots] == [
        (0, 0, "random", "random", False),
        (1, 1, "heuristic", "heuristic", False),
        (2, 0, "random", "random", False),
        (3, 1, "heuristic", "heuristic", False),
    ]
    assert {b["version"] for b in bots} == {version}


def test_the_json_s_matches_and_sides_are_what_the_records_say(clean):
    here, run = clean
    found = summary(run)
    wins, points = [0, 0], [0, 0]
    for match, seed in zip(found["matches"], (5, 6), strict=True):
        record = read_record(here / "out" / f"hokm-{seed}.jsonl")
        header, result = record.events[0], record.events[-1]
        assert match == {
            "seed": seed,
            "match_id": header["match_id"],
            "record": f"out/hokm-{seed}.jsonl",
            "kept": False,
            "winners": result["winners"],
            "reason": "score",
            "score": result["score"],
            "faulty": [],
            "faults": [],
        }
        wins[result["winners"][0] % 2] += 1
        points = [p + s for p, s in zip(points, result["score"], strict=True)]
    assert found["sides"] == [
        {"side": 0, "seats": [0, 2], "names": ["random"], "wins": wins[0], "points": points[0]},
        {"side": 1, "seats": [1, 3], "names": ["heuristic"], "wins": wins[1], "points": points[1]},
    ]


def test_the_same_run_continued_keeps_every_match_says_so_and_tells_no_key(clean):
    here, first = clean
    key = summary(first)["fresh_deal_key"]
    again = waraq("match", "--bots", "random", "heuristic", *SHORT, "--games", "2", "--seed", "5", "--json",
                  "--record", "out", cwd=here, key=key)  # fmt: skip
    assert again.returncode == 0, again.stderr
    found = summary(again)
    assert [m["kept"] for m in found["matches"]] == [True, True]
    assert [m["winners"] for m in found["matches"]] == [m["winners"] for m in summary(first)["matches"]]
    assert "fresh_deal_key" not in found


# --- faults and the exit status ------------------------------------------------------------------


@pytest.mark.slow
def test_a_forfeit_exits_1_and_the_json_holds_its_fault(tmp_path):
    # Seat 1 answers its first PLAY with the card '11X' (tests/bots/misbehaving.py): under forfeit,
    # its side loses at once, in round 1. It holds seat 1 alone, so its is the one fault.
    bad = misbehaving("garbage", "--at", "1")
    run = waraq("match", "--bots", "random", bad, "random", "random", *SHORT, "--json", "--record", "out",
                cwd=tmp_path)  # fmt: skip
    assert run.returncode == 1, run.stderr
    found = summary(run)
    (match,) = found["matches"]
    assert (match["reason"], match["winners"], match["faulty"]) == ("forfeit", [0, 2], [1])
    (fault,) = match["faults"]
    assert (fault["seat"], fault["kind"], fault["code"], fault["round"]) == (1, "MALFORMED", "bad_action", 1)
    assert "11X" in fault["detail"]
    assert [b["name"] for b in found["bots"]] == ["random", "misbehaving-garbage", "random", "random"]
    assert found["bots"][1]["spec"] == bad


def test_a_fault_substituted_in_a_match_played_to_its_end_still_exits_1(tmp_path):
    bad = misbehaving("garbage", "--at", "1", "--count", "1")
    run = waraq("match", "--bots", "random", bad, *SHORT, "--policy", "substitute", "--record", "out",
                cwd=tmp_path)  # fmt: skip
    assert run.returncode == 1, run.stderr
    assert "1 match(es): 1 by score" in run.stdout  # not forfeited: the fault alone fails the run
    # The bad bot holds seats 1 and 3, a process each: each misbehaves once, at its first PLAY (in
    # trick 1, in either order: who leads it is dealt under the run's fresh key).
    lines = [line for line in run.stdout.splitlines() if line.startswith("fault in ")]
    assert len(lines) == 2 and all("11X" in line for line in lines)
    for seat in (1, 3):
        assert sum(f", round 1, seat {seat} (misbehaving-garbage): MALFORMED: " in line for line in lines) == 1


def test_a_bot_that_does_not_start_is_in_the_json_with_its_seats_and_exits_1(tmp_path):
    run = waraq("match", "--bots", "false {port}", "random", *SHORT, "--json", "--record", "out", cwd=tmp_path)
    assert run.returncode == 1
    assert "error: bot false {port} failed to start: " in run.stderr
    (failure,) = summary(run)["startup_failures"]
    assert (failure["name"], failure["spec"], failure["seats"], failure["code"]) == (
        "false", "false {port}", [0, 2], "exited_at_startup",
    )  # fmt: skip
    assert "exited with status 1" in failure["detail"]


# --- names ---------------------------------------------------------------------------------------


def test_names_given_name_the_bots_in_the_table_the_json_and_the_records(tmp_path):
    run = waraq("match", "--bots", "me=random", f"you={RANDOM_COMMAND}", *SHORT, "--record", "out", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    first = run.stdout.splitlines()[0]
    assert first.endswith("seat 0 me, seat 1 you, seat 2 me, seat 3 you (2 bots for 4 seats: repeated in turn)")
    assert [row[:2] for row in results_rows(run.stdout)] == [["seats 0+2", "me"], ["seats 1+3", "you"]]
    assert "{socket}" not in "".join(run.stdout.splitlines()[1:])  # no command in the results
    header = read_record(tmp_path / "out" / "hokm-1.jsonl").events[0]
    assert [s["bot"] for s in header["seats"]] == ["me", "you", "me", "you"]


def test_two_bots_whose_hellos_give_one_name_are_told_apart(tmp_path):
    run = waraq("match", "--bots", "random", RANDOM_COMMAND, *SHORT, "--json", "--record", "out", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    found = summary(run)
    assert [b["name"] for b in found["bots"]] == ["random", "random#2", "random", "random#2"]
    assert [s["names"] for s in found["sides"]] == [["random"], ["random#2"]]
    header = read_record(tmp_path / "out" / "hokm-1.jsonl").events[0]
    assert [s["bot"] for s in header["seats"]] == ["random", "random#2", "random", "random#2"]


# --- filling the seats ---------------------------------------------------------------------------


def test_one_bot_for_three_seats_plays_itself_and_says_so(tmp_path):
    run = waraq("match", "--bots", "random", "--rules", "three", "--record", "out", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    first = run.stdout.splitlines()[0]
    assert first.endswith("seat 0 random, seat 1 random, seat 2 random (1 bot for 3 seats: it plays itself)")


@pytest.mark.parametrize(
    ("bots", "rules", "said"),
    [
        (["random", "heuristic", "random"], "classic", "seats 0 and 3, on both teams"),
        (["random", "heuristic"], "three", "2 seats (0 and 2), the last 1; give 1 or 3 bots"),
        (["random"] * 3, "two", "3 bots for 2 seats: give 1 or 2 bots"),
        (["a=random", "a=heuristic"], "two", "'random' and 'heuristic' are both named 'a'"),
    ],
    ids=["3-for-4-in-teams", "2-for-3", "3-for-2", "one-name-two-bots"],
)
def test_a_filling_that_cannot_be_meant_is_refused_with_exit_status_2(bots, rules, said, tmp_path):
    run = waraq("match", "--bots", *bots, "--rules", rules, "--json", cwd=tmp_path)
    assert run.returncode == 2
    assert run.stdout == "" and said in run.stderr and run.stderr.count("\n") == 1
    assert not (tmp_path / "records").exists()  # refused before any folder was made


# --- --version -----------------------------------------------------------------------------------


def test_version_prints_the_project_version_and_exits_0(tmp_path):
    run = waraq("--version", cwd=tmp_path)
    assert run.returncode == 0
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert run.stdout == f"waraq {version}\n"


def test_an_address_bot_holding_a_team_is_told_it_is_sent_both_hands(tmp_path):
    socket = tmp_path / "bot.sock"
    server = subprocess.Popen(
        [WARAQ, "bot", "serve", "random", "--unix", str(socket)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert "serving" in server.stdout.readline()
        told = f"note: the bot at unix:{socket} holds partner seats 0 and 2: one server is sent both partners' hands"
        run = waraq("match", "--bots", f"unix:{socket}", "heuristic", "--games", "1", *SHORT, cwd=tmp_path)
        assert run.returncode == 0, run.stderr
        assert [line for line in run.stdout.splitlines() if line.startswith("note:")] == [
            told + " (a command bot plays each seat in a process of its own)"
        ]
        scripted = waraq(
            "match", "--bots", f"unix:{socket}", "heuristic", "--seed", "2", *SHORT, "--json", cwd=tmp_path
        )
        assert summary(scripted)["exit_status"] == 0  # stdout is still the JSON alone
        assert told in scripted.stderr
    finally:
        server.terminate()
        assert server.wait(timeout=10) is not None

"""``waraq check-bot`` run for real: every sample bot passes, and each broken bot fails its own case.

Each run is a real ``waraq check-bot`` process launching real bot processes
(sandboxed where the machine can) over gRPC, read through its ``--json``.
The broken bots are ``tests/bots/misbehaving.py``, each confined to one kind
of request or one moment (its docstring), so that each fails exactly the
case it should and every other case passes or is skipped.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.support import ROOT, TEST_BOTS

WARAQ = str(Path(sys.executable).with_name("waraq"))
MISBEHAVING = f"{shlex.quote(sys.executable)} {TEST_BOTS / 'misbehaving.py'}"
HOKM_SITUATIONS = {
    4: ["trump", "play-lead", "play-follow", "play-void", "play-must-trump", "redeal", "bam"],
    3: ["trump", "play-lead", "play-follow", "play-void", "play-must-trump", "redeal"],
    2: [
        "trump",
        "play-lead",
        "play-follow",
        "play-void",
        "play-must-trump",
        "discard",
        "draw-unseen",
        "draw-visible",
        "redeal",
    ],
}
ALWAYS = ["startup.ready", "hello.name", "hello.protocol", "hello.games"]
COMMON = ["streams.concurrent", "end.close", "timing.deadline", "timing.bank", "compat.unknown-fields", "notes.size"]


def check_bot(spec: str, *args: str, cwd: Path) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    run = subprocess.run(
        [WARAQ, "check-bot", spec, "--json", "--record", str(cwd / "check"), *args],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
        env={**os.environ, "NO_COLOR": "1"},
    )
    report = json.loads(run.stdout)
    assert report["format"] == "waraq.check.v1"
    return run, report


def by_id(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {case["id"]: case for case in report["cases"]}


def statuses(report: dict[str, Any], status: str) -> set[str]:
    return {case["id"] for case in report["cases"] if case["status"] == status}


@pytest.mark.slow
def test_the_random_bot_passes_every_case_of_both_games(tmp_path: Path) -> None:
    run, report = check_bot("random", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert report["ok"] and report["failed"] == 0
    cases = by_id(report)
    expected = ALWAYS + ["startup.health", "end.sigterm"] + COMMON
    expected += [f"hokm-{n}.{slug}" for n, slugs in HOKM_SITUATIONS.items() for slug in slugs]
    expected += [f"hand-{n}.{slug}" for n in (4, 3, 2) for slug in ("take", "turn-first")]
    assert {case: cases[case]["status"] for case in expected} == dict.fromkeys(expected, "pass")
    # Hand's richer situations pass or are skipped with a reason, never fail; numbered in order.
    assert [case["number"] for case in report["cases"]] == list(range(1, len(cases) + 1))
    for case in report["cases"]:
        assert case["status"] != "skipped" or case["detail"]
    assert report["seconds"] < 60


@pytest.mark.slow
def test_the_heuristic_passes_and_meets_hands_every_situation(tmp_path: Path) -> None:
    run, report = check_bot("heuristic", "--players", "4", "--players", "2", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert statuses(report, "fail") == set()
    hand = {f"hand-{n}.{slug}" for n in (4, 2) for slug in ("take", "turn-first", "turn-open", "turn-add", "turn-out")}
    assert hand <= statuses(report, "pass")
    assert by_id(report)["notes.size"]["detail"].startswith("notes on ")


# (the misbehaving bot's arguments, the check's arguments, the cases it must fail: exactly these). The
# common stages play the first count checked: 4, so that no DISCARD or DRAW is asked there.
HOKM_4 = ["--game", "hokm", "--players", "4"]
HOKM_4_2 = [*HOKM_4, "--players", "2"]
BROKEN = {
    "exits-at-bam": (["exit", "--kinds", "BAM", "--at", "1"], HOKM_4, {"hokm-4.bam"}),
    "bad-seq-at-redeal": (["bad_seq", "--kinds", "REDEAL", "--at", "1"], HOKM_4, {"hokm-4.redeal"}),
    "illegal-discard": (["illegal", "--kinds", "DISCARD", "--at", "1"], HOKM_4_2, {"hokm-2.discard"}),
    "garbage-draw": (
        ["garbage", "--kinds", "DRAW", "--at", "1"],
        HOKM_4_2,
        {"hokm-2.draw-unseen", "hokm-2.draw-visible"},  # its first DRAW of each stage
    ),
    "forward-incompatible": (["future_strict"], HOKM_4, {"compat.unknown-fields"}),
    "long-notes": (["long_note"], HOKM_4, {"notes.size"}),
    "keeps-streams-open": (["linger"], HOKM_4, {"end.close"}),
    # Each stage's process takes the whole grace to stop: a few stages only, the probe's SIGTERM among them.
    "ignores-sigterm": (
        ["honest", "--ignore-term"],
        [*HOKM_4, "--only", "end.", "--only", "hokm-4.bam"],
        {"end.sigterm"},
    ),
    "nameless": (["nameless"], HOKM_4, {"hello.name"}),
    "wrong-protocol": (["wrong_protocol"], [], {"hello.protocol"}),
    "crashes-at-start": (["crash_at_start"], [], {"startup.ready"}),
    "never-healthy": (["never_healthy"], ["--startup-ms", "3000"], {"startup.ready"}),
    # A slow thinker is slow at every question: the timing cases and one short stage beside them.
    "thinks-400-ms": (
        ["honest", "--think-ms", "400"],
        [*HOKM_4, "--only", "timing.", "--only", "hokm-4.bam"],
        {"timing.deadline"},
    ),
    "counts-on-its-bank": (["honest", "--bank-greedy"], HOKM_4, {"timing.bank"}),
}


@pytest.fixture(scope="module")
def broken_reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[int, dict[str, Any]]]:
    """Every broken bot's check, run a few at once: each mostly waits on its bot's processes."""

    def one(name: str) -> tuple[int, dict[str, Any]]:
        bot_args, check_args, _ = BROKEN[name]
        spec = f"{MISBEHAVING} {' '.join(bot_args)} --unix {{socket}}"
        run, report = check_bot(spec, *check_args, "--jobs", "1", cwd=tmp_path_factory.mktemp(name))
        return run.returncode, report

    with ThreadPoolExecutor(max_workers=4) as pool:
        return dict(zip(BROKEN, pool.map(one, BROKEN), strict=True))


@pytest.mark.slow
@pytest.mark.parametrize("name", list(BROKEN))
def test_each_broken_bot_fails_its_own_case_and_no_other(
    name: str, broken_reports: dict[str, tuple[int, dict[str, Any]]]
) -> None:
    failing = BROKEN[name][2]
    status, report = broken_reports[name]
    assert status == 1
    assert statuses(report, "fail") == failing, [(c["id"], c["detail"]) for c in report["cases"]]
    assert report["failed"] == len(failing) and not report["ok"]
    for case in report["cases"]:
        if case["id"] in failing and case["record"] is not None:
            assert Path(case["record"]).is_file() and case["replay"].startswith("waraq replay ")


@pytest.mark.slow
def test_a_failed_case_names_a_replay_that_shows_its_fault(tmp_path: Path) -> None:
    spec = f"{MISBEHAVING} bad_seq --kinds REDEAL --at 1 --unix {{socket}}"
    run, report = check_bot(spec, "--game", "hokm", "--players", "3", "--only", "hokm-3.redeal", cwd=tmp_path)
    assert run.returncode == 1
    (case,) = report["cases"][-1:]
    assert case["id"] == "hokm-3.redeal" and case["status"] == "fail" and "wrong_seq" in case["detail"]
    replay = subprocess.run(
        [WARAQ, *shlex.split(case["replay"])[1:], "--plain"], capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert replay.returncode == 0, replay.stderr
    assert "wrong_seq" in replay.stdout or "seq" in replay.stdout
    assert "REDEAL" in replay.stdout or "redeal" in replay.stdout


def test_the_table_names_each_case_and_the_replay_of_a_failure(tmp_path: Path) -> None:
    spec = f"{MISBEHAVING} exit --kinds BAM --at 1 --unix {{socket}}"
    run = subprocess.run(
        [WARAQ, "check-bot", spec, "--only", "hokm-4.bam", "--record", str(tmp_path / "c")],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env={**os.environ, "NO_COLOR": "1", "COLUMNS": "200"},
    )
    assert run.returncode == 1
    assert "hokm-4.bam" in run.stdout and "fail" in run.stdout
    assert f"see waraq replay {tmp_path / 'c' / 'hokm-4-bam-1.jsonl'}" in run.stdout
    assert "0 pass, 1 fail, 0 skipped" in run.stdout


def test_a_record_folder_of_other_files_is_refused_with_one_line(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    run = subprocess.run(
        [WARAQ, "check-bot", "random", "--record", str(tmp_path)], capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert str(tmp_path) in run.stderr and len(run.stderr.strip().splitlines()) == 1
    assert (tmp_path / "notes.txt").read_text() == "mine"


@pytest.mark.system("sandbox")  # unconfined, the check warns on stderr
def test_a_full_disk_stops_the_check_with_one_line_naming_the_record(small_disk: Any) -> None:
    record = small_disk.path / "check"
    record.mkdir()
    small_disk.fill(leave=16 * 1024)  # room for the first records, not for all of them
    run = subprocess.run(
        [WARAQ, "check-bot", "random", "--game", "hokm", "--players", "4", "--record", str(record)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr
    (line,) = run.stderr.strip().splitlines()
    assert str(record) in line and "disk full" in line

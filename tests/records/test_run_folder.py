"""A records folder holds one run of each game: ``waraq match`` goes on with it, never mixes two.

Real ``waraq match`` processes in real folders: the README's first command
run twice, a run continued under its deal key, a folder of another run
refused and then replaced with ``--overwrite``, and a Hokm and a Hand run
sharing the default folder. Which records a continued run keeps is checked
on records written by hand.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.replay_records import hand_worked
from waraq.referee.games.hokm.rules import PRESETS
from waraq.referee.launch.bots import BotSpec
from waraq.referee.run import run_folder
from waraq.referee.run.runner import RunConfig, match_id

WARAQ = str(Path(sys.executable).with_name("waraq"))
MATCH = ("match", "--bots", "random", "--rules", "short", "--games", "2")
KEY_1, KEY_2 = "1e" * 16, "2e" * 16  # two deal keys ($WARAQ_DEAL_KEY): 32 hex digits, the least taken


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


def contents(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.glob("*.jsonl"))}


@pytest.mark.slow
def test_the_same_command_twice_writes_a_second_folder_and_leaves_the_first_as_it_was(tmp_path):
    first = waraq(*MATCH, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert "records in records/" in first.stdout
    kept = contents(tmp_path / "records")
    second = waraq(*MATCH, cwd=tmp_path)  # a fresh deal key: another run
    assert second.returncode == 0, second.stderr
    assert "records in records-2/" in second.stdout
    assert contents(tmp_path / "records") == kept and len(contents(tmp_path / "records-2")) == 2


@pytest.mark.slow
def test_a_hokm_run_and_a_hand_run_share_the_default_folder(tmp_path):
    assert waraq(*MATCH, cwd=tmp_path).returncode == 0
    hand = waraq("match", "--game", "hand", "--bots", "random", "--rules", "short", cwd=tmp_path)
    assert hand.returncode == 0, hand.stderr
    assert "records in records/" in hand.stdout
    assert sorted(contents(tmp_path / "records")) == ["hand-1.jsonl", "hokm-1.jsonl", "hokm-2.jsonl"]


@pytest.mark.slow
def test_a_run_under_the_same_key_continues_its_folder_and_plays_only_what_is_missing(tmp_path):
    first = waraq(*MATCH, "--record", "out", cwd=tmp_path, key=KEY_1)
    assert first.returncode == 0, first.stderr
    kept = contents(tmp_path / "out")
    more = waraq(*MATCH[:-1], "3", "--record", "out", cwd=tmp_path, key=KEY_1)
    assert more.returncode == 0, more.stderr
    assert "2 match(es) kept from the records of this run in out/" in more.stdout
    assert "3 match(es): 3 by score" in more.stdout
    now = contents(tmp_path / "out")
    assert {name: now[name] for name in kept} == kept and "hokm-3.jsonl" in now  # kept byte for byte


@pytest.mark.slow
def test_a_folder_of_another_run_is_refused_naming_the_flag_and_overwrite_replaces_it(tmp_path):
    assert waraq(*MATCH, "--record", "out", cwd=tmp_path, key=KEY_1).returncode == 0
    kept = contents(tmp_path / "out")
    refused = waraq(*MATCH, "--record", "out", "--policy", "substitute", cwd=tmp_path, key=KEY_1)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert refused.stderr.strip() == (
        "error: out/ holds 2 hokm record(s) of another run (it differs in: policy): to replace them, "
        "give --overwrite; or choose another folder with --record"
    )
    assert contents(tmp_path / "out") == kept
    other_key = waraq(*MATCH, "--record", "out", cwd=tmp_path, key=KEY_2)
    assert other_key.returncode == 2
    assert "under another deal key" in other_key.stderr and "--overwrite" in other_key.stderr
    replaced = waraq(*MATCH[:-1], "1", "--record", "out", "--overwrite", cwd=tmp_path, key=KEY_2)
    assert replaced.returncode == 0, replaced.stderr
    assert sorted(contents(tmp_path / "out")) == ["hokm-1.jsonl"]  # the old run's hokm-2 went with it
    assert contents(tmp_path / "out")["hokm-1.jsonl"] != kept["hokm-1.jsonl"]


def test_a_continued_run_keeps_only_whole_records_of_its_own_matches_played_by_the_bots(tmp_path):
    config = RunConfig(
        PRESETS["classic"].replace(target_score=1), [BotSpec.parse("random")] * 4, games=5, seed=1, deal_key="k"
    )
    mine = match_id(1, "k")

    def record(seed: int, change=None) -> None:
        path = hand_worked(tmp_path / f"hokm-{seed}.jsonl")
        events = [json.loads(line) for line in path.read_text().splitlines()]
        events[0].update(seed=seed, match_id=match_id(seed, "k"))
        if change:
            change(events)
        path.write_text("".join(json.dumps(e) + "\n" for e in events))

    record(1)  # whole: kept
    record(2, lambda events: events.pop())  # cut short: played again
    record(3, lambda events: events[0].update(match_id=mine))  # another match's record: played again
    record(
        4,
        lambda events: events.insert(
            1, {"type": "fault", "round": 1, "seat": 0, "kind": "STARTUP", "detail": "did not start"}
        ),
    )  # lost to a bot that did not start
    record(5, lambda events: events[-1].update(reason="aborted", detail="referee error"))
    kept = run_folder.kept(tmp_path, config, range(1, 6))
    assert list(kept) == [1]
    assert (kept[1].winners, kept[1].reason, kept[1].score) == ((0, 2), "score", (2, 0))

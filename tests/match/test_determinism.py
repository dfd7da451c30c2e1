"""The same seed and the same deterministic bots give the same records, whatever the concurrency.

The bots are the sample random bot, launched by the runner as a real process
and reached over gRPC; it seeds itself from the match id and seat. Two runs may
differ only in times: each decision's ``ms`` and ``bot_ms`` and the header's
``started``.
"""

from __future__ import annotations

import asyncio
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support import TEST_BOTS
from waraq.bots.hokm_random import RandomPlayer
from waraq.referee.games.hokm.rules import HokmRules
from waraq.referee.launch.bots import BotSpec
from waraq.referee.match.inprocess import play_match
from waraq.referee.match.play import TimeControl
from waraq.referee.records.record_file import read_record
from waraq.referee.run.runner import RunConfig, match_id, run

TC = TimeControl(decision_ms=2_000, bank_ms=5_000, startup_ms=10_000)
TIMES = ("ms", "bot_ms", "started")
FOUR = HokmRules.from_dict({"target_score": 2, "max_redeals": 1, "bam": True})
TWO = HokmRules.from_dict({"preset": "two", "target_score": 2, "burn_visible": True})
MISBEHAVING = TEST_BOTS / "misbehaving.py"


def without_times(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in e.items() if k not in TIMES} for e in events]


def records_of(
    tmp_path: Path, rules: HokmRules, bots: list[BotSpec], *, concurrency: int, **extra: Any
) -> dict[str, list[dict[str, Any]]]:
    """Run 3 matches from seed 40; each record (by file name) without its times."""
    folder = tmp_path / f"run-{len(list(tmp_path.iterdir()))}"
    config = RunConfig(
        rules=rules, bots=bots, games=3, seed=40, concurrency=concurrency, time_control=TC, record_dir=folder, **extra
    )
    report = asyncio.run(run(config))
    records = {}
    for outcome in report.outcomes:
        record = read_record(outcome.record)
        assert record.complete
        records[Path(outcome.record).name] = without_times(record.events)
    assert sorted(records) == ["hokm-40.jsonl", "hokm-41.jsonl", "hokm-42.jsonl"]
    return records


@pytest.mark.slow
@pytest.mark.parametrize("rules", [FOUR, TWO], ids=["4p-redeal-bam", "2p-burn-visible"])
def test_the_same_seed_gives_the_same_records_alone_or_two_at_a_time(rules, tmp_path):
    bots = [BotSpec.parse("random")] * rules.players
    first = records_of(tmp_path, rules, bots, concurrency=1)
    assert records_of(tmp_path, rules, bots, concurrency=2) == first
    # And they are the matches the same players play in-process, without gRPC: nothing of the
    # wire (ordering, conversions) changes a decision.
    for name, events in first.items():
        seed = int(name.removeprefix("hokm-").removesuffix(".jsonl"))
        players = [RandomPlayer(f"{match_id(seed)}/{seat}") for seat in range(rules.players)]
        assert events[1:] == play_match(rules, seed, players).events


@pytest.mark.slow
def test_a_misbehaving_bot_and_its_substitutes_are_recorded_the_same_every_time(tmp_path):
    # Substitutes are drawn from the match seed, so faults and what replaced them repeat too.
    argv = [sys.executable, str(MISBEHAVING), "garbage", "--at", "2", "--count", "2", "--port", "{port}"]
    bots = [BotSpec.parse("random"), BotSpec.parse(shlex.join(argv))] * 2
    first = records_of(tmp_path, FOUR, bots, concurrency=1, policy="substitute", max_faults=5)
    assert any(e["type"] == "fault" and "substituted" in e for events in first.values() for e in events)
    assert records_of(tmp_path, FOUR, bots, concurrency=2, policy="substitute", max_faults=5) == first

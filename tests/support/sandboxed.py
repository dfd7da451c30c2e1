"""Matches with launched bots in their sandbox, as the sandbox tests play them, and what they read back.

A hostile bot (``tests/bots/hostile.py``) reports each attack's result in the note of its first reply;
:func:`first_note` reads it back from the record.
"""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import sys
import time
from pathlib import Path

import pytest

from tests.support import TEST_BOTS
from waraq.referee.games.hokm.rules import HokmRules
from waraq.referee.launch import sandbox
from waraq.referee.launch.bots import BotSpec
from waraq.referee.match.play import TimeControl
from waraq.referee.records.record_file import read_record
from waraq.referee.run.runner import RunConfig, run

HOSTILE = TEST_BOTS / "hostile.py"
RULES = HokmRules(target_score=1)
TC = TimeControl(decision_ms=5_000, bank_ms=10_000, startup_ms=30_000)
ON = sandbox.Config(mode=sandbox.Isolation.ON)


def hostile(*flags: str, listen: str = "--unix {socket}") -> BotSpec:
    return BotSpec.parse(shlex.join([sys.executable, str(HOSTILE), *flags]) + " " + listen)


def processes_with(*tokens: str) -> list[int]:
    """Host pids whose command line holds every one of ``tokens``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                argv = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if all(token.encode() in argv for token in tokens):
                found.append(int(entry.name))
    return found


def wait_until(condition, seconds: float = 30.0, what: str = "the condition") -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"{what} did not come within {seconds:.0f} s")
        time.sleep(0.01)


def play(
    bots: list[BotSpec],
    record_dir: Path,
    confinement: sandbox.Config = ON,
    cwd: Path | None = None,
    games: int = 1,
    time_control: TimeControl = TC,
    rules=RULES,
):
    config = RunConfig(
        rules=rules, bots=bots, games=games, time_control=time_control, record_dir=record_dir, confinement=confinement
    )
    here = os.getcwd()
    try:
        if cwd is not None:
            os.chdir(cwd)  # the referee's folder
        return asyncio.run(run(config))
    finally:
        os.chdir(here)


def first_note(record_path: str, seat: int) -> dict[str, str]:
    record = read_record(record_path)
    note = next(e["note"] for e in record.events if e["type"] == "decision" and e["seat"] == seat and "note" in e)
    return json.loads(note)

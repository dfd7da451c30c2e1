"""``waraq match`` with a dial-in bot: a token printed for the run, the bot dials, the match is recorded.

The command is the real ``waraq`` in a process of its own; the bot is the
Python starter kit, started once the command has printed where to dial.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from tests.support.dial_in import Kit, python_kit
from waraq.referee.records.record_file import read_record
from waraq.referee.replay.verify import verify_record

__all__ = ["python_kit"]  # a fixture, used by name
pytestmark = pytest.mark.slow  # real waraq match runs, one waiting out a bot's start-up time

WARAQ = str(Path(sys.executable).with_name("waraq"))
TOLD = re.compile(r"dial-in bot (\S+): dial (\S+) with token (wq_[A-Za-z0-9_-]+)")


def test_a_dial_in_bot_takes_its_seats_with_the_token_printed_for_the_run(python_kit: Path, tmp_path: Path) -> None:
    records = tmp_path / "records"
    command = [WARAQ, "match", "--bots", "kit=dial-in", "random", "--rules", "short", "--games", "2"]
    match = subprocess.Popen(
        [*command, "--record", str(records), "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "COLUMNS": "60"},  # a narrow console must not cut the line that holds the token
    )
    assert match.stderr is not None
    told = None
    for line in match.stderr:  # --json: the dial-in lines go to stderr
        told = TOLD.search(line)
        if told:
            break
    assert told is not None, "no dial-in line"
    name, address, token = told.groups()
    assert name == "kit" and address.startswith("127.0.0.1:")
    kit = Kit(python_kit, address, token)
    try:
        output, errors = match.communicate(timeout=120)
    finally:
        kit.stop()
    assert match.returncode == 0, errors
    summary = orjson.loads(output)
    assert [m["faults"] for m in summary["matches"]] == [[], []]
    for path in sorted(records.glob("*.jsonl")):
        seats = read_record(path).header["seats"]
        assert [seat["via"] for seat in seats] == ["dial-in", "launched", "dial-in", "launched"]
        assert verify_record(path).ok
    assert "Traceback" not in errors


def test_a_dial_in_bot_that_never_dials_faults_at_opening(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            WARAQ,
            "match",
            "--bots",
            "kit=dial-in",
            "random",
            "--startup-ms",
            "3000",
            "--record",
            str(tmp_path),
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1, done.stderr
    (match,) = orjson.loads(done.stdout)["matches"]
    # The launched bot's seats may fault too on a loaded machine (not ready within the 3 s): not the kit's.
    kits = {(f["seat"], f["code"]) for f in match["faults"] if f["seat"] % 2 == 0}
    assert kits == {(0, "not_dialled_in"), (2, "not_dialled_in")}
    assert "did not dial in within 3000 ms" in done.stderr and "Traceback" not in done.stderr

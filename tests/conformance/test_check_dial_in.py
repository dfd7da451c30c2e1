"""``waraq check-bot dial-in``: the check listens, prints a token, and checks the bot that dials with it.

The command is the real ``waraq check-bot`` in a process of its own, the bot
the Python starter kit started once the token is printed.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from tests.support.dial_in import Kit, python_kit

__all__ = ["python_kit"]  # a fixture, used by name

WARAQ = str(Path(sys.executable).with_name("waraq"))
TOLD = re.compile(r"dial-in: dial (\S+) with token (wq_[A-Za-z0-9_-]+)")


@pytest.mark.slow
def test_a_dial_in_bot_is_checked_as_any_other_bar_what_only_a_launched_one_has(
    python_kit: Path, tmp_path: Path
) -> None:
    check = subprocess.Popen(
        [WARAQ, "check-bot", "dial-in", "--json", "--record", str(tmp_path / "check"), "--game", "hokm"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert check.stderr is not None
    told = next((found for line in check.stderr if (found := TOLD.search(line))), None)
    assert told is not None, "no dial-in line"
    address, token = told.groups()
    kit = Kit(python_kit, address, token)
    try:
        output, _ = check.communicate(timeout=240)
    finally:
        kit.stop()
    report = orjson.loads(output)
    assert report["ok"] and report["failed"] == 0, output
    assert report["bot"]["name"] == "python-starter"
    status = {case["id"]: (case["status"], case["detail"]) for case in report["cases"]}
    for skipped in ("startup.health", "end.close", "end.sigterm"):
        assert status[skipped][0] == "skipped" and "dial-in" in status[skipped][1], status[skipped]
    # Every Hokm decision kind of every player count went over the lobby, and several streams at once.
    assert status["streams.concurrent"][0] == "pass"
    assert sum(1 for case, (state, _) in status.items() if case.startswith("hokm-") and state == "pass") >= 12


def test_a_dial_in_bot_that_never_dials_fails_the_start_up_case(tmp_path: Path) -> None:
    done = subprocess.run(
        [WARAQ, "check-bot", "dial-in", "--json", "--startup-ms", "300", "--record", str(tmp_path / "check")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    status = {case["id"]: case for case in orjson.loads(done.stdout)["cases"]}
    assert status["startup.ready"]["status"] == "fail"
    assert "not_dialled_in" in status["startup.ready"]["detail"]
    assert TOLD.search(done.stderr) and "Traceback" not in done.stderr

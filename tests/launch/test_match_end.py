"""Every match's end reaches a launched bot, the run's last one included.

A bot that learns from its results needs each ``MatchEnd``; the run used to close
its channels as soon as the last one was written, which cancelled the stream under
it. The bot (``tests/bots/match_ends.py``) takes 300 ms over each end before it
logs it, and every one of its processes must log every match it sat in.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import TEST_BOTS

WARAQ = str(Path(sys.executable).with_name("waraq"))
COUNTER = shlex.join([sys.executable, str(TEST_BOTS / "match_ends.py"), "--learn-ms", "300"]) + " --unix {socket}"


@pytest.mark.parametrize(
    "confinement", [pytest.param("on", marks=pytest.mark.system("sandbox")), "off"], ids=["sandbox on", "sandbox off"]
)
def test_a_bot_that_learns_from_each_result_is_sent_every_match_end(tmp_path, confinement):
    run = subprocess.run(
        [WARAQ, "match", "--bots", f"counter={COUNTER}", "random", "--games", "2", "--rules", "short",
         "--sandbox", confinement, "--record", "run", "--json"],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    matches = sorted(m["match_id"] for m in json.loads(run.stdout)["matches"])
    logs = sorted((tmp_path / "run" / "logs").glob("counter-*.log"))
    assert len(logs) == 2  # seats 0 and 2: a process each
    for log in logs:
        ends = sorted(line.split()[-1] for line in log.read_text().splitlines() if line.startswith("match end "))
        assert ends == matches, log.read_text()

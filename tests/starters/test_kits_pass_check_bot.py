"""Every starter kit passes ``waraq check-bot`` as a bot author would run it, in CI.

The Python kit from a copy outside the repository (its stubs generated there),
the JavaScript kit in place (``npm ci`` ran in CI's setup), the Go kit's binary
(the session's ``go_starter``), the C++ kit's (``./setup`` built it in place;
else a copy is built). Each check is a real ``waraq check-bot`` of every game
and player count the kit declares; the four run at once, since each mostly
waits on its bot's processes.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.support import ROOT, cpp_starter

pytestmark = pytest.mark.system("node", "go", "cpp")  # the JavaScript, Go and C++ kits among the four

WARAQ = str(Path(sys.executable).with_name("waraq"))
STARTERS = ROOT / "sample_bots" / "starters"
# What each kit's Hello declares (its README): Hokm for all four, Hand for Python and JavaScript.
DECLARED = {"python": {"hokm", "hand"}, "js": {"hokm", "hand"}, "go": {"hokm"}, "cpp": {"hokm"}}


def _python_kit(tmp: Path) -> str:
    kit = tmp / "mybot"
    shutil.copytree(STARTERS / "python", kit, ignore=shutil.ignore_patterns("waraq", ".venv", "__pycache__"))
    shutil.copy(ROOT / "protocol" / "waraq" / "v1" / "bot.proto", kit)
    subprocess.run(
        [str(kit / "generate.sh")], check=True, capture_output=True, env={**os.environ, "PYTHON": sys.executable}
    )
    return f"{shlex.quote(sys.executable)} -I {kit / 'bot.py'} --port {{port}}"


def _check(spec: str, record: Path) -> dict[str, Any]:
    run = subprocess.run(
        [WARAQ, "check-bot", spec, "--json", "--record", str(record)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )
    report = json.loads(run.stdout)
    report["exit_status"] = run.returncode
    return report


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory, go_starter: Path) -> dict[str, dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("kits")
    specs = {
        "python": _python_kit(tmp),
        "js": f"node {STARTERS / 'js' / 'bot.js'} --port {{port}}",
        "go": f"{go_starter} --port {{port}}",
        "cpp": f"{cpp_starter.binary(tmp)} --unix {{socket}}",  # a socket spares the sandbox its port relay
    }
    with ThreadPoolExecutor(max_workers=len(specs)) as pool:
        found = pool.map(lambda kit: _check(specs[kit], tmp / f"check-{kit}"), specs)
        return dict(zip(specs, found, strict=True))


@pytest.mark.parametrize("kit", list(DECLARED))
def test_the_starter_kit_passes_check_bot(kit: str, reports: dict[str, dict[str, Any]]) -> None:
    report = reports[kit]
    failed = [(case["id"], case["detail"]) for case in report["cases"] if case["status"] == "fail"]
    assert report["exit_status"] == 0 and report["ok"] and not failed, failed
    games = {case["id"].split("-")[0] for case in report["cases"] if case["id"].startswith(("hokm-", "hand-"))}
    assert games == DECLARED[kit]
    # Every Hokm decision kind was asked of it and answered legally, in every player count it plays.
    passed = {case["id"] for case in report["cases"] if case["status"] == "pass"}
    for needed in (
        "hokm-4.trump",
        "hokm-4.play-must-trump",
        "hokm-4.redeal",
        "hokm-4.bam",
        "hokm-2.discard",
        "hokm-2.draw-unseen",
        "hokm-2.draw-visible",
        "hokm-3.play-void",
        "end.sigterm",
        "compat.unknown-fields",
    ):
        assert needed in passed, (kit, needed)
    if "hand" in DECLARED[kit]:
        assert {f"hand-{n}.{what}" for n in (4, 3, 2) for what in ("take", "turn-first")} <= passed

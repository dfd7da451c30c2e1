"""The toy game of tests/toy_game/ joined to the real `waraq` command: what its tests share.

The game joins as another package's game would, through one entry point in
the group ``waraq.games``; :func:`site` writes that entry point's metadata as
pip would, in a folder the command finds on its ``PYTHONPATH``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support import ROOT

PYTHON = sys.executable
BOT = ROOT / "tests" / "toy_game" / "bot.py"
HIGH = f"{PYTHON} {BOT} --port {{port}}"  # shows its highest card
LUCKY = f"{PYTHON} {BOT} --random --port {{port}}"  # shows any


def site(folder: Path) -> Path:
    """``folder`` holding the toy game's distribution metadata: its one entry point."""
    info = folder / "waraq_toy_game-0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: waraq-toy-game\nVersion: 0\n")
    (info / "entry_points.txt").write_text("[waraq.games]\ntoy = tests.toy_game:ENTRY\n")
    return folder


def waraq(site: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The real command, run in ``cwd``, with the games whose metadata ``site`` holds."""
    env = {**os.environ, "PYTHONPATH": f"{site}{os.pathsep}{ROOT}", "COLUMNS": "200", "NO_COLOR": "1"}
    env.pop("WARAQ_DEAL_KEY", None)
    return subprocess.run(
        [PYTHON, "-m", "waraq.referee.cli.main", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def play(site: Path, cwd: Path, games: int) -> Path:
    """``games`` toy matches between the high bot (seat 0) and the lucky one; their records' folder."""
    done = waraq(site, cwd, "match", "--game", "toy", "--games", str(games), "--sandbox", "off", "--bots", HIGH, LUCKY)
    assert done.returncode == 0, done.stdout + done.stderr
    return cwd / "records"

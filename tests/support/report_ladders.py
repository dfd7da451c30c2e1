"""The ladder the report's tests look at, really played: 4-player Hokm to 1 point, 12 matches over gRPC.

Four bots: heuristic, random, ``shady`` (plays like random; its Hello name is
``<script>alert(1)</script>``, a bot chooses its own name) and ``clumsy``
(tests/bots/misbehaving.py: an illegal card at its 12th decision of a match,
which forfeits that match). Played by ``waraq ladder run`` in a process of its
own: in a process where a browser test ran, Playwright's sync API keeps an
event loop on the main thread, which the scheduler's asyncio.run refuses.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support import TEST_BOTS
from tests.support.ladders import make

PYTHON = sys.executable
WARAQ = str(Path(PYTHON).with_name("waraq"))
HOSTILE = "<script>alert(1)</script>"
SHADY = (
    f'{PYTHON} -c "import asyncio, sys; from waraq.bots.server import PlayerBot, builtin_players, serve_until_stopped; '
    f"asyncio.run(serve_until_stopped(PlayerBot('{HOSTILE}', builtin_players()['random']), "
    "'127.0.0.1:' + sys.argv[1], 'shady'))\" {port}"
)
CLUMSY = f"{PYTHON} {TEST_BOTS / 'misbehaving.py'} illegal --at 12 --port {{port}}"
BOTS = {"heuristic": "heuristic", "random": "random", "shady": SHADY, "clumsy": CLUMSY}
MATCHES = 12


def waraq(*args: str) -> subprocess.CompletedProcess[str]:
    """The ``waraq`` command, without colour, 120 columns wide."""
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "120"}
    return subprocess.run([WARAQ, *args], capture_output=True, text=True, timeout=120, env=env)


def played_ladder(path: Path) -> Path:
    """The ladder made at ``path`` and played to its 12 matches."""
    make(path, BOTS)
    done = waraq("ladder", "run", "--matches", str(MATCHES), "--quiet", "-C", str(path))
    assert done.returncode == 0 and f"done: {MATCHES} matches, as asked" in done.stdout, done.stdout + done.stderr
    return path

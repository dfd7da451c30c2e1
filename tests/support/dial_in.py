"""The Python starter kit, copied and generated, dialling a real lobby from a process of its own.

Test modules that use the ``python_kit`` fixture import it from here.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import ROOT

KIT = ROOT / "sample_bots" / "starters" / "python"


@pytest.fixture(scope="session")
def python_kit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The kit's folder copied, its stubs generated with this interpreter."""
    kit = tmp_path_factory.mktemp("kit") / "python"
    shutil.copytree(KIT, kit, ignore=shutil.ignore_patterns("waraq", ".venv", "__pycache__"))
    made = subprocess.run(
        ["sh", str(kit / "generate.sh"), str(ROOT / "protocol" / "waraq" / "v1" / "bot.proto")],
        env={**os.environ, "PYTHON": sys.executable},
        capture_output=True,
        text=True,
    )
    assert made.returncode == 0, made.stderr
    return kit


async def dial_kit(kit: Path, address: str, token: str, *extra: str) -> asyncio.subprocess.Process:
    """The kit dialling ``address`` with ``token``; its output is its own (a test reads it when it fails)."""
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-I",
        "bot.py",
        "--connect",
        address,
        *extra,
        cwd=kit,
        env={**os.environ, "WARAQ_TOKEN": token},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )


async def stop(process: asyncio.subprocess.Process) -> str:
    """End the kit (SIGTERM, then SIGKILL) and return what it printed."""
    if process.returncode is None:
        process.terminate()
        try:
            await asyncio.wait_for(process.wait(), 5)
        except TimeoutError:
            process.kill()
    assert process.stdout is not None
    return (await process.stdout.read()).decode(errors="replace")


def free_port() -> int:
    """A port nothing listens on now, for a command that must be told one (a ladder's lobby)."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])

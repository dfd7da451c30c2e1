"""The C++ starter bot (sample_bots/starters/cpp): where it is, what it is called, and its binary.

Unlike the Go starter it plays at random (its README, "What it plays"), so a test checks each of
its decisions against the legal actions and the note it says it writes, not against a strategy.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

from tests.support import ROOT

KIT = ROOT / "sample_bots" / "starters" / "cpp"
PROTO = ROOT / "protocol" / "waraq" / "v1" / "bot.proto"
NAME = "cpp-starter"  # its HelloReply.name
VERSION = "1.0"
# What the binary is made of: bin/bot is newer than all of them once ./setup has built it.
SOURCES = (*KIT.glob("*.cpp"), KIT / "CMakeLists.txt", KIT / "build.sh", PROTO)


def copy_kit(to: Path) -> Path:
    """The kit's folder copied to ``to``, as a bot author copies it: without what a build made."""
    shutil.copytree(KIT, to, ignore=shutil.ignore_patterns("bin", "build"))
    return to


def build(kit: Path, *args: str) -> Path:
    """``kit``'s build.sh run with ``args``; its binary, bin/bot."""
    run = subprocess.run([str(kit / "build.sh"), *args], capture_output=True, text=True, timeout=900, cwd=kit)
    assert run.returncode == 0, f"{kit}/build.sh failed (exit {run.returncode}):\n{run.stderr}"
    built = kit / "bin" / "bot"
    assert built.is_file() and os.access(built, os.X_OK), run.stdout
    return built


def binary(tmp: Path) -> Path:
    """The starter's binary: the kit's own bin/bot when it is newer than its sources (./setup builds
    it there), else a copy of the kit built under ``tmp``; the checkout is never written."""
    built = KIT / "bin" / "bot"
    if built.is_file() and built.stat().st_mtime >= max(p.stat().st_mtime for p in SOURCES):
        return built
    return build(copy_kit(tmp / "cpp-kit"), "--proto", str(PROTO))


def spelled(action: Any) -> str:
    """A recorded action as the starter's note spells it: "10H", "S", "2C 7D", "keep", "yes"."""
    if isinstance(action, bool):
        return "yes" if action else "no"
    if isinstance(action, list):
        return " ".join(action)
    return str(action)

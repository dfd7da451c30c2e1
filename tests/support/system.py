"""The parts of the machine some tests need beyond Python, and what to say when one is missing.

A test that needs one is marked ``@pytest.mark.system("sandbox")`` (its module may be:
``pytestmark``). Before a test runs, ``tests/conftest.py`` asks :func:`missing` about every part
the chosen tests need, and when one is missing stops the run at once, one line a part: what it is,
how many tests need it and where, and the command that installs it; so a machine without them
gets no screen of tracebacks, and ``pytest -m "not system"`` runs everything else. ``./setup``
installs them all on Debian and Ubuntu.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
JS_KIT = ROOT / "sample_bots" / "starters" / "js"


@dataclass(frozen=True)
class Part:
    """One part of the machine: how to tell it is there, and how to install it."""

    what: str
    install: str
    present: Callable[[], bool]


def _sandbox() -> bool:
    from waraq.referee.launch import sandbox

    return sandbox.probe().usable and sandbox.probe().socat is not None


def _chromium() -> bool:
    from tests.support.browser import CHROMIUM

    return os.access(CHROMIUM, os.X_OK)


def _go() -> bool:
    return all(shutil.which(tool) for tool in ("go", "protoc", "protoc-gen-go", "protoc-gen-go-grpc"))


def _cpp() -> bool:
    tools = all(shutil.which(tool) for tool in ("c++", "cmake", "pkg-config", "protoc", "grpc_cpp_plugin"))
    return tools and subprocess.run(["pkg-config", "--exists", "grpc++", "protobuf"]).returncode == 0


def _node() -> bool:
    return shutil.which("node") is not None and (JS_KIT / "node_modules").is_dir()


def _root() -> bool:
    return os.geteuid() == 0


GO_BUILD = ROOT / "sample_bots" / "starters" / "go" / "build.sh"
# The Go starter's packages, as its build script names them (one list, which the script checks too).
GO_PACKAGES = re.search(r'^packages="([^"]+)"$', GO_BUILD.read_text(), re.MULTILINE)[1]  # type: ignore[index]
CPP_BUILD = ROOT / "sample_bots" / "starters" / "cpp" / "build.sh"
# The C++ starter's, likewise.
CPP_PACKAGES = re.search(r'^packages="([^"]+)"$', CPP_BUILD.read_text(), re.MULTILINE)[1]  # type: ignore[index]
PARTS: dict[str, Part] = {
    "sandbox": Part(
        "bubblewrap, socat and libseccomp2, which confine launched bots",
        "apt-get install bubblewrap socat libseccomp2",
        _sandbox,
    ),
    "chromium": Part("Debian's Chromium, which opens the HTML pages", "apt-get install chromium", _chromium),
    "go": Part("Go and Debian's gRPC for Go, which build the Go starter", f"apt-get install {GO_PACKAGES}", _go),
    "cpp": Part(
        "g++, CMake and Debian's gRPC for C++, which build the C++ starter", f"apt-get install {CPP_PACKAGES}", _cpp
    ),
    "node": Part(
        "Node.js 20 and the JavaScript starter's packages",
        "npm ci --prefix sample_bots/starters/js",
        _node,
    ),
    "root": Part("root, which mounts a small disk and gives each bot a uid of its own", "run the tests as root", _root),
}


def missing(parts: set[str]) -> list[str]:
    """The parts among ``parts`` this machine lacks, checked once each."""
    unknown = parts - set(PARTS)
    if unknown:
        raise ValueError(f"no system part {', '.join(sorted(unknown))}: the parts are {', '.join(PARTS)}")
    return [name for name in sorted(parts) if not PARTS[name].present()]

"""A real full disk for tests: a small tmpfs, filled to leave a chosen number of bytes free.

Mounting needs root, as CI runs: a test that uses the fixture is marked
``system("root")`` by tests/conftest.py, so a run without root stops before
it, saying so (``-m "not system"`` leaves it out). The mount is undone by the
fixture's finalizer, also when the test fails.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

PAGE = 4096  # tmpfs hands out space by pages


@dataclass
class SmallDisk:
    path: Path  # the mount point: write here

    def space(self) -> int:
        stat = os.statvfs(self.path)
        return stat.f_bavail * stat.f_frsize

    def fill(self, leave: int = 0) -> None:
        """Take all the space but about ``leave`` bytes (rounded down to pages)."""
        self.free_up()
        with open(self.path / ".filler", "wb") as filler:
            filler.write(b"\0" * max(0, self.space() - leave // PAGE * PAGE))

    def free_up(self) -> None:
        """Give back what :meth:`fill` took: there is space again."""
        (self.path / ".filler").unlink(missing_ok=True)


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[SmallDisk]:
    """A 4 MiB tmpfs at ``tmp_path / "disk"``, empty."""
    if os.geteuid() != 0:
        pytest.fail("a full disk is made by mounting a small tmpfs, which needs root (CI runs as root)")
    mount = tmp_path / "disk"
    mount.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount)], check=True)
    try:
        yield SmallDisk(mount)
    finally:
        subprocess.run(["umount", "--lazy", str(mount)], check=True)

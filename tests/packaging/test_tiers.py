"""The test command on a machine without a part some tests need: one line a part, at once, no traceback.

A real pytest, in parallel as the README runs it, on tests marked ``system("sandbox")``, with a PATH
that holds no bubblewrap: the sandbox's probe finds none, as on a fresh machine.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from tests.support import ROOT

STOPPED = ["tests/launch/test_stop.py", "tests/launch/test_bot_log.py"]


def pytest_run(tmp_path, *options: str) -> subprocess.CompletedProcess[str]:
    bare = tmp_path / "bin"
    bare.mkdir()
    (bare / "sh").symlink_to("/bin/sh")  # a PATH with a shell and no bubblewrap
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *options, *STOPPED],
        capture_output=True, text=True, timeout=300, cwd=ROOT, env={**os.environ, "PATH": str(bare)},
    )  # fmt: skip


@pytest.mark.slow
def test_a_missing_part_stops_the_run_before_any_test_with_one_line_naming_it(tmp_path):
    run = pytest_run(tmp_path)
    said = run.stdout + run.stderr
    assert run.returncode == 4, said
    [line] = [line for line in said.splitlines() if line.startswith("missing:")]
    assert "bubblewrap, socat and libseccomp2" in line and "install: apt-get install bubblewrap" in line
    assert "tests/launch/test_bot_log.py, tests/launch/test_stop.py" in line
    assert "Traceback" not in said and "INTERNALERROR" not in said and " passed" not in said


@pytest.mark.slow
def test_without_the_system_tests_the_others_run(tmp_path):
    run = pytest_run(tmp_path, "-m", "not system")
    said = run.stdout + run.stderr
    assert run.returncode == 0, said
    assert "missing:" not in said and re.search(r"\b\d+ passed\b", said), said
    assert not re.search(r"\b\d+ (failed|errors?)\b", said), said  # a summary's count, not a test's name

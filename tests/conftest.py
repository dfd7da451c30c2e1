"""Hypothesis settings profiles, chosen by the environment variable HYPOTHESIS_PROFILE.

* ``ci`` (the default): hypothesis's usual 100 examples a test, no deadline
  (a random Hokm match takes longer than the 200 ms default on a slow machine)
  and no too-slow health check for the same reason.
* ``thorough``: 10 times the examples, for a long run before a release.

Tests that play whole matches scale their own example counts by the profile's
``max_examples`` (see ``tests/games/hokm/test_properties.py``).

And the session fixture ``go_starter``: the Go starter bot (sample_bots/starters/go), compiled.
"""

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.register_profile(
    "thorough",
    max_examples=1000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# Readable failures from the checks the tests share (pytest rewrites asserts in test modules only).
pytest.register_assert_rewrite("tests.support")


# -- the compiled bot ---------------------------------------------------------------

# Not from tests.support: importing it here would stop its assert rewriting.
GO_KIT = Path(__file__).resolve().parents[1] / "sample_bots" / "starters" / "go"
GO_SOURCES = (*GO_KIT.glob("*.go"), GO_KIT / "build.sh", GO_KIT.parents[2] / "protocol" / "waraq" / "v1" / "bot.proto")


@pytest.fixture(scope="session")
def go_starter(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Go starter bot's binary: sample_bots/starters/go/bin/bot when it is newer than its
    sources (CI builds it there first), else built once a session by build.sh into a tmp folder.

    Without Go this fails, never skips: CI must play the compiled bot.
    """
    built = GO_KIT / "bin" / "bot"
    if built.is_file() and built.stat().st_mtime >= max(p.stat().st_mtime for p in GO_SOURCES):
        return built
    packages = re.search(r'^packages="([^"]+)"$', (GO_KIT / "build.sh").read_text(), re.MULTILINE)
    install = f"apt-get update && apt-get install -y {packages[1] if packages else 'golang-go ...'}"
    if shutil.which("go") is None:
        pytest.fail(f"Go is not installed: the Go starter bot (sample_bots/starters/go) needs it; as root: {install}")
    out = tmp_path_factory.mktemp("go-starter") / "bot"
    build = subprocess.run([str(GO_KIT / "build.sh"), "--out", str(out)], capture_output=True, text=True, timeout=600)
    if build.returncode != 0:
        pytest.fail(f"sample_bots/starters/go/build.sh failed (exit {build.returncode}):\n{build.stderr}")
    return out

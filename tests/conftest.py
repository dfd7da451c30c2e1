"""Hypothesis settings profiles, chosen by the environment variable HYPOTHESIS_PROFILE.

* ``ci`` (the default): hypothesis's usual 100 examples a test, no deadline
  (a random Hokm match takes longer than the 200 ms default on a slow machine)
  and no too-slow health check for the same reason.
* ``thorough``: 10 times the examples, for a long run before a release.

Tests that play whole matches scale their own example counts by the profile's
``max_examples`` (see ``tests/games/hokm/test_properties.py``).

And the session fixture ``gobot``: the compiled test bot (tests/bots/gobot).
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


# -- the compiled test bot ---------------------------------------------------------

# Not from tests.support: importing it here would stop its assert rewriting.
GOBOT = Path(__file__).resolve().parent / "bots" / "gobot"
GOBOT_SOURCES = (GOBOT / "main.go", GOBOT / "build.sh", GOBOT.parents[2] / "protocol" / "waraq" / "v1" / "bot.proto")


@pytest.fixture(scope="session")
def gobot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Go test bot's binary: tests/bots/gobot/bin/gobot when it is newer than its sources
    (CI builds it there first), else built once a session by build.sh into a tmp folder.

    Without Go this fails, never skips: CI must play the compiled bot.
    """
    built = GOBOT / "bin" / "gobot"
    if built.is_file() and built.stat().st_mtime >= max(p.stat().st_mtime for p in GOBOT_SOURCES):
        return built
    packages = re.search(r'^packages="([^"]+)"$', (GOBOT / "build.sh").read_text(), re.MULTILINE)
    install = f"apt-get update && apt-get install -y {packages[1] if packages else 'golang-go ...'}"
    if shutil.which("go") is None:
        pytest.fail(f"Go is not installed: the compiled test bot (tests/bots/gobot) needs it; as root: {install}")
    out = tmp_path_factory.mktemp("gobot") / "gobot"
    build = subprocess.run([str(GOBOT / "build.sh"), str(out)], capture_output=True, text=True, timeout=600)
    if build.returncode != 0:
        pytest.fail(f"tests/bots/gobot/build.sh failed (exit {build.returncode}):\n{build.stderr}")
    return out

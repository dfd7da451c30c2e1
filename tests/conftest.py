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
import tempfile
from pathlib import Path
from typing import Any

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


# -- the machine's parts ---------------------------------------------------------------

# Fixtures that need a part of the machine: a test that uses one needs that part, marked or not.
FIXTURE_PARTS = {"small_disk": "root", "go_starter": "go", "browser": "chromium"}
# Where the processes that collect (pytest-xdist's workers, or pytest alone) say what is missing.
MISSING_PARTS = pytest.StashKey[Path]()


def pytest_itemcollected(item: pytest.Item) -> None:
    parts = sorted({FIXTURE_PARTS[f] for f in getattr(item, "fixturenames", ()) if f in FIXTURE_PARTS})
    if parts:
        item.add_marker(pytest.mark.system(*parts))


def pytest_configure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput"):
        config.stash[MISSING_PARTS] = Path(tempfile.mkdtemp(prefix="waraq-parts-")) / "missing"


def pytest_configure_node(node: Any) -> None:  # pytest-xdist's controller, for each worker
    node.workerinput["waraq_missing_parts"] = str(node.config.stash[MISSING_PARTS])


def _slow_modules_first(items: list[pytest.Item]) -> None:
    """The modules with the most ``slow`` tests first, each module's tests in their order. pytest-xdist's
    loadscope hands modules out in this order, so the minute-long ones start at once rather than
    arriving last on a worker and making the whole run wait for them."""
    slow: dict[Path, int] = {}
    for item in items:
        slow[item.path] = slow.get(item.path, 0) + (item.get_closest_marker("slow") is not None)
    first_seen = {path: i for i, path in enumerate(dict.fromkeys(item.path for item in items))}
    items.sort(key=lambda item: (-slow[item.path], first_seen[item.path]))


@pytest.hookimpl(trylast=True)  # after -m has chosen the tests
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """When a chosen test needs a part of the machine that is missing (tests/support/system.py), run
    none: the run ends at once with one line a part (:func:`pytest_terminal_summary`), not a screen
    of tracebacks, and never a silent skip. The chosen tests run the modules with most slow tests first."""
    from tests.support import system

    _slow_modules_first(items)

    needed: dict[str, list[pytest.Item]] = {}
    for item in items:
        for marker in item.iter_markers("system"):
            for part in marker.args:
                needed.setdefault(part, []).append(item)
    lacking = system.missing(set(needed))
    if not lacking:
        return
    lines = []
    for name in lacking:
        part, tests = system.PARTS[name], needed[name]
        files = sorted({item.path.relative_to(config.rootpath).as_posix() for item in tests})
        where = ", ".join(files[:3]) + (f" and {len(files) - 3} more files" if len(files) > 3 else "")
        lines.append(f"missing: {part.what}, needed by {len(tests)} tests ({where}); install: {part.install}")
    lines.append("./setup installs them all on Debian or Ubuntu; pytest -m 'not system' runs the other tests")
    workerinput = getattr(config, "workerinput", None)
    Path(workerinput["waraq_missing_parts"] if workerinput else config.stash[MISSING_PARTS]).write_text(
        "\n".join(lines)
    )
    config.hook.pytest_deselected(items=list(items))
    items.clear()


def _missing_parts(config: pytest.Config) -> list[str]:
    path = config.stash.get(MISSING_PARTS, None)
    return path.read_text().splitlines() if path is not None and path.exists() else []


def pytest_sessionfinish(session: pytest.Session) -> None:
    if _missing_parts(session.config):
        session.exitstatus = pytest.ExitCode.USAGE_ERROR


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    for line in _missing_parts(config):
        terminalreporter.write_line(line, red=True, bold=True)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: two workers a core. Most tests wait on processes (bots, a referee, a browser) more
    than they compute: on 2 cores, 4 workers took the suite from 893 s to 532 s, where 2 would halve
    it at best."""
    return 2 * (os.cpu_count() or 1)

"""Stopping a launched bot: SIGTERM reaches the bot itself, sandboxed or not, and it has the grace to end in.

Each bot is a real process launched by a real :class:`Endpoint`, made ready
over gRPC (health, Hello) and then stopped. Before the bot had SIGTERM in a
sandbox, bubblewrap took the signal and died of it, and the namespace with it:
the bot never ran its handler and the launched process ended with -15. So a
bot that exits with a status of its own on SIGTERM (tests/bots/misbehaving.py
``--term-exit``), and says so in its log, proves the signal reached it.
"""

from __future__ import annotations

import asyncio
import shlex
import sys
import time
from pathlib import Path

import pytest

from tests.support import TEST_BOTS
from tests.support.sandboxed import processes_with
from waraq.referee.launch import sandbox
from waraq.referee.launch.bots import STOP_GRACE_S, BotSpec, Ending, Endpoint, StopReport
from waraq.referee.match.faults import FaultCode

pytestmark = pytest.mark.system("sandbox")  # bots stopped in their sandbox and out of it

BOT = TEST_BOTS / "misbehaving.py"
ON = sandbox.Config(mode=sandbox.Isolation.ON)
OFF = sandbox.Config(mode=sandbox.Isolation.OFF)
CONFINEMENTS = {"sandboxed": ON, "unconfined": OFF}
LISTEN = {"port": ["--port", "{port}"], "socket": ["--unix", "{socket}"]}
TERM_STATUS = 42  # no status a signal or a crash gives
TERM_DELAY_MS = 300


def misbehaving(*flags: str, listen: str = "port") -> BotSpec:
    return BotSpec.parse(shlex.join([sys.executable, str(BOT), *flags]) + " " + " ".join(LISTEN[listen]))


def start_and_stop(spec: BotSpec, confinement: sandbox.Config, folder: Path) -> tuple[Endpoint, StopReport | None]:
    """A ready endpoint for ``spec``, stopped; the report its stop returned."""

    async def go() -> tuple[Endpoint, StopReport | None]:
        endpoint = Endpoint(spec, startup_ms=30_000, log_dir=folder / "logs", cwd=str(folder), confinement=confinement)
        await endpoint.start()
        assert endpoint.failure is None, endpoint.failure
        assert endpoint.hello is not None  # it answered Hello: the bot itself was up, not only its sandbox
        return endpoint, await endpoint.stop()

    return asyncio.run(go())


@pytest.mark.parametrize(("where", "listen"), [("sandboxed", "port"), ("sandboxed", "socket"), ("unconfined", "port")])
def test_a_bot_that_catches_sigterm_ends_with_its_own_status_within_the_grace(where, listen, tmp_path):
    """A ``{port}`` bot in a sandbox has socat beside it, which SIGTERM ends too; the bot still ends its own way."""
    flags = ("honest", "--term-exit", str(TERM_STATUS), "--term-delay-ms", str(TERM_DELAY_MS))
    endpoint, report = start_and_stop(misbehaving(*flags, listen=listen), CONFINEMENTS[where], tmp_path)
    assert report is not None and report == endpoint.stopped
    assert (report.ending, report.exited_on_term, report.returncode) == (Ending.ON_TERM, True, TERM_STATUS)
    assert TERM_DELAY_MS <= report.ms < STOP_GRACE_S * 1000  # it took its time, and was let to
    assert f"SIGTERM, exiting with status {TERM_STATUS}" in endpoint.log_path.read_text()


@pytest.mark.parametrize("where", CONFINEMENTS)
def test_a_sample_bot_shuts_down_cleanly_on_sigterm(where, tmp_path):
    """The built-in random bot stops its server on SIGTERM and exits 0, in a sandbox as outside one."""
    endpoint, report = start_and_stop(BotSpec.parse("random"), CONFINEMENTS[where], tmp_path)
    assert report is not None
    assert (report.ending, report.returncode) == (Ending.ON_TERM, 0)
    assert report.ms < STOP_GRACE_S * 1000


@pytest.mark.parametrize("where", CONFINEMENTS)
def test_a_bot_that_ignores_sigterm_is_killed_when_the_grace_is_over(where, tmp_path):
    token = f"waraq-deaf-{time.monotonic_ns()}"  # a word of the bot's command line: --matches names no real match
    endpoint, report = start_and_stop(
        misbehaving("honest", "--ignore-term", "--matches", token), CONFINEMENTS[where], tmp_path
    )
    assert report is not None
    assert (report.ending, report.exited_on_term) == (Ending.KILLED, False)
    assert report.returncode == -9  # the SIGKILL, to bubblewrap's process or to the bot's own
    assert STOP_GRACE_S * 1000 <= report.ms < STOP_GRACE_S * 1000 + 1000
    deadline = time.monotonic() + 10  # a sandbox's processes end with their namespace, a moment later
    while processes_with(token) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert processes_with(token) == []


@pytest.mark.parametrize("where", CONFINEMENTS)
def test_a_bot_that_had_ended_is_reported_gone_with_its_status(where, tmp_path):
    """A bot that exits before it is ready is stopped by start() itself: nothing is left to warn."""
    endpoint = Endpoint(
        misbehaving("crash_at_start"), startup_ms=30_000, cwd=str(tmp_path), confinement=CONFINEMENTS[where]
    )
    asyncio.run(endpoint.start())
    assert endpoint.failure is not None and endpoint.failure.code is FaultCode.EXITED_AT_STARTUP
    assert endpoint.stopped == StopReport(Ending.GONE, 0.0, 3)  # misbehaving.py's CRASH_STATUS, through bubblewrap
    assert asyncio.run(endpoint.stop()) == endpoint.stopped  # a second stop says the same


def test_a_bot_the_referee_did_not_launch_has_no_report():
    endpoint = Endpoint(BotSpec.parse("127.0.0.1:9"), startup_ms=1_000)
    assert asyncio.run(endpoint.stop()) is None

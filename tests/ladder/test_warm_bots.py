"""A worker's warm bots without Ray: real bot processes kept, reused, started again, trimmed and stopped.

``WarmBots`` is what a Ray worker holds (ladder/play/ray_cluster.py's
``MatchWorker``); these tests drive it in one event loop, as the worker's own
loop does, and look at the processes it launched through their pids.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import pytest

from waraq.ladder.play import bots as launch
from waraq.ladder.play.warm_bots import Launch, WarmBots
from waraq.ladder.storage.config import Bot
from waraq.referee.launch import process_tree, sandbox
from waraq.referee.launch.bots import FailedSeat
from waraq.referee.match.faults import Fault, FaultCode
from waraq.v1 import bot_pb2 as pb

HOW = Launch(30_000, 1, sandbox.DEFAULT)
WORKER = "test-host (node 00000000, pid 1)"
RANDOM, HEURISTIC = Bot("random", "random"), Bot("heuristic", "heuristic")
CANNOT_START = Bot("broken", f"{sys.executable} -c 'raise SystemExit(3)' --port {{port}}")
T = TypeVar("T")


def alive(pid: int) -> bool:
    """Running, not a zombie left for its parent to reap."""
    try:
        return ") Z" not in Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False


def gone_soon(pids: list[int], within: float = 10.0) -> bool:
    """Whether every one of ``pids`` has ended within ``within`` seconds (a sandbox's processes end with
    their namespace, a moment after its first process)."""
    deadline = time.monotonic() + within
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not any(alive(pid) for pid in pids)


def with_bots(body: Callable[[WarmBots], Awaitable[T]], limit: int = 16) -> T:
    """``body`` run with a fresh ``WarmBots``, stopped at its end whatever happened."""

    async def main() -> T:
        bots = WarmBots(WORKER, limit)
        try:
            return await body(bots)
        finally:
            await bots.stop()

    return asyncio.run(main())


def tree(pids: tuple[int | None, ...]) -> list[int]:
    """The launched processes and every process below them (the bot inside its sandbox)."""
    found = [pid for pid in pids if pid is not None]
    return found + [child for pid in found for child in process_tree.descendants(pid)]


def test_a_process_is_kept_for_each_bot_and_number_and_reused_by_the_next_match():
    match = ((HEURISTIC, 0), (RANDOM, 0), (HEURISTIC, 1), (RANDOM, 1))
    other_room = tuple((bot, slot + 4) for bot, slot in match)  # the deal's second seating

    async def body(bots: WarmBots) -> None:
        first = await bots.seats(match, HOW)
        again = await bots.seats(match, HOW)
        room = await bots.seats(other_room, HOW)
        assert None not in first.pids and len(set(first.pids)) == 4 and first.started_s > 0
        assert again.pids == first.pids and again.restarted == () and again.started_s == 0
        assert set(room.pids).isdisjoint(first.pids)  # another seating of the deal: other processes
        assert bots.warm() == frozenset(match + other_room)

    with_bots(body)


def test_a_process_that_exited_is_started_again_for_the_next_match():
    match = ((HEURISTIC, 0), (RANDOM, 0), (HEURISTIC, 1), (RANDOM, 1))

    async def body(bots: WarmBots) -> None:
        first = await bots.seats(match, HOW)
        killed = first.pids[1]
        assert killed is not None
        os.kill(killed, signal.SIGKILL)
        endpoint = bots.endpoints[RANDOM, 0]
        for _ in range(500):  # the loop's child watcher sees it end, as it would between two matches
            if not launch.alive(endpoint):
                break
            await asyncio.sleep(0.01)
        second = await bots.seats(match, HOW)
        assert second.restarted == (1,)
        assert second.pids[1] not in (None, killed)
        assert second.pids[:1] + second.pids[2:] == first.pids[:1] + first.pids[2:]  # the others kept

    with_bots(body)


def test_beyond_the_limit_the_least_recently_used_processes_stop():
    async def body(bots: WarmBots) -> list[int]:
        old = await bots.seats(((RANDOM, 0), (RANDOM, 1)), HOW)
        least_recent = tree(old.pids[:1])
        new = await bots.seats(((HEURISTIC, 0), (RANDOM, 1)), HOW)  # random's process 1 used again
        await bots.trim()
        assert bots.warm() == frozenset({(HEURISTIC, 0), (RANDOM, 1)})
        assert new.pids[1] == old.pids[1]
        return least_recent

    assert gone_soon(with_bots(body, limit=2))


def test_a_bot_that_cannot_start_faults_its_seat_naming_the_worker_and_is_tried_again():
    match = ((HEURISTIC, 0), (CANNOT_START, 0))

    async def body(bots: WarmBots) -> None:
        for _ in range(2):  # not kept: the next match tries it again
            got = await bots.seats(match, HOW)
            failed = got.seats[1]
            assert isinstance(failed, FailedSeat) and got.pids[1] is None
            assert bots.warm() == frozenset({(HEURISTIC, 0)})
            with pytest.raises(Fault) as raised:
                await failed.open(pb.MatchStart())
            assert raised.value.code == FaultCode.EXITED_AT_STARTUP
            assert raised.value.detail.startswith(f"on Ray worker {WORKER}: ")
            assert "exited with status 3" in raised.value.detail

    with_bots(body)


def test_stop_ends_every_process_the_bots_started():
    launched: list[int] = []

    async def body(bots: WarmBots) -> None:
        got = await bots.seats(((HEURISTIC, 0), (RANDOM, 0), (HEURISTIC, 4)), HOW)
        replaced = tree(got.pids[1:2])
        identity, failure = await bots.identify(RANDOM, HOW)  # a run's first start: random's process 0 anew
        assert failure is None and identity is not None and identity.hello_name
        assert bots.endpoints[RANDOM, 0].pid != got.pids[1] and gone_soon(replaced)
        launched.extend(tree(tuple(e.pid for e in bots.endpoints.values())))
        assert len(bots.endpoints) == 3 and all(alive(pid) for pid in launched)

    with_bots(body)
    assert launched and gone_soon(launched)

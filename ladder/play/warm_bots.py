"""A worker's launched bots kept warm across the matches it plays: the bot processes of a Ray worker.

A Ray worker (ladder/play/ray_cluster.py's ``MatchWorker``) holds one
:class:`WarmBots`. It keeps a process for each (bot, process number) it has
needed, the numbers the head gives each seat as the local run numbers its
own processes (``Scheduler._slots``): one a seat the bot holds, and another
set for each seating of a duplicate deal. So a process that played one room
of a deal never plays another (it would know the next room's hands), and a
process plays later deals in its room's seating, as on the local ladder,
which keeps its processes for the run too.

A process is started on first need, reused by the matches after, started
again when it has exited (a crash ends the match it died in with a typed
fault; the next match finds it dead), and stopped at :meth:`WarmBots.stop`.
A bot that cannot be started faults ``STARTUP`` in that match, its detail
naming the worker, and is tried again by the next match that needs it. At
most :data:`LIMIT` processes are kept; beyond, the least recently used
stop. Nothing here imports Ray. A worker's bots die with it, however it
dies: the launch ties each to the thread that started it, the worker's event
loop (referee/launch/sandbox_entry.py).

Measured (bench/ray_ladder.py): starting and stopping a match's four Python
bots cost a worker 0.44 s a match, where the local ladder plays one in
0.2 s; kept warm, a worker starts them a few times a run.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass

from waraq.ladder.play import bots as launch
from waraq.ladder.storage.config import Bot
from waraq.referee.launch import sandbox
from waraq.referee.launch.bots import Endpoint, FailedSeat
from waraq.referee.match.faults import Fault
from waraq.referee.match.seats import Seat

# Processes a worker keeps. A worker needs a bot's seats times the deal's rooms for each bot it
# seats (4 for a bot of 4-player Hokm in two rooms); this keeps four such bots warm, and bounds the
# memory a worker's bots hold whatever the ladder's size.
LIMIT = 16

Key = tuple[Bot, int]  # a bot and its process number (Scheduler._slots)


@dataclass(frozen=True)
class Launch:
    """How a worker starts bots: the ladder's start-up deadline, attempts and sandbox."""

    startup_ms: float
    attempts: int
    confinement: sandbox.Config


@dataclass(frozen=True)
class Seats:
    """A match's seats from the warm bots, and what the worker did to get them."""

    seats: list[Seat]
    pids: tuple[int | None, ...]  # by seat: the process it plays in (None: it did not start)
    restarted: tuple[int, ...]  # the seats whose process had exited and was started again
    started_s: float  # wall seconds spent starting processes for it (0: all were warm)


def on_worker(failure: Fault, worker: str) -> Fault:
    """A fault of a bot that did not start, its detail naming the worker it did not start on."""
    return Fault(failure.code, f"on Ray worker {worker}: {failure.detail}")


async def start(bot: Bot, how: Launch) -> Endpoint:
    """A bot started on this worker; its log is a temporary file, which its stop removes."""
    return await launch.start(
        bot, startup_ms=how.startup_ms, attempts=how.attempts, log_dir=None, confinement=how.confinement
    )


class WarmBots:
    """The processes of one worker, by (bot, process number), least recently used first."""

    def __init__(self, worker: str, limit: int = LIMIT) -> None:
        self.worker = worker
        self.limit = limit
        self.endpoints: dict[Key, Endpoint] = {}

    def warm(self) -> frozenset[Key]:
        """The keys with a process kept (alive when last looked at): what the head routes matches by."""
        return frozenset(self.endpoints)

    async def seats(self, wanted: Sequence[Key], how: Launch) -> Seats:
        """The seats of a match, ``wanted`` by seat: each from its key's process, started if it has none."""
        keys = list(dict.fromkeys(wanted))
        dead = [key for key in keys if key in self.endpoints and not launch.alive(self.endpoints[key])]
        await asyncio.gather(*(self.endpoints.pop(key).stop() for key in dead))
        cold = [key for key in keys if key not in self.endpoints]
        began = time.perf_counter()
        started = dict(zip(cold, await asyncio.gather(*(start(bot, how) for bot, _ in cold)), strict=True))
        started_s = time.perf_counter() - began if cold else 0.0
        for key in keys:  # the match's own, started or not, go last: the most recently used
            endpoint = started[key] if key in started else self.endpoints.pop(key)
            if endpoint.failure is None:
                self.endpoints[key] = endpoint
        seats: list[Seat] = []
        pids: list[int | None] = []
        for key in wanted:
            endpoint = started[key] if key in started else self.endpoints[key]
            if endpoint.failure is None:
                seats.append(endpoint.seat())
                pids.append(endpoint.pid)
            else:  # named as a local run names it (its spec's label), its fault on this worker
                seats.append(FailedSeat(endpoint.name, on_worker(endpoint.failure, self.worker)))
                pids.append(None)
        restarted = tuple(seat for seat, key in enumerate(wanted) if key in dead and key in self.endpoints)
        return Seats(seats, tuple(pids), restarted, started_s)

    async def trim(self) -> None:
        """Stop the least recently used processes beyond the limit."""
        extra = list(self.endpoints)[: max(0, len(self.endpoints) - self.limit)]
        await asyncio.gather(*(self.endpoints.pop(key).stop() for key in extra))

    async def identify(self, bot: Bot, how: Launch) -> tuple[launch.Identity | None, str | None]:
        """Start the bot's first process, read its identity (Hello, files) and keep it: the identity,
        or why it did not start."""
        key = (bot, 0)
        if key in self.endpoints:
            await self.endpoints.pop(key).stop()  # a run's first start is a fresh one, as on the local ladder
        endpoint = await start(bot, how)
        if endpoint.failure is not None:
            return None, on_worker(endpoint.failure, self.worker).detail
        self.endpoints[key] = endpoint
        return launch.identity(bot, endpoint), None

    async def stop(self) -> None:
        """Stop every process (SIGTERM, then SIGKILL after the grace), each removing its log."""
        everyone, self.endpoints = list(self.endpoints.values()), {}
        await asyncio.gather(*(endpoint.stop() for endpoint in everyone))

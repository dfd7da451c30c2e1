"""A ladder run whose matches are played on a Ray cluster; the only module that imports Ray.

The head (the machine that runs ``waraq ladder run --ray`` or ``waraq versus
--ray``) keeps everything the local run keeps: the planning, the database,
the ratings and the records folder. :class:`RayScheduler` is the local
:class:`~waraq.ladder.play.scheduler.Scheduler` with two of its steps done on a
worker instead:

* the bots' first start (``MatchWorker.identify``): each bot is started once
  on some worker, its ``Hello`` read and its files hashed there; that is the
  identity the ladder checks its versions against;
* a match (``MatchWorker.play``): the worker plays it with the same code the
  local run plays it with (:func:`waraq.ladder.play.planned_match.play`) and
  returns the outcome and the record's bytes. The head writes the record and
  stores the result in one transaction, as for a local match.

A worker is a Ray actor (:class:`MatchWorker`), one a CPU of the cluster up
to the matches in flight, made for the run and ended with it. It keeps the
bots it launched warm across the matches it plays
(:mod:`waraq.ladder.play.warm_bots`): one process a seat as the local run's
seatings need (``Scheduler._slots``: a process never plays two rooms of one
deal), started on first need, started again when dead, stopped at the run's
end. The head gives a match to an idle worker whose warm processes cover the
most of its seats (:class:`Workers`). Measured (bench/ray_ladder.py, 2
workers against the local ladder's 2 matches at once, on 2 cores): 0.31 of
its matches a second when each match was a task that started its four bots
and stopped them, 1.01 with warm bots (docs/cluster.md).

What a worker needs is what the head would need to play the match itself:
Waraq installed, and each command bot's files at the same path (the
ladder.toml's ``cwd``; nothing is shipped). A bot that cannot be made ready
there faults ``STARTUP`` as it would here, its detail naming the worker
(host and Ray node).

Exactly once (docs/cluster.md): a match's identity is its planned row (deal
and seating, ladder/storage/store.py's ``IDENTITY``), from which its seed, decks and
the bots' match id follow, so a match played again is the same match. When a
worker dies the head plays its match again on another (:data:`MAX_RETRIES`)
and starts a worker in its place; only the one result the head receives is
stored, and a second would be refused (``store.DuplicateResult``). When the
retries are spent the run stops with a
:class:`~waraq.ladder.play.cluster.ClusterError` and the match stays planned: the
next run plays it, as it plays those a killed head left in flight.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import ray
import ray.exceptions

from waraq.ladder.play import planned_match
from waraq.ladder.play.cluster import AUTO, ClusterError
from waraq.ladder.play.scheduler import Ready, RunState, Scheduler
from waraq.ladder.play.warm_bots import Key, Launch, WarmBots
from waraq.ladder.storage.config import Bot, LadderConfig
from waraq.ladder.storage.store import Entry, Outcome, Planned, Store
from waraq.referee.launch.bots import ENDING_GRACE_S, STOP_GRACE_S
from waraq.referee.records.record_file import RecordError

__all__ = ["Job", "Launch", "MatchWorker", "RayScheduler", "TaskResult", "Workers", "connect", "run"]

# Plays of a match after the first when its worker died (its process, or its machine); a bot's fault
# is no failure: it is in the outcome. As many as Ray gave a task when each match was one.
MAX_RETRIES = 3
# What a worker has at the run's end to stop its bots (each has STOP_GRACE_S after SIGTERM) before
# it is killed, its bots with it.
STOP_S = STOP_GRACE_S + ENDING_GRACE_S + 5.0
# What starting a match's missing processes is taken to cost a worker until one has been timed: four
# Python bots took 0.4 to 1.3 s here (bench/ray_ladder.py).
START_S = 1.0
GROW_S = 10.0  # how often matches that wait for a worker look for a CPU the cluster has gained


@dataclass(frozen=True)
class Job:
    """One planned match as a worker plays it: everything, so a match played twice is played the same way."""

    config: LadderConfig
    planned: Planned
    deal_key: str
    seats: tuple[Key, ...]  # by seat: the bot and its process number (Scheduler._slots)
    launch: Launch


@dataclass(frozen=True)
class TaskResult:
    """What a worker sends back for a match: the outcome, the record's bytes, where it was played, how."""

    outcome: Outcome
    record: bytes
    worker: str
    pids: tuple[int | None, ...]  # by seat: the bot process it was played in, as the worker sees it
    restarted: tuple[int, ...]  # the seats whose process had exited since it last played, started again
    warm: frozenset[Key]  # the worker's processes after the match, by which the head routes the next
    started_s: float  # wall seconds the worker spent starting processes for it (0: all were warm)


@dataclass(frozen=True)
class Identified:
    """What a worker sends back for a bot's first start: its identity, and the worker's processes after."""

    ready: Ready
    worker: str
    warm: frozenset[Key]
    started_s: float


def worker_name() -> str:
    """``host (node 1a2b3c4d, pid 123)``: the worker, as a fault's detail names it."""
    node = ray.get_runtime_context().get_node_id()
    return f"{socket.gethostname()} (node {node[:8]}, pid {os.getpid()})"


# One match at a time (Ray's stubs lack max_concurrency, which an asyncio actor takes).
@ray.remote(num_cpus=1, max_concurrency=1, max_restarts=0)  # type: ignore[call-overload]
class MatchWorker:
    """A Ray actor that plays one match at a time with the bots it keeps warm (waraq.ladder.play.warm_bots).

    An asyncio actor: its event loop, and the thread that launches its bots, live as long as it does,
    so the bots' channels outlast a match and the bots die with the worker (sandbox_entry's death signal
    is tied to that thread). Ray does not restart it: the head plays a dead worker's match elsewhere."""

    def __init__(self) -> None:
        self.bots = WarmBots(worker_name())

    async def identify(self, bot: Bot, how: Launch) -> Identified:
        """Start ``bot``'s first process here, read its identity (Hello, files), and keep it warm."""
        began = time.perf_counter()
        identity, failure = await self.bots.identify(bot, how)
        started_s = time.perf_counter() - began
        await self.bots.trim()
        return Identified(Ready(None, identity, failure), self.bots.worker, self.bots.warm(), started_s)

    async def play(self, job: Job) -> TaskResult:
        """Play one planned match with this worker's processes; its record is written in a scratch folder."""
        got = await self.bots.seats(job.seats, job.launch)
        suffix = "".join(Path(job.planned.record).suffixes)
        with tempfile.TemporaryDirectory(prefix="waraq-ray-") as scratch:
            path = Path(scratch) / f"match{suffix}"
            outcome = await planned_match.play(job.config, job.planned, job.deal_key, got.seats, path)
            record = path.read_bytes()
        await self.bots.trim()
        warm = self.bots.warm()
        return TaskResult(outcome, record, self.bots.worker, got.pids, got.restarted, warm, got.started_s)

    async def stop(self) -> None:
        """Stop every bot this worker keeps."""
        await self.bots.stop()


class _Reply(Protocol):
    @property
    def worker(self) -> str: ...

    @property
    def warm(self) -> frozenset[Key]: ...

    @property
    def started_s(self) -> float: ...


@dataclass(eq=False)
class _Worker:
    """The head's view of one worker: its actor, and the processes it keeps, as its last reply said."""

    actor: Any  # a MatchWorker's handle
    name: str = "(not heard from yet)"  # as its replies name it: host, node and pid
    warm: frozenset[Key] = frozenset()
    ready: bool = False
    idled: float = 0.0  # seconds it sat idle while a match waited for a worker whose processes suit it better
    playing: frozenset[Key] = frozenset()  # the keys of the match it plays: warm once it is done

    def soon_warm(self) -> frozenset[Key]:
        return self.warm | self.playing


class Workers:
    """The run's workers, seen from the head: each idle or playing one match, given the matches its warm
    processes suit best, replaced when it dies, stopped with the run."""

    def __init__(self, most: int, note: Callable[[str], None]) -> None:
        self.most = most  # the matches in flight: a worker more would idle
        self.note = note  # told of a worker that died, for the run's notes
        self.looked = time.monotonic()  # when the cluster's CPUs were last counted
        self.everyone: list[_Worker] = []
        self.idle: list[_Worker] = []
        self.freed = asyncio.Event()  # a worker became idle, or was lost
        self.starting: set[asyncio.Task[None]] = set()
        self.failure = ""  # why the last worker that did not start did not
        self.start_s = START_S  # what the last start of a worker's missing processes took
        # One a CPU of the cluster, at least one (which waits for a CPU, as a task would).
        for _ in range(max(1, min(most, int(ray.cluster_resources().get("CPU", 0))))):
            self._add()

    def _grow(self) -> None:
        """A worker more when matches wait for one, none is starting, and the cluster has a CPU free (a
        machine joined): looked at every GROW_S at most, as it asks Ray's head."""
        now = time.monotonic()
        if len(self.everyone) >= self.most or self.starting or now - self.looked < GROW_S:
            return
        self.looked = now
        if ray.available_resources().get("CPU", 0) >= 1:
            self._add()

    def _add(self) -> None:
        worker = _Worker(MatchWorker.remote())  # type: ignore[attr-defined]  # an ActorClass, to Ray
        self.everyone.append(worker)
        task = asyncio.ensure_future(self._ready(worker))
        self.starting.add(task)
        task.add_done_callback(self.starting.discard)

    async def _ready(self, worker: _Worker) -> None:
        """Give the worker matches once Ray has placed it and it has started: never one it may not get."""
        try:
            await worker.actor.__ray_ready__.remote()
        except ray.exceptions.RayError as error:  # a worker without Waraq, say: the run cannot play there
            self.everyone.remove(worker)
            self.failure = f"a Ray worker did not start: {type(error).__name__}: {error}"
            self.note(self.failure)
            self.freed.set()  # a match waiting for a worker sees if any is left
            return
        worker.ready = True
        self._release(worker)

    async def _take(self, keys: frozenset[Key]) -> _Worker:
        """An idle worker, the one whose warm processes cover most of ``keys``; or, when a busy one covers
        more, that one once it is free, unless the idle one has already waited, over the run, as long as
        starting the missing processes takes it (a rent-or-buy rule: idling costs at most twice the
        cheaper of the two). So in a short run a worker keeps to the seatings it has warm, as the local
        ladder keeps its processes, and in a long one each worker ends with what it needs."""
        loop = asyncio.get_running_loop()
        cover = keys.intersection
        while True:
            if not self.idle:
                if not self.everyone:
                    raise ClusterError(self.failure or "no Ray worker is left to play on")
                self._grow()
                await self._wait_freed(GROW_S)
                continue
            best = max(self.idle, key=lambda w: len(cover(w.warm)))
            busy = [w for w in self.everyone if w.ready and w not in self.idle]
            better = any(len(cover(w.soon_warm())) > len(cover(best.warm)) for w in busy)
            patience = self.start_s - best.idled
            if not better or patience <= 0:
                self.idle.remove(best)
                best.playing = keys
                return best
            began = loop.time()
            await self._wait_freed(patience)
            best.idled += loop.time() - began

    async def _wait_freed(self, timeout: float | None) -> None:
        self.freed.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.freed.wait(), timeout)

    def _release(self, worker: _Worker, reply: _Reply | None = None) -> None:
        worker.playing = frozenset()
        if reply is not None:
            worker.name = reply.worker
            worker.warm = reply.warm
            if reply.started_s > 0:
                self.start_s = reply.started_s
        self.idle.append(worker)
        self.freed.set()

    def _lose(self, worker: _Worker) -> None:
        """A worker that died: out of play, ended if it is only unreachable, and another started in its place."""
        self.everyone.remove(worker)
        with contextlib.suppress(Exception):
            ray.kill(worker.actor)
        self._add()
        self.freed.set()

    async def call(self, what: str, keys: frozenset[Key], method: str, *args: Any) -> Any:
        """``method(*args)`` on a worker, ``keys`` its bots; played again on another when its worker dies."""
        for _ in range(1 + MAX_RETRIES):
            worker = await self._take(keys)
            ref = getattr(worker.actor, method).remote(*args)
            try:
                reply: _Reply = await ref
            except asyncio.CancelledError:  # a second Ctrl-C: the match ends on its worker
                ray.cancel(ref)
                self._release(worker)
                raise
            except ray.exceptions.RayActorError:  # its process or its machine died: another plays it
                self._lose(worker)
                self.note(f"{what}: Ray worker {worker.name} died; played again on another")
                continue
            except ray.exceptions.RayTaskError as error:  # an error of Waraq's own on the worker
                self._release(worker)
                raise ClusterError(f"{what} failed on a Ray worker: {error.cause!r}") from None
            except ray.exceptions.RayError as error:
                self._lose(worker)
                raise ClusterError(f"{what}: Ray could not run it ({type(error).__name__}: {error})") from None
            self._release(worker, reply)
            return reply
        raise ClusterError(
            f"{what}: its Ray worker died {1 + MAX_RETRIES} times; a match stays planned, and the next run plays it"
        )

    async def stop(self) -> None:
        """Stop every worker's bots (each worker has STOP_S), then end the workers."""
        for task in list(self.starting):
            task.cancel()
        stopping = [w.actor.stop.remote() for w in self.everyone if w.ready]
        with contextlib.suppress(TimeoutError, ray.exceptions.RayError):
            await asyncio.wait_for(asyncio.gather(*stopping), STOP_S)
        for worker in self.everyone:
            with contextlib.suppress(Exception):
                ray.kill(worker.actor)
        self.everyone.clear()
        self.idle.clear()


def connect(address: str) -> bool:
    """Join the cluster at ``address`` (``auto``: this machine's, started if none runs); True if this
    call connected (so the run disconnects at its end), False if this process was connected already."""
    if ray.is_initialized():
        return False
    try:
        # Ray's own log lines stay out of the live view; its warnings and errors still show.
        if address == AUTO:
            ray.init(logging_level=logging.WARNING)
        else:
            ray.init(address=address, logging_level=logging.WARNING)
    except (ConnectionError, RuntimeError, ValueError) as error:
        raise ClusterError(f"--ray {address}: cannot join the cluster: {error}") from None
    return True


class RayScheduler(Scheduler):
    """The local scheduler, whose bots start and whose matches play on the cluster's workers."""

    def __init__(self, folder: Path, config: LadderConfig, store: Store, state: RunState) -> None:
        super().__init__(folder, config, store, state)
        assert state.cluster is not None
        self.address = state.cluster
        self.workers: Workers | None = None  # made once joined, at the bots' first start
        self.launch = Launch(
            config.time_control.startup_ms,
            config.faults.start_attempts,
            # The ladder folder is hidden from the bots on a worker that can see it (a shared file system,
            # or the head's own machine), as from the local run's.
            config.sandbox.confinement((folder,)),
        )

    async def run(self) -> RunState:
        connected = connect(self.address)
        try:
            return await super().run()
        finally:
            if connected:
                ray.shutdown()

    def _workers(self) -> Workers:
        if self.workers is None:
            self.workers = Workers(self.state.concurrency, self.note)
        return self.workers

    async def _first_processes(self, entries: list[Entry]) -> list[Ready]:
        workers = self._workers()
        asked = []
        for entry in entries:
            bot = self.bot_of(entry)
            asked.append(workers.call(f"{entry.name}'s start", frozenset({(bot, 0)}), "identify", bot, self.launch))
        return [identified.ready for identified in await asyncio.gather(*asked)]

    async def play(self, planned: Planned) -> Outcome:
        seats = tuple((self.bot_of(self.store.entry(entry_id)), slot) for entry_id, slot in self._slots(planned))
        job = Job(self.config, planned, self.deal_key, seats, self.launch)
        played: TaskResult = await self._workers().call(f"match {planned.id}", frozenset(seats), "play", job)
        if played.outcome.match_id != planned.id:  # a result is only ever stored as the match it is
            raise ClusterError(f"match {planned.id}: a worker sent back match {played.outcome.match_id}'s result")
        _write_record(self.folder / planned.record, played.record)
        for seat in played.restarted:
            name = self.store.entry(planned.seats[seat]).name
            self.note(f"{name}: its process on Ray worker {played.worker} had exited; started again")
        return played.outcome

    async def stop_bots(self) -> None:
        workers, self.workers = self.workers, None  # a run started again makes its own
        if workers is not None:
            await workers.stop()
        await super().stop_bots()


def _write_record(path: Path, data: bytes) -> None:
    """The record as the worker wrote it, whole or not at all: a head killed here leaves no half record."""
    part = path.with_name(path.name + ".part")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        part.write_bytes(data)
        os.replace(part, path)
    except OSError as error:
        with contextlib.suppress(OSError):
            part.unlink()
        raise RecordError(path, error) from None


async def run(folder: Path, config: LadderConfig, store: Store, state: RunState) -> RunState:
    """``waraq.ladder.play.scheduler.run`` with the matches on the Ray cluster at ``state.cluster``."""
    return await RayScheduler(folder, config, store, state).run()

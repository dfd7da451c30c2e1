"""A ladder run whose matches are played on a Ray cluster; the only module that imports Ray.

The head (the machine that runs ``waraq ladder run --ray`` or ``waraq versus
--ray``) keeps everything the local run keeps: the planning, the database,
the ratings and the records folder. :class:`RayScheduler` is the local
:class:`~waraq.ladder.play.scheduler.Scheduler` with two of its steps done on a
worker instead:

* the bots' first start (:func:`identify`): each bot is started once on some
  worker, its ``Hello`` read and its files hashed there, and stopped; that is
  the identity the ladder checks its versions against;
* a match (:func:`play_on_worker`): the task starts the match's bots on its
  worker, one process a seat as the local run's seatings need
  (``Scheduler._slots``), plays the match with the same code the local run
  plays it with (:func:`waraq.ladder.play.planned_match.play`), stops the bots, and
  returns the outcome and the record's bytes. The head writes the record and
  stores the result in one transaction, as for a local match.

What a worker needs is what the head would need to play the match itself:
Waraq installed, and each command bot's files at the same path (the
ladder.toml's ``cwd``; nothing is shipped). A bot that cannot be made ready
there faults ``STARTUP`` as it would here, its detail naming the worker
(host and Ray node).

Exactly once (docs/cluster.md): a match's identity is its planned row (deal
and seating, ladder/storage/store.py's ``IDENTITY``), from which its seed, decks and
the bots' match id follow, so a match played again is the same match. Ray
runs a task again when its worker dies (:data:`MAX_RETRIES`); only the one
result the head receives is stored, and a second would be refused
(``store.DuplicateResult``). When the retries are spent the run stops with a
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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ray
import ray.exceptions

from waraq.ladder.play import bots as launch
from waraq.ladder.play import planned_match
from waraq.ladder.play.cluster import AUTO, ClusterError
from waraq.ladder.play.scheduler import Ready, RunState, Scheduler
from waraq.ladder.storage.config import Bot, LadderConfig
from waraq.ladder.storage.store import Entry, Outcome, Planned, Store
from waraq.referee.launch import sandbox
from waraq.referee.launch.bots import Endpoint, FailedSeat
from waraq.referee.match.faults import Fault
from waraq.referee.match.seats import Seat
from waraq.referee.records.record_file import RecordError

# Ray's own retries of a task whose worker process or node died (a bot's fault is no failure: it is
# in the outcome). Ray's default, said here because exactly-once rests on it.
MAX_RETRIES = 3


@dataclass(frozen=True)
class Launch:
    """How a worker starts bots: the ladder's start-up deadline, attempts and sandbox."""

    startup_ms: float
    attempts: int
    confinement: sandbox.Config


@dataclass(frozen=True)
class Job:
    """One planned match as a worker plays it: everything, so a task run twice plays it the same way."""

    config: LadderConfig
    planned: Planned
    deal_key: str
    seats: tuple[tuple[Bot, int], ...]  # by seat: the bot and its process number (Scheduler._slots)
    launch: Launch


@dataclass(frozen=True)
class TaskResult:
    """What a task sends back: the outcome, the record's bytes, and where it was played."""

    outcome: Outcome
    record: bytes
    worker: str


def worker_name() -> str:
    """``host (node 1a2b3c4d, pid 123)``: the worker, as a fault's detail names it."""
    node = ray.get_runtime_context().get_node_id()
    return f"{socket.gethostname()} (node {node[:8]}, pid {os.getpid()})"


async def _start(bot: Bot, how: Launch) -> Endpoint:
    return await launch.start(
        bot, startup_ms=how.startup_ms, attempts=how.attempts, log_dir=None, confinement=how.confinement
    )


async def _stop(endpoint: Endpoint) -> None:
    """Stop a bot and drop its log: on a worker nobody reads it (a start-up fault quotes its tail)."""
    await endpoint.stop()
    if endpoint.log_path is not None:
        endpoint.log_path.unlink(missing_ok=True)


def _on_worker(failure: Fault, worker: str) -> Fault:
    return Fault(failure.code, f"on Ray worker {worker}: {failure.detail}")


async def _play(job: Job, worker: str) -> TaskResult:
    keys = sorted(set(job.seats), key=lambda key: (key[0].name, key[1]))
    started = await asyncio.gather(*(_start(bot, job.launch) for bot, _ in keys))
    endpoints = dict(zip(keys, started, strict=True))
    try:
        seats: list[Seat] = []
        for key in job.seats:
            endpoint, failure = endpoints[key], endpoints[key].failure
            # A seat that did not start is named as a local run names it (its spec's label), its fault here.
            seats.append(endpoint.seat() if failure is None else FailedSeat(endpoint.name, _on_worker(failure, worker)))
        suffix = "".join(Path(job.planned.record).suffixes)
        with tempfile.TemporaryDirectory(prefix="waraq-ray-") as scratch:
            path = Path(scratch) / f"match{suffix}"
            outcome = await planned_match.play(job.config, job.planned, job.deal_key, seats, path)
            return TaskResult(outcome, path.read_bytes(), worker)
    finally:
        await asyncio.gather(*(_stop(e) for e in endpoints.values()))


@ray.remote(num_cpus=1, max_retries=MAX_RETRIES, retry_exceptions=False)
def play_on_worker(job: Job) -> TaskResult:
    """A Ray task: play one planned match on this worker, its bots started and stopped here."""
    return asyncio.run(_play(job, worker_name()))


async def _identify(bot: Bot, how: Launch, worker: str) -> Ready:
    endpoint = await _start(bot, how)
    try:
        if endpoint.failure is not None:
            return Ready(None, None, _on_worker(endpoint.failure, worker).detail)
        return Ready(None, launch.identity(bot, endpoint), None)
    finally:
        await _stop(endpoint)


@ray.remote(num_cpus=1, max_retries=MAX_RETRIES, retry_exceptions=False)
def identify(bot: Bot, how: Launch) -> Ready:
    """A Ray task: start ``bot`` on this worker, read its identity (Hello, files), stop it."""
    return asyncio.run(_identify(bot, how, worker_name()))


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

    async def _first_processes(self, entries: list[Entry]) -> list[Ready]:
        asked = [self._remote(identify.remote(self.bot_of(e), self.launch), f"{e.name}'s start") for e in entries]
        return list(await asyncio.gather(*asked))

    async def play(self, planned: Planned) -> Outcome:
        seats = tuple((self.bot_of(self.store.entry(entry_id)), slot) for entry_id, slot in self._slots(planned))
        job = Job(self.config, planned, self.deal_key, seats, self.launch)
        played: TaskResult = await self._remote(play_on_worker.remote(job), f"match {planned.id}")
        if played.outcome.match_id != planned.id:  # a result is only ever stored as the match it is
            raise ClusterError(f"match {planned.id}: a worker sent back match {played.outcome.match_id}'s result")
        _write_record(self.folder / planned.record, played.record)
        return played.outcome

    async def _remote(self, ref: ray.ObjectRef, what: str) -> Any:
        """The task's value; a worker that died past Ray's retries stops the run (a match stays planned)."""
        try:
            return await ref
        except asyncio.CancelledError:  # a second Ctrl-C: the task ends on its worker, its bots with it
            ray.cancel(ref)
            raise
        except ray.exceptions.RayTaskError as error:  # an error of Waraq's own on the worker
            raise ClusterError(f"{what} failed on a Ray worker: {error.cause!r}") from None
        except ray.exceptions.RayError as error:
            raise ClusterError(
                f"{what}: Ray could not run it, retries included ({type(error).__name__}: {error}); a match "
                "stays planned, and the next run plays it"
            ) from None


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

"""``waraq ladder run``: start each bot once, play the planned matches many at once, record them.

The loop keeps ``concurrency`` matches in flight. It plays the matches that
are planned and not yet played first (those a killed run left in flight: the
same seed and seats, the record written again), then asks the ledger for the
next batch. Each result is stored and rated in one transaction as it comes
back. A bot whose process died is started again before the next match; one
that cannot be started is suspended and the others play on. Every match is
dealt under the ladder's deal key, and its id is made from it too
(ladder/storage/key_file.py).

On a Ray cluster (``--ray``) the same loop runs on the head: ladder/play/ray_cluster.py's
``RayScheduler`` only starts the bots and plays each match on a worker (which keeps its bots
warm) instead of here, with the same code (ladder/play/planned_match.py).

``waraq serve`` runs it as a service (``RunState.service``): it never ends by itself. With
nothing to play it waits for a change, which ``Scheduler.changed`` announces (a bot added,
a version chosen, a suspension, a resume) and which the loop takes up between matches
(``_refresh``); ``paused`` starts no match; ``per_hour`` bounds each bot's matches in any hour.

Ctrl-C (or SIGTERM) once: no new match starts and those in flight finish.
Twice: those in flight are dropped; they stay planned and the next run plays
them again. A SIGKILL loses nothing either: whatever was not committed is
played again. Nor does a full disk: a record or a result that cannot be
written stops the run as a second Ctrl-C does (the error is raised once the
bots are stopped), and every result stored before stays.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sqlite3
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

from waraq.ladder.play import bots as launch
from waraq.ladder.play import ledger, planned_match
from waraq.ladder.play.dial_ins import LadderKeys
from waraq.ladder.stats.ratings import environment
from waraq.ladder.storage import key_file
from waraq.ladder.storage.config import Bot, LadderConfig
from waraq.ladder.storage.store import (
    ACTIVE,
    CANCELLED,
    PLANNED,
    REMOVED,
    RETIRED,
    SUSPENDED,
    DuplicateResult,
    Entry,
    Outcome,
    Planned,
    Store,
    now,
)
from waraq.referee.launch.bots import Endpoint, FailedSeat, SpecKind
from waraq.referee.lobby.lobby import Lobby, Presence
from waraq.referee.lobby.options import LOOPBACK, LobbyConfig
from waraq.referee.match.faults import Fault, FaultCode, FaultKind
from waraq.referee.match.seats import Seat
from waraq.referee.run.runner import seat_slots


@dataclass
class RunState:
    """What a run is doing, for the live view and the final report."""

    target: ledger.Target
    concurrency: int
    before: int = 0  # matches played before this run
    played: int = 0  # matches this run played and stored
    decisions: int = 0
    in_flight: int = 0
    started: float = field(default_factory=time.monotonic)
    playing: float | None = None  # when the bots were up and the first match began
    ended: float | None = None
    finished: ledger.Finished | None = None
    stopping: int = 0  # signals received
    times: deque[float] = field(default_factory=lambda: deque(maxlen=10_000))
    faults: deque[str] = field(default_factory=lambda: deque(maxlen=6))
    notes: list[str] = field(default_factory=list)  # restarts, new versions, processes ended
    suspensions: list[str] = field(default_factory=list)
    cluster: str | None = None  # --ray's address: the matches are played on that Ray cluster (ladder/play/cluster.py)
    lobby: LobbyConfig | None = None  # --lobby and TLS: where dial-in bots dial (else ladder.toml's [lobby])
    on_lobby: Callable[[str], None] | None = None  # told that address, before any match (to print it)
    # `waraq serve`: the run never ends by itself. With nothing to play (the target met, too few bots, every
    # bot at its hourly bound, paused) it waits for a change (Scheduler.changed, a resume) instead.
    service: bool = False
    paused: bool = False  # no new match starts; those in flight finish (the organiser's pause)
    per_hour: int | None = None  # at most this many matches planned for one bot in any hour (and one batch)

    @property
    def elapsed(self) -> float:
        return (self.ended or time.monotonic()) - self.started

    @property
    def playing_for(self) -> float:
        """Seconds since the first match began (the bots' start-up left out)."""
        return 0.0 if self.playing is None else (self.ended or time.monotonic()) - self.playing

    def rate(self, window: float = 30.0) -> float:
        """Matches a second: over the last ``window`` seconds, or since the first match when shorter."""
        elapsed = self.playing_for
        if elapsed <= 0:
            return 0.0
        if elapsed < window:
            return self.played / elapsed
        now = self.ended or time.monotonic()
        return sum(1 for t in self.times if now - t <= window) / window


HOUR = timedelta(hours=1)
RATION_POLL_S = 60.0  # how often a service run with an hourly bound looks whether a bot is below it again


@dataclass(frozen=True)
class Ready:
    """A bot's first start of a run: its process (None where no process is kept, as on a Ray cluster),
    its identity, or why it did not start."""

    endpoint: Endpoint | None
    identity: launch.Identity | None
    failure: str | None


class Scheduler:
    def __init__(self, folder: Path, config: LadderConfig, store: Store, state: RunState) -> None:
        self.folder = folder
        self.config = config
        self.store = store
        self.state = state
        self.env = environment(config.trueskill)
        # By (entry id, process number): a bot has a process for each seat it holds in a match
        # (waraq.referee.run.runner.seat_slots), for each seating of a deal (_slots). Process 0 is started
        # with the run, the others when first needed.
        self.endpoints: dict[tuple[int, int], Endpoint] = {}
        # Endpoints taken out of play (dead, or their bot suspended): their channels stay open until
        # no match in flight uses them, so such a match ends with a typed fault, never a closed channel.
        self.spent: list[Endpoint] = []
        self.uses: dict[asyncio.Task, list[Endpoint]] = {}
        self.tasks: dict[asyncio.Task, Planned] = {}
        self.wake = asyncio.Event()
        self.deal_key, made = key_file.ensure(folder, store)  # `waraq ladder run` made it already, if it had to
        if made is not None:
            self.note(made)
        # Bots that dial in (waraq.referee.lobby): played while connected, their matches held a grace while away.
        self.dial_ins = {bot.name for bot in config.bots if bot.bot_spec.kind is SpecKind.DIAL_IN}
        self.lobby: Lobby | None = None
        self.lobby_opened = 0.0  # loop time: a dial-in bot that has not dialled this run is away since then
        # A service run's roster: the ladder.toml line each entry's processes were started from (a new one,
        # a version chosen, starts it anew), and whether the loop must look at the roster again.
        self.started_as: dict[int, Bot] = {}
        self.log_spans: dict[int, list[tuple[int, str, int, int]]] = {}  # by match: its seats' log ranges
        self.roster_changed = False

    # -- the lobby -------------------------------------------------------------------------

    async def open_lobby(self) -> None:
        """Listen for the dial-in bots, if the ladder has any; forget the connections a killed run left."""
        if self.store.connections():  # (a write only when there is one: a full disk is met where it was)
            with self.store.transaction():
                self.store.drop_connection()
        # A service run's authors may register one later (on this machine: no dial-in bot plays on Ray).
        if not self.dial_ins and not (self.state.service and self.state.cluster is None):
            return
        settings = self.config.lobby
        wanted = self.state.lobby or LobbyConfig(settings.address or LOOPBACK, None, settings.grace_s)
        self.lobby = Lobby(LadderKeys(self.store, self.dial_ins), grace_s=wanted.grace_s, on_presence=self._presence)
        address = await self.lobby.listen(wanted.address, tls=wanted.tls)
        loop = asyncio.get_running_loop()
        self.lobby_opened = loop.time()
        loop.call_later(self.lobby.grace_s, self.wake.set)  # matches a killed run left for them: cancelled then
        bots = ", ".join(sorted(self.dial_ins)) or "the dial-in bots to come"
        self.note(f"lobby on {address}{' (TLS)' if wanted.tls else ''} for {bots}")
        if self.state.on_lobby is not None:
            self.state.on_lobby(address)

    def _presence(self, bot: str, presence: Presence | None) -> None:
        """A dial-in bot connected, changed its streams, or left: the table `show` reads, and the loop told."""
        if presence is None:  # its queued matches are cancelled once its grace is over: wake the loop then
            assert self.lobby is not None
            asyncio.get_running_loop().call_later(self.lobby.grace_s, self.wake.set)
        with contextlib.suppress(sqlite3.Error):  # a full disk: the run's next result meets it and stops the run
            with self.store.transaction():
                if presence is None:
                    self.store.drop_connection(bot)
                else:
                    self.store.set_connection(bot, presence.since, presence.peer, presence.streams, os.getpid())
        self.wake.set()

    async def _admit_dial_ins(self) -> None:
        """Give each dial-in bot that came an endpoint (its version checked, as a launched bot's), and take
        the endpoint of one that left out of play."""
        lobby = self.lobby
        if lobby is None:
            return
        for entry in self.store.entries([ACTIVE]):
            if entry.base not in self.dial_ins:
                continue
            key = (entry.id, 0)
            here = lobby.hello(entry.base) is not None
            if here and key not in self.endpoints:
                bot = self.bot_of(entry)
                endpoint = Endpoint(
                    bot.bot_spec, startup_ms=self.config.time_control.startup_ms, lobby=lobby, dial_name=bot.name
                )
                await endpoint.start()
                if endpoint.failure is None:
                    entry_id = self._check_version(entry, launch.identity(bot, endpoint))
                    self.endpoints[entry_id, 0] = endpoint
                    self.started_as[entry_id] = bot
            elif not here and key in self.endpoints and self._away_since(entry.base) is not None:
                self._take_out(entry.id)

    def _available(self, entry_id: int) -> bool:
        """Whether matchmaking may seat the entry now: a dial-in bot only while it is connected; any bot
        only below its hourly bound (a service run's ``per_hour``)."""
        entry = self.store.entry(entry_id)
        if self.state.per_hour is not None and self.store.planned_since(entry_id, now(-HOUR)) >= self.state.per_hour:
            return False
        return entry.base not in self.dial_ins or (
            self._away_since(entry.base) is None and (entry_id, 0) in self.endpoints
        )

    def _away_since(self, base: str) -> float | None:
        """When the dial-in bot ``base`` went away (loop time), or None while it is connected (or is no
        dial-in bot): the lobby's word, and the lobby's opening for one that has not dialled this run."""
        if self.lobby is None or base not in self.dial_ins or self.lobby.presence(base) is not None:
            return None
        since = self.lobby.away_since(base)
        return self.lobby_opened if since is None else since

    def _left_before_it_began(self, planned: Planned, outcome: Outcome) -> str | None:
        """A dial-in bot of the match that had no stream for its seat (``not_dialled_in``) and is away
        now: it left as the match began, before the lobby saw it go."""
        for fault in outcome.faults:
            base = self.store.entry(planned.seats[fault.seat]).base
            if fault.code == FaultCode.NOT_DIALLED_IN and self._away_since(base) is not None:
                return base
        return None

    def _away(self, planned: Planned) -> tuple[str, bool] | None:
        """A dial-in bot of the match that is not connected: its name, and whether its grace is over."""
        if self.lobby is None:
            return None
        now = asyncio.get_running_loop().time()
        for entry_id in planned.seats:
            base = self.store.entry(entry_id).base
            since = self._away_since(base)
            if since is not None:
                return base, now - since >= self.lobby.grace_s
        return None

    # -- bots ------------------------------------------------------------------------------

    def bot_of(self, entry: Entry) -> Bot:
        bot = self.config.bot(entry.base)
        assert bot is not None, entry
        return bot

    async def start_bots(self) -> None:
        """Sync the entries with ladder.toml, start every active bot once, check its version."""
        store = self.store
        for pid in launch.reap(store):
            self.note(f"ended bot process {pid} left by a run that was killed")
        names = {b.name for b in self.config.bots}
        with store.transaction():
            for entry in store.entries([ACTIVE, SUSPENDED]):
                if entry.base not in names:
                    store.set_status(entry.id, REMOVED, "not in ladder.toml")
                    store.cancel_planned(entry.id, f"{entry.name} removed")
            for bot in self.config.bots:
                if store.current_entry(bot.name) is None:
                    store.add_entry(bot.name, store.free_name(bot.name), bot.spec, (None, None, None))
        await self._first_start([e for e in store.entries([ACTIVE]) if e.base not in self.dial_ins])  # not those
        for entry in store.entries([RETIRED, REMOVED]):
            with store.transaction():
                store.cancel_planned(entry.id, f"{entry.name} {entry.status}")

    async def _first_start(self, entries: list[Entry]) -> None:
        """Start each entry's first process (dial-in bots start as they dial), check its version, or suspend it."""
        for entry, ready in zip(entries, await self._first_processes(entries), strict=True):
            if ready.failure is not None:
                reason = f"did not start: {ready.failure}"
                ledger.suspend(self.store, entry, reason, at=None)
                self.note(f"{entry.name} suspended: {reason}", suspension=True)
                continue
            assert ready.identity is not None
            entry_id = self._check_version(entry, ready.identity)
            self.started_as[entry_id] = self.bot_of(entry)
            if ready.endpoint is not None:
                self.endpoints[entry_id, 0] = ready.endpoint

    async def _first_processes(self, entries: list[Entry]) -> list[Ready]:
        """Each entry's first process, started here and kept for the run: its identity, or why it did not start."""
        started = await asyncio.gather(*(self._start(self.bot_of(e)) for e in entries))
        return [
            Ready(None, None, endpoint.failure.detail)
            if endpoint.failure is not None
            else Ready(endpoint, launch.identity(self.bot_of(entry), endpoint), None)
            for entry, endpoint in zip(entries, started, strict=True)
        ]

    async def _start(self, bot: Bot) -> Endpoint:
        return await launch.start(
            bot,
            startup_ms=self.config.time_control.startup_ms,
            attempts=self.config.faults.start_attempts,
            log_dir=self.folder / "logs",
            # The whole ladder folder is hidden: its database, records, logs and deal key.
            confinement=self.config.sandbox.confinement((self.folder,)),
            store=self.store,
        )

    def _check_version(self, entry: Entry, found: launch.Identity) -> int:
        """The entry a bot of this identity plays for: a new one if the bot is a new version."""
        bot = self.bot_of(entry)
        known = (entry.hello_name, entry.hello_version, entry.files_hash)
        store = self.store
        with store.transaction():
            if known == (None, None, None) or bot.on_new_version == "same_entry":
                if known != (None, None, None) and known != found.as_tuple():
                    store.log(entry.id, f"new version {found}, kept in the same entry (on_new_version = same_entry)")
                    self.note(f"{entry.name}: new version {found}, same entry")
                store.set_identity(entry.id, bot.spec, found.as_tuple())
                return entry.id
            if known == found.as_tuple():
                if entry.spec != bot.spec:
                    store.set_identity(entry.id, bot.spec, found.as_tuple())
                return entry.id
            earlier = next(
                (e for e in store.entries([RETIRED]) if e.base == bot.name and _identity(e) == found.as_tuple()), None
            )
            name = earlier.name if earlier is not None else store.free_name(bot.name)
            store.set_status(entry.id, RETIRED, f"replaced by {name} (a new version)")
            store.cancel_planned(entry.id, f"{entry.name} retired")
            if earlier is not None:  # a version played before, chosen again: it goes on with its rating
                new = earlier.id
                store.set_status(new, ACTIVE, None, None)
                store.set_identity(new, bot.spec, found.as_tuple())
                store.log(new, f"{bot.name} is {found} again (was {entry.name})")
            else:
                new = store.add_entry(bot.name, name, bot.spec, found.as_tuple())
                store.log(new, f"new version of {bot.name}: {found} (was {entry.name})")
        self.note(
            f"{bot.name} is {'an earlier' if earlier else 'a new'} version ({found}): rated as {name} from now on"
        )
        return new

    async def _restart_if_dead(self, entry_id: int) -> None:
        """Take the entry's dead processes out of play, and start its first one again (or suspend
        the bot); its other processes start again when a match needs them."""
        dead = [key for key, endpoint in self.endpoints.items() if key[0] == entry_id and not launch.alive(endpoint)]
        for key in dead:
            self.spent.append(self.endpoints.pop(key))
        entry = self.store.entry(entry_id)
        if (entry_id, 0) not in dead or entry.status != ACTIVE:
            return
        fresh = await self._start(self.bot_of(entry))
        if fresh.failure is not None:
            reason = f"its process exited and it did not start again: {fresh.failure.detail}"
            ledger.suspend(self.store, entry, reason, at=None)
            self.note(f"{entry.name} suspended: {reason}", suspension=True)
            self.started_as.pop(entry_id, None)
            return
        self.endpoints[entry_id, 0] = fresh
        with self.store.transaction():
            self.store.log(entry_id, "its process exited; started again")
        self.note(f"{entry.name}: its process exited; started again")

    async def _start_seats(self, planned: Planned) -> None:
        """Start the processes a match needs beyond each bot's first: one a seat it holds."""
        for entry_id, slot in self._slots(planned):
            if slot == 0 or (entry_id, slot) in self.endpoints or (entry_id, 0) not in self.endpoints:
                continue
            endpoint = await self._start(self.bot_of(self.store.entry(entry_id)))
            if endpoint.failure is None:
                self.endpoints[entry_id, slot] = endpoint  # else its seat faults STARTUP (_seat)

    def _slots(self, planned: Planned) -> list[tuple[int, int]]:
        """The process of each seat: one a seat the bot holds, and another set for each seating of
        a deal. The matches of a duplicate deal share their decks: a process that played one
        would know the hands of the next (in 4-player Hokm most of the deck is played face up)."""
        address = {entry: self.bot_of(self.store.entry(entry)).bot_spec.kind.one_server for entry in planned.seats}
        players = len(planned.seats)
        return [
            (entry, slot if address[entry] else planned.position * players + slot)
            for entry, slot in seat_slots(planned.seats, address.__getitem__)
        ]

    async def stop_bots(self) -> None:
        everyone = [*self.endpoints.values(), *self.spent]
        await asyncio.gather(*(launch.stop(e, self.store) for e in everyone))
        self.endpoints.clear()
        self.spent.clear()

    async def _stop_spent(self) -> None:
        """Stop the endpoints out of play that no match in flight uses any more."""
        used = {id(e) for endpoints in self.uses.values() for e in endpoints}
        idle = [e for e in self.spent if id(e) not in used]
        self.spent = [e for e in self.spent if id(e) in used]
        await asyncio.gather(*(launch.stop(e, self.store) for e in idle))

    # -- matches ---------------------------------------------------------------------------

    async def play(self, planned: Planned) -> Outcome:
        slots = self._slots(planned)
        seats = [self._seat(entry_id, slot) for entry_id, slot in slots]
        logs = [self._log_of(key) for key in slots]
        starts = [_size(log) for log in logs]
        outcome = await planned_match.play(self.config, planned, self.deal_key, seats, self.folder / planned.record)
        self.log_spans[planned.id] = [
            (seat, str(log.relative_to(self.folder)), start, max(start, _size(log)))
            for seat, (log, start) in enumerate(zip(logs, starts, strict=True))
            if log is not None
        ]
        return outcome

    def _log_of(self, key: tuple[int, int]) -> Path | None:
        """The log of the process that plays a seat, when it is a launched one's in the ladder's logs/."""
        endpoint = self.endpoints.get(key)
        log = getattr(endpoint, "log_path", None)
        if log is None or not log.is_relative_to(self.folder):
            return None
        return log

    def _seat(self, entry_id: int, slot: int) -> Seat:
        endpoint = self.endpoints.get((entry_id, slot))
        if endpoint is None:  # suspended since planning (the match is cancelled), or it did not start
            return FailedSeat(self.store.entry(entry_id).name, Fault(FaultCode.NOT_RUNNING, "the bot is not running"))
        return endpoint.seat()

    async def run(self) -> RunState:
        state, store = self.state, self.store
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, self.interrupt)
        try:
            await self.open_lobby()
            await self.start_bots()
            ledger.advance(store, self.config, self.env)  # results a killed run stored but could not rate yet
            counts = store.count_by_status()
            state.before = counts["rated"] + counts["unrated"] + counts["done"]
            state.playing = time.monotonic()
            await self._loop()
        finally:
            for task in self.tasks:
                task.cancel()
            await asyncio.gather(*self.tasks, return_exceptions=True)
            await self.stop_bots()
            if self.lobby is not None:
                await self.lobby.close()
                with contextlib.suppress(sqlite3.Error), store.transaction():
                    store.drop_connection()
            for signum in (signal.SIGINT, signal.SIGTERM):
                loop.remove_signal_handler(signum)
            state.ended = time.monotonic()
            state.in_flight = 0
        return state

    def interrupt(self) -> None:
        self.state.stopping += 1
        if self.state.stopping >= 2:
            for task in self.tasks:
                task.cancel()
        self.wake.set()

    async def _loop(self) -> None:
        state, store = self.state, self.store
        queue: deque[Planned] = deque(store.pending())
        while True:
            self.wake.clear()  # what happens from here on (a bot dials, a grace ends) wakes the wait below
            if self.roster_changed:
                await self._refresh()
            await self._admit_dial_ins()
            held: list[Planned] = []  # matches whose dial-in bot is away, within its grace
            while not state.stopping and not state.paused and len(self.tasks) < state.concurrency:
                if not queue:
                    planned = ledger.plan_next(store, self.config, self.env, state.target, self._available)
                    if isinstance(planned, ledger.Finished):
                        state.finished = planned
                        break
                    if planned is ledger.WAIT:
                        break
                    queue.extend(planned)
                    continue
                match = queue.popleft()
                if store.status_of(match.id) != PLANNED:
                    continue  # cancelled since it was planned
                away = self._away(match)
                if away is not None:  # not charged: held while the bot may come back, then cancelled
                    if away[1]:
                        with store.transaction():
                            store.mark(match.id, CANCELLED, f"{away[0]} was not connected")
                    else:
                        held.append(match)
                    continue
                await self._start_seats(match)
                task = asyncio.ensure_future(self.play(match))
                self.tasks[task] = match
                self.uses[task] = [self.endpoints[k] for k in set(self._slots(match)) if k in self.endpoints]
            queue.extendleft(reversed(held))
            state.in_flight = len(self.tasks)
            if not self.tasks:
                if state.stopping or (state.finished is not None and not state.service):
                    return
                if not held and not queue:
                    queue.extend(store.pending())
                if held or state.paused or state.finished is not None or (not queue and self._someone_waited_for()):
                    # A dial-in bot's return or grace's end, a bot joining, a resume: each wakes the loop.
                    await self._idle()
                    state.finished = None  # (a service run) look again: the roster may have changed
                    continue
                if not queue:  # waiting on nothing: the database is not as the ledger left it
                    raise RuntimeError("planning waits for matches that are neither planned nor in flight")
                continue
            self.wake.clear()
            waker = asyncio.ensure_future(self.wake.wait())
            done, _ = await asyncio.wait([*self.tasks, waker], return_when=asyncio.FIRST_COMPLETED)
            waker.cancel()
            for task in done & self.tasks.keys():  # not the waker
                match = self.tasks.pop(task)
                self.uses.pop(task, None)
                if task.cancelled():
                    continue  # dropped at a second Ctrl-C: it stays planned
                await self._store(match, task.result())
            await self._stop_spent()
            state.in_flight = len(self.tasks)

    def _someone_waited_for(self) -> bool:
        """Planning waits for a bot that may come: a dial-in bot away, or one at its hourly bound."""
        if any(self._away_since(bot) is not None for bot in self.dial_ins):
            return True
        return self.state.per_hour is not None and self.state.service

    async def _idle(self) -> None:
        """Wait for the loop to be woken; in a service run with an hourly bound, a minute at most (a bot's
        count falls as its matches grow an hour old, and nothing else says when)."""
        if self.state.per_hour is None or not self.state.service:
            await self.wake.wait()
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.wake.wait(), timeout=RATION_POLL_S)

    # -- a service run's changes -------------------------------------------------------------

    def folders_in_use(self) -> set[str]:
        """The folders this run's bot processes were launched in, those on their way out included:
        nothing in them may go while one runs (an author's old version, say)."""
        return {e.cwd for e in (*self.endpoints.values(), *self.spent) if e.cwd is not None}

    def changed(self, config: LadderConfig | None = None) -> None:
        """The roster changed (a bot added, a version chosen, a suspension, a reinstatement): the loop takes
        it up before it plans again. ``config``: ladder.toml as it is now, if that changed."""
        if config is not None:
            self.config = config
            # At once, not at the refresh: a bot given its token dials as soon as its author has it.
            self.dial_ins.clear()
            self.dial_ins.update(b.name for b in config.bots if b.bot_spec.kind is SpecKind.DIAL_IN)
        self.roster_changed = True
        self.wake.set()

    async def _refresh(self) -> None:
        """Bring the endpoints in line with the roster: a bot whose spec or folder changed (a version chosen)
        is started anew, one that is no longer active is taken out of play, one that is active and has no
        process gets its first."""
        self.roster_changed = False
        store = self.store
        bots = {bot.name: bot for bot in self.config.bots}
        with store.transaction():
            for bot in self.config.bots:
                if store.current_entry(bot.name) is None:
                    store.add_entry(bot.name, store.free_name(bot.name), bot.spec, (None, None, None))
        for entry in store.entries():
            if entry.id in self.started_as and (
                entry.status != ACTIVE or self.started_as[entry.id] != bots.get(entry.base)
            ):
                self._take_out(entry.id)
        fresh = [
            e
            for e in store.entries([ACTIVE])
            if e.base in bots and e.base not in self.dial_ins and e.id not in self.started_as
        ]
        await self._first_start(fresh)
        await self._stop_spent()

    def _take_out(self, entry_id: int) -> None:
        """The entry's processes out of play (stopped once no match in flight uses them)."""
        self.started_as.pop(entry_id, None)
        for key in [k for k in self.endpoints if k[0] == entry_id]:
            self.spent.append(self.endpoints.pop(key))

    async def _store(self, planned: Planned, outcome: Outcome) -> None:
        state = self.state
        spans = self.log_spans.pop(planned.id, [])
        away = self._left_before_it_began(planned, outcome)
        if away is not None:  # not charged: as if it had been seen gone before the match began
            with self.store.transaction():
                self.store.mark(planned.id, CANCELLED, f"{away} was not connected")
            return
        try:
            with self.store.transaction():  # the result and where its seats' output is, together
                self.store.save_match_logs(planned.id, spans)
                events = ledger.record(self.store, self.config, self.env, outcome, planned.seats)
        except DuplicateResult as refused:  # played twice (a retry): the first result stands, rated once
            self.note(str(refused))
            return
        state.played += 1
        state.decisions += outcome.decisions
        state.times.append(time.monotonic())
        for fault in outcome.faults:
            name = self.store.entry(planned.seats[fault.seat]).name
            state.faults.append(f"match {planned.id}, {name} (seat {fault.seat}): {fault.kind}: {fault.detail}")
        for name, reason in events.suspended:
            self.note(f"{name} suspended: {reason}", suspension=True)
            entry = self.store.entry_named(name)
            if entry is not None:
                self._take_out(entry.id)
        for bot in sorted({planned.seats[f.seat] for f in outcome.faults if f.kind == FaultKind.CRASH}):
            await self._restart_if_dead(bot)

    def note(self, text: str, *, suspension: bool = False) -> None:
        (self.state.suspensions if suspension else self.state.notes).append(text)


def _size(log: Path | None) -> int:
    try:
        return 0 if log is None else log.stat().st_size
    except OSError:  # rotated away, or not made yet
        return 0


def _identity(entry: Entry) -> tuple[str | None, str | None, str | None]:
    return (entry.hello_name, entry.hello_version, entry.files_hash)


async def run(folder: Path, config: LadderConfig, store: Store, state: RunState) -> RunState:
    """Play the run on this machine (``waraq.ladder.play.ray_cluster.run``: on a Ray cluster)."""
    return await Scheduler(folder, config, store, state).run()

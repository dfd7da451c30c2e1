"""Bots as the referee reaches them: an address, or a command it launches and stops.

An endpoint is made ready once per run (launched, healthy, ``Hello`` answered)
and then gives a fresh :class:`~waraq.referee.match.seats.RemoteSeat` for every seat of
every match, all over one channel: one bot process serves every concurrent
match it plays in. It keeps the ``HelloReply``, which each seat checks against
its own match when opened (:mod:`waraq.referee.match.hello`); a bot whose Hello gives no
name is called by a label of its spec (:func:`waraq.referee.match.hello.label`). A bot
that cannot be made ready keeps the reason, and each of its seats faults with
``STARTUP`` when opened, so the run goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shlex
import signal
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from waraq.referee.common import built_in
from waraq.referee.common.digits import ascii_digits
from waraq.referee.human.desk import Desk
from waraq.referee.human.seat import HumanSeat, person_hello
from waraq.referee.launch import bot_log, sandbox
from waraq.referee.launch.bot_socket import BotSocketError
from waraq.referee.lobby.lobby import Lobby
from waraq.referee.lobby.seat import DialInSeat
from waraq.referee.match import hello
from waraq.referee.match.faults import Fault, FaultCode
from waraq.referee.match.seats import Answer, Question, RemoteSeat, Via, open_channel
from waraq.referee.wire import common as wire
from waraq.v1 import bot_pb2 as pb

STOP_GRACE_S = 3.0  # what a launched bot has, after SIGTERM, to end on its own before SIGKILL
ENDING_GRACE_S = 1.0  # what the bots' finished streams have, at stop, to take their MatchEnd and close
EXIT_GRACE_S = 2.0  # for a bot's process to be seen ending once its stream broke


class Ending(StrEnum):
    """How :meth:`Endpoint.stop` found a launched bot's process end."""

    GONE = "gone"  # it had ended before stop() (it crashed, or exited at start-up)
    ON_TERM = "on_term"  # it ended within the grace after SIGTERM
    KILLED = "killed"  # it still ran when the grace was over: SIGKILL


@dataclass(frozen=True)
class StopReport:
    """A launched bot's end, as ``waraq check-bot`` reports it."""

    ending: Ending
    ms: float  # from SIGTERM to its end, or to SIGKILL once the grace was over; 0 when GONE
    # Its exit status as the process the referee launched: the bot's own in a sandbox (bubblewrap
    # passes it on: 128 + N for a bot ended by signal N), the negated signal unconfined (-15).
    returncode: int | None

    @property
    def exited_on_term(self) -> bool:
        return self.ending is Ending.ON_TERM


class SpecKind(StrEnum):
    """What a bot spec names; the values are how ladder.toml and the records' labels have always said it."""

    BUILTIN = "builtin"  # a name in :mod:`waraq.referee.common.built_in`'s table
    COMMAND = "command"  # a command line with {port} or {socket}, launched by the referee
    ADDRESS = "address"  # a bot already listening: host:port or unix:PATH
    DIAL_IN = "dial-in"  # a bot that dials the referee's lobby with a token (waraq.referee.lobby)
    HUMAN = "human"  # a person, who plays through a page the referee serves (waraq.referee.human)

    @property
    def one_server(self) -> bool:
        """Whether one bot serves every seat it holds, which the referee cannot split into a process a
        seat: an address someone else runs, a bot that dials in."""
        return self in (SpecKind.ADDRESS, SpecKind.DIAL_IN)


# A name a user gives a bot before its spec, ``mine=node bot.js --port {port}``: letters, digits and
# ``_ . -``, from a letter or digit. So it is never the start of a spec with an ``=`` of its own: a
# command's words before one hold a space (``--opt=x``), an address a ``:``, a path a ``/``.
USER_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


@dataclass(frozen=True)
class BotSpec:
    """How to reach one bot: a :class:`SpecKind` and its text; and the name its user gave it, if any."""

    kind: SpecKind
    value: str
    # ``NAME=SPEC``'s NAME: what ``waraq match`` calls the bot (its summary, its records' seats) instead
    # of its Hello name; "" when none was given. Two specs that differ in it only are two bots.
    name: str = ""

    @classmethod
    def parse(cls, text: str) -> BotSpec:
        """``SPEC`` or ``NAME=SPEC`` (:data:`USER_NAME`): a built-in name, a command, an address."""
        name, equals, spec = text.strip().partition("=")
        if not (equals and USER_NAME.fullmatch(name)):
            name, spec = "", text
        text = spec.strip()
        if text in built_in.names():
            return cls(SpecKind.BUILTIN, text, name)
        if text in (SpecKind.DIAL_IN, SpecKind.HUMAN):
            return cls(SpecKind(text), text, name)
        if "{port}" in text or "{socket}" in text:
            return cls(SpecKind.COMMAND, text, name)
        if text.startswith("unix:") or _looks_like_address(text):
            return cls(SpecKind.ADDRESS, text, name)
        named = f" (named {name!r})" if name else ""
        raise ValueError(
            f"bot {text!r}{named} is none of: a built-in bot ({', '.join(built_in.names())}), a command with "
            "{port} or {socket} (e.g. 'node sample_bots/starters/js/bot.js --port {port}'), "
            "an address (host:port, unix:PATH), dial-in (a bot that dials the lobby), or human (a person, "
            "through a page)"
        )

    def command(self) -> str | None:
        if self.kind == SpecKind.BUILTIN:
            return f"{shlex.quote(sys.executable)} -m {built_in.SERVER} {self.value} --unix {{socket}}"
        return self.value if self.kind == SpecKind.COMMAND else None

    def __str__(self) -> str:
        return self.value


def a_bot(spec: BotSpec, what: str) -> BotSpec:
    """``spec`` when it names a bot; a person is refused where only a bot makes sense (``what`` says where)."""
    if spec.kind is SpecKind.HUMAN:
        raise ValueError(f"{what} asks a bot, not a person: 'human' sits at `waraq match` only")
    return spec


def spec_kinds() -> str:
    """The kinds of bot spec, for a command's help: every command that takes a bot says the same."""
    return (
        f"a built-in bot ({', '.join(built_in.names())}), a command with {{port}} or {{socket}}, "
        "an address (host:port, unix:PATH), dial-in (a bot that dials the lobby with a token), or human "
        "(a person, who plays through a page the command serves)"
    )


def partners_served_together(per_seat: Sequence[BotSpec], teams: int) -> list[str]:
    """A line for each address bot that holds two seats of one team: one server, sent both hands.

    A launched bot plays each seat in a process of its own; an address is one server the referee
    cannot split (docs/security.md, "What this does not stop")."""
    if teams >= len(per_seat):
        return []  # each seat alone: no partners
    seats: dict[str, list[int]] = {}
    for seat, spec in enumerate(per_seat):
        if spec.kind.one_server:
            who = f"at {spec.value}" if spec.kind is SpecKind.ADDRESS else f"{spec.name or spec.value} (dial-in)"
            seats.setdefault(who, []).append(seat)
    lines = []
    for who, held in seats.items():
        partners = [seat for seat in held if any(other % teams == seat % teams for other in held if other != seat)]
        if partners:
            named = ", ".join(map(str, partners[:-1])) + f" and {partners[-1]}"
            lines.append(
                f"note: the bot {who} holds partner seats {named}: one server is sent both partners' "
                "hands (a command bot plays each seat in a process of its own)"
            )
    return lines


def _looks_like_address(text: str) -> bool:
    host, _, port = text.rpartition(":")
    return bool(host) and ascii_digits(port) and " " not in text


class Endpoint:
    """One bot for a whole run: ready it, hand out seats, stop it."""

    def __init__(
        self,
        spec: BotSpec,
        *,
        startup_ms: float,
        log_dir: Path | None = None,
        cwd: str | None = None,
        confinement: sandbox.Config = sandbox.DEFAULT,
        warn: Callable[[str], None] | None = None,
        lobby: Lobby | None = None,
        dial_name: str = "",
        desk: Desk | None = None,
    ) -> None:
        self.spec = spec
        self.desk = desk  # a human seat's: the people of the run and their pages
        # A dial-in bot's lobby, and its name there (whose token it dials with).
        self.lobby = lobby
        self.dial_name = dial_name or spec.name or spec.value
        self.startup_s = startup_ms / 1000
        self.log_dir = log_dir
        self.cwd = cwd or None  # a command runs here (default: the referee's folder)
        self.confinement = confinement
        self._warn = warn
        self.launch: sandbox.Launch | None = None
        self.name = hello.label(spec.kind, spec.value)  # until its Hello names it
        self.version = ""
        self.hello: pb.HelloReply | None = None  # once it answered: every seat checks it (waraq.referee.match.hello)
        self.address = spec.value if spec.kind == SpecKind.ADDRESS else ""
        self.failure: Fault | None = None
        self.process: asyncio.subprocess.Process | None = None
        self.pid: int | None = None  # of a launched bot, kept after it stops (its process group id)
        self.log_path: Path | None = None
        self.stopped: StopReport | None = None  # how a launched bot ended, once stop() ended it
        self._channel: grpc.aio.Channel | None = None
        self._endings: set[asyncio.Task[Any]] = set()  # its seats' streams told the end, not yet closed

    async def start(self) -> None:
        """Launch if needed, wait until healthy, ask ``Hello``; on failure keep the reason.
        A dial-in bot: wait until it has dialled, and take the Hello it dialled with."""
        if self.spec.kind is SpecKind.DIAL_IN:
            await self._dialled_in()
            return
        if self.spec.kind is SpecKind.HUMAN:
            await self._seated_person()
            return
        try:
            await asyncio.wait_for(self._start(), self.startup_s)
        except TimeoutError:
            within = f"{self.startup_s * 1000:.0f} ms"
            tail = await self._log_tail()
            self.failure = Fault(FaultCode.NOT_READY, f"{self.spec} was not ready within {within}" + tail)
        except Fault as fault:
            self.failure = fault
        if self.failure is not None:
            await self.stop()

    async def _start(self) -> None:
        command = self.spec.command()
        if command is not None:
            await self._launch(command)
            await self._reach()
        self._channel = open_channel(self.address)
        await self._wait_healthy()
        ask = self._channel.unary_unary(
            hello.METHOD, request_serializer=pb.HelloRequest.SerializeToString, response_deserializer=hello.parse
        )
        try:
            reply = await ask(pb.HelloRequest(protocol_version=wire.PROTOCOL_VERSION, referee="waraq"))
        except grpc.aio.AioRpcError as error:
            detail = f"{self.spec} did not answer Hello: {error.code().name} {error.details()}"
            raise Fault(FaultCode.HELLO_FAILED, detail) from None
        if reply is None:
            raise Fault(FaultCode.HELLO_UNREADABLE, f"{self.spec} answered Hello with bytes that are no HelloReply")
        self.hello = reply
        self.name = reply.name or self.name
        self.version = reply.version

    async def _dialled_in(self) -> None:
        lobby = self.lobby
        if lobby is None:
            self.failure = Fault(FaultCode.NOT_DIALLED_IN, f"{self.dial_name}: a dial-in bot, and no lobby listens")
            return
        if not await lobby.wait_for(self.dial_name, self.startup_s):
            within = f"{self.startup_s * 1000:.0f} ms"
            self.failure = Fault(
                FaultCode.NOT_DIALLED_IN, f"dial-in bot {self.dial_name} did not dial in within {within}"
            )
            return
        self.hello = lobby.hello(self.dial_name)
        if self.hello is not None:
            self.name = self.spec.name or self.hello.name or self.name
            self.version = self.hello.version

    async def _launch(self, command: str) -> None:
        try:
            launch = sandbox.confine(shlex.split(command), cwd=self.cwd, config=self.confinement, warn=self._warn)
        except sandbox.SandboxError as error:
            raise Fault(FaultCode.CANNOT_CONFINE, f"{self.spec}: {error}") from None
        self.launch = launch
        # Named after the bot and rotated among its logs (bot_log): a folder listing, off the loop.
        who = "\0".join((self.spec.kind, self.spec.value, os.path.abspath(self.cwd or os.curdir)))
        log, self.log_path = await asyncio.to_thread(bot_log.create, self.spec.name or self.name, who, self.log_dir)
        try:
            # A session of its own, so stop() can end the bot and all its children.
            self.process = await asyncio.create_subprocess_exec(
                *launch.argv,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                start_new_session=True,
                env=launch.env,
                pass_fds=launch.pass_fds,
                cwd=None if launch.confined else launch.cwd,  # a sandbox changes folder itself
            )
        except OSError as error:
            launch.cleanup()
            bot_log.release(self.log_path)
            raise Fault(
                FaultCode.COULD_NOT_LAUNCH,
                f"could not start {command!r}: {error.strerror or error}{self._resolved_in(command)}",
            ) from None
        finally:
            log.close()
        launch.spawned()
        self.pid = self.process.pid
        self.address = launch.address

    async def _reach(self) -> None:
        """Wait for a launched bot's socket, and dial it the one way the bot cannot redirect
        (:meth:`sandbox.Launch.reach`); a bot that puts anything else at its socket's path faults."""
        launch, process = self.launch, self.process
        assert launch is not None and process is not None  # only ever called after _launch
        while True:
            try:
                address = launch.reach(process.pid)
            except BotSocketError as error:
                raise Fault(FaultCode.BAD_SOCKET, f"{self.spec}: {error}") from None
            if address is not None:
                self.address = address
                return
            await self._raise_if_exited()
            await asyncio.sleep(0.02)

    async def _raise_if_exited(self) -> None:
        """The ``exited_at_startup`` fault, once a launched bot has ended before it was ready."""
        process = self.process
        if process is None or process.returncode is None:
            return
        limit = self.limit_hit()
        tail = await self._log_tail()
        why = ""
        if process.returncode in sandbox.CANNOT_RUN:
            why = f" ({sandbox.CANNOT_RUN[process.returncode]}{self._resolved_in(self.spec.command() or '')})"
        confined = self.launch is not None and self.launch.confined
        if confined and (why or "Permission denied" in tail):  # a script of mode 700 ends as its shell says
            why += "; " + sandbox.WHAT_A_BOT_SEES
        raise Fault(
            FaultCode.EXITED_AT_STARTUP,
            f"{self.spec} exited with status {process.returncode} before it was ready"
            + (f" ({limit})" if limit else "")
            + why
            + tail,
        )

    def _resolved_in(self, command: str) -> str:
        """Where a relative program path of ``command`` was looked up: a fault names the folder."""
        words = shlex.split(command)
        program = words[0] if words else ""
        if "/" not in program or os.path.isabs(program):
            return ""
        folder = self.launch.cwd if self.launch is not None and self.launch.cwd else (self.cwd or os.getcwd())
        return f"; {program} is resolved in {os.path.abspath(folder)}"

    async def _ended_by_limit(self) -> str | None:
        """Once the launched bot has ended (a broken stream comes first), the limit that ended it."""
        process = self.process
        if process is None or self.launch is None or not self.launch.confined:
            return None
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(process.wait()), EXIT_GRACE_S)
        return self.limit_hit()

    def limit_hit(self) -> str | None:
        """The sandbox limit that ended the launched bot, once it has ended by one."""
        process, launch = self.process, self.launch
        if process is None or launch is None:
            return None
        return launch.limit_hit(process.returncode)

    async def _wait_healthy(self) -> None:
        """Poll the standard health service; a bot without it is ready once it answers Hello."""
        health = health_pb2_grpc.HealthStub(self._channel)
        while True:
            await self._raise_if_exited()
            try:
                reply = await health.Check(health_pb2.HealthCheckRequest(service=""), timeout=1.0)
                # None: bytes that are no HealthCheckResponse (gRPC logs them), which is not serving
                if reply is not None and reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.aio.AioRpcError as error:
                if error.code() == grpc.StatusCode.UNIMPLEMENTED:
                    return
            await asyncio.sleep(0.05)

    async def _seated_person(self) -> None:
        """A person: ready once their page has been opened (within the start-up time)."""
        person = self.desk.person(self.dial_name) if self.desk is not None else None
        if person is None:
            self.failure = Fault(FaultCode.NOT_READY, f"{self.dial_name}: a human seat, and no page is served")
            return
        try:
            async with asyncio.timeout(self.startup_s):
                await person.opened.wait()
        except TimeoutError:
            within = f"{self.startup_s * 1000:.0f} ms"
            self.failure = Fault(FaultCode.NOT_READY, f"{self.dial_name}'s page was not opened within {within}")
            return
        self.hello = person_hello(person.name)
        self.name, self.version = self.hello.name, self.hello.version

    def seat(self) -> RemoteSeat | FailedSeat:
        if self.failure is None and self.lobby is not None and self.spec.kind is SpecKind.DIAL_IN:
            return DialInSeat(self.lobby, self.dial_name, self.name, self.version, wait_s=self.startup_s)
        if self.failure is None and self.spec.kind is SpecKind.HUMAN and self.desk and self.hello:
            return HumanSeat(self.desk.person(self.dial_name), self.hello)
        if self.failure is not None or self._channel is None:
            return FailedSeat(self.name, self.failure or Fault(FaultCode.NOT_STARTED, "not started"), self.via)
        seat = RemoteSeat(
            self._channel,
            self.name,
            self.version,
            hello=self.hello,
            explain=self._ended_by_limit,
            endings=self._endings,
        )
        seat.via = self.via
        return seat

    @property
    def via(self) -> Via:
        if self.spec.kind is SpecKind.DIAL_IN:
            return Via.DIAL_IN
        if self.spec.kind is SpecKind.HUMAN:
            return Via.HUMAN
        return Via.ADDRESS if self.spec.kind is SpecKind.ADDRESS else Via.LAUNCHED

    async def stop(self, grace_s: float = STOP_GRACE_S) -> StopReport | None:
        """Close the channel; end a launched bot: SIGTERM to its processes, ``grace_s`` to end, then SIGKILL.

        Confined or not, the bot itself is sent SIGTERM (:meth:`sandbox.Launch.terminate`).
        Returns how it ended, kept as :attr:`stopped` (a second call returns it again);
        None for a bot the referee did not launch.
        """
        if self._channel is not None:
            if self._endings:  # the last matches' ends, delivered before the channel goes
                await asyncio.wait(set(self._endings), timeout=ENDING_GRACE_S)
            await self._channel.close()
            self._channel = None
        process, self.process = self.process, None
        if process is None:
            return self.stopped
        if process.returncode is not None:
            self.stopped = StopReport(Ending.GONE, 0.0, process.returncode)
        else:
            assert self.launch is not None  # a process is only ever a launch's
            begun = time.perf_counter()
            self.launch.terminate(process.pid)
            ending = Ending.ON_TERM
            try:
                await asyncio.wait_for(process.wait(), grace_s)
            except TimeoutError:
                ending = Ending.KILLED
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
            ms = (time.perf_counter() - begun) * 1000
            await process.wait()
            self.stopped = StopReport(ending, ms, process.returncode)
        # Children that outlived their parent are still in the group, also when the bot
        # itself exited on its own (crashed mid-match, or at start-up). A sandbox's other
        # processes die with its PID namespace.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        if self.launch is not None:
            self.launch.cleanup()
        bot_log.release(self.log_path)
        return self.stopped

    async def _log_tail(self, lines: int = 5) -> str:
        """The last lines of a launched bot's log, for a STARTUP fault: its tail only, read off the loop."""
        if self.log_path is None:
            return ""
        tail = await asyncio.to_thread(bot_log.tail, self.log_path, lines)
        return ("; its output ended: " + " | ".join(tail)) if tail else ""


class FailedSeat:
    """The seat of a bot that could not be made ready: opening it raises that reason again, a
    ``STARTUP`` fault with its code (``not_ready``, ``exited_at_startup``, ..)."""

    def __init__(self, bot: str, failure: Fault, via: Via = Via.LAUNCHED) -> None:
        self.bot = bot
        self.version = ""
        self.via = via
        self._failure = failure

    async def open(self, start: pb.MatchStart) -> None:
        raise Fault(self._failure.code, self._failure.detail)

    async def ask(self, question: Question) -> Answer:
        raise Fault(self._failure.code, self._failure.detail)

    async def finish(self, end: pb.MatchEnd | None) -> None:
        return None

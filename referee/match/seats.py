"""Seats: how the referee puts one seat's questions to a bot.

A seat is opened for one match, asked for each of its decisions, told the
end, and closed. Whatever goes wrong on the way is raised as a typed
:class:`~waraq.referee.match.faults.Fault` with its code (docs/records.md "### Fault codes"),
never as anything else, so the match runner can apply its policy and go on. Every seat
keeps the :class:`Seat` contract; two kinds are here:

* :class:`RemoteSeat`: a bot reached over gRPC (a remote address, or a
  launched bot's); one ``Play`` stream per match, in lockstep;
* :class:`InProcessSeat`: a Python callable taking the seat's view (tests,
  benchmarks), with the same deadlines.

Seats know no game: a question carries whichever game's view, and
:mod:`waraq.referee.wire.codec` writes and reads the messages of each.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol, runtime_checkable

import grpc
from google.protobuf.message import DecodeError

from waraq.referee.match.faults import Fault, FaultCode
from waraq.referee.match.hello import mismatch
from waraq.referee.wire import codec as wire
from waraq.v1 import bot_pb2 as pb


@dataclass(slots=True)
class Answer:
    action: Any  # the engine's value; legality is the runner's check
    note: str = ""
    bot_ms: float | None = None


@dataclass(slots=True)
class Question:
    """One decision put to a seat: its view (of whichever game) and the clock."""

    seq: int
    view: Any  # HokmView, HandView: the engine's view of the seat to act
    match_id: str
    deadline_ms: float
    bank_ms: float
    # Called once the question is on its way, before the reply is awaited: the runner's
    # work that can wait for it (writing the record of the decision before) runs while
    # the bot thinks. A seat that does not call it costs only that time.
    on_sent: Callable[[], None] | None = None

    @property
    def timeout_s(self) -> float:
        return (self.deadline_ms + self.bank_ms) / 1000


class LineLost(Exception):
    """Raised by a seat's call that is no gRPC call (a dial-in line, :mod:`waraq.referee.lobby.line`)
    when the seat is lost for a reason of its own: :class:`RemoteSeat` charges ``fault`` as it is."""

    def __init__(self, fault: Fault) -> None:
        super().__init__(fault.detail)
        self.fault = fault


class Via(StrEnum):
    """How a seat reaches its bot: the record's ``seats[].via`` (docs/records.md)."""

    LAUNCHED = "launched"  # a process the referee started, over its socket or port
    ADDRESS = "address"  # a server someone else runs, at an address the referee dials
    DIAL_IN = "dial-in"  # a bot that dialled the referee's lobby (waraq.referee.lobby)
    HUMAN = "human"  # a person, through a page the referee serves (waraq.referee.human)
    IN_PROCESS = "in-process"  # a Python callable in the referee's own process (tests, benchmarks)


@runtime_checkable
class TellsConnections(Protocol):
    """A seat whose bot may drop and come back mid-match: the match gives it a way to write the
    record's ``connection`` lines (a dial-in seat, waraq.referee.lobby.seat)."""

    tell: Callable[[dict[str, Any]], None] | None


class Seat(Protocol):
    """What the match (:func:`waraq.referee.match.play.run_match`) needs of a seat, for one match.

    ``open`` once, then ``ask`` once per decision of the seat, then ``finish``
    once, whatever happened. ``open`` and ``ask`` raise nothing but a
    :class:`~waraq.referee.match.faults.Fault`; anything else is a bug of the
    referee and aborts the match. ``ask`` returns an :class:`Answer` whose action
    the match checks (legality is not the seat's business), and calls
    ``question.on_sent`` once the question is on its way if it can. ``finish``
    is told the end (None: the match did not reach one) and is best effort: what
    it raises is ignored.
    """

    bot: str  # the bot's name, for the record
    version: str
    # A seat may also say how it reaches its bot, ``via`` (a Via): the record's header writes it.

    async def open(self, start: pb.MatchStart) -> None: ...

    async def ask(self, question: Question) -> Answer: ...

    async def finish(self, end: pb.MatchEnd | None) -> None: ...


class RemoteSeat:
    """One seat played by a gRPC bot over a ``Play`` stream (a connection state machine:
    idle -> open -> (asking -> open)* -> finished, or dead after a fault)."""

    def __init__(
        self,
        channel: grpc.aio.Channel | None,
        bot: str,
        version: str,
        *,
        hello: pb.HelloReply | None = None,
        explain: Callable[[], Awaitable[str | None]] | None = None,
        endings: set[asyncio.Task[Any]] | None = None,
    ) -> None:
        # The generated stub's Play, but taking decisions already serialized (waraq.referee.wire.hokm_bytes).
        # Without a channel, a subclass gives its own call before opening (waraq.referee.lobby.seat).
        self._play: Callable[[], Any] | None = None
        self._channel = channel
        if channel is not None:
            self._play = channel.stream_stream(
                PLAY_METHOD, request_serializer=_serialize, response_deserializer=_deserialize
            )
        self._loop: asyncio.AbstractEventLoop | None = None
        self.bot = bot
        self.version = version
        self.via = Via.ADDRESS  # its endpoint says when it launched the bot
        self.hello = hello  # the bot's Hello, checked against each MatchStart (None: not checked)
        self._call: Any = None
        self._dead: Fault | None = None
        # Questions settled by a fault on a stale reply (an extra reply to an earlier question):
        # their own reply may still come, and must not be read as the answer to a later question.
        self._unread: set[int] = set()
        self._timer: asyncio.TimerHandle | None = None
        self._waiter: asyncio.Task[Any] | None = None  # the task awaiting a reply, while one is due
        self._deadline = 0.0  # loop time by which that reply is due
        self._expired = False
        self._send_s = SEND_S  # how long a message may wait for the bot to take it
        # Asked when the stream breaks: why the bot's process ended, if the referee knows
        # (a launched bot killed by a sandbox limit), so the fault names the limit.
        self._explain = explain
        # check-bot's probes (waraq.referee.conformance): a rewrite of every serialized MatchStart and
        # DecisionRequest sent (to add fields of a later waraq.v1), and whether to wait, after MatchEnd,
        # for the bot to close its side; ``closed_ms`` is then how long it took (None: it did not).
        self.rewrite: Callable[[bytes], bytes] | None = None
        self.watch_close = False
        self.closed_ms: float | None = None
        # The streams told their end and still open, while the bot reads its MatchEnd and closes its
        # side: the owner of the channel waits on them before closing it (RemoteSeat.finish).
        self._endings = endings

    async def open(self, start: pb.MatchStart) -> None:
        # Kept: asking asyncio for the running loop costs a getpid() system call each time (3.11).
        self._loop = asyncio.get_running_loop()
        problem = mismatch(self.hello, start.game, start.players) if self.hello is not None else None
        if problem is not None:
            raise self._lose(problem)
        # Sending waits only on the bot taking the bytes (HTTP/2 flow control), which takes no
        # thinking: a bot that takes none within a whole reply's time (deadline + bank) has
        # stopped reading. The deadline alone is too tight on a loaded machine: opening the
        # stream is a round trip, and a 5 ms deadline lost matches at open under load.
        clock = start.time_control
        self._send_s = ((clock.decision_ms + clock.bank_ms) or SEND_S * 1000) / 1000
        assert self._play is not None  # a channel's, or the subclass's
        try:
            opening = pb.RefereeMessage(start=start)
            message: bytes | pb.RefereeMessage = opening
            if self.rewrite is not None:
                message = self.rewrite(opening.SerializeToString())
            await self._open_stream(message)
        except TimeoutError:
            within = f"{self._send_s * 1000:.0f} ms"
            raise self._die(
                FaultCode.OPEN_TIMED_OUT, f"could not open the Play stream: the bot took no MatchStart within {within}"
            ) from None
        except (grpc.RpcError, grpc.aio.UsageError) as error:  # UsageError: the channel is closed
            detail = await self._why(f"could not open the Play stream: {_rpc(error)}")
            raise self._die(FaultCode.OPEN_FAILED, detail) from None
        except LineLost as lost:
            raise self._lose(lost.fault) from None

    async def _open_stream(self, message: bytes | pb.RefereeMessage) -> None:
        """Start the Play stream with ``message``; again, for REOPEN_S, while gRPC is between connections.

        For a moment after a connection broke, gRPC fails a new call at once instead of
        reconnecting: UNAVAILABLE (the broken connection's own error), or INTERNAL when
        the call was started on the transport being torn down (29 of 900 opens made at
        once after a break, on a loaded machine). The bot may be fine; it is given
        REOPEN_S to be reached again before the failure is its fault. That wait is not
        the time the bot has to take its MatchStart, which each try has in full.
        """
        assert self._play is not None
        pause, began = 0.01, time.monotonic()
        while True:
            self._call = self._play()
            try:
                async with asyncio.timeout(self._send_s):
                    await self._call.write(message)
                return
            except grpc.aio.AioRpcError as error:
                if error.code() not in REOPENABLE or self._channel is None or time.monotonic() - began > REOPEN_S:
                    raise
            self._call.cancel()
            await asyncio.sleep(pause)  # a backoff, as gRPC's own reconnection has
            pause = min(2 * pause, 0.25)

    async def ask(self, question: Question) -> Answer:
        if self._dead is not None:
            raise Fault.again(self._dead)
        request = wire.decision_message(
            question.seq,
            question.view,
            match_id=question.match_id,
            deadline_ms=question.deadline_ms,
            bank_ms=question.bank_ms,
        )
        if self.rewrite is not None:
            request = self.rewrite(request)
        task = asyncio.current_task(self._loop)
        self._watch(task, question.timeout_s)
        try:
            await self._call.write(request)
            if question.on_sent is not None:
                question.on_sent()
            message = await self._call.read()
            while self._unread and _is_reply(message) and message.reply.seq in self._unread:
                # A late reply to a question already settled: not the answer to this one.
                self._unread.discard(message.reply.seq)
                message = await self._call.read()
        except asyncio.CancelledError:
            if self._expired and task is not None and task.uncancel() == 0:
                raise self._die(
                    FaultCode.NO_REPLY, f"no reply within {question.timeout_s * 1000:.0f} ms (deadline + bank)"
                ) from None
            raise  # cancelled from outside: the match is being stopped
        except (grpc.RpcError, grpc.aio.UsageError, asyncio.InvalidStateError) as error:
            if _too_big(error):  # the bot is alive and sent too much: no crash
                detail = f"a message over the referee's limit of {REPLY_LIMIT} bytes ({_rpc(error)})"
                raise self._die(FaultCode.REPLY_TOO_BIG, detail) from None
            raise self._die(FaultCode.STREAM_BROKEN, await self._why(f"the stream broke: {_rpc(error)}")) from None
        except LineLost as lost:
            raise self._lose(lost.fault) from None
        finally:
            self._waiter = None
        if message is grpc.aio.EOF:
            raise self._die(FaultCode.STREAM_CLOSED, await self._why("the bot closed the stream before replying"))
        try:
            return _answer(question, message, self._unread)
        except Fault as fault:  # (a try costs nothing until it catches)
            if fault.lost:
                self._lose(fault)
            raise

    # -- the clock ------------------------------------------------------------------------
    #
    # One timer per seat, re-armed only when it fires early, instead of a timeout
    # context per decision: deadlines are seconds long and replies come in a
    # millisecond, so a timer per decision was scheduled and cancelled some
    # thousand times for every time one fired (bench/transport.py).

    def _watch(self, task: asyncio.Task[Any] | None, timeout_s: float) -> None:
        loop = self._loop
        assert loop is not None  # opened
        self._waiter = task
        self._deadline = loop.time() + timeout_s
        if self._timer is None:
            self._timer = loop.call_at(self._deadline, self._check_deadline)

    def _check_deadline(self) -> None:
        self._timer = None
        if self._waiter is None:
            return  # no question outstanding: the next one arms the timer again
        loop = self._loop
        assert loop is not None
        if loop.time() >= self._deadline:
            self._expired = True
            self._waiter.cancel()
        else:  # armed for an earlier question, which was answered in time
            self._timer = loop.call_at(self._deadline, self._check_deadline)

    def _stop_clock(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    async def finish(self, end: pb.MatchEnd | None) -> None:
        """Tell the end (best effort) and close our side; a dead seat is only cancelled."""
        self._stop_clock()
        call, self._call = self._call, None
        if call is None:
            return
        if self._dead is None:
            try:
                async with asyncio.timeout(self._send_s):  # a bot that stopped reading is not waited for
                    if end is not None:
                        await call.write(pb.RefereeMessage(end=end))
                    await call.done_writing()
                if self.watch_close:
                    self.closed_ms = await _closed_within(call, CLOSE_WAIT_S)
                    if self.closed_ms is None:
                        call.cancel()
                elif self._endings is not None:
                    # Written is not yet read: a channel closed now (the run's last match) would cancel
                    # the stream under a MatchEnd the bot has not taken. Let it end its side first.
                    ending = asyncio.create_task(_let_close(call))
                    self._endings.add(ending)
                    ending.add_done_callback(self._endings.discard)
                return
            except (TimeoutError, grpc.RpcError, grpc.aio.UsageError, asyncio.InvalidStateError, LineLost):
                pass
        call.cancel()

    async def _why(self, detail: str) -> str:
        """``detail``, led by the limit that killed the bot when that is what broke the stream."""
        cause = await self._explain() if self._explain is not None else None
        return f"{cause} ({detail})" if cause else detail

    def _die(self, code: FaultCode, detail: str) -> Fault:
        return self._lose(Fault(code, detail))

    def _lose(self, fault: Fault) -> Fault:
        # A stream that timed out, broke or fell out of step cannot be trusted again: a
        # late reply would be taken for the next answer. The seat is lost.
        self._dead = fault
        self._stop_clock()
        if self._call is not None:
            self._call.cancel()
        return fault


_BOT = pb.DESCRIPTOR.services_by_name["Bot"]
PLAY_METHOD = f"/{_BOT.full_name}/{_BOT.methods_by_name['Play'].name}"  # "/waraq.v1.Bot/Play"


# The most a bot's message may be, in bytes: the channel's receive limit (see open_channel). A reply
# is a few hundred bytes of action and at most a 1 KiB note, a Hello a few names; what is bigger is
# no honest message, and gRPC's own default (4 MiB a message) would buffer that much per stream.
REPLY_LIMIT = 64 * 1024
CHANNEL_OPTIONS = (("grpc.max_receive_message_length", REPLY_LIMIT),)
SEND_S = 10.0  # how long a message may wait for the bot to take it, when the match says no deadline
REOPEN_S = 2.0  # how long a Play stream's opening tries again while the channel reconnects to the bot
REOPENABLE = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.INTERNAL)  # how a call fails between connections
_INF = float("inf")


CLOSE_WAIT_S = 3.0  # check-bot: how long a bot may take to close its side once told the end


async def _let_close(call: Any) -> None:
    """Wait for the bot to end its side of a finished stream, CLOSE_WAIT_S at most, then cancel it."""
    if await _closed_within(call, CLOSE_WAIT_S) is None:
        call.cancel()


async def _closed_within(call: Any, wait_s: float) -> float | None:
    """How long the bot took to end its side of the stream cleanly (nothing more sent, status OK), or None."""
    begun = time.perf_counter()
    try:
        async with asyncio.timeout(wait_s):
            message = await call.read()
            if message is not grpc.aio.EOF or await call.code() != grpc.StatusCode.OK:
                return None
    except (TimeoutError, grpc.RpcError, grpc.aio.UsageError, asyncio.InvalidStateError):
        return None
    return (time.perf_counter() - begun) * 1000


def open_channel(address: str) -> grpc.aio.Channel:
    """A channel to a bot: what it sends past REPLY_LIMIT ends the stream as a MALFORMED fault."""
    return grpc.aio.insecure_channel(address, options=CHANNEL_OPTIONS)


def _serialize(message: bytes | pb.RefereeMessage) -> bytes:
    """The Play stream's serializer: a decision comes serialized already, the rest as messages."""
    return message if isinstance(message, bytes) else message.SerializeToString()


class Unreadable:
    """What the Play stream's deserializer gives for bytes that are no ``BotMessage``.

    gRPC would give None for them (and log a traceback); this marker has no
    body, as a message with nothing set has none, so it is read as any message
    that is not a reply, and :func:`_answer` says what it was. Its fault loses
    the seat: after bytes that are no message (a length prefix that lied, say)
    the stream's next bytes cannot be trusted to be the next message.
    """

    __slots__ = ("size", "error")

    def __init__(self, size: int, error: DecodeError) -> None:
        self.size = size
        self.error = error

    def WhichOneof(self, group: str) -> None:
        return None


def _deserialize(data: bytes) -> pb.BotMessage | Unreadable:
    try:
        return _parse(data)
    except DecodeError as error:  # protobuf's only complaint about bytes (bad wire format, bad UTF-8)
        return Unreadable(len(data), error)


_parse = pb.BotMessage.FromString


def _is_reply(message: Any) -> bool:
    return message is not grpc.aio.EOF and message.WhichOneof("body") == "reply"


def _too_big(error: BaseException) -> bool:
    """Whether gRPC ended the stream for a message over the channel's receive limit."""
    return (
        isinstance(error, grpc.aio.AioRpcError)
        and error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        and "larger than max" in (error.details() or "")
    )


def _answer(question: Question, message: pb.BotMessage, unread: set[int]) -> Answer:
    """Check a reply's shape: the right message, the right seq, a well-formed action.

    A reply to an earlier question settles this one with a fault, and this one's
    own reply, should it come, goes into ``unread``: it is no answer to the next.
    """
    if message.WhichOneof("body") != "reply":
        if type(message) is Unreadable:
            detail = f"the bot sent {message.size} bytes that are no BotMessage ({message.error})"
            raise Fault(FaultCode.NOT_A_MESSAGE, detail)
        raise Fault(FaultCode.NOT_A_REPLY, "the bot sent a message that is not a reply")
    reply = message.reply
    if reply.seq != question.seq:
        if reply.seq < question.seq:
            unread.add(question.seq)
        raise Fault(
            FaultCode.WRONG_SEQ,
            f"reply carries seq {reply.seq}, the question was seq {question.seq} (a late or extra reply)",
        )
    if reply.note and len(reply.note.encode()) > wire.NOTE_LIMIT:
        raise Fault(FaultCode.NOTE_TOO_LONG, f"note of {len(reply.note.encode())} bytes (at most {wire.NOTE_LIMIT})")
    try:
        action = wire.message_to_action(question.view.kind, reply.action)
    except ValueError as error:  # each game's ActionError is one: whatever the reply spells wrong
        raise Fault(FaultCode.BAD_ACTION, str(error)) from None
    think_ms = reply.think_ms
    if think_ms and not 0.0 < think_ms < _INF:  # NaN fails both comparisons
        expected = "expected a finite number of ms, 0 or more (0: not reported)"
        raise Fault(FaultCode.BAD_THINK_MS, f"think_ms {think_ms!r}: {expected}")
    return Answer(action, reply.note, think_ms or None)


def _rpc(error: BaseException) -> str:
    if isinstance(error, grpc.aio.AioRpcError):
        return f"{error.code().name}: {error.details()}"
    return str(error) or type(error).__name__


Player = Callable[[Any], Any]  # a seat's view -> its action


class InProcessSeat:
    """A Python callable as a seat: no wire, the same faults and deadlines.

    The player runs in the event loop's thread, so a slow player delays other
    matches; it is meant for tests and benchmarks.
    """

    def __init__(self, player_factory: Callable[[str, int], Player], bot: str, version: str = "") -> None:
        self._factory = player_factory
        self.bot = bot
        self.version = version
        self.via = Via.IN_PROCESS
        self._player: Player | None = None

    async def open(self, start: pb.MatchStart) -> None:
        self._player = self._factory(start.match_id, start.seat)

    async def ask(self, question: Question) -> Answer:
        assert self._player is not None
        if question.on_sent is not None:
            question.on_sent()
        begun = time.perf_counter()
        try:
            action = self._player(question.view)
        except Exception as error:  # the player's bug, not the referee's
            raise Fault(FaultCode.PLAYER_RAISED, f"the player raised {type(error).__name__}: {error}") from None
        if (time.perf_counter() - begun) > question.timeout_s:
            raise Fault(FaultCode.PLAYER_TOO_SLOW, f"took longer than {question.timeout_s * 1000:.0f} ms")
        note = getattr(self._player, "note", "") or ""
        return Answer(action, wire.clip_note(note))

    async def finish(self, end: pb.MatchEnd | None) -> None:
        self._player = None

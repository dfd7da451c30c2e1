"""A dial-in seat's line to its bot: the Dial stream it sits on now, and the seat held while the bot is away.

A :class:`Stream` is one ``Lobby.Dial`` stream on the server: what the bot
sent on it, and how the referee ends it. A :class:`SeatLine` is one seat of
one match, over whichever stream the bot dialled last. It offers
:class:`~waraq.referee.match.seats.RemoteSeat` the four calls of a gRPC client
call (``write``, ``read``, ``done_writing``, ``cancel``), so the seat, its
clock, its faults and its record are those of every other bot: only how the
bytes travel differs: a seat is a seat.

The line's states: *on* a stream, or *away* (its stream was lost) until the
bot dials again with the match and seat (*on* again: the MatchStart is sent
again, then the request still unanswered, or the end), or the grace runs out
(*gone*: the next read raises :class:`~waraq.referee.match.seats.LineLost`
with a ``connection_lost`` fault). Its clock is the seat's and keeps running
while it is away. A reply on a stream dialled again, to a request answered
before (sent twice: once before the cut, once after), is dropped unread.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import grpc

from waraq.referee.match.faults import Fault, FaultCode
from waraq.referee.match.seats import LineLost
from waraq.v1 import bot_pb2 as pb

INBOX = 8  # messages read ahead of the seat; past them, HTTP/2 flow control holds the bot back
_LOST = object()  # put in a stream's inbox to wake a read blocked on it, once the stream is lost

Status = tuple[grpc.StatusCode, str]


class Stream:
    """One Dial stream: its inbox, and the status the referee ends it with (None: not yet; OK below)."""

    OK: Status = (grpc.StatusCode.OK, "")

    def __init__(self, context: Any, bot: str, peer: str, dial: pb.Dial) -> None:
        self.context = context
        self.bot = bot
        self.peer = peer
        self.resumed = bool(dial.match_id)  # dialled with a match id, to take a seat back
        self.token = dial.token  # kept to see, when the stream is taken, that the token still holds
        self.hello = dial.hello  # what the bot says its Hello is
        self.seated = False  # a seat's line plays over it (else it waits for one, and may send nothing)
        self.inbox: asyncio.Queue[Any] = asyncio.Queue(INBOX)
        self.status: Status | None = None
        self.lost = False
        self.handler: asyncio.Task[Any] | None = None  # the server's task that reads it
        self.on_lost: Callable[[Stream], None] | None = None  # whoever holds it: its line, or the lobby's offers

    def end(self, status: Status = OK) -> None:
        """End the stream with ``status`` (once): the handler's read is cancelled, and it answers so."""
        if self.status is None and not self.lost:
            self.status = status
            if not self.inbox.full():
                self.inbox.put_nowait(_LOST)  # a read waiting on it looks again (a seat taken back elsewhere)
            if self.handler is not None:
                self.handler.cancel()

    def broke(self) -> None:
        """The bot's connection is gone (or it closed its side): whoever holds the stream is told."""
        if self.lost or self.status is not None:
            return
        self.lost = True
        if not self.inbox.full():
            self.inbox.put_nowait(_LOST)  # a full inbox has no reader blocked on it
        if self.on_lost is not None:
            self.on_lost(self)

    async def send(self, message: bytes | pb.RefereeMessage) -> bool:
        """Write to the bot; False once the stream is gone."""
        if self.lost or self.status is not None:
            return False
        try:
            await self.context.write(message)
        except (grpc.RpcError, grpc.aio.BaseError, asyncio.InvalidStateError):  # BaseError: the call is over
            self.broke()
            return False
        return True


Tell = Callable[[dict[str, Any]], None]  # a connection event for the match's record


class SeatLine:
    """One seat's call, over the bot's latest stream; see the module docstring."""

    def __init__(self, stream: Stream, *, grace_s: float, match_id: str, seat: int) -> None:
        self.match_id = match_id
        self.seat = seat
        self.grace_s = grace_s
        self.stream: Stream | None = None
        self.asking = 0  # the seq of the request out, 0 when none is
        self.tell: Tell | None = None  # set by the seat: the record's connection lines
        self._start: pb.RefereeMessage | None = None
        self._pending: bytes | pb.RefereeMessage | None = None  # the request out, or the end once told
        self._ended = False  # the referee is done with the seat: the end told, or the seat lost
        self.heard = False  # the bot has sent something for the seat: it knows it holds it
        self._gone: Fault | None = None
        self._away_since: float | None = None
        self._grace: asyncio.TimerHandle | None = None
        self._back = asyncio.Event()
        self._sending = asyncio.Lock()  # a stream taken back gets its MatchStart before anything else
        self._hold(stream)

    @property
    def ended(self) -> bool:
        return self._ended

    @property
    def gone(self) -> Fault | None:
        return self._gone

    @property
    def away(self) -> bool:
        """Held for the bot, whose stream for it was lost."""
        return self.stream is None and self._gone is None and not self._ended

    def _hold(self, stream: Stream) -> None:
        self.stream = stream
        stream.seated = True
        stream.on_lost = self._lost

    # -- the call RemoteSeat plays over -----------------------------------------------------

    async def write(self, message: bytes | pb.RefereeMessage) -> None:
        if isinstance(message, pb.RefereeMessage):
            if message.HasField("start"):
                self._start = message
            else:  # the end: what a stream taken back after it is sent
                self._pending = message
        else:
            self._pending = message  # a decision request (serialized), self.asking's
        async with self._sending:
            if self._gone is not None:
                raise LineLost(self._gone)
            stream = self.stream
            if stream is not None:
                await stream.send(message)  # a stream lost on the way: sent again when the bot is back

    async def read(self) -> Any:
        while True:
            if self._gone is not None:
                raise LineLost(self._gone)
            stream = self.stream
            if stream is None:
                await self._back.wait()
                continue
            if stream.lost and stream.inbox.empty():  # its loss was told while the line was ending
                raise LineLost(Fault(FaultCode.CONNECTION_LOST, "the bot's connection was lost"))
            message = await stream.inbox.get()
            if message is _LOST:
                continue
            self.heard = True
            if stream.resumed and message.WhichOneof("body") == "reply" and message.reply.seq < self.asking:
                continue  # answered before the cut, sent again after it: counted once
            if message.WhichOneof("body") == "reply" and message.reply.seq == self.asking:
                self._pending = None
            return message

    async def done_writing(self) -> None:
        """The match is over for this seat: the stream ends with OK (a bot back later is told the end)."""
        self._ended = True
        if self.stream is not None:
            self.stream.end()
        self._stop_grace()

    def cancel(self) -> None:
        """The seat is lost (or the match stopped): the stream ends ABORTED and the seat is not held."""
        self._ended = True
        if self._gone is None:
            self._gone = Fault(FaultCode.CONNECTION_LOST, "the seat was closed by the referee")
        self._back.set()
        if self.stream is not None:
            self.stream.end((grpc.StatusCode.ABORTED, "the referee closed this seat"))
        self._stop_grace()

    # -- away and back --------------------------------------------------------------------

    def _lost(self, stream: Stream) -> None:
        if stream is not self.stream or self._ended:
            return
        self.stream = None
        self._back.clear()
        self._away_since = time.perf_counter()
        loop = asyncio.get_running_loop()
        self._grace = loop.call_later(self.grace_s, self._expire)
        self._tell("lost")

    def _expire(self) -> None:
        self._grace = None
        since = self._away_since or time.perf_counter()
        away = f"{(time.perf_counter() - since) * 1000:.0f} ms"
        self._gone = Fault(
            FaultCode.CONNECTION_LOST,
            f"the bot's connection was lost and it did not dial again within the {self.grace_s:g} s grace "
            f"(away {away})",
        )
        self._back.set()

    async def take_back(self, stream: Stream) -> bool:
        """The bot dialled again for this seat: send the MatchStart again, then what it has not answered
        (or the end). False when the seat is no longer held (lost, or its grace is over)."""
        async with self._sending:
            if self._gone is not None:
                return False
            old, self.stream = self.stream, None
            if old is not None:  # a second connection while the first still stands: the newest wins
                old.on_lost = None
                old.end((grpc.StatusCode.ABORTED, "this seat was taken back by a newer connection"))
                self._away_since = time.perf_counter()
                self._tell("lost")  # the record's lines go in pairs: the old stream is as good as lost
            self._hold(stream)
            self._stop_grace()
            away_ms = None if self._away_since is None else (time.perf_counter() - self._away_since) * 1000
            self._away_since = None
            self._tell("back", away_ms)
            self._back.set()
            if self._start is not None and await stream.send(self._start) and self._pending is not None:
                await stream.send(self._pending)
            if self._ended:
                stream.end()
        return True

    def _stop_grace(self) -> None:
        if self._grace is not None:
            self._grace.cancel()
            self._grace = None

    def _tell(self, change: str, away_ms: float | None = None) -> None:
        if self.tell is None or self._ended:
            return
        at = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        event: dict[str, Any] = {"type": "connection", "seat": self.seat, "change": change, "at": at}
        if away_ms is not None:
            event["away_ms"] = round(away_ms, 3)
        self.tell(event)

"""The lobby: the gRPC ``Lobby`` service dial-in bots open their streams on, and where a match finds them.

A bot dials ``Lobby.Dial`` and sends its token and Hello (``pb.Dial``); the
lobby asks its :class:`~waraq.referee.lobby.tokens.Keys` which bot the token
seats, and keeps the stream as an *offer* of that bot's. A match opening a
seat of the bot takes one offer (:meth:`Lobby.take`) and plays the seat over
it as a :class:`~waraq.referee.lobby.line.SeatLine`. A bot that dials again
with a match id and seat takes that seat's line back (the line sends what it
must again); a seat lost before the bot said a word on it (its MatchStart may
never have arrived) is taken back by the bot's next new stream instead.

Every stream costs the lobby one coroutine and a small inbox; a stream that
sends nothing, garbage, or a token nobody holds is ended with a status that
says why (and a host that keeps trying wrong tokens waits longer for each
answer: :mod:`waraq.referee.lobby.throttle`), and none of it waits on anything
but its own stream.

The lobby knows no ladder: who holds which token, and what to do when a bot
connects or leaves (:class:`Presence`), are its owner's.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, NoReturn

import grpc

from waraq.referee.common.digits import ascii_digits
from waraq.referee.common.networks import network_of
from waraq.referee.lobby.line import SeatLine, Stream
from waraq.referee.lobby.throttle import Throttle
from waraq.referee.lobby.tokens import Keys
from waraq.referee.match.seats import REPLY_LIMIT, _deserialize, _serialize
from waraq.v1 import bot_pb2 as pb

GRACE_S = 30.0  # how long a seat is held for a bot whose connection was lost mid-match
FIRST_MESSAGE_S = 10.0  # how long a new stream may take to send its Dial
SERVICE = pb.DESCRIPTOR.services_by_name["Lobby"].full_name  # "waraq.v1.Lobby"
OPTIONS = (
    ("grpc.max_receive_message_length", REPLY_LIMIT),
    ("grpc.so_reuseport", 0),  # a port in use is refused, never shared
    # A bot whose machine vanished (no FIN, no RST) is found gone within half a minute.
    ("grpc.keepalive_time_ms", 20_000),
    ("grpc.keepalive_timeout_ms", 10_000),
    # Kits ping to keep NAT mappings open while they wait for a match: allow it, every 5 s at most.
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.min_ping_interval_without_data_ms", 5_000),
    ("grpc.max_concurrent_streams", 64),  # one connection's streams: a bot's seats, and more than enough
)


@dataclass(frozen=True)
class Presence:
    """A connected dial-in bot: since when, from where, and how many streams it holds open."""

    bot: str
    since: str  # ISO 8601, UTC
    peer: str  # as gRPC names it: "ipv4:203.0.113.7:51234"
    streams: int


class ListenError(ValueError):
    """A lobby address that cannot or must not be listened on; the message says which and why."""


def check_listen(address: str, *, tls: bool, insecure: bool) -> None:
    """Refuse to listen without TLS anywhere but loopback, unless told ``insecure``: a token sent in
    clear over a network is a token given away."""
    host, colon, port = address.rpartition(":")
    if not colon or not ascii_digits(port) or not host:
        raise ListenError(f"lobby address {address!r}: expected HOST:PORT, e.g. 127.0.0.1:7070")
    if tls or insecure:
        return
    bare = host.strip("[]")
    try:
        loopback = ipaddress.ip_address(bare).is_loopback
    except ValueError:
        loopback = bare == "localhost"
    if not loopback:
        raise ListenError(
            f"lobby address {address!r} is not loopback: give --tls-cert and --tls-key, or --insecure to send "
            "tokens in clear"
        )


async def _abort(context: grpc.aio.ServicerContext, code: grpc.StatusCode, details: str) -> NoReturn:
    """End the stream with ``code``: gRPC's abort raises, which its signature does not say."""
    await context.abort(code, details)
    raise AssertionError("context.abort returned")


def _host(peer: str) -> str:
    """The host part of gRPC's peer name ("ipv4:1.2.3.4:5", "ipv6:[::1]:5", "unix:..."): what throttles."""
    kind, _, rest = peer.partition(":")
    return f"{kind}:{rest.rpartition(':')[0] or rest}"


def _guesser(host: str) -> str:
    """What the throttle counts as one: an IPv6 host's /64, any other host itself."""
    kind, _, address = host.partition(":")
    return f"{kind}:{network_of(address)}" if kind == "ipv6" else host


class Lobby:
    def __init__(
        self,
        keys: Keys,
        *,
        grace_s: float = GRACE_S,
        on_presence: Callable[[str, Presence | None], None] | None = None,
    ) -> None:
        self._keys = keys
        self.grace_s = grace_s
        self._on_presence = on_presence
        self._throttle = Throttle()
        self._offers: dict[str, deque[Stream]] = {}  # by bot: streams waiting for a seat, oldest first
        self._streams: dict[str, set[Stream]] = {}  # by bot: every open stream, waiting or seated
        self._presence: dict[str, Presence] = {}
        self._lines: dict[tuple[str, str, int], SeatLine] = {}  # (bot, match id, seat): held for taking back
        self._changed: asyncio.Future[None] | None = None  # resolved when an offer arrives or a bot leaves
        self._left: dict[str, float] = {}  # by bot: when its last stream went (loop time), while it is away
        self._server: grpc.aio.Server | None = None
        self.address = ""

    # -- the server --------------------------------------------------------------------------

    async def listen(self, address: str, *, tls: tuple[bytes, bytes] | None = None) -> str:
        """Serve on ``address`` (HOST:PORT; port 0 takes a free one), over TLS given ``(key, cert)`` in PEM;
        the address served, with its port."""
        server = grpc.aio.server(options=OPTIONS)
        handler = grpc.stream_stream_rpc_method_handler(
            self._dial, request_deserializer=_deserialize, response_serializer=_serialize
        )
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE, {"Dial": handler}),))
        try:
            if tls is None:
                port = server.add_insecure_port(address)
            else:
                port = server.add_secure_port(address, grpc.ssl_server_credentials([tls]))
        except RuntimeError:  # gRPC says only that it failed
            raise ListenError(
                f"cannot listen on {address}: the port is taken or the host is not this machine's"
            ) from None
        await server.start()
        self._server = server
        self.address = f"{address.rpartition(':')[0]}:{port}"
        return self.address

    async def close(self) -> None:
        """Stop serving: every stream is ended UNAVAILABLE, so a bot dials again later (a bot in a
        match finds its seat lost, and the next run plays that match again)."""
        for streams in list(self._streams.values()):
            for stream in list(streams):
                stream.end((grpc.StatusCode.UNAVAILABLE, "the lobby is closing"))
        if self._server is not None:
            await self._server.stop(grace=0.5)
            self._server = None

    # -- what a match asks -------------------------------------------------------------------

    def presence(self, bot: str) -> Presence | None:
        return self._presence.get(bot)

    def connected(self) -> dict[str, Presence]:
        return dict(self._presence)

    def away_since(self, bot: str) -> float | None:
        """When ``bot``'s last stream went (loop time), while it has none; None while it is connected,
        or if it never dialled."""
        return None if bot in self._presence else self._left.get(bot)

    def hello(self, bot: str) -> pb.HelloReply | None:
        """What the bot's newest waiting stream said its Hello is; None while it has none waiting."""
        offers = self._offers.get(bot)
        return offers[-1].hello if offers else None

    async def wait_for(self, bot: str, wait_s: float) -> bool:
        """Whether ``bot`` has a stream waiting within ``wait_s``."""
        try:
            async with asyncio.timeout(wait_s):  # its TimeoutError comes as the block is left
                while not self._offers.get(bot):
                    await self._next_offer()
        except TimeoutError:
            return False
        return True

    async def take(self, bot: str, match_id: str, seat: int, wait_s: float) -> tuple[SeatLine, pb.HelloReply] | None:
        """A waiting stream of ``bot``'s, made the line of ``seat`` in ``match_id``, with the Hello it
        came with; None when none comes within ``wait_s``. A stream whose token was revoked since it
        dialled is ended UNAUTHENTICATED, not taken."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait_s
        while (stream := self._pop_offer(bot)) is None:
            # A bot that has left is waited for the grace at most: it may be dialling again.
            left = self._left.get(bot)
            end = deadline if left is None else min(deadline, left + self.grace_s)
            if end <= loop.time():
                return None
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout_at(end):
                    await self._next_offer()
        line = SeatLine(stream, grace_s=self.grace_s, match_id=match_id, seat=seat)
        self._lines[bot, match_id, seat] = line
        return line, stream.hello

    def release(self, bot: str, line: SeatLine) -> None:
        """The match is done with ``line``: it stays to tell a bot dialling back the end, for the grace."""
        key = (bot, line.match_id, line.seat)
        if line.gone is not None:
            self._lines.pop(key, None)
            return
        loop = asyncio.get_running_loop()
        loop.call_later(self.grace_s, lambda: self._lines.get(key) is line and self._lines.pop(key))

    def _pop_offer(self, bot: str) -> Stream | None:
        offers = self._offers.get(bot)
        while offers:
            stream = offers.popleft()
            if stream.lost or stream.status is not None:
                continue
            if self._keys.bot_of(stream.token) != bot:  # rotated or revoked since the stream dialled
                stream.end((grpc.StatusCode.UNAUTHENTICATED, "this bot's token was replaced or revoked"))
                continue
            return stream
        return None

    async def _next_offer(self) -> None:
        if self._changed is None or self._changed.done():
            self._changed = asyncio.get_running_loop().create_future()
        await asyncio.shield(self._changed)

    # -- one Dial stream ---------------------------------------------------------------------

    async def _dial(self, _requests: Any, context: grpc.aio.ServicerContext) -> None:
        peer = context.peer()
        host = _host(peer)
        try:
            async with asyncio.timeout(FIRST_MESSAGE_S):
                first = await context.read()
        except TimeoutError:
            await _abort(
                context,
                grpc.StatusCode.DEADLINE_EXCEEDED,
                f"no Dial message within {FIRST_MESSAGE_S:g} s of opening the stream",
            )
        if first is grpc.aio.EOF or first.WhichOneof("body") != "dial":
            await _abort(
                context,
                grpc.StatusCode.INVALID_ARGUMENT,
                "a Dial stream starts with a `dial` message: the token and the Hello",
            )
        dial = first.dial
        bot = self._keys.bot_of(dial.token) if dial.token else None
        if bot is None:
            await self._refuse(_guesser(host), context)
        stream = Stream(context, bot, peer, dial)
        stream.handler = asyncio.current_task()
        if dial.match_id:
            await self._take_back(stream, dial, context)
        else:
            elsewhere = next((s.peer for s in self._streams.get(bot, ()) if _host(s.peer) != host), None)
            if elsewhere is not None:
                await _abort(
                    context,
                    grpc.StatusCode.FAILED_PRECONDITION,
                    "this bot is connected from another address; from a second one it may only take back a seat",
                )
            self._track(stream)
            unheard = self._unheard_away(stream.bot)
            if unheard is None or not await unheard.take_back(stream):
                self._offer(stream)
        await self._pump(stream, context)

    def _unheard_away(self, bot: str) -> SeatLine | None:
        """A seat of ``bot``'s whose stream was lost before the bot said a word on it: its MatchStart
        may never have reached the bot, which then cannot dial back for it. Its next new stream takes it."""
        return next(
            (line for (who, _, _), line in self._lines.items() if who == bot and line.away and not line.heard), None
        )

    async def _refuse(self, host: str, context: grpc.aio.ServicerContext) -> NoReturn:
        # Checked once the token is known to be wrong, not as the stream opens: a right token from a host
        # that floods (bots behind one NAT with a stranger) still gets in, and streams opened at once, their
        # tokens sent after, are all counted here.
        if self._throttle.crowded(host):
            await _abort(context, grpc.StatusCode.RESOURCE_EXHAUSTED, "too many refused dials from this address")
        delay = self._throttle.refusal_delay(host)
        if delay:
            self._throttle.waiting(host, +1)
            try:
                await asyncio.sleep(delay)
            finally:
                self._throttle.waiting(host, -1)
        await _abort(context, grpc.StatusCode.UNAUTHENTICATED, "no bot holds this token (wrong, replaced or revoked)")

    async def _take_back(self, stream: Stream, dial: pb.Dial, context: grpc.aio.ServicerContext) -> None:
        line = self._lines.get((stream.bot, dial.match_id, dial.seat))
        if line is None or line.gone is not None:
            await _abort(
                context,
                grpc.StatusCode.NOT_FOUND,
                f"no seat {dial.seat} of match {dial.match_id!r} is held for this bot "
                "(never its, or its grace is over)",
            )
        self._track(stream)
        if not await line.take_back(stream):
            self._untrack(stream)
            await _abort(context, grpc.StatusCode.NOT_FOUND, "the seat was lost: its grace is over")

    async def _pump(self, stream: Stream, context: grpc.aio.ServicerContext) -> None:
        """Read the stream into its inbox until it ends: by the bot (lost) or by the referee (its status)."""
        try:
            while True:
                message = await context.read()
                if message is grpc.aio.EOF:
                    break
                if not stream.seated:
                    stream.status = (
                        grpc.StatusCode.INVALID_ARGUMENT,
                        "nothing was asked: a stream waiting for a seat sends nothing after its dial",
                    )
                    break
                await stream.inbox.put(message)
        except asyncio.CancelledError:
            if stream.status is None:  # gRPC's: the connection is gone
                stream.broke()
                self._untrack(stream)
                raise
            task = asyncio.current_task()
            assert task is not None
            task.uncancel()  # ours: Stream.end, whose status follows
        self._untrack(stream)
        if stream.status is None:  # the bot closed its side
            stream.broke()
            if stream.seated:
                stream.status = (
                    grpc.StatusCode.ABORTED,
                    f"closed mid-match: the seat is held {self.grace_s:g} s for a dial with its match_id and seat",
                )
        code, details = stream.status or Stream.OK
        if code is not grpc.StatusCode.OK:
            await _abort(context, code, details)

    # -- who is connected --------------------------------------------------------------------

    def _offer(self, stream: Stream) -> None:
        self._offers.setdefault(stream.bot, deque()).append(stream)
        stream.on_lost = self._withdraw
        self._wake_takers()

    def _wake_takers(self) -> None:
        if self._changed is not None and not self._changed.done():
            self._changed.set_result(None)

    def _withdraw(self, stream: Stream) -> None:
        offers = self._offers.get(stream.bot)
        if offers is not None and stream in offers:
            offers.remove(stream)

    def _track(self, stream: Stream) -> None:
        streams = self._streams.setdefault(stream.bot, set())
        streams.add(stream)
        self._left.pop(stream.bot, None)
        known = self._presence.get(stream.bot)
        since = known.since if known else datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
        self._tell(Presence(stream.bot, since, stream.peer, len(streams)))

    def _untrack(self, stream: Stream) -> None:
        streams = self._streams.get(stream.bot)
        if streams is None or stream not in streams:
            return
        streams.discard(stream)
        self._withdraw(stream)
        known = self._presence.get(stream.bot)
        if streams and known is not None:
            self._tell(Presence(stream.bot, known.since, known.peer, len(streams)))
        else:
            self._streams.pop(stream.bot, None)
            self._left[stream.bot] = asyncio.get_running_loop().time()
            self._tell(None, stream.bot)
            self._wake_takers()  # a seat waiting for this bot now waits its grace at most

    def _tell(self, presence: Presence | None, bot: str = "") -> None:
        bot = presence.bot if presence is not None else bot
        if presence is None:
            self._presence.pop(bot, None)
        else:
            self._presence[bot] = presence
        if self._on_presence is not None:
            self._on_presence(bot, presence)

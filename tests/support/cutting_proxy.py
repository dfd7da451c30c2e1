"""A TCP proxy between a dial-in bot and the lobby that cuts the bot's connection at a chosen message.

The bot dials the proxy, the proxy the lobby; every byte is forwarded as it
comes, read as HTTP/2 frames (RFC 9113, section 4.1: a 9-byte header, then the
payload). A gRPC message is small enough to travel in one DATA frame, laid out
as one byte (compressed or not), four of length, then the protobuf message,
whose first byte is its field's tag: so a frame tells which message it holds
(a ``RefereeMessage``'s ``decision`` is field 2, a ``BotMessage``'s ``reply``
field 1). A :class:`Cut` names the n-th such message: the proxy drops it, or
forwards it, and then resets both sides of the connection (TCP RST), as a
network that fails does. :meth:`CuttingProxy.cut_now` cuts whatever is open.

``source`` is the address the proxy dials the lobby from: 127.0.0.2 makes the
bot look as if it came from another host (Linux answers all of 127/8).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
from dataclasses import dataclass
from enum import Enum

DATA = 0x0
PREFACE_BYTES = 24  # "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n": the client's first bytes (RFC 9113, 3.4)
DECISION_TAG = 0x12  # RefereeMessage.decision: field 2, length-delimited
REPLY_TAG = 0x0A  # BotMessage.reply: field 1, length-delimited


class Way(Enum):
    TO_BOT = "to the bot"
    TO_LOBBY = "to the lobby"


@dataclass
class Cut:
    way: Way
    tag: int  # the protobuf tag byte of the message that triggers it
    nth: int  # the n-th such message through the proxy, from 1
    forward: bool = False  # pass that message on before cutting (else it is lost with the connection)
    done: bool = False


def mid_decision(nth: int) -> Cut:
    """The n-th request never reaches the bot: the referee waits on it while the bot is away."""
    return Cut(Way.TO_BOT, DECISION_TAG, nth)


def mid_reply(nth: int) -> Cut:
    """The bot answers the n-th time, and the answer is lost with the connection."""
    return Cut(Way.TO_LOBBY, REPLY_TAG, nth)


def after_reply(nth: int) -> Cut:
    """The n-th answer gets through, then the connection fails."""
    return Cut(Way.TO_LOBBY, REPLY_TAG, nth, forward=True)


class CuttingProxy:
    def __init__(
        self,
        target: tuple[str, int],
        cuts: list[Cut] | None = None,
        *,
        source: str = "127.0.0.1",
        refuse_after_cut: bool = False,
    ) -> None:
        self.target = target
        self.cuts = cuts or []
        self.source = source
        self.refuse_after_cut = refuse_after_cut  # once it has cut, it takes no connection: the bot never gets back
        self.port = 0
        self.connections = 0  # accepted so far
        self.cut_times: list[float] = []  # loop time of each cut
        self._seen = {(Way.TO_BOT, DECISION_TAG): 0, (Way.TO_LOBBY, REPLY_TAG): 0}
        self._links: set[tuple[asyncio.StreamWriter, asyncio.StreamWriter]] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._server: asyncio.Server | None = None

    async def start(self) -> str:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return f"127.0.0.1:{self.port}"

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        self.cut_now()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def cut_now(self) -> None:
        """Reset every open connection."""
        for link in list(self._links):
            self._cut(link)

    def _cut(self, link: tuple[asyncio.StreamWriter, asyncio.StreamWriter]) -> None:
        self._links.discard(link)
        self.cut_times.append(asyncio.get_running_loop().time())
        for writer in link:
            sock = writer.get_extra_info("socket")
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            writer.transport.abort()

    async def _accept(self, bot_in: asyncio.StreamReader, bot_out: asyncio.StreamWriter) -> None:
        self.connections += 1
        if self.refuse_after_cut and self.cut_times:
            bot_out.transport.abort()
            return
        try:
            lobby_in, lobby_out = await asyncio.open_connection(*self.target, local_addr=(self.source, 0))
        except OSError:
            bot_out.close()
            return
        link = (bot_out, lobby_out)
        self._links.add(link)
        pumps = [
            asyncio.ensure_future(self._pump(bot_in, lobby_out, Way.TO_LOBBY, link, PREFACE_BYTES)),
            asyncio.ensure_future(self._pump(lobby_in, bot_out, Way.TO_BOT, link, 0)),
        ]
        self._tasks.update(pumps)
        try:
            await asyncio.wait(pumps, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for pump in pumps:
                pump.cancel()
            await asyncio.gather(*pumps, return_exceptions=True)
            self._tasks.difference_update(pumps)
            if link in self._links:
                self._links.discard(link)
                for writer in link:
                    writer.close()

    async def _pump(self, source, sink, way: Way, link, preface: int) -> None:
        with contextlib.suppress(asyncio.IncompleteReadError, ConnectionError):
            if preface:
                sink.write(await source.readexactly(preface))
            while True:
                header = await source.readexactly(9)
                payload = await source.readexactly(int.from_bytes(header[:3], "big"))
                cut = self._cut_for(way, header, payload)
                if cut is None or cut.forward:
                    sink.write(header + payload)
                    await sink.drain()
                if cut is not None:
                    self._cut(link)
                    return

    def _cut_for(self, way: Way, header: bytes, payload: bytes) -> Cut | None:
        if header[3] != DATA or len(payload) < 6:
            return None
        key = (way, payload[5])
        if key not in self._seen:
            return None
        self._seen[key] += 1
        for cut in self.cuts:
            if not cut.done and cut.way is way and cut.tag == payload[5] and cut.nth == self._seen[key]:
                cut.done = True
                return cut
        return None

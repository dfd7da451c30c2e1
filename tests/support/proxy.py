"""A TCP proxy between the referee and a bot that corrupts, byte by byte, one reply the bot sends.

A real gRPC bot cannot send broken bytes through its own gRPC stack; a
hostile one, written against raw HTTP/2, can. This proxy stands in for it:
the referee connects to the proxy, the proxy to a real bot, and everything
is forwarded untouched except the one reply the bot marks for corruption.

The bot marks a reply by putting ``MARK + name + ";"`` in its note (see
:func:`marked_note`). The proxy reads the bot's side of the connection as
HTTP/2 frames (RFC 9113, section 4.1: a 9-byte header, then the payload) and
forwards each one whole as it comes; a DATA frame that holds the mark holds
the whole marked gRPC message (a reply is far smaller than a frame), laid
out as gRPC's length-prefixed message: one byte, 1 if compressed, four bytes
of length, big-endian, then the message. The corruption :data:`CORRUPTIONS`
names is done to that frame. The referee's side is read frame by frame too
and forwarded as it is (but for the acknowledgement of ``close_window``'s
SETTINGS, which the bot never sent).

Corruptions that keep the frame's length keep HTTP/2's flow control exact,
so the referee's transport sees exactly the fault meant and nothing else.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
from collections.abc import Callable

MARK = b"waraq-proxy:"
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"  # the client's first bytes (RFC 9113, 3.4)
DATA, RST_STREAM, SETTINGS, WINDOW_UPDATE = 0x0, 0x3, 0x4, 0x8  # frame types
ACK, PADDED = 0x1, 0x8  # flags
INITIAL_WINDOW_SIZE = 0x4  # a SETTINGS parameter
INTERNAL_ERROR = 0x2


def marked_note(corruption: str) -> str:
    """The note that asks the proxy to do ``corruption`` to its reply."""
    assert corruption in CORRUPTIONS, corruption
    return f"{MARK.decode()}{corruption};"


class Close(Exception):
    """Raised by a corruption that ends the connection: ``reset`` sends a TCP RST, else a FIN."""

    def __init__(self, reset: bool = False) -> None:
        self.reset = reset


# A corruption: the marked DATA frame's header and payload -> the bytes sent instead.
Corruption = Callable[["Link", bytes, bytes], bytes]


def frame(kind: int, flags: int, stream: bytes, payload: bytes) -> bytes:
    """An HTTP/2 frame: length (3 bytes), type, flags, stream id (4 bytes), payload."""
    return len(payload).to_bytes(3, "big") + bytes([kind, flags]) + stream + payload


def _message(header: bytes, payload: bytes) -> tuple[int, int]:
    """The marked gRPC message's compressed flag and declared length."""
    assert not header[4] & PADDED, "a padded DATA frame"  # gRPC does not pad
    flag, length = struct.unpack(">BI", payload[:5])
    assert length == len(payload) - 5, "the marked message fills its frame"
    return flag, length


def garbage(link: Link, header: bytes, payload: bytes) -> bytes:
    """The message's bytes replaced by as many 0xFF bytes: a tag whose varint never ends."""
    _message(header, payload)
    return header + payload[:5] + b"\xff" * (len(payload) - 5)


def longer_prefix(link: Link, header: bytes, payload: bytes) -> bytes:
    """The length prefix claims 100 bytes more than follow: the message never completes."""
    flag, length = _message(header, payload)
    return header + struct.pack(">BI", flag, length + 100) + payload[5:]


def shorter_prefix(link: Link, header: bytes, payload: bytes) -> bytes:
    """The length prefix claims 3 bytes fewer than follow: a cut message, then 3 bytes too many."""
    flag, length = _message(header, payload)
    return header + struct.pack(">BI", flag, length - 3) + payload[5:]


def huge_prefix(link: Link, header: bytes, payload: bytes) -> bytes:
    """The length prefix claims a message of 1 GiB, far over any receive limit."""
    flag, _ = _message(header, payload)
    return header + struct.pack(">BI", flag, 1 << 30) + payload[5:]


def compressed(link: Link, header: bytes, payload: bytes) -> bytes:
    """The compressed flag set on a stream that named no compression."""
    _, length = _message(header, payload)
    return header + struct.pack(">BI", 1, length) + payload[5:]


def truncate(link: Link, header: bytes, payload: bytes) -> bytes:
    """Half the frame, then the connection closed."""
    link.to_referee.write(header + payload[: len(payload) // 2])
    raise Close()


def reset(link: Link, header: bytes, payload: bytes) -> bytes:
    """The connection reset (TCP RST) instead of the frame."""
    raise Close(reset=True)


def http2_garbage(link: Link, header: bytes, payload: bytes) -> bytes:
    """Bytes that are no HTTP/2 frame (their length field is over any frame size) instead of the frame."""
    return b"\xde\xad\xbe\xef" * 8


def rst_stream(link: Link, header: bytes, payload: bytes) -> bytes:
    """The stream reset (RST_STREAM, INTERNAL_ERROR) instead of the frame; the connection lives."""
    return frame(RST_STREAM, 0, header[5:9], struct.pack(">I", INTERNAL_ERROR))


def close_window(link: Link, header: bytes, payload: bytes) -> bytes:
    """The frame, then the bot's receive window shut: a SETTINGS of initial window 0, and no
    WINDOW_UPDATE from the bot any more. Its open streams can take no more bytes, and new ones none."""
    link.window_shut = True
    return header + payload + frame(SETTINGS, 0, bytes(4), struct.pack(">HI", INITIAL_WINDOW_SIZE, 0))


def untouched(link: Link, header: bytes, payload: bytes) -> bytes:
    """Forwarded as it is: a control, to show that the proxy alone changes nothing."""
    return header + payload


CORRUPTIONS: dict[str, Corruption] = {
    f.__name__: f
    for f in (
        garbage,
        longer_prefix,
        shorter_prefix,
        huge_prefix,
        compressed,
        truncate,
        reset,
        http2_garbage,
        rst_stream,
        close_window,
        untouched,
    )
}


class CorruptingProxy:
    """Listens on a free port of 127.0.0.1 and forwards every connection to ``target_port``."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = 0
        self.done: list[str] = []  # the corruptions done, in order
        self._server: asyncio.Server | None = None
        self._pumps: set[asyncio.Future[None]] = set()

    async def start(self) -> int:
        self._server = await asyncio.start_server(self._connect, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self.port

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for pump in list(self._pumps):
            pump.cancel()
        await asyncio.gather(*self._pumps, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()

    async def _connect(self, referee_in: asyncio.StreamReader, referee_out: asyncio.StreamWriter) -> None:
        try:
            bot_in, bot_out = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            referee_out.close()
            return
        link = Link(self, referee_out)
        pumps = [
            asyncio.ensure_future(link.from_referee(referee_in, bot_out)),
            asyncio.ensure_future(link.from_bot(bot_in)),
        ]
        self._pumps.update(pumps)
        try:
            done, _ = await asyncio.wait(pumps, return_when=asyncio.FIRST_COMPLETED)
            ending = next((t.exception() for t in done if not t.cancelled() and isinstance(t.exception(), Close)), None)
            if ending is not None and ending.reset:
                _reset(referee_out)
        finally:
            for pump in pumps:
                pump.cancel()
            await asyncio.gather(*pumps, return_exceptions=True)
            for writer in (referee_out, bot_out):
                writer.close()
            self._pumps.difference_update(pumps)


class Link:
    """One proxied connection: both directions read frame by frame."""

    def __init__(self, proxy: CorruptingProxy, to_referee: asyncio.StreamWriter) -> None:
        self.proxy = proxy
        self.to_referee = to_referee
        self.window_shut = False  # after close_window: the bot's WINDOW_UPDATEs are dropped

    async def from_referee(self, source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        with contextlib.suppress(asyncio.IncompleteReadError, ConnectionError):
            sink.write(await source.readexactly(len(PREFACE)))
            while True:
                header, payload = await _frame(source)
                if self.window_shut and header[3] == SETTINGS and header[4] & ACK:
                    continue  # the ack of the proxy's SETTINGS: the bot never sent one
                sink.write(header + payload)
                await sink.drain()

    async def from_bot(self, source: asyncio.StreamReader) -> None:
        """The bot's side, frame by frame, the marked one corrupted."""
        out = self.to_referee
        with contextlib.suppress(asyncio.IncompleteReadError, ConnectionError):
            while True:
                header, payload = await _frame(source)
                at = payload.find(MARK) if header[3] == DATA else -1
                if at >= 0:
                    start = at + len(MARK)
                    name = payload[start : payload.index(b";", start)].decode()
                    self.proxy.done.append(name)
                    out.write(CORRUPTIONS[name](self, header, payload))
                elif not (self.window_shut and header[3] == WINDOW_UPDATE):
                    out.write(header + payload)
                await out.drain()


async def _frame(source: asyncio.StreamReader) -> tuple[bytes, bytes]:
    header = await source.readexactly(9)
    return header, await source.readexactly(int.from_bytes(header[:3], "big"))


def _reset(writer: asyncio.StreamWriter) -> None:
    """Close with a TCP RST: linger on, for zero seconds."""
    sock = writer.get_extra_info("socket")
    if sock is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()

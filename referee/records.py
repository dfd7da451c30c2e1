"""Match records (``waraq.record.v1``, RECORDS.md): written line by line, read back tolerantly.

A record is JSON Lines, one event a line, flushed after every line so that a
crash or a kill loses nothing already played; ``.jsonl.gz`` files are gzip
streams flushed the same way (a cut gzip file is still readable up to its
last flushed line).
"""

from __future__ import annotations

import asyncio
import gzip
import json
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import orjson

FORMAT = "waraq.record.v1"
_json_line = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


def encode_line(event: dict[str, Any]) -> bytes:
    """One record line: compact JSON in UTF-8, then a newline.

    orjson writes the line a dozen times faster than the json module, and
    a line is written for every decision (bench/grpc.py). The json module
    takes what orjson refuses, such as an integer beyond 64 bits (a seed
    given as one), and writes it in the same style.
    """
    try:
        return orjson.dumps(event, option=orjson.OPT_APPEND_NEWLINE)
    except orjson.JSONEncodeError:
        return (_json_line(event) + "\n").encode()


class RecordWriter:
    """Append events to one record file, flushing each line to the disk's cache."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file: IO[bytes]
        self._gzip = self.path.suffix == ".gz"
        if self._gzip:
            self._file = gzip.open(self.path, "wb")
        else:
            # Unbuffered: a drain is one write system call, with no buffer to copy into and flush.
            self._file = self.path.open("wb", buffering=0)
        self._pending: list[bytes] = []  # lines encoded, not yet written

    def write(self, event: dict[str, Any]) -> None:
        """Write ``event`` now, or, inside an event loop, at the loop's next turn.

        In a match the next turn comes when the referee awaits a bot's reply:
        the line is written and flushed while the bot thinks, not between its
        reply and the next question (bench/grpc.py). It is encoded at once, as
        the event is now. Lines keep their order, and every line is flushed as
        soon as the loop is free.
        """
        pending = self._pending
        pending.append(encode_line(event))
        if len(pending) > 1:
            return  # a drain is already scheduled
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop: write at once
            self.drain()
            return
        loop.call_soon(self.drain)

    def write_now(self, events: list[dict[str, Any]]) -> None:
        """Write ``events``, after any line still pending, at once: one system call for all.

        For a caller at a moment that can wait for the disk: the match runner writes
        a decision's events once the next question is on its way (referee.match).
        """
        if events:
            self._pending.extend([encode_line(event) for event in events])
            self.drain()

    def drain(self) -> None:
        """Write and flush every event not yet written."""
        pending, self._pending = self._pending, []
        if pending and not self._file.closed:
            data = b"".join(pending)
            if self._gzip:
                self._file.write(data)
                self._file.flush()  # a sync flush: the stream so far can be read without its end
                return
            while data:  # a file's write takes it whole but on a full disk; a short one is retried
                data = data[self._file.write(data) :]

    def close(self) -> None:
        self.drain()
        self._file.close()

    def __enter__(self) -> RecordWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass
class Record:
    """The events of a record file as far as they could be read."""

    path: Path
    events: list[dict[str, Any]] = field(default_factory=list)
    problem: str | None = None  # why reading stopped early, if it did

    @property
    def complete(self) -> bool:
        return self.problem is None and bool(self.events) and self.events[-1].get("type") == "result"

    @property
    def header(self) -> dict[str, Any]:
        return self.events[0] if self.events and self.events[0].get("type") == "match" else {}


def read_record(path: str | Path) -> Record:
    """Every complete line of a record; a cut or damaged file says where it stops."""
    path = Path(path)
    record = Record(path)
    try:
        text = _read_text(path)
    except OSError as error:
        record.problem = f"cannot be read: {error.strerror or error}"
        return record
    except ValueError as error:  # a damaged gzip stream: keep what came out of it
        text, record.problem = error.args[1], f"gzip stream damaged: {error.args[0]}"
    lines = text.split("\n")
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        if number == len(lines):  # no newline after it: the write was cut short
            record.problem = record.problem or f"line {number} is cut short"
            break
        try:
            event = json.loads(line)
        except json.JSONDecodeError as error:
            record.problem = f"line {number} is not JSON: {error.msg}"
            break
        if not isinstance(event, dict) or "type" not in event:
            record.problem = f"line {number} is not an event (no 'type')"
            break
        record.events.append(event)
    if record.problem is None and record.events and record.events[0].get("type") != "match":
        record.problem = "line 1 is not the 'match' header"
    return record


def _read_text(path: Path) -> str:
    if path.suffix != ".gz":
        return path.read_text(encoding="utf-8", errors="replace")
    data = path.read_bytes()
    inflate = zlib.decompressobj(wbits=31)  # gzip framing; a missing end is no error here
    out: list[bytes] = []
    for start in range(0, len(data), 1 << 16):
        try:
            out.append(inflate.decompress(data[start : start + (1 << 16)]))
        except zlib.error as error:  # keep what came out before the damage
            raise ValueError(str(error), b"".join(out).decode("utf-8", errors="replace")) from None
    return b"".join(out).decode("utf-8", errors="replace")

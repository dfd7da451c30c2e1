"""Match records (``waraq.record.v1``, docs/records.md): written line by line, read back tolerantly.

A record is JSON Lines, one event a line, flushed after every line so that a
crash or a kill loses nothing already played; ``.jsonl.gz`` files are gzip
streams flushed the same way (a cut gzip file is still readable up to its
last flushed line).

A record that cannot be written (a full disk, a folder that is a file, no
permission) is a :class:`RecordError` naming the file, raised by the write
that meets it or, for a write deferred to the event loop's next turn, by
the writer's next call: the match it records must stop, since its record
would not reproduce it. Nothing written before is touched.
"""

from __future__ import annotations

import asyncio
import errno
import gzip
import json
import zlib
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import IO, Any

import orjson

FORMAT = "waraq.record.v1"
_json_line = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


# Errors that say the disk (or the user's quota) has no room: the run stops, and can go on later.
NO_SPACE = (errno.ENOSPC, errno.EDQUOT)


class RecordError(OSError):
    """A record file that cannot be written: ``str()`` names it and says why, in one line."""

    def __init__(self, path: Path, error: OSError) -> None:
        super().__init__(error.errno, error.strerror or str(error), str(path))
        self.path = path

    @property
    def disk_full(self) -> bool:
        return self.errno in NO_SPACE

    def __str__(self) -> str:
        if self.disk_full:
            return f"disk full writing {self.path}"
        return f"cannot write {self.path}: {self.strerror}"


def encode_line(event: dict[str, Any]) -> bytes:
    """One record line: compact JSON in UTF-8, then a newline.

    orjson writes the line a dozen times faster than the json module, and
    a line is written for every decision (bench/transport.py). The json module
    takes what orjson refuses, such as an integer beyond 64 bits (a seed
    given as one), and writes it in the same style.
    """
    try:
        return orjson.dumps(event, option=orjson.OPT_APPEND_NEWLINE)
    except orjson.JSONEncodeError:
        return (_json_line(event) + "\n").encode()


class RecordWriter:
    """Append events to one record file, flushing each line to the disk's cache.

    Raises :class:`RecordError` when the file cannot be made or written; after
    the first failure nothing more is written and every later call raises it.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._file: IO[bytes] | gzip.GzipFile
        self._gzip = self.path.suffix == ".gz"
        self.failure: RecordError | None = None
        self._told = False  # whether a caller has seen the failure raised
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if self._gzip:
                self._file = gzip.open(self.path, "wb")
            else:
                # Unbuffered: a drain is one write system call, with no buffer to copy into and flush.
                self._file = self.path.open("wb", buffering=0)
        except OSError as error:
            raise RecordError(self.path, error) from None
        self._pending: list[bytes] = []  # lines encoded, not yet written

    def write(self, event: dict[str, Any]) -> None:
        """Write ``event`` now, or, inside an event loop, at the loop's next turn.

        In a match the next turn comes when the referee awaits a bot's reply:
        the line is written and flushed while the bot thinks, not between its
        reply and the next question (bench/transport.py). It is encoded at once, as
        the event is now. Lines keep their order, and every line is flushed as
        soon as the loop is free.
        """
        self._raise_failure()
        pending = self._pending
        pending.append(encode_line(event))
        if len(pending) > 1:
            return  # a drain is already scheduled
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop: write at once
            self.drain()
            return
        loop.call_soon(self._drain_soon)

    def write_now(self, events: list[dict[str, Any]]) -> None:
        """Write ``events``, after any line still pending, at once: one system call for all.

        For a caller at a moment that can wait for the disk: the match runner writes
        a decision's events once the next question is on its way (waraq.referee.match.play).
        """
        self._raise_failure()
        if events:
            self._pending.extend([encode_line(event) for event in events])
            self.drain()

    def drain(self) -> None:
        """Write and flush every event not yet written; :class:`RecordError` if that fails."""
        self._write_pending()
        self._raise_failure()

    def _write_pending(self) -> None:
        pending, self._pending = self._pending, []
        if pending and self.failure is None:
            data = b"".join(pending)
            try:
                if self._gzip:
                    self._file.write(data)
                    self._file.flush()  # a sync flush: the stream so far can be read without its end
                    return
                while data:  # a file's write takes it whole but on a full disk; a short one is retried
                    data = data[self._file.write(data) :]
            except OSError as error:
                self._fail(error)

    def _drain_soon(self) -> None:
        """The loop's call of :meth:`drain`. A failure waits for the writer's next call:
        raised here it would reach only the loop's exception handler (a traceback on stderr)."""
        self._write_pending()

    def _fail(self, error: OSError) -> None:
        """Keep the first failure and close the file: a record with a hole in it would be worse
        than one cut short (a reader keeps every whole line before the cut)."""
        if self.failure is None:
            self.failure = RecordError(self.path, error)
        self._pending = []
        try:
            self._file.close()  # gzip writes its trailer here, which may fail the same way
        except OSError:
            pass

    def _raise_failure(self) -> None:
        if self.failure is not None:
            self._told = True
            raise self.failure

    def close(self) -> None:
        """Write what is pending and close; a failure that no call has raised yet is raised now."""
        self._write_pending()
        if self.failure is None:
            try:
                self._file.close()
            except OSError as error:
                self._fail(error)
        if not self._told:
            self._raise_failure()

    def __enter__(self) -> RecordWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Stop(StrEnum):
    """Why reading a record stopped before its end: what a reader acts on (``Record.problem`` is for people)."""

    UNREADABLE = "unreadable"  # the file could not be opened or read
    CUT_SHORT = "cut_short"  # the last line has no newline: a write was cut off there
    DAMAGED = "damaged"  # a line is no event, the gzip stream is broken, or the header is missing


@dataclass
class Record:
    """The events of a record file as far as they could be read."""

    path: Path
    events: list[dict[str, Any]] = field(default_factory=list)
    problem: str | None = None  # why reading stopped early, if it did
    stop: Stop | None = None  # the same, as one of a closed set

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
        record.stop, record.problem = Stop.UNREADABLE, f"cannot be read: {error.strerror or error}"
        return record
    except ValueError as error:  # a damaged gzip stream: keep what came out of it
        text, record.problem = error.args[1], f"gzip stream damaged: {error.args[0]}"
        record.stop = Stop.DAMAGED
    lines = text.split("\n")
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        if number == len(lines):  # no newline after it: the write was cut short
            if record.problem is None:
                record.stop, record.problem = Stop.CUT_SHORT, f"line {number} is cut short"
            break
        try:
            event = json.loads(line)
        except json.JSONDecodeError as error:
            record.stop, record.problem = Stop.DAMAGED, f"line {number} is not JSON: {error.msg}"
            break
        except RecursionError:  # no event of the format nests more than a few levels
            record.stop, record.problem = Stop.DAMAGED, f"line {number} is nested too deeply to be an event"
            break
        except ValueError as error:  # an integer of thousands of digits, which Python refuses to read
            reason = str(error).split(";")[0]
            record.stop, record.problem = Stop.DAMAGED, f"line {number} is not readable JSON: {reason}"
            break
        if not isinstance(event, dict) or "type" not in event:
            record.stop, record.problem = Stop.DAMAGED, f"line {number} is not an event (no 'type')"
            break
        record.events.append(event)
    if record.problem is None and record.events and record.events[0].get("type") != "match":
        record.stop, record.problem = Stop.DAMAGED, "line 1 is not the 'match' header"
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

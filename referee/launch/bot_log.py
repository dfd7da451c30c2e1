"""A launched bot's log: where it goes, how many are kept, and its last lines.

The stdout and stderr of every bot process the referee launches go to one file
(docs/protocol.md, "The process"). This module owns that file:

* **Where.** In a log folder (a run's ``records/logs/``, a ladder's ``logs/``)
  it is ``<label>-<bot>-<UTC time>-<random>.log``: the label is what the bot
  is called before its Hello (a user's ``NAME=``, else
  :func:`waraq.referee.match.hello.label`) cut to safe file-name characters;
  ``<bot>`` is a digest of what makes it that bot (its spec and folder), so two
  authors' ``bot.py`` in a ladder are two bots here too. With no log folder
  (``replay --ask``, a Ray worker) it is ``waraq-bot-`` and the same name in
  the system's temp folder.
* **How many.** Opening a log in a log folder rotates that bot's logs there:
  the newest :data:`KEEP` are kept, within :data:`KEEP_BYTES` together, the
  older removed (:func:`rotate`). Logs this process still writes are never
  removed. A log with no folder is removed when its bot stops
  (:func:`release`); what a killed referee left is swept at the next start
  (:func:`sweep_temp`).
* **Its tail**, which a ``STARTUP`` fault quotes: only the last
  :data:`TAIL_BYTES` are read, so a log of any size costs the same
  (:func:`tail`; issue 30: a 64 MiB log of short lines, read whole and split,
  grew the referee from 63 MB to 1.7 GB and blocked its event loop 21 s).
  The caller runs it off the event loop.

What it does not do: bound one log while it is written. The sandbox's file
size limit does (64 MiB by default, ``file_mb``); an unconfined bot's log grows
until the bot ends, and the next launch of that bot rotates it. Nor does it
touch files it did not name: the ``bot-XXXXXXXX.log`` of earlier versions stay
until removed by hand.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import BinaryIO

MIB = 1 << 20

# A log folder keeps the newest KEEP logs of each bot: enough for the last runs' crashes (one
# process a seat: a 4-seat run of one bot opens 4), few enough that a ladder of thousands of
# launches does not keep thousands of files.
KEEP = 5
# ... and KEEP_BYTES of them at most: four logs at the sandbox's default file size limit (64 MiB
# each), so a bot that floods its output costs the disk this much, not 64 MiB a launch forever.
KEEP_BYTES = 256 * MIB
# A temp log (no log folder) older than this, that no process holds open, was left by a referee
# that was killed: it is swept. A day is far beyond any startup, and a live bot's writes keep its
# log's time fresh; the open-file check spares a quiet one.
STALE_S = 24 * 3600

TEMP_PREFIX = "waraq-bot-"
TAIL_BYTES = 64 * 1024  # what tail() reads at most: 5 lines of LINE_CHARS, many times over
LINE_CHARS = 300  # a quoted line is cut to this: a fault's detail is one line of a report
LABEL_CHARS = 64

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")
_STAMP = "%Y%m%dT%H%M%S.%fZ"
_STAMP_PATTERN = r"\d{8}T\d{6}\.\d{6}Z"

# The logs this process opened and has not released, each with whether it is a temp log (no log
# folder). rotate() never removes one of them: its bot may still be writing it.
_open: dict[Path, bool] = {}
_swept = False
# create() runs in worker threads, several launches at once: one names, registers and rotates at a
# time, so no rotation sees another's new log before it is registered in _open.
_creating = threading.Lock()


def file_label(label: str) -> str:
    """``label`` as part of a file name: runs of other characters than ``A-Za-z0-9_.-`` become ``_``,
    no leading dot or dash, at most :data:`LABEL_CHARS`; ``bot`` when nothing is left."""
    safe = _UNSAFE.sub("_", label).lstrip(".-")[:LABEL_CHARS]
    return safe or "bot"


def bot_key(label: str, identity: str) -> str:
    """The part of a log's name that says whose it is: ``<label>-<8 hex digits of identity>``."""
    return f"{file_label(label)}-{hashlib.sha256(identity.encode()).hexdigest()[:8]}"


def create(label: str, identity: str, log_dir: Path | None, now: datetime | None = None) -> tuple[BinaryIO, Path]:
    """A new log for the bot (``label``, and ``identity``: what makes it that bot), opened for writing.

    In ``log_dir`` (created if missing) that bot's older logs are rotated there;
    without one it is a temp log, removed by :func:`release`. Blocking (a
    folder listing, a sweep of the temp folder): call it off the event loop.
    """
    key = bot_key(label, identity)
    with _creating:
        _sweep_once()
        stamp = (now or datetime.now(UTC)).strftime(_STAMP)
        if log_dir is not None:
            log_dir.mkdir(parents=True, exist_ok=True)
            fd, name = tempfile.mkstemp(prefix=f"{key}-{stamp}-", suffix=".log", dir=log_dir)
        else:
            fd, name = tempfile.mkstemp(prefix=f"{TEMP_PREFIX}{key}-{stamp}-", suffix=".log")
        path = Path(os.path.abspath(name))  # absolute, as rotate() compares it
        _open[path] = log_dir is None
        if log_dir is not None:
            rotate(log_dir, key)
    return os.fdopen(fd, "wb"), path


def release(path: Path | None) -> None:
    """Its bot has stopped: a temp log is removed, a log in a log folder is left to :func:`rotate`.

    A temp log goes even when the bot failed to start: the ``STARTUP`` fault
    already quotes its last lines, and nothing tells anyone where the file is.
    """
    if path is not None and _open.pop(path, False):
        path.unlink(missing_ok=True)


def rotate(log_dir: Path, key: str, keep: int = KEEP, keep_bytes: int = KEEP_BYTES) -> list[Path]:
    """Remove the bot's logs in ``log_dir`` beyond its newest ``keep``, or beyond ``keep_bytes``
    together (newest first, so the oldest go); never one this process still writes. The removed."""
    log_dir = Path(os.path.abspath(log_dir))
    pattern = re.compile(re.escape(key) + rf"-({_STAMP_PATTERN})-[A-Za-z0-9_]+\.log")
    logs: list[tuple[str, str, int]] = []
    with os.scandir(log_dir) as entries:
        for entry in entries:
            found = pattern.fullmatch(entry.name)
            if found is None or not entry.is_file(follow_symlinks=False):
                continue
            try:
                size = entry.stat(follow_symlinks=False).st_size
            except FileNotFoundError:  # removed meanwhile by another referee's rotation
                continue
            logs.append((found[1], entry.name, size))
    logs.sort(reverse=True)  # newest first: the time is in the name, to the microsecond
    removed = []
    kept = total = 0
    full = False
    for _, name, size in logs:
        path = log_dir / name
        full = full or kept >= keep or total + size > keep_bytes
        if full and path not in _open:
            path.unlink(missing_ok=True)
            removed.append(path)
        else:
            kept += 1
            total += size
    return removed


def sweep_temp(folder: Path | None = None, now: float | None = None) -> list[Path]:
    """Remove temp logs (``waraq-bot-*.log`` in ``folder``, the system's temp folder by default) that
    are this user's, older than :data:`STALE_S`, and open in no process: a killed referee's. The removed."""
    folder = Path(folder or tempfile.gettempdir())
    now = time.time() if now is None else now
    stale = []
    for path in folder.glob(f"{TEMP_PREFIX}*.log"):
        try:
            info = path.lstat()
        except FileNotFoundError:
            continue
        # A regular file of ours only: a link or another user's file in a shared /tmp is none of ours.
        if stat.S_ISREG(info.st_mode) and info.st_uid == os.getuid() and now - info.st_mtime > STALE_S:
            stale.append(path)
    if not stale:
        return []
    held = _open_files()
    removed = [path for path in stale if str(path) not in held and path not in _open]
    for path in removed:
        path.unlink(missing_ok=True)
    return removed


def _sweep_once() -> None:
    global _swept
    if not _swept:
        _swept = True
        sweep_temp()


def _open_files() -> set[str]:
    """The paths of the files open in the processes this user may look into (``/proc/PID/fd``)."""
    held = set()
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:  # gone, or not ours to see (and then its files are not ours to sweep either)
            continue
        for fd in fds:
            try:
                held.add(os.readlink(f"/proc/{pid}/fd/{fd}"))
            except OSError:
                continue
    return held


def tail(path: Path, lines: int = 5) -> list[str]:
    """The last ``lines`` non-blank lines of the log, from its last :data:`TAIL_BYTES` only; each cut to
    :data:`LINE_CHARS`, bytes that are no UTF-8 replaced and control characters shown as ``?`` (they
    are quoted in reports and terminals). Empty when the file is gone or empty. Blocking."""
    try:
        with path.open("rb") as log:
            size = log.seek(0, os.SEEK_END)
            log.seek(max(0, size - TAIL_BYTES))
            data = log.read(TAIL_BYTES)
    except OSError:  # gone: nothing to quote, and a fault must not fail for want of a quote
        return []
    found = [line for line in data.decode(errors="replace").splitlines() if line.strip()][-lines:]
    return [_printable(line.strip()) for line in found]


def _printable(line: str) -> str:
    if len(line) > LINE_CHARS:
        line = line[: LINE_CHARS - 1] + "…"
    return "".join(c if c.isprintable() else " " if c == "\t" else "?" for c in line)

"""An uploaded bot's build command, run in the sandbox: offline, and bounded in time, memory, processes and disk.

The build is a stranger's shell command (``npm ci --offline``, ``sh
build.sh``), so it runs confined as a bot is (:func:`sandbox.confine_job`):
its own PID, network, IPC and UTS namespaces (no network: a loopback of its
own), the seccomp filter, a user of its own, cgroups of memory and
processes where the machine has them, rlimits, and nothing left running
once it ends. Of the machine it sees the system read-only (``/usr``,
``/etc``, ``/opt``), the upload read-only at ``/upload``, and two tmpfs of a
bounded size: ``/build``, where the upload is copied and the build runs and
writes, and ``/tmp``, its scratch and ``HOME``. Never the ladder's folder,
another bot, or the folder the referee runs in.

Nothing it writes reaches the host's disk but one way: once its command
ends well, every file and folder of ``/build`` comes back as a tar stream
on its standard output, which the host unpacks with the upload's own safe
unpacker (:func:`archive.unpack_tar`) and limits, counted as it reads. A
link or a special file it made stays behind, and the log says so; its
other processes are ended before its files are read. So a build that fills
its disk fills a tmpfs of ``disk_mb`` and no more; one that forks without
end meets its process limit; one that never ends meets the wall clock.
Each way a build ends is an :class:`Ending`, told in one line. Its output
(its standard output and error, and the sandbox's) is its log, of which the
last ``log_bytes`` are kept.

Where the machine cannot sandbox, nothing is built (:attr:`Ending.NO_SANDBOX`).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import shutil
import signal
import stat
import time
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import BinaryIO

from waraq.ladder.submit.archive import CHUNK, MIB, ArchiveLimits, Unpacked, UploadError, unpack_tar
from waraq.referee.games.options import quote
from waraq.referee.launch import sandbox

UPLOAD = "/upload"  # the upload, read-only, inside the build's sandbox
BUILD = "/build"  # the build's folder: a tmpfs holding a copy of the upload and what the build makes
LOG_WAIT_S = 5.0  # for the last of its output once the sandbox has ended
# Run by /bin/sh inside the sandbox as the build's user, with the build command as $1. The build's own
# output goes to standard error: standard output carries the tar of /build, and nothing else.
SCRIPT = r"""
find /upload -mindepth 1 -maxdepth 1 -exec cp -R --preserve=mode,timestamps -t /build {} + || exit
cd /build || exit
sh -c "$1" </dev/null >&2 || exit
kill -KILL -1 2>/dev/null
find . -mindepth 1 ! -type f ! -type d -printf 'waraq: not kept (a link or a special file): %P\n' >&2
find . -mindepth 1 \( -type f -o -type d \) -printf '%P\0' |
    tar --create --file=- --null --no-recursion --hard-dereference --ignore-failed-read --files-from=-
"""
NO_SPACE = "no space left on device"  # strerror(ENOSPC), as tools print it (lower-cased)


@dataclass(frozen=True)
class BuildLimits:
    """What one build may take. The memory counts its tmpfs too (``/build`` and ``/tmp`` are memory)."""

    wall_s: float = 300.0
    memory_mb: int = 2048
    processes: int = 256  # processes and threads at once
    disk_mb: int = 1024  # /build: the upload's copy and what the build makes; bounds what comes back
    scratch_mb: int = 256  # /tmp, its HOME
    cpus: int = 1
    log_bytes: int = 256 * 1024  # the end of its output that is kept
    members: int = 100_000  # files and folders that come back (node_modules holds thousands)

    def confinement(self) -> sandbox.Limits:
        """The sandbox's limits: the wall clock, not CPU seconds, bounds its time; a file may fill its disk."""
        cpu_seconds = math.ceil(self.wall_s) * (os.cpu_count() or 1) + 1
        return sandbox.Limits(
            memory_mb=self.memory_mb,
            cpu_seconds=min(cpu_seconds, sandbox.LIMIT_RANGES["cpu_seconds"][1]),
            processes=self.processes,
            file_mb=self.disk_mb,
            scratch_mb=self.scratch_mb,
            open_files=4096,
            cpus=self.cpus,
        )

    def result(self) -> ArchiveLimits:
        """What may come back: no more than its disk held, in at most ``members`` files and folders."""
        disk = self.disk_mb * MIB
        return ArchiveLimits(
            archive_bytes=disk + self.members * 1536 + CHUNK, total_bytes=disk, members=self.members, file_bytes=disk
        )


class Ending(StrEnum):
    """How a build ended."""

    BUILT = "built"  # its command ended with status 0, and its folder came back
    FAILED = "failed"  # its command ended with another status
    TIMED_OUT = "timed_out"  # still running at the wall-clock limit: stopped
    PROCESSES = "processes"  # it met its process limit (a fork bomb): stopped, or it failed there
    MEMORY = "memory"  # killed at its memory limit
    DISK = "disk"  # its /build or /tmp was full
    OUTPUT = "output"  # what it made is refused, as an upload would be (too large, too many files)
    NO_SANDBOX = "no_sandbox"  # this machine cannot sandbox: nothing was run


@dataclass(frozen=True)
class Built:
    ending: Ending
    message: str  # one line, for the author
    log: str  # the end of its output
    seconds: float
    unpacked: Unpacked | None = None  # what came back, when it was built

    @property
    def ok(self) -> bool:
        return self.ending is Ending.BUILT


async def build(command: str, upload: Path, out: Path, limits: BuildLimits = BuildLimits()) -> Built:
    """Run the shell ``command`` on a copy of the folder ``upload``, in the sandbox; unpack what it made into
    the empty folder ``out`` (left empty unless it was built). Never raises for what the build does."""
    begun = time.monotonic()
    view = [
        *("--ro-bind", str(upload), UPLOAD),
        *("--perms", "0777", "--size", str(limits.disk_mb * MIB), "--tmpfs", BUILD),
    ]
    try:
        launch = sandbox.confine_job(
            ["/bin/sh", "-c", SCRIPT, "sh", command], view, cwd="/", limits=limits.confinement()
        )
    except sandbox.SandboxError as error:
        return Built(Ending.NO_SANDBOX, f"this arena cannot build bots: {error}", "", 0.0)
    result, sending = os.pipe()
    try:
        process = await asyncio.create_subprocess_exec(
            *launch.argv,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=sending,
            stderr=asyncio.subprocess.PIPE,
            env=launch.env,
            pass_fds=launch.pass_fds,
            start_new_session=True,  # a group of its own, which _watch kills; the namespace ends the rest
        )
    except BaseException:
        os.close(result)
        launch.cleanup()
        raise
    finally:
        os.close(sending)
    launch.spawned()
    assert process.stderr is not None
    log = _Tail(limits.log_bytes)
    logging = asyncio.create_task(_read(process.stderr, log))
    coming = asyncio.create_task(asyncio.to_thread(_receive, result, out, limits.result()))
    try:
        seen = await _watch(process, launch, limits.wall_s)
    except BaseException:
        logging.cancel()  # what it sent back is removed by its unpacker, which meets the pipe's end
        raise
    finally:
        await asyncio.to_thread(launch.cleanup)  # kills what is left in its cgroups, then removes them
    seen.received, unpacked, seen.refusal = await coming
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(logging, LOG_WAIT_S)
    seconds = time.monotonic() - begun
    ending, message = _ending(command, limits, seen, log.text())
    if ending is Ending.BUILT and unpacked is not None:
        message = f"built in {seconds:.1f} s: {unpacked.files:,} files, {_mib(unpacked.bytes)}"
        return Built(ending, message, log.text(), seconds, unpacked)
    await asyncio.to_thread(_clear, out)
    return Built(ending, message, log.text(), seconds)


@dataclass
class _Seen:
    """What was seen of a build's end."""

    timed_out: bool  # stopped at the wall clock
    status: int  # the sandbox's exit status: its command's, or 128 + a signal's
    forks: int  # processes its cgroup refused it
    limit: str | None  # the sandbox limit that ended it, as a fault says it
    received: int = 0  # bytes of its folder's tar that came back
    refusal: str | None = None  # why what came back was refused


async def _watch(process: asyncio.subprocess.Process, launch: sandbox.Launch, wall_s: float) -> _Seen:
    """Wait for the build to end, or stop it at ``wall_s``; what is seen is read before its cgroups go."""
    timed_out = False
    try:
        await asyncio.wait_for(process.wait(), wall_s)
    except TimeoutError:
        timed_out = True
    finally:
        with contextlib.suppress(ProcessLookupError):  # bubblewrap; the PID namespace ends the rest with it
            os.killpg(process.pid, signal.SIGKILL)
    status = await process.wait()
    return _Seen(timed_out, status, launch.forks_refused(), launch.limit_hit(status))


def _ending(command: str, limits: BuildLimits, seen: _Seen, log: str) -> tuple[Ending, str]:
    """How the build ended, and its line for the author."""
    stopped = f"the build was stopped after {limits.wall_s:g} s, its time limit"
    if seen.forks:
        tried = f"it tried to run more than {limits.processes} processes at once, its limit"
        return Ending.PROCESSES, f"{stopped}: {tried}" if seen.timed_out else f"the build failed: {tried}"
    if seen.timed_out:
        return Ending.TIMED_OUT, f"{stopped}: it was still running"
    if seen.limit is not None and "memory" in seen.limit:
        return Ending.MEMORY, f"the build was stopped: {seen.limit} (its files in /build and /tmp count as memory)"
    if seen.received and seen.refusal is not None:  # its command ended well; the host stopped reading
        return Ending.OUTPUT, f"what the build made is refused: {seen.refusal}"
    if seen.status == 0:
        return (Ending.BUILT, "") if seen.received else (Ending.OUTPUT, "the build's files did not come back")
    if NO_SPACE in log.lower():
        return Ending.DISK, (
            f"the build ran out of disk: /build holds {limits.disk_mb} MiB (a copy of the upload and what the "
            f"build makes), /tmp {limits.scratch_mb} MiB"
        )
    why = f" ({seen.limit})" if seen.limit else ""
    return Ending.FAILED, f"the build failed: {quote(command, 100)} ended with status {seen.status}{why}; see its log"


def _receive(fd: int, out: Path, limits: ArchiveLimits) -> tuple[int, Unpacked | None, str | None]:
    """Unpack the tar read from the pipe ``fd`` into ``out``: the bytes that came, and what was unpacked
    or why it was refused. Closing the pipe at a refusal ends the tar inside (a broken pipe)."""
    with open(fd, "rb", buffering=0) as pipe:
        counted = _Counting(pipe)
        try:
            unpacked = unpack_tar(counted, out, limits)
        except UploadError as refusal:
            return counted.count, None, str(refusal)
        return counted.count, unpacked, None


class _Counting:
    """A stream that counts the bytes read from it."""

    def __init__(self, source: BinaryIO) -> None:
        self.source = source
        self.count = 0

    def read(self, size: int = -1) -> bytes:
        data = self.source.read(size)
        self.count += len(data)
        return data


class _Tail:
    """The last ``most`` bytes of an output, and how many came before them."""

    def __init__(self, most: int) -> None:
        self.most = most
        self.kept = bytearray()
        self.dropped = 0

    def add(self, data: bytes) -> None:
        self.kept += data
        if len(self.kept) > self.most:
            cut = len(self.kept) - self.most
            del self.kept[:cut]
            self.dropped += cut

    def text(self) -> str:
        earlier = f"[… {self.dropped:,} bytes of earlier output left out]\n" if self.dropped else ""
        return earlier + self.kept.decode("utf-8", errors="replace")


async def _read(stream: asyncio.StreamReader, into: _Tail) -> None:
    while chunk := await stream.read(64 * 1024):
        into.add(chunk)


def _clear(folder: Path) -> None:
    """Empty ``folder`` of what a build that did not end well sent back."""
    for entry in folder.iterdir():
        if stat.S_ISDIR(entry.lstat().st_mode):
            shutil.rmtree(entry)
        else:
            entry.unlink()


def _mib(count: int) -> str:
    return f"{count / MIB:,.1f} MiB" if count >= MIB else f"{count:,} bytes"

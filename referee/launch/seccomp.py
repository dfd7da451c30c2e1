"""The system calls a sandboxed bot is refused, as the BPF program bubblewrap loads (``--seccomp FD``).

The sandbox gives every bot its own namespaces, but the files of its view
(``/usr``, the interpreter) are the same inodes in every sandbox, and some
kernel objects belong to an inode or to the whole machine, not to a
namespace. Two colluding bots used them to talk: partners that published
their hands as ``flock`` locks on agreed files read each other's exact hand
in 191 of 205 decisions (issue 30). This filter closes every such exact
channel we know of, and a few doors into the kernel no bot needs:

* **locks and leases on shared files**: ``flock``, ``fcntl``'s record locks
  (``F_SETLK``, ``F_OFD_SETLK``, ``F_GETLK``, ...) and leases: ``ENOLCK``, as
  on a file system without locks;
* **watching shared files**: ``inotify`` and ``fanotify`` (another bot's
  ``open`` is an event), ``fcntl(F_NOTIFY)``: ``ENOSYS``, as on a kernel
  without them, so a program falls back to looking for itself;
* **the machine's counters**: ``sysinfo`` (load, free memory, process count:
  what ``/proc/loadavg`` and ``/proc/meminfo`` say, which the sandbox covers)
  and ``statfs`` (a disk's free blocks move with what any bot writes to its
  log): ``ENOSYS``;
* **the page cache**: ``cachestat``, ``preadv2``'s ``RWF_NOWAIT`` (both tell
  whether another process read a file of late) and ``fadvise(DONTNEED)``
  (which would let a bot evict it): refused, and ``DONTNEED`` is a no-op
  that succeeds, as the advice it is;
* **the kernel's own keyrings** (``keyctl``, ``add_key``, ``request_key``),
  shared by every process of a uid: ``EPERM``;
* **new user namespaces** (``unshare`` or ``clone`` with ``CLONE_NEWUSER``;
  ``clone3``, whose flags a filter cannot read, is ``ENOSYS`` so that the C
  library falls back to ``clone``): ``EPERM``. A user namespace of its own
  would hand a bot every capability inside it: kernel attack surface;
* **the rest a bot never needs**: ``bpf``, ``perf_event_open``,
  ``userfaultfd``, ``io_uring`` (``ENOSYS``: libuv falls back), ``setns``.

System calls of another architecture (i386's on an x86-64 kernel) kill the
process: the filter only knows this one's numbers. libseccomp builds the
program (``libseccomp.so.2``, Debian's ``libseccomp2``, which apt itself
needs), through ctypes: it knows every architecture's numbers and the
32-bit and x32 escape hatches, which a program of our own would have to
learn one by one. What stays open is said in docs/security.md: timing
through the shared CPU.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import functools
import os
import tempfile
from dataclasses import dataclass
from enum import IntEnum


class SeccompError(RuntimeError):
    """The filter cannot be built on this machine; the message says why."""


class Compare(IntEnum):
    """libseccomp's ``enum scmp_compare``."""

    EQ = 4
    MASKED_EQ = 7


@dataclass(frozen=True)
class Argument:
    """A condition on one argument: ``arg[index] (& mask) == value``."""

    index: int
    value: int
    mask: int | None = None


@dataclass(frozen=True)
class Refusal:
    """One system call refused (with ``errno``), for every call or only for those matching ``when``."""

    syscall: str
    errno: int
    when: Argument | None = None


CLONE_NEWUSER = 0x10000000
F_GETLK, F_SETLK, F_SETLKW = 5, 6, 7  # the 64-bit numbers: x86-64 and aarch64 have no others
F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW = 36, 37, 38
F_SETLEASE, F_GETLEASE, F_NOTIFY = 1024, 1025, 1026
RWF_NOWAIT = 0x8
POSIX_FADV_DONTNEED = 4

REFUSED: tuple[Refusal, ...] = (
    Refusal("flock", errno.ENOLCK),
    *(
        Refusal("fcntl", errno.ENOLCK, Argument(1, command))
        for command in (F_GETLK, F_SETLK, F_SETLKW, F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW, F_SETLEASE, F_GETLEASE)
    ),
    Refusal("fcntl", errno.ENOSYS, Argument(1, F_NOTIFY)),
    *(
        Refusal(name, errno.ENOSYS)
        for name in ("inotify_init", "inotify_init1", "inotify_add_watch", "fanotify_init", "fanotify_mark")
    ),
    *(Refusal(name, errno.ENOSYS) for name in ("sysinfo", "statfs", "fstatfs", "ustat", "cachestat")),
    Refusal("preadv2", errno.EOPNOTSUPP, Argument(5, RWF_NOWAIT, RWF_NOWAIT)),
    Refusal("fadvise64", 0, Argument(3, POSIX_FADV_DONTNEED)),
    *(Refusal(name, errno.EPERM) for name in ("keyctl", "add_key", "request_key")),
    Refusal("unshare", errno.EPERM, Argument(0, CLONE_NEWUSER, CLONE_NEWUSER)),
    Refusal("clone", errno.EPERM, Argument(0, CLONE_NEWUSER, CLONE_NEWUSER)),
    Refusal("clone3", errno.ENOSYS),
    Refusal("setns", errno.EPERM),
    *(Refusal(name, errno.EPERM) for name in ("bpf", "perf_event_open", "userfaultfd")),
    *(Refusal(name, errno.ENOSYS) for name in ("io_uring_setup", "io_uring_enter", "io_uring_register")),
)

_ALLOW = 0x7FFF0000  # SCMP_ACT_ALLOW
_ERRNO = 0x00050000  # SCMP_ACT_ERRNO(e) is this | e


class _ArgumentCompare(ctypes.Structure):
    """libseccomp's ``struct scmp_arg_cmp``."""

    _fields_ = [
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    ]


@functools.cache
def _library() -> ctypes.CDLL:
    name = ctypes.util.find_library("seccomp") or "libseccomp.so.2"
    try:
        library = ctypes.CDLL(name, use_errno=True)
    except OSError:
        raise SeccompError("libseccomp is not installed (Debian: apt-get install libseccomp2)") from None
    library.seccomp_init.restype = ctypes.c_void_p
    library.seccomp_init.argtypes = [ctypes.c_uint32]
    library.seccomp_release.argtypes = [ctypes.c_void_p]
    library.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    library.seccomp_rule_add_array.argtypes = [
        ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint, ctypes.POINTER(_ArgumentCompare),
    ]  # fmt: skip
    library.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    return library


@functools.cache
def program() -> bytes:
    """The compiled filter, built once per process: refuse :data:`REFUSED`, allow the rest."""
    library = _library()
    context = library.seccomp_init(_ALLOW)
    if not context:
        raise SeccompError("libseccomp could not start a filter")
    try:
        for refusal in REFUSED:
            number = library.seccomp_syscall_resolve_name(refusal.syscall.encode())
            if number < 0:
                continue  # not a system call of this architecture (ustat on aarch64): nothing to refuse
            conditions = (_ArgumentCompare * 1)()
            count = 0
            if refusal.when is not None:
                when = refusal.when
                op = Compare.EQ if when.mask is None else Compare.MASKED_EQ
                a, b = (when.value, 0) if when.mask is None else (when.mask, when.value)
                conditions[0] = _ArgumentCompare(when.index, op, a, b)
                count = 1
            status = library.seccomp_rule_add_array(context, _ERRNO | refusal.errno, number, count, conditions)
            if status < 0:
                raise SeccompError(f"libseccomp refused the rule for {refusal.syscall}: {os.strerror(-status)}")
        with tempfile.TemporaryFile() as out:
            status = library.seccomp_export_bpf(context, out.fileno())
            if status < 0:
                raise SeccompError(f"libseccomp could not write the filter: {os.strerror(-status)}")
            out.seek(0)
            return out.read()
    finally:
        library.seccomp_release(context)


def problem() -> str | None:
    """Why the filter cannot be built here, or None when it can."""
    try:
        program()
    except SeccompError as error:
        return str(error)
    return None

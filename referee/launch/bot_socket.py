"""The referee's way to a launched bot's Unix socket, through the folder the bot writes in.

A bot makes its own socket, so the file at the socket's path is the bot's to
choose: a red-team bot put a symlink to a host socket there, and the referee,
dialling the path, connected to a server outside the sandbox, which played
the seat (issue 30). So the referee never dials that path. It walks to the
socket one name at a time from a folder it trusts, following no link
(``O_PATH | O_NOFOLLOW``), checks that what it found is a socket owned by the
bot's uid, keeps it open, and dials ``/proc/self/fd/N``: the kernel connects
to that very inode, whatever the bot renames or replaces afterwards.

A sandboxed bot's socket folder is a small tmpfs inside its sandbox, which
the referee reaches through ``/proc/PID/root`` of a process inside it, so
nothing the bot writes there lands on the host's disk or outlives the sandbox.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Sequence


class BotSocketError(RuntimeError):
    """What is at the bot's socket path is not a socket of the bot's own; the message says what it is."""


def open_socket(top: str, names: Sequence[str], owner: int) -> int | None:
    """An ``O_PATH`` descriptor of the socket at ``top/names[0]/…/names[-1]``, or None while there is none.

    ``top`` is trusted (followed if a link: ``/proc/PID/root`` is one); each of
    ``names`` is opened without following a link. Raises :class:`BotSocketError`
    when a name is a link, or the last is no socket or not ``owner``'s.
    """
    opened: list[int] = []
    try:
        folder = os.open(top, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
        opened.append(folder)
        for name in names[:-1]:
            folder = _open_beneath(folder, name, os.O_DIRECTORY)
            opened.append(folder)
        found = _open_beneath(folder, names[-1], 0)
    except FileNotFoundError:
        return None
    finally:
        for fd in opened:
            os.close(fd)
    status = os.fstat(found)
    what = _kind(status.st_mode)
    if what != "a socket" or status.st_uid != owner:
        os.close(found)
        whose = "" if status.st_uid == owner else f" of uid {status.st_uid}"
        raise BotSocketError(f"{'/'.join(names)} is {what}{whose}, not the bot's own socket")
    return found


def _open_beneath(folder: int, name: str, flags: int) -> int:
    try:
        return os.open(name, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC | flags, dir_fd=folder)
    except NotADirectoryError:
        # O_NOFOLLOW | O_DIRECTORY on a link says ENOTDIR: tell the link from a plain file.
        fd = os.open(name, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=folder)
        try:
            raise BotSocketError(f"{name} is {_kind(os.fstat(fd).st_mode)}, not a folder") from None
        finally:
            os.close(fd)


def _kind(mode: int) -> str:
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a pipe"
    return "a file"


def address(fd: int) -> str:
    """What gRPC dials for the socket held open as ``fd``."""
    return f"unix:/proc/self/fd/{fd}"


def close(fd: int | None) -> None:
    if fd is not None:
        with contextlib.suppress(OSError):
            os.close(fd)

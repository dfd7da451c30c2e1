"""The command line's shared parts: option values checked as they are read, and one-line errors.

A bad value is refused by argparse itself, naming the option, the value and
what is allowed (``argument --games: 0 is not allowed: expected an integer
>= 1``), so no command acts on a value it would have to refuse later, and
nothing a user types reaches a library call as a number it cannot take
(``--port 70000`` used to listen on 4464: the port taken modulo 65536).

Every error of every ``waraq`` command is one line on stderr, printed as it
is: :func:`print_error` never reads the message as rich markup, which would
eat a TOML table name such as ``[run]`` or ``[[bots]]``.

An output path is checked against what the command reads before anything is
written (:func:`refuse_writing_over`): ``--html L/ladder.sqlite`` used to
write a report over the ladder's database, one typo losing every result.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import NoReturn

from rich.console import Console
from rich.text import Text

PORTS = (0, 65535)  # TCP ports; 0 asks the system for a free one


class Parser(argparse.ArgumentParser):
    """An argparse parser whose errors are one line (the usage is a ``--help`` away)."""

    def error(self, message: str) -> NoReturn:
        print_error(f"{self.prog}: {message} (see `{self.prog} --help`)")
        sys.exit(2)


def print_error(message: str) -> None:
    """``error: <message>`` on stderr, the message as it is (no markup, no highlighting)."""
    Console(stderr=True, highlight=False, soft_wrap=True).print(Text.assemble(("error:", "red"), " ", message))


def tell_dial_ins(console: Console, address: str, tokens: Mapping[str, str]) -> None:
    """Where a run's dial-in bots dial, and each one's token: the only time it is shown. One line a bot
    however narrow the console (soft wrap), flushed at once: a script waiting for the token reads it then."""
    for name, token in tokens.items():
        console.print(
            f"dial-in bot {name}: dial {address} with token {token}", highlight=False, markup=False, soft_wrap=True
        )
    console.file.flush()


def integer_at_least(minimum: int) -> Callable[[str], int]:
    """An argparse type: a whole number >= ``minimum``."""

    def check(text: str) -> int:
        value = _integer(text, "an integer", f"one >= {minimum}")
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{value} is not allowed: expected an integer >= {minimum}")
        return value

    check.__name__ = f"integer >= {minimum}"
    return check


def port(text: str) -> int:
    """An argparse type: a TCP port, 0 to 65535."""
    low, high = PORTS
    value = _integer(text, "a port", f"an integer from {low} to {high}")
    if not low <= value <= high:
        raise argparse.ArgumentTypeError(
            f"{value} is not a port: expected an integer from {low} to {high} (0: any free port)"
        )
    return value


def _integer(text: str, what: str, expected: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {what} (expected {expected})") from None


def milliseconds(text: str) -> float:
    """An argparse type: a finite number of milliseconds > 0 (a record must be able to write it:
    JSON has no infinity)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of milliseconds") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"{text} is not allowed: expected a finite number of milliseconds > 0")
    return value


class OutputError(ValueError):
    """An output path that would write over what the command reads: one line naming the option, the
    path and the input (a ``ValueError``, so the commands' usual handler answers it with exit status 2)."""


def refuse_writing_over(
    option: str,
    out: Path,
    reads: Iterable[tuple[Path, str]] = (),
    *,
    inside: Iterable[tuple[Path, str]] = (),
    folder: bool = False,
) -> None:
    """Raise :class:`OutputError` when writing ``out`` (given as ``option``) could write over an input.

    ``reads`` are ``(path, what)``: the files and folders the command reads (``what``: "the ladder's
    database"). ``out`` must not be one of them; a ``folder`` out (one the command writes files in,
    named after its inputs) must not hold one either. ``inside`` are ``(folder, what)``: folders no
    output may be, be in or hold (a ladder's: its database, key and records). Paths are compared
    resolved (symlinks followed, ``..`` collapsed) and, where they exist, by device and inode, so a
    hard link or a bind mount of an input is the input too.
    """
    for path, what in reads:
        if _same(out, path):
            raise OutputError(f"{option} {out} is {what}: refusing to write over an input (choose another path)")
        if folder and _inside(path, out):
            raise OutputError(
                f"{option} {out} holds {what} ({path}): refusing to write over an input (choose another path)"
            )
    for place, what in inside:
        if _inside(out, place):
            where = f"is {what}" if _same(out, place) else f"is in {what} {place}"
            raise OutputError(f"{option} {out} {where}: refusing to write there (choose a path outside it)")
        if folder and _inside(place, out):
            raise OutputError(
                f"{option} {out} holds {what} {place}: refusing to write over an input (choose another path)"
            )


def _same(a: Path, b: Path) -> bool:
    if a.resolve() == b.resolve():
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet): not the same file
        return False


def _inside(path: Path, folder: Path) -> bool:
    """``path`` is ``folder`` or lies in it: by the resolved paths, or one of the path's existing
    ancestors is the folder by device and inode (a bind mount of it)."""
    resolved, place = path.resolve(), folder.resolve()
    if resolved == place or place in resolved.parents:
        return True
    try:
        wanted = _identity(place)
    except OSError:  # no such folder: nothing lies in it but what the paths say
        return False
    for ancestor in (resolved, *resolved.parents):
        try:
            if _identity(ancestor) == wanted:
                return True
        except OSError:  # not made yet
            continue
    return False


def _identity(path: Path) -> tuple[int, int]:
    found = os.stat(path)
    return found.st_dev, found.st_ino

"""The command line's shared parts: option values checked as they are read, and one-line errors.

A bad value is refused by argparse itself, naming the option, the value and
what is allowed (``argument --games: 0 is not allowed: expected an integer
>= 1``), so no command acts on a value it would have to refuse later, and
nothing a user types reaches a library call as a number it cannot take
(``--port 70000`` used to listen on 4464: the port taken modulo 65536).

Every error of every ``waraq`` command is one line on stderr, printed as it
is: :func:`print_error` never reads the message as rich markup, which would
eat a TOML table name such as ``[run]`` or ``[[bots]]``.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
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

"""The command-line options that choose how launched bots are confined: ``--sandbox`` and the limits.

Every command that launches bots takes the same options (``waraq match``, ``check-bot``, ``versus``),
so they live here, beside the sandbox, where the ladder's commands may import them too.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from waraq.referee.launch import sandbox

# The limits of sandbox.Limits a command line sets, as --memory-mb N and so on: name -> (unit, what it bounds).
# Each one's range is sandbox.LIMIT_RANGES'.
LIMIT_OPTIONS = {
    "memory_mb": ("MiB", "memory of a bot and its children"),
    "cpu_seconds": ("s", "CPU time of a bot process"),
    "processes": ("", "processes and threads of a bot"),
    "file_mb": ("MiB", "largest file a bot may write"),
    "scratch_mb": ("MiB", "a bot's private /tmp"),
    "cpus": ("", "whole cores a bot's processes may take together"),
}


def add_sandbox_options(command: argparse.ArgumentParser) -> None:
    """``--sandbox`` and the limits, for a command that launches bots."""
    defaults = sandbox.Limits()
    group = command.add_argument_group("sandbox (launched bots; see `waraq doctor`)")
    group.add_argument(
        "--sandbox",
        choices=[m.value for m in sandbox.Isolation],
        default=sandbox.Isolation.AUTO.value,
        help="auto: confine launched bots where the machine can, else warn; on: confine or refuse; off: never "
        "(default auto)",
    )
    for name, (unit, what) in LIMIT_OPTIONS.items():
        group.add_argument(
            "--" + name.replace("_", "-"),
            type=_limit(name),
            default=getattr(defaults, name),
            metavar="N",
            help=f"{what} (default {getattr(defaults, name)}{' ' + unit if unit else ''})",
        )


def _limit(name: str) -> Callable[[str], int]:
    """The argparse type of the limit ``name``: a whole number in its range of sandbox.LIMIT_RANGES."""
    low, high = sandbox.LIMIT_RANGES[name]

    def whole(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{text!r} is not allowed: expected a whole number from {low} to {high}")
        return value

    whole.__name__ = f"whole number from {low} to {high}"
    return whole


def confinement(args: argparse.Namespace) -> sandbox.Config:
    limits = sandbox.Limits(**{name: getattr(args, name) for name in LIMIT_OPTIONS})
    return sandbox.Config(sandbox.Isolation(args.sandbox), limits)

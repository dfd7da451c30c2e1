"""``--ray ADDRESS|auto``: what the commands know of a Ray cluster without importing Ray.

Ray is an optional extra (``pip install 'waraq[ray]'``). Only
:mod:`waraq.ladder.ray_cluster` imports it, and only a run given ``--ray``
imports that module (``waraq.ladder.live.play``): without the option nothing
of Ray is loaded, and without Ray installed the option is one line of error
(:class:`ClusterError`, from :func:`check`), exit status 2, before anything
starts.
"""

from __future__ import annotations

import argparse
import importlib.util

AUTO = "auto"  # a cluster of this machine: the one running here (`ray start --head`), else a new one
MISSING = "--ray needs Ray, which is not installed: pip install 'waraq[ray]'"
HELP = (
    "play each match as a task on a Ray cluster: ADDRESS of its head (host:6379, this machine a node of it), or "
    "'auto' for this machine's (docs/cluster.md); the results, ratings and records stay here"
)


class ClusterError(RuntimeError):
    """The cluster cannot be used, or a match could not be played on it: one line saying why."""


def add_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--ray", metavar="ADDRESS|auto", help=HELP)


def check(address: str | None) -> None:
    """Before anything is started: an empty address, or ``--ray`` without Ray, is a :class:`ClusterError`."""
    if address is None:
        return
    if not address.strip():
        raise ClusterError("--ray '': expected the address of a Ray cluster's head (host:port) or 'auto'")
    if importlib.util.find_spec("ray") is None:  # looked for, not imported: that is ray_cluster's to do
        raise ClusterError(MISSING)

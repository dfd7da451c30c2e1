"""``--ray ADDRESS|auto``: what the commands know of a Ray cluster without importing Ray.

Ray is an optional extra (``pip install 'waraq[ray]'``). Only
:mod:`waraq.ladder.play.ray_cluster` imports it, and only a run given ``--ray``
imports that module (``waraq.ladder.present.live.play``): without the option nothing
of Ray is loaded, and without Ray installed the option is one line of error
(:class:`ClusterError`, from :func:`check`), exit status 2, before anything
starts. An address where nothing listens is found by a TCP connection before
Ray is asked (:func:`probe`): ``ray.init`` took 13.7 minutes to give up on
one. That is :class:`Unreachable`, one line within seconds: ``ladder run``
exits 1 (the option is well formed, but the run cannot do its work);
``versus`` 2, as for its other options (its 1 is a verdict, H0 accepted).
"""

from __future__ import annotations

import argparse
import importlib.util
import socket

from waraq.referee.common.digits import ascii_digits

AUTO = "auto"  # a cluster of this machine: the one running here (`ray start --head`), else a new one
MISSING = "--ray needs Ray, which is not installed: pip install 'waraq[ray]'"
HELP = (
    "play each match as a task on a Ray cluster: ADDRESS of its head (host:6379, this machine a node of it), or "
    "'auto' for this machine's (docs/cluster.md); the results, ratings and records stay here"
)


PROBE_SECONDS = 5.0  # a head that takes a TCP connection slower than this is taken for none


class ClusterError(RuntimeError):
    """The cluster cannot be used, or a match could not be played on it: one line saying why."""


class Unreachable(ClusterError):
    """Nothing takes a connection at the head's address: the run cannot begin."""


def add_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--ray", metavar="ADDRESS|auto", help=HELP)


def check(address: str | None) -> None:
    """Before anything is started: an empty address, or ``--ray`` without Ray, is a :class:`ClusterError`;
    an address where nothing listens is :class:`Unreachable`."""
    if address is None:
        return
    if not address.strip():
        raise ClusterError("--ray '': expected the address of a Ray cluster's head (host:port) or 'auto'")
    if importlib.util.find_spec("ray") is None:  # looked for, not imported: that is ray_cluster's to do
        raise ClusterError(MISSING)
    probe(address)


def head_of(address: str) -> tuple[str, int] | None:
    """The host and port of ``host:port`` (also ``ray://host:port``, ``[::1]:port``) for :func:`probe`;
    None for ``auto`` and any other form, which Ray reads itself."""
    if address == AUTO:
        return None
    host, colon, port = address.removeprefix("ray://").rpartition(":")
    if not colon or not host or not ascii_digits(port):
        return None
    if not 0 < int(port) < 65536:
        raise ClusterError(f"--ray {address}: {port} is not a port (expected host:port, the port from 1 to 65535)")
    return host.removeprefix("[").removesuffix("]"), int(port)


def probe(address: str, timeout: float = PROBE_SECONDS) -> None:
    """Raise :class:`Unreachable` when no TCP connection to the head's address is taken within ``timeout``."""
    head = head_of(address)
    if head is None:
        return
    try:
        with socket.create_connection(head, timeout=timeout):
            pass
    except OSError as error:
        why = error.strerror or str(error) or type(error).__name__
        raise Unreachable(
            f"--ray {address}: nothing listens there ({why}; tried for up to {timeout:g} s): start the cluster's "
            "head there (`ray start --head`) or give its address"
        ) from None

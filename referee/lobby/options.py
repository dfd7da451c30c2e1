"""The command-line options of a lobby (``--lobby``, TLS, ``--insecure``, ``--grace-s``), reading them,
and a lobby for one run.

``waraq match``, ``check-bot`` and ``waraq ladder run`` take the same options, so they live here.
A certificate or key that cannot be read is one line that names the file.
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import AsyncIterator, Callable, Collection
from dataclasses import dataclass
from pathlib import Path

from waraq.referee.lobby.lobby import GRACE_S, Lobby, check_listen
from waraq.referee.lobby.tokens import TokenTable

LOOPBACK = "127.0.0.1:0"  # where a lobby listens unless told: this machine only, any free port


@dataclass(frozen=True)
class LobbyConfig:
    """Where a lobby listens, over what, and how long it holds the seat of a bot that dropped."""

    address: str = LOOPBACK
    tls: tuple[bytes, bytes] | None = None  # (key, certificate), PEM
    grace_s: float = GRACE_S


def add_lobby_options(
    command: argparse.ArgumentParser,
    *,
    default: str | None = LOOPBACK,
    default_said: str = f"{LOOPBACK}: this machine only, any free port",
) -> None:
    group = command.add_argument_group('lobby (bots that dial in: docs/protocol.md, "Dialling in")')
    group.add_argument(
        "--lobby",
        metavar="HOST:PORT",
        default=default,
        help=f"where dial-in bots dial (default {default_said}); any address but loopback needs TLS or --insecure",
    )
    group.add_argument("--tls-cert", type=Path, metavar="PEM", help="the lobby's certificate chain (with --tls-key)")
    group.add_argument("--tls-key", type=Path, metavar="PEM", help="the lobby's private key (with --tls-cert)")
    group.add_argument(
        "--insecure", action="store_true", help="listen without TLS on an address other than loopback (tokens in clear)"
    )
    group.add_argument(
        "--grace-s",
        type=_seconds,
        default=GRACE_S,
        metavar="S",
        help=f"how long the seat of a dial-in bot whose connection dropped is held for it (default {GRACE_S:g})",
    )


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value <= 3600:
        raise argparse.ArgumentTypeError(f"{text!r} is not allowed: expected seconds, more than 0 and at most 3600")
    return value


def lobby_config(args: argparse.Namespace) -> LobbyConfig | None:
    """The lobby the options ask for (None: no --lobby); ValueError names what is wrong."""
    if not args.lobby:
        return None
    if (args.tls_cert is None) != (args.tls_key is None):
        raise ValueError("--tls-cert and --tls-key go together: give both, or neither")
    tls = None
    if args.tls_cert is not None:
        tls = (_pem(args.tls_key, "--tls-key"), _pem(args.tls_cert, "--tls-cert"))
    check_listen(args.lobby, tls=tls is not None, insecure=args.insecure)
    return LobbyConfig(args.lobby, tls, args.grace_s)


def _pem(path: Path, option: str) -> bytes:
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ValueError(f"{option} {path}: {error.strerror or error}") from None
    if b"-----BEGIN " not in data:
        raise ValueError(f"{option} {path}: not a PEM file (no -----BEGIN line)")
    return data


Told = Callable[[str, dict[str, str]], None]  # the lobby's address, and each bot's token by its name


@contextlib.asynccontextmanager
async def lobby_for_run(names: Collection[str], config: LobbyConfig, tell: Told | None) -> AsyncIterator[Lobby]:
    """A lobby for one run (``waraq match``, ``check-bot``): a token made for each of ``names``, kept in
    memory only and told once with the address; every stream ended when the run is."""
    tokens = TokenTable()
    issued = {name: tokens.issue(name) for name in names}
    lobby = Lobby(tokens, grace_s=config.grace_s)
    address = await lobby.listen(config.address, tls=config.tls)
    if tell is not None:
        tell(address, issued)
    try:
        yield lobby
    finally:
        await lobby.close()

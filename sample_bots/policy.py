"""A policy as a bot: ``waraq bot serve --policy MODULE:CALLABLE`` serves any function of a seat's view.

    python -m waraq.bots.policy agents:act --port 0      # the same

The callable is given the seat's view (the engine's
:class:`~waraq.referee.games.hokm.engine.HokmView` or Hand's
:class:`~waraq.referee.games.hand.view.HandView`, as every Python bot is) and the
view's legal actions, and returns one of them: ``act(view, legal) -> action``.
So a policy trained in :mod:`waraq.referee.env` enters ``check-bot``, matches and
ladders unchanged; an agent that chooses an action index decodes it with the
encoding it was trained on (docs/research.md, "From a policy to the ladder").
What it returns is checked by the referee as any bot's reply: an action that is
not legal is the seat's ``ILLEGAL`` fault; a callable that raises breaks its
stream, a ``CRASH``.
"""

from __future__ import annotations

import asyncio
import importlib
import os
import sys
from collections.abc import Callable
from typing import Any

from waraq.bots.server import BindError, PlayerBot, serve_until_stopped
from waraq.referee.common import arguments


class PolicyError(ValueError):
    """A ``--policy`` that names no callable: the message says which part and why."""


def load(spec: str) -> Callable[[Any, Any], Any]:
    """The callable ``MODULE:CALLABLE`` names (``CALLABLE`` may be dotted: ``agents.hokm:Agent.act``),
    the module found as ``python -m`` finds one: in the current folder first."""
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    module_name, colon, attribute = spec.partition(":")
    if not colon or not module_name or not attribute:
        raise PolicyError(f"--policy {spec!r}: expected MODULE:CALLABLE, e.g. myagent:act")
    try:
        found: Any = importlib.import_module(module_name)
    except Exception as error:  # the module's own import may fail any way: say so in one line
        raise PolicyError(f"--policy {spec!r}: cannot import {module_name}: {type(error).__name__}: {error}") from None
    for part in attribute.split("."):
        found = getattr(found, part, None)
        if found is None:
            raise PolicyError(f"--policy {spec!r}: {module_name} has no {attribute}")
    if not callable(found):
        raise PolicyError(f"--policy {spec!r}: {attribute} is not callable")
    return found


def players(policy: Callable[[Any, Any], Any]) -> Callable[[str, int, str], Callable[[Any], Any]]:
    """A player factory (:data:`waraq.bots.server.PlayerFactory`) whose players ask ``policy``."""

    def make(match: str, seat: int, game: str = "hokm") -> Callable[[Any], Any]:
        def player(view: Any) -> Any:
            return policy(view, view.legal)

        return player

    return make


def main(argv: list[str] | None = None) -> int:
    """Serve the policy ``argv`` names until SIGTERM or SIGINT: 2 when it names no callable, 1 when the
    address cannot be had. A module of its own, not the built-in bots' server: a built-in bot's code (its
    version on a ladder, :mod:`waraq.ladder.play.bot_code`) is that server and what it imports."""
    parser = arguments.Parser(prog="waraq bot serve --policy", description="Serve a policy over gRPC.")
    parser.add_argument("policy", metavar="MODULE:CALLABLE", help="a function act(view, legal) -> one of legal")
    parser.add_argument("--port", type=arguments.port, default=0, help="TCP port on 127.0.0.1 (0: any free port)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--unix", help="listen on this Unix socket path instead of TCP")
    args = parser.parse_args(argv)
    address = f"unix:{args.unix}" if args.unix else f"{args.host}:{args.port}"
    try:
        servicer = PlayerBot(args.policy, players(load(args.policy)), author="a policy")
    except PolicyError as error:
        arguments.print_error(str(error))
        return 2
    try:
        asyncio.run(serve_until_stopped(servicer, address, args.policy))
    except BindError as error:
        arguments.print_error(str(error))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

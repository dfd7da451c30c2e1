"""``waraq bot serve NAME``: serve a built-in bot over gRPC, from the ``waraq`` command.

Registered through the ``waraq.commands`` entry point (pyproject.toml), as the
ladder's commands are, so that nothing in referee/ imports a bot. The bot
names are the one table's (:mod:`waraq.referee.common.built_in`).
"""

from __future__ import annotations

import argparse
from typing import Any

from rich.console import Console

from waraq.bots import server
from waraq.referee.common import built_in
from waraq.referee.common.arguments import port


def register(subparsers: Any) -> None:
    """Add ``bot serve`` to the ``waraq`` subcommands."""
    bot = subparsers.add_parser("bot", help="run a sample bot")
    commands = bot.add_subparsers(dest="bot_command", required=True)
    serve = commands.add_parser("serve", help="serve a built-in bot over gRPC")
    serve.add_argument("name", nargs="?", choices=built_in.names())
    serve.add_argument("--policy", metavar="MODULE:CALLABLE", help="serve act(view, legal) -> action instead")
    serve.add_argument("--port", type=port, default=0, help="TCP port on 127.0.0.1 (0: any free port)")
    serve.add_argument("--unix", help="listen on this Unix socket path instead")
    # Passed on as given: the server checks them (one owner of what they may be).
    serve.add_argument("--ms", help="search bot only: its budget a decision, in ms (100)")
    serve.add_argument("--worlds", help="search bot only: a fixed number of worlds a decision")
    serve.set_defaults(run_command=run)


def run(args: argparse.Namespace, console: Console) -> int:
    given = {"unix": args.unix, "ms": args.ms, "worlds": args.worlds, "policy": args.policy}
    named = [args.name] if args.name else []
    return server.main([*named, f"--port={args.port}", *(f"--{k}={v}" for k, v in given.items() if v is not None)])

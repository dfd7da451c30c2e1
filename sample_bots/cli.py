"""``waraq bot serve NAME``: serve a built-in bot over gRPC, from the ``waraq`` command.

Registered through the ``waraq.commands`` entry point (pyproject.toml), as the
ladder's commands are, so that nothing in referee/ imports a bot. The bot
names are the one table's (:mod:`waraq.referee.common.built_in`).
"""

from __future__ import annotations

import argparse
from typing import Any

from rich.console import Console

from waraq.bots import policy, server
from waraq.referee.common import arguments, built_in
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
    if (args.name is None) == (args.policy is None):
        arguments.print_error("waraq bot serve: give one of: a built-in bot's name, --policy MODULE:CALLABLE")
        return 2
    if args.policy is not None:
        if args.ms is not None or args.worlds is not None:
            arguments.print_error("--ms and --worlds are for the search bot only, not a policy")
            return 2
        return policy.main([args.policy, f"--port={args.port}", *([f"--unix={args.unix}"] if args.unix else [])])
    given = {"unix": args.unix, "ms": args.ms, "worlds": args.worlds}
    return server.main([args.name, f"--port={args.port}", *(f"--{k}={v}" for k, v in given.items() if v is not None)])

"""``waraq serve DIR``: the ladder in DIR as a web arena that never stops (docs/serve.md).

    waraq serve DIR [--http HOST:PORT] [--public-url URL] [--init-admin]
                    [--concurrency K] [--keep-playing | --matches N] [--per-hour N] [--bots-per-author N]
                    [--upload-mb N]
                    [--ray ADDRESS|auto] [--lobby HOST:PORT --tls-cert PEM --tls-key PEM] [--insecure]
                    [--secure-cookies] [--proxy-headers]

Registered through the ``waraq.commands`` entry point. It needs the ``serve``
extra (``pip install 'waraq[serve]'``): without it, one line says so.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import sqlite3
from pathlib import Path
from typing import Any

from rich.console import Console

from waraq.ladder.commands.cli import lobby_of
from waraq.ladder.play import cluster, folder
from waraq.ladder.play.cluster import ClusterError
from waraq.ladder.play.scheduler import RunState
from waraq.ladder.storage import key_file
from waraq.ladder.storage.config import ConfigError
from waraq.ladder.storage.store import StoreError
from waraq.ladder.storage.store import problem as store_problem
from waraq.referee.common.arguments import print_error
from waraq.referee.common.digits import ascii_digits
from waraq.referee.lobby import options as lobby_options
from waraq.referee.records.record_file import RecordError

WEB_MODULES = ("starlette", "uvicorn", "jinja2", "multipart")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="the ladder as a web arena: authors upload bots, everyone watches the standings and replays",
        description=(
            "Runs the ladder in DIR without end (as `waraq ladder run`, holding its lock) and serves it over HTTP: "
            "public standings, bots' pages and replays; authors' uploads, logs and tokens; the organiser's page. "
            "Everything lives in DIR: kill it and start it again, and it goes on. docs/serve.md."
        ),
    )
    parser.add_argument("folder", type=Path, metavar="DIR", help="a ladder folder (`waraq ladder init DIR` makes one)")
    parser.add_argument(
        "--http", default="127.0.0.1:8000", metavar="HOST:PORT", help="where to serve (default 127.0.0.1:8000)"
    )
    parser.add_argument("--public-url", default="", metavar="URL", help="how people reach it, for invite links")
    parser.add_argument("--init-admin", action="store_true", help="print a one-time invite link for an organiser")
    parser.add_argument("--concurrency", type=_positive, metavar="K", help="matches at once (default: ladder.toml's)")
    goal = parser.add_mutually_exclusive_group()
    goal.add_argument(
        "--keep-playing", action="store_true", help="play on when the stopping rule is met (default: wait for a change)"
    )
    goal.add_argument("--matches", type=_positive, metavar="N", help="plan no match past N in all")
    parser.add_argument(
        "--per-hour", type=_positive, default=120, metavar="N", help="matches a bot plays in an hour at most (120)"
    )
    parser.add_argument("--bots-per-author", type=_positive, default=3, metavar="N", help="bots an author may have (3)")
    parser.add_argument(
        "--upload-mb",
        type=_positive,
        default=2048,
        metavar="N",
        help="what an author's uploads may keep on disk, besides the versions playing (2048 MiB)",
    )
    parser.add_argument("--ray", metavar="ADDRESS", help="play the matches on a Ray cluster (docs/cluster.md)")
    parser.add_argument("--secure-cookies", action="store_true", help="behind TLS: send cookies over HTTPS only")
    parser.add_argument(
        "--proxy-headers", action="store_true", help="behind a reverse proxy on loopback: trust its X-Forwarded-*"
    )
    lobby_options.add_lobby_options(parser, default=None, default_said="ladder.toml's [lobby], else 127.0.0.1:0")
    parser.set_defaults(run_command=main)


def _positive(text: str) -> int:
    if not ascii_digits(text) or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not allowed: expected a whole number, 1 or more")
    return int(text)


def main(args: argparse.Namespace, console: Console) -> int:
    missing = [name for name in WEB_MODULES if importlib.util.find_spec(name) is None]
    if missing:
        print_error(f"waraq serve needs the serve extra ({', '.join(missing)} missing): pip install 'waraq[serve]'")
        return 2
    from waraq.ladder.web import server  # only here: the web stack is an extra

    try:
        cluster.check(args.ray)
        with folder.open_ladder(args.folder) as ladder:
            state = _serve(args, console, ladder)
    except (ConfigError, StoreError, ClusterError, RecordError, server.ListenError, ValueError) as error:
        print_error(str(error))
        return 2
    except sqlite3.Error as error:
        print_error(store_problem(args.folder / "ladder.sqlite", error))
        return 1
    console.print(f"stopped: {state.played} matches played", highlight=False, markup=False)
    return 0


def _serve(args: argparse.Namespace, console: Console, ladder: folder.Ladder) -> RunState:
    from waraq.ladder.web import server
    from waraq.ladder.web.arena import ServeSettings

    settings = ServeSettings(
        concurrency=args.concurrency,
        keep_playing=args.keep_playing,
        matches=args.matches,
        per_hour=args.per_hour,
        bots_per_author=args.bots_per_author,
        upload_bytes=args.upload_mb << 20,
        cluster=args.ray,
        lobby=lobby_of(args, ladder),
    )
    http = server.HttpSettings(
        args.http, args.public_url.rstrip("/"), args.secure_cookies, args.proxy_headers, args.insecure
    )
    _, made = key_file.ensure(ladder.folder, ladder.store)
    if made is not None:
        say(console, made, style="yellow")
    sock = server.bind(http)

    def ready(site: Any) -> None:
        say(console, f"waraq serve: {site.public_url} (ladder {ladder.folder})")
        if args.init_admin:
            say(console, f"organiser invite, once: {server.admin_link(ladder, site.public_url)}")

    return asyncio.run(
        server.serve(ladder, settings, http, sock, ready, lambda at: say(console, f"dial-in bots dial {at}"))
    )


def say(console: Console, line: str, style: str = "") -> None:
    """One line as it is, never wrapped (a test or a script reads the address and the link from it)."""
    console.print(line, style=style, highlight=False, markup=False, soft_wrap=True)

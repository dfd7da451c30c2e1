"""``waraq check-bot SPEC``: the conformance run (:mod:`waraq.referee.conformance`) on the command line.

    waraq check-bot SPEC [--game hokm|hand]... [--players N]... [--only CASE]... [--json] [--record DIR] [--jobs K]

Exit status 0 when no case failed, 1 when one did, 2 for bad usage.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

import orjson
from rich.console import Console

from waraq.referee.common import built_in
from waraq.referee.common.arguments import integer_at_least, milliseconds, print_error
from waraq.referee.conformance import report as reporting
from waraq.referee.conformance.check import GAMES, CheckConfig, case_ids, check, unknown_cases
from waraq.referee.launch import sandbox_options
from waraq.referee.launch.bots import BotSpec, a_bot
from waraq.referee.lobby import options as lobby_options
from waraq.referee.lobby.options import LobbyConfig
from waraq.referee.match.play import TimeControl

MARK = ".check-bot"  # a folder check-bot made, which it may fill again


def register(commands: argparse._SubParsersAction) -> None:
    command = commands.add_parser(
        "check-bot",
        help="put a bot through every situation the referee can create, and say what it got wrong",
        description="A conformance run: start-up, Hello, every decision kind of every game and player count "
        "the bot's Hello declares (under rules and deals chosen so that each occurs), timing, several "
        "streams at once, requests with unknown fields, the end of a stream, SIGTERM. Each case passes, "
        "fails (naming the record and the `waraq replay` command that show it) or is skipped with the reason. "
        "Exit status 0 when no case failed, 1 when one did.",
    )
    command.add_argument(
        "bot",
        metavar="SPEC",
        help=f"a built-in bot ({', '.join(built_in.names())}), a command with {{port}} or {{socket}}, "
        "an address (host:port, unix:PATH), or dial-in: check-bot listens, prints a token, and waits "
        "--startup-ms for the bot to dial with it",
    )
    command.add_argument(
        "--game", action="append", choices=tuple(GAMES), help="check this game only (repeat for more; default: all)"
    )
    command.add_argument(
        "--players", action="append", type=int, choices=(2, 3, 4), help="check this player count only (repeatable)"
    )
    command.add_argument(
        "--only",
        action="append",
        metavar="CASE",
        help="these cases alone: a case id or its beginning (timing., hokm-2., hand-4.turn-add); repeatable",
    )
    command.add_argument("--json", action="store_true", help="print the report as one JSON object (for CI)")
    command.add_argument(
        "--record",
        type=Path,
        help="folder for the check's records (default: a new temporary folder); one check-bot made is refilled",
    )
    command.add_argument("--jobs", type=integer_at_least(1), default=2, help="stages played at once (default 2)")
    command.add_argument(
        "--startup-ms", type=milliseconds, default=TimeControl.startup_ms, help="start-up deadline of each process"
    )
    sandbox_options.add_sandbox_options(command)
    lobby_options.add_lobby_options(command)
    command.set_defaults(run_command=run)


def run(args: argparse.Namespace, console: Console) -> int:
    unknown = unknown_cases(args.only or ())
    if unknown:  # else a typo in CI checks nothing and passes
        raise ValueError(
            f"--only {', '.join(unknown)}: {'matches' if len(unknown) == 1 else 'match'} no case "
            f"(give a case id or its beginning); the cases: {', '.join(case_ids())}"
        )
    spec = a_bot(BotSpec.parse(args.bot), "check-bot")
    folder = _folder(args.record)
    config = CheckConfig(
        spec=spec,
        record_dir=folder,
        games=frozenset(args.game or ()),
        players=frozenset(args.players or ()),
        jobs=args.jobs,
        only=tuple(args.only or ()),
        startup_ms=args.startup_ms,
        confinement=sandbox_options.confinement(args),
        lobby=lobby_options.lobby_config(args) or LobbyConfig(),
    )
    told = Console(stderr=True) if args.json else console  # --json: stdout holds the report alone

    def tell(address: str, token: str) -> None:
        told.print(
            f"dial-in: dial {address} with token {token} (waiting up to {args.startup_ms / 1000:g} s)",
            highlight=False,
            markup=False,
            soft_wrap=True,  # the whole token on one line, for a script that reads it
        )
        told.file.flush()

    if args.json:
        report = asyncio.run(check(config, on_lobby=tell))
        sys.stdout.write(orjson.dumps(reporting.to_json(report), option=orjson.OPT_INDENT_2).decode() + "\n")
    else:
        with console.status(f"checking {spec}…") as status:
            report = asyncio.run(
                check(config, on_stage=lambda name: status.update(f"checking {spec}: {name} done"), on_lobby=tell)
            )
        reporting.show(console, report)
    return 0 if report.ok else 1


def _folder(given: Path | None) -> Path:
    try:
        return _make_folder(given)
    except OSError as error:
        raise ValueError(f"--record {given}: {error.strerror or error}") from None


def _make_folder(given: Path | None) -> Path:
    if given is None:
        folder = Path(tempfile.mkdtemp(prefix="waraq-check-"))
    else:
        folder = given
        if folder.exists() and any(folder.iterdir()) and not (folder / MARK).exists():
            raise ValueError(f"--record {folder}: the folder holds files check-bot did not write; give an empty one")
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.glob("*.jsonl"):
            old.unlink()
    (folder / MARK).write_text("records of a `waraq check-bot` run; the next run into this folder replaces them\n")
    return folder


if __name__ == "__main__":
    print_error("run it as `waraq check-bot`")
    sys.exit(2)

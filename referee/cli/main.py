"""The ``waraq`` command: parses options, calls library functions, prints.

waraq --version
waraq match --bots [NAME=]BOT... [--game hokm|hand] [--rules R] [--games N] [--seed S] [--json]
            [--record DIR [--overwrite]] [--concurrency K] [--policy forfeit|substitute] [--deal-key KEY]
                                                 (waraq.referee.cli.match)
waraq bot serve random|heuristic [--port N]      (the bots' own command: waraq.bots.cli)
waraq play [--game hokm|hand] [--rules PRESET|FILE.toml] [--seed S] [--tricks]
waraq rules [--game hokm|hand] [PRESET|FILE.toml]
waraq replay RECORD [--seat N] [--round R [--trick T]] [--step | --json] [--plain]
waraq replay RECORD|DIR... --ask BOT [--seat N]
waraq replay --verify RECORD|DIR...
waraq export --dataset OUT.npz RECORD|DIR... [--seat N] [--bot NAME] [--game G] [--players N]
                                                 (waraq.referee.cli.export)
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, entry_points, version
from typing import Any

from rich.console import Console

from waraq.referee.cli import check_bot, doctor, export
from waraq.referee.cli import match as match_cli
from waraq.referee.cli import replay as replay_cli
from waraq.referee.common import open_files
from waraq.referee.common.arguments import Parser, print_error
from waraq.referee.common.game_options import RULES_HELP, game_option
from waraq.referee.games import registry
from waraq.referee.games.options import RulesError
from waraq.referee.games.registry import Part
from waraq.referee.records.record_file import RecordError
from waraq.referee.replay.render import trick_games


def main(argv: Sequence[str] | None = None) -> int:
    open_files.raise_soft_limit()  # a run holds a channel, a log and pipes per bot: 1,024 is soon reached
    parser = Parser(prog="waraq", description="Waraq: a referee for card-game bots.")
    parser.add_argument("--version", action="version", version=f"waraq {_version()}")
    commands = parser.add_subparsers(dest="command", required=True)

    play = commands.add_parser("play", help="play one in-process match between random players")
    game_option(play)
    play.add_argument("--rules", default="classic", help=RULES_HELP)
    play.add_argument("--seed", type=int, default=1, help="the match seed (default 1)")
    play.add_argument("--tricks", action="store_true", help="Hokm: show every trick, not only each round")

    rules = commands.add_parser("rules", help="check a rules preset or file and print it with its hash")
    game_option(rules)
    rules.add_argument("spec", nargs="?", default="classic", help=RULES_HELP)

    match_cli.register(commands)

    replay_cli.register(commands)
    doctor.register(commands)
    check_bot.register(commands)
    export.register(commands)

    # Commands from other packages (the ladder's, the bots' `bot serve`) plug in through an entry
    # point, so that nothing in referee/ imports them: data flows ladder -> referee -> bots, never back.
    for plugin in entry_points(group="waraq.commands"):
        plugin.load()(commands)

    args = parser.parse_args(argv)
    console = Console()
    try:
        if hasattr(args, "run_command"):  # a plugin's command: it parses, works and prints itself
            return args.run_command(args, console)
        if args.command == "play":
            rules = registry.load_rules(args.game, args.rules)
            if args.tricks and not registry.part(args.game, Part.TEXT).TRICKS:
                raise ValueError(f"--tricks is for {trick_games()}: {args.game.capitalize()} has no tricks")
            return registry.part(args.game, Part.PLAY).play(console, rules, args.seed, args.tricks)
        if args.command == "doctor":
            return doctor.doctor(console)
        return _show_rules(console, registry.load_rules(args.game, args.spec))
    except (RulesError, ValueError) as error:
        print_error(str(error))
        return 2
    except RecordError as error:  # the records folder cannot be made or written
        print_error(str(error))
        return 1


def _version() -> str:
    """The installed distribution's version (pyproject.toml's, as pip installed it)."""
    try:
        return version("waraq")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "(not installed)"


def _show_rules(console: Console, rules: Any) -> int:
    console.print_json(rules.canonical_json())
    console.print(f"rules_hash {rules.rules_hash}", highlight=False, soft_wrap=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

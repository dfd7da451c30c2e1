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
"""

from __future__ import annotations

import random
import sys
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, entry_points, version
from typing import Any

from rich.console import Console
from rich.table import Table

from waraq.referee.cli import check_bot, doctor
from waraq.referee.cli import match as match_cli
from waraq.referee.cli import replay as replay_cli
from waraq.referee.cli.games import side_name
from waraq.referee.common import built_in
from waraq.referee.common.arguments import RULES_HELP, Parser, game_option, print_error
from waraq.referee.games import registry
from waraq.referee.games.cards import parse_card, parse_suit
from waraq.referee.games.hokm.engine import HokmState, winning_index
from waraq.referee.games.hokm.rules import HokmRules
from waraq.referee.games.options import RulesError
from waraq.referee.match.inprocess import play_match
from waraq.referee.records.record_file import RecordError


def main(argv: Sequence[str] | None = None) -> int:
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
            if args.game == "hand":
                if args.tricks:
                    raise ValueError("--tricks is for Hokm: Hand has no tricks")
                return _play_hand(console, rules, args.seed)
            return _play(console, rules, args.seed, args.tricks)
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


def _play(console: Console, rules: HokmRules, seed: int, tricks: bool) -> int:
    """One Hokm match between the built-in random bot's players, each seeded from the seed and its seat."""
    random_player = built_in.get("random").player_class("hokm")
    players = [random_player(f"{seed}/{seat}") for seat in range(rules.players)]
    state = play_match(rules, seed, players)
    console.print(
        f"Hokm, {rules.players} players, to {rules.target_score} points, seed {seed} "
        f"({rules.rules_hash[:19]}…)",
        highlight=False,
    )
    if tricks:
        _print_tricks(console, state)
    console.print(_rounds_table(state))
    result = state.result
    assert result is not None
    who = " and ".join(f"seat {s}" for s in result.winners)
    console.print(f"[bold]{who} won[/bold], score {'-'.join(map(str, result.score))} ({result.reason})")
    return 0


def _play_hand(console: Console, rules: Any, seed: int) -> int:
    """One Hand match between random players (each seeded from the match seed and its seat)."""
    state = registry.engine("hand").new_match(rules, seed)
    rngs = [random.Random(f"{seed}/{seat}") for seat in range(rules.players)]
    while state.result is None:
        seat = state.to_act
        assert seat is not None  # a match not over has a decision pending
        state.apply(state.random_action(rngs[seat]))
    console.print(
        f"Hand, {rules.players} players{' in partnership' if rules.partnership else ''}, "
        f"{rules.rounds} round{'s' if rules.rounds != 1 else ''}, opening {rules.opening_points}, seed {seed} "
        f"({rules.rules_hash[:19]}…)",
        highlight=False,
    )
    console.print(_hand_rounds_table(rules, state.events))
    result = state.result
    score = _sides_text(rules, list(result.score))
    if result.winners:
        who = " and ".join(f"seat {s}" for s in result.winners)
        console.print(f"[bold]{who} won[/bold], score {score} ({result.reason}, lowest wins)", highlight=False)
    else:
        console.print(f"[bold]nobody won[/bold], score {score} ({result.reason})", highlight=False)
    return 0


def _hand_rounds_table(rules: Any, events: list[dict[str, Any]]) -> Table:
    """One row per round_end (a void deal too): who dealt first, the turns, who went out, the points."""
    teams = rules.teams < rules.players  # else a seat's points are its charges: one column
    table = Table(title="Rounds", title_justify="left")
    for name in ("round", "first", "turns", "out", "charges by seat", *(("points",) if teams else ()), "score"):
        table.add_column(name, justify="right" if name in ("round", "first", "turns") else "left")
    first, turns = 0, 0
    for event in events:
        if event["type"] == "deal":
            first, turns = event["first"], 0
        elif event.get("kind") == "TURN":
            turns += 1
        elif event["type"] == "round_end":
            if event.get("void"):
                out = "void: dealt again"
            else:
                out = f"seat {event['out']}" + (" (hand: doubled)" if event["hand"] else "")
            table.add_row(
                str(event["round"]),
                str(first),
                str(turns),
                out,
                " ".join(map(str, event["charges"])),
                *((_sides_text(rules, event["points"]),) if teams else ()),
                _sides_text(rules, event["score"]),
            )
    return table


def _sides_text(rules: Any, values: list[int]) -> str:
    """Per side: named when seats play in teams (``0+2:-30 1+3:45``), else the values in seat order
    (``29 26 100 -30``: Hand's scores go below zero, so no dashes between them)."""
    if rules.teams == rules.players:
        return " ".join(map(str, values))
    return " ".join(f"{side_name(rules, side)}:{v}" for side, v in enumerate(values))


def _rounds_table(state: HokmState) -> Table:
    rules = state.rules
    table = Table(title="Rounds", title_justify="left")
    for name in ("round", "hakem", "trump", "tricks by seat", "won by", "points", "kot", "score"):
        table.add_column(name, justify="right" if name in ("round", "hakem", "points") else "left")
    for event in state.events:
        if event["type"] != "round_end":
            continue
        winner = next(i for i, p in enumerate(event["points"]) if p)
        table.add_row(
            str(event["round"]),
            str(event["hakem"]),
            event["trump"],
            " ".join(map(str, event["tricks"])),
            side_name(rules, winner),
            str(event["points"][winner]),
            (event["kot"] or "").replace("_", "-"),
            "-".join(map(str, event["score"])),
        )
    return table


def _print_tricks(console: Console, state: HokmState) -> None:
    """Each round's tricks, rebuilt from the events alone, as a record reader would."""
    players = state.rules.players
    trump, leader = 0, 0
    plays: list[str] = []  # the trick so far, as the records spell its cards
    for event in state.events:
        kind = event.get("kind")
        if event["type"] == "deal":
            console.print(f"[bold]round {event['round']}[/bold]: deal, hakem seat {event['hakem']}")
        elif kind == "TRUMP":
            trump = parse_suit(event["action"])
            console.print(f"  seat {event['seat']} names trump {event['action']}", highlight=False)
        elif kind == "PLAY":
            if not plays:
                leader = event["seat"]
            plays.append(event["action"])
            if len(plays) == players:
                winner = (leader + winning_index([parse_card(c) for c in plays], trump)) % players
                console.print(f"  seat {leader} leads: {' '.join(plays)} -> seat {winner}", highlight=False)
                plays = []
        elif kind is not None:
            console.print(f"  seat {event['seat']} {kind}: {event['action']}", highlight=False)


def _show_rules(console: Console, rules: Any) -> int:
    console.print_json(rules.canonical_json())
    console.print(f"rules_hash {rules.rules_hash}", highlight=False, soft_wrap=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

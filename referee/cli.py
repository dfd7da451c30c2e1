"""The ``waraq`` command: parses options, calls library functions, prints.

    waraq play [--rules classic|short|three|two|FILE.toml] [--seed S] [--tricks]
    waraq rules [classic|short|three|two|FILE.toml]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from rich.console import Console
from rich.table import Table

from referee.cards import parse_card, parse_suit
from referee.games.hokm import HokmState, winning_index
from referee.games.hokm_rules import PRESETS, HokmRules, RulesError, load_rules
from referee.inprocess import play_match
from sample_bots.random_player import RandomPlayer


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="waraq", description="Waraq: a referee for card-game bots.")
    commands = parser.add_subparsers(dest="command", required=True)

    play = commands.add_parser("play", help="play one in-process Hokm match between random players")
    play.add_argument("--rules", default="classic", help=f"a preset ({', '.join(PRESETS)}) or a TOML file")
    play.add_argument("--seed", type=int, default=1, help="the match seed (default 1)")
    play.add_argument("--tricks", action="store_true", help="show every trick, not only each round")

    rules = commands.add_parser("rules", help="check a rules preset or file and print it with its hash")
    rules.add_argument("spec", nargs="?", default="classic", help="a preset or a TOML file")

    args = parser.parse_args(argv)
    console = Console()
    try:
        if args.command == "play":
            return _play(console, load_rules(args.rules), args.seed, args.tricks)
        return _show_rules(console, load_rules(args.spec))
    except RulesError as error:
        Console(stderr=True).print(f"[red]error:[/red] {error}", highlight=False, soft_wrap=True)
        return 2


def _play(console: Console, rules: HokmRules, seed: int, tricks: bool) -> int:
    players = [RandomPlayer(f"{seed}/{seat}") for seat in range(rules.players)]
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


def _side_name(rules: HokmRules, side: int) -> str:
    """A team as its seats ("0+2") with 4 players, else the seat."""
    return "+".join(map(str, range(side, rules.players, rules.teams)))


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
            _side_name(rules, winner),
            str(event["points"][winner]),
            (event["kot"] or "").replace("_", "-"),
            "-".join(map(str, event["score"])),
        )
    return table


def _print_tricks(console: Console, state: HokmState) -> None:
    """Each round's tricks, rebuilt from the events alone, as a record reader would."""
    players = state.rules.players
    trump, leader, plays = 0, 0, []
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


def _show_rules(console: Console, rules: HokmRules) -> int:
    console.print_json(rules.canonical_json())
    console.print(f"rules_hash {rules.rules_hash}", highlight=False, soft_wrap=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The ``waraq`` command: parses options, calls library functions, prints.

    waraq match --bots random heuristic [--game hokm|hand] [--rules R] [--games N] [--seed S]
                [--record DIR [--overwrite]] [--concurrency K] [--policy forfeit|substitute] [--deal-key KEY]
    waraq bot serve random|heuristic [--port N]      (the bots' own command: waraq.bots.cli)
    waraq play [--game hokm|hand] [--rules PRESET|FILE.toml] [--seed S] [--tricks]
    waraq rules [--game hokm|hand] [PRESET|FILE.toml]
    waraq replay RECORD [--seat N] [--round R [--trick T]] [--step | --json] [--plain]
    waraq replay RECORD|DIR... --ask BOT [--seat N]
    waraq replay --verify RECORD|DIR...
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from waraq.referee.cli import check_bot, doctor
from waraq.referee.cli import replay as replay_cli
from waraq.referee.cli.arguments import Parser, integer_at_least, milliseconds, print_error
from waraq.referee.games import registry
from waraq.referee.games.cards import parse_card, parse_suit
from waraq.referee.games.hokm.engine import HokmState, winning_index
from waraq.referee.games.hokm.rules import HokmRules
from waraq.referee.games.options import RulesError
from waraq.referee.launch import built_in
from waraq.referee.launch.bots import BotSpec
from waraq.referee.match import secret_deals
from waraq.referee.match.faults import Fault
from waraq.referee.match.inprocess import play_match
from waraq.referee.match.play import POLICIES, MatchOutcome, TimeControl
from waraq.referee.match.runner import RunConfig, run
from waraq.referee.records import run_folder
from waraq.referee.records.record_file import RecordError


def main(argv: Sequence[str] | None = None) -> int:
    parser = Parser(prog="waraq", description="Waraq: a referee for card-game bots.")
    commands = parser.add_subparsers(dest="command", required=True)

    play = commands.add_parser("play", help="play one in-process match between random players")
    _game_option(play)
    play.add_argument("--rules", default="classic", help=RULES_HELP)
    play.add_argument("--seed", type=int, default=1, help="the match seed (default 1)")
    play.add_argument("--tricks", action="store_true", help="Hokm: show every trick, not only each round")

    rules = commands.add_parser("rules", help="check a rules preset or file and print it with its hash")
    _game_option(rules)
    rules.add_argument("spec", nargs="?", default="classic", help=RULES_HELP)

    match = commands.add_parser("match", help="play matches between bots over gRPC and record them")
    match.add_argument(
        "--bots",
        nargs="+",
        required=True,
        metavar="BOT",
        help="per seat, repeated in turn to fill the seats (at most one per seat): a built-in bot "
        f"({', '.join(built_in.names())}), a command with {{port}}, or an address (host:port, unix:PATH)",
    )
    _game_option(match)
    match.add_argument("--rules", default="classic", help=RULES_HELP)
    match.add_argument("--games", type=integer_at_least(1), default=1, help="matches to play (default 1)")
    match.add_argument(
        "--seed",
        type=int,
        default=1,
        help="seed of the first match; match i uses seed+i. With the same deal key the same seed "
        "deals the same decks; without it the seed predicts nothing",
    )
    match.add_argument(
        "--record",
        type=Path,
        help=f"folder for the records (default {DEFAULT_RECORDS}/, or {DEFAULT_RECORDS}-2/, … when it holds another "
        "run's); a folder of this same run (same command and deal key) is continued: its whole records are kept",
    )
    match.add_argument(
        run_folder.OVERWRITE,
        action="store_true",
        help="replace the records of another run in the --record folder (without it, that folder is refused)",
    )
    match.add_argument("--gzip", action="store_true", help="write .jsonl.gz records")
    match.add_argument("--concurrency", type=integer_at_least(1), default=1, help="matches played at once (default 1)")
    match.add_argument("--policy", choices=POLICIES, default="forfeit", help="what a fault costs (default forfeit)")
    match.add_argument(
        "--max-faults", type=integer_at_least(1), default=3, help="substitute: faults that still forfeit (default 3)"
    )
    match.add_argument(
        "--deal-key",
        metavar="KEY",
        help=f"the secret the decks are shuffled under, to play a run's deals again (default: "
        f"${secret_deals.ENVIRONMENT}, else a fresh key, printed when the run is over); bots must never "
        "learn it, and every process can read a command line: prefer the variable",
    )
    match.add_argument(
        "--decision-ms", type=milliseconds, default=TimeControl.decision_ms, help="per-decision deadline"
    )
    match.add_argument("--bank-ms", type=milliseconds, default=TimeControl.bank_ms, help="per-match time bank")
    match.add_argument("--startup-ms", type=milliseconds, default=TimeControl.startup_ms, help="start-up deadline")
    doctor.add_sandbox_options(match)

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
        if args.command == "match":
            return _match(console, args)
        if args.command == "doctor":
            return doctor.doctor(console)
        return _show_rules(console, registry.load_rules(args.game, args.spec))
    except (RulesError, ValueError) as error:
        print_error(str(error))
        return 2
    except RecordError as error:  # the records folder cannot be made or written
        print_error(str(error))
        return 1


DEFAULT_RECORDS = Path("records")


RULES_HELP = (
    "a preset of the game ("
    + "; ".join(f"{game}: {', '.join(registry.presets(game))}" for game in registry.GAMES)
    + ") or a TOML file (default classic)"
)


def _game_option(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--game", choices=tuple(registry.GAMES), default=registry.DEFAULT_GAME, help="the game (default hokm)"
    )


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
    return " ".join(f"{_side_name(rules, side)}:{v}" for side, v in enumerate(values))


def _side_name(rules: Any, side: int) -> str:
    """A team as its seats ("0+2") when seats play in teams, else the seat."""
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


def _match(console: Console, args: argparse.Namespace) -> int:
    rules = registry.load_rules(args.game, args.rules)
    given = args.deal_key or os.environ.get(secret_deals.ENVIRONMENT, "")
    os.environ.pop(secret_deals.ENVIRONMENT, None)  # launched bots inherit the environment: not this
    key = given or secret_deals.new_key()
    specs = [BotSpec.parse(b) for b in args.bots]
    if len(specs) > rules.players:
        raise ValueError(
            f"--bots: {len(specs)} bots for {rules.players} seats: give at most {rules.players} "
            "(fewer are repeated in turn to fill the seats)"
        )
    per_seat = [specs[i % len(specs)] for i in range(rules.players)]
    config = RunConfig(
        rules=rules,
        bots=per_seat,
        games=args.games,
        seed=args.seed,
        concurrency=args.concurrency,
        policy=args.policy,
        max_faults=args.max_faults,
        time_control=TimeControl(args.decision_ms, args.bank_ms, args.startup_ms),
        gzip=args.gzip,
        deal_key=key,
        confinement=doctor.confinement(args),
    )
    wanted = run_folder.identity(config)
    folder = run_folder.choose(args.record, DEFAULT_RECORDS, wanted)
    run_folder.claim(folder, wanted, overwrite=args.overwrite)
    kept = run_folder.kept(folder, config, range(args.seed, args.seed + args.games))
    config = replace(config, record_dir=folder, skip=frozenset(kept))
    console.print(
        f"{args.game.capitalize()}, {rules.players} players ({args.rules}), "
        f"{args.games} match(es) from seed {args.seed} under {'the deal key given' if given else 'a fresh deal key'}, "
        f"policy {args.policy}: " + ", ".join(f"seat {i} {spec}" for i, spec in enumerate(per_seat)),
        highlight=False,
        soft_wrap=True,
        markup=False,  # a bot command or a rules path may hold brackets
    )
    if kept:
        console.print(
            f"{len(kept)} match(es) kept from the records of this run in {folder}/", highlight=False, markup=False
        )
    with Progress(
        TextColumn("matches"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console
    ) as progress:
        task = progress.add_task("matches", total=args.games, completed=len(kept))
        try:
            report = asyncio.run(run(config, on_outcome=lambda _: progress.advance(task)))
        except BaseException:  # interrupted: the matches played so far can be played again too
            if not given:
                _tell_deal_key(console, args.seed, key)
            raise
    outcomes = sorted([*kept.values(), *report.outcomes], key=lambda o: o.seed)
    console.print(_results_table(rules, outcomes, [str(spec) for spec in per_seat]))
    faults = [(o, f) for o in outcomes for f in o.faults]
    for outcome, fault in faults:
        console.print(
            f"fault in {outcome.match_id}, round {fault.round}, seat {fault.seat}: {fault.kind}: {fault.detail}",
            highlight=False,
            soft_wrap=True,
            markup=False,  # a fault's detail quotes the bot (its reply, its output)
        )
    console.print(f"records in {folder}/", highlight=False, soft_wrap=True, markup=False)
    failed = [(e.spec, e.failure) for e in report.bots if e.failure is not None]
    # A run whose bot never played is a failed run: exit 1 below. One line a bot, its first failure: a bot
    # holding two seats is launched once per seat, and the two outputs may differ by a line of the relay's.
    first: dict[str, Fault] = {}
    for spec, failure in failed:
        first.setdefault(str(spec), failure)
    for name, failure in first.items():
        print_error(f"bot {name} failed to start: {failure.detail}")
    if report.stopped is not None:
        print_error(_stopped(report.stopped, len(outcomes), args.games, folder, key_given=bool(given)))
    if not given:
        _tell_deal_key(console, args.seed, key)
    return 1 if failed or report.stopped is not None else 0


def _stopped(error: RecordError, kept: int, games: int, folder: Path, *, key_given: bool) -> str:
    """Why a run stopped early, what it kept, and how to go on: the same command, the same key."""
    when = "when there is space" if error.disk_full else "once it can be written"
    key = "" if key_given else " with the deal key below"
    return (
        f"{error}: {kept} match(es) kept in {folder}/; run the same command again{key} {when} "
        f"to play the other {games - kept}"
    )


def _tell_deal_key(console: Console, seed: int, key: str) -> None:
    """How to play a run's deals again. Told only once no match is in play: a bot must never
    learn the key, and a run's output may go where a bot can read it."""
    console.print(
        f"to play the same deals again, run the same command with --seed {seed} and {secret_deals.ENVIRONMENT}={key}"
        " in its environment (keep the key from bots while any match may be played under it: docs/security.md)",
        highlight=False,
        soft_wrap=True,
    )


def _results_table(rules: Any, outcomes: list[MatchOutcome], bots: list[str]) -> Table:
    """Wins and points per side, and how the matches ended (a Hand tie is a win for each side in it)."""
    wins: Counter[int] = Counter()
    points = [0] * rules.teams
    reasons: Counter[str] = Counter(o.reason for o in outcomes)
    for outcome in outcomes:
        for side in {seat % rules.teams for seat in outcome.winners}:
            wins[side] += 1
        for side, score in enumerate(outcome.score):
            points[side] += score
    table = Table(title=f"{len(outcomes)} match(es): " + ", ".join(f"{n} by {r}" for r, n in sorted(reasons.items())))
    # Hand's points are penalties: say so where the totals are shown.
    total = "penalty points (lowest wins)" if rules.LOWER_SCORE_WINS else "points"
    for name in ("side", "bots", "wins", total):
        table.add_column(name, justify="right" if name in ("wins", total) else "left")
    for side in range(rules.teams):
        seats = range(side, rules.players, rules.teams)
        names = " + ".join(dict.fromkeys(bots[s] for s in seats))
        table.add_row(
            f"seat{'s' if rules.teams < rules.players else ''} {_side_name(rules, side)}",
            Text(names),  # bot commands, as given: not markup
            str(wins[side]),
            str(points[side]),
        )
    return table


def _show_rules(console: Console, rules: Any) -> int:
    console.print_json(rules.canonical_json())
    console.print(f"rules_hash {rules.rules_hash}", highlight=False, soft_wrap=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

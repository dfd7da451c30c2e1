"""``waraq match``: play matches between bots over gRPC, record them, and say how they went.

    waraq match --bots [NAME=]BOT... [--game hokm|hand] [--rules R] [--games N] [--seed S] [--json]
                [--record DIR [--overwrite]] [--concurrency K] [--policy forfeit|substitute] [--deal-key KEY]

For a person it prints what it plays, a progress bar, the results by side and
each fault; for a script, ``--json`` prints one JSON object instead (its fields
are the help's epilog, :data:`EPILOG`), and the exit status says whether all
went cleanly (:func:`exit_status`). Parsing and printing only: the seats are
filled by :func:`waraq.referee.run.runner.fill_seats`, the matches played by
:func:`waraq.referee.run.runner.run`, the records folder chosen by
:mod:`waraq.referee.run.run_folder`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import textwrap
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from waraq.referee.cli.games import side_name, side_seats
from waraq.referee.common.arguments import integer_at_least, milliseconds, print_error, tell_dial_ins
from waraq.referee.common.game_options import RULES_HELP, game_option
from waraq.referee.games import registry
from waraq.referee.games.results import ResultReason
from waraq.referee.human.options import HUMAN_CLOCK, add_page_options, page_config
from waraq.referee.launch import sandbox_options
from waraq.referee.launch.bots import BotSpec, Endpoint, SpecKind, partners_served_together, spec_kinds
from waraq.referee.lobby import options as lobby_options
from waraq.referee.lobby.options import LobbyConfig
from waraq.referee.match import secret_deals
from waraq.referee.match.faults import Fault
from waraq.referee.match.play import POLICIES, MatchOutcome, TimeControl
from waraq.referee.records.record_file import RecordError
from waraq.referee.run import run_folder
from waraq.referee.run.runner import RunConfig, RunReport, fill_seats, run

DEFAULT_RECORDS = Path("records")
FORMAT = "waraq.match.v1"  # the --json object's "format": a script can check it reads what it expects
TROUBLED = (ResultReason.FORFEIT, ResultReason.ABORTED)  # a match that did not end by play

BOTS = (
    f"BOT is {spec_kinds()}. NAME=BOT names it (NAME: letters, digits, _ . -, from a letter or digit), "
    "e.g. mine='node bot.js --port {port}': the results, the JSON and the records' seats call the bot "
    "NAME, else the name its Hello gives; two bots of one name are told apart as NAME, NAME#2, ..."
)
EPILOG = f"""\
bots:
{textwrap.fill(BOTS, 100, initial_indent="  ", subsequent_indent="  ")}

seats:
  one bot a seat, or fewer repeated in turn (seat i gets bot i mod n) where that is fair: every bot
  holds as many seats and, in a game of teams, the seats of one team only; or one bot holds every
  seat and plays itself. So 4 seats in two teams (Hokm; Hand partners) take 1, 2 (a team each) or 4
  bots; 4 seats each alone (Hand classic) 1, 2 or 4; 3 seats 1 or 3; 2 seats 1 or 2. Any other
  number is refused (exit status 2). The first line says which bot holds which seat.

exit status:
  0  every match ended by play, without a fault
  1  a fault happened (substituted or not), a match was forfeited or aborted, a bot failed to start,
     or the run stopped or could not begin (a record could not be written: a full disk)
  2  bad usage: an option, a bot spec, a rules file, a records folder of another run

--json prints one JSON object on stdout, and nothing else (errors stay on stderr):
  format            "{FORMAT}"
  exit_status       the exit status, as above
  run               game, rules (the preset or file given), rules_hash, players, lowest_score_wins,
                    games, seed, policy, max_faults, records (the folder), bots_given (how many
                    --bots), repeated (true: fewer bots than seats, repeated in turn)
  bots              one a seat: seat, bot (its place in --bots, from 0), name, named (true: NAME=
                    given), spec, version (its Hello's; "" if it did not start)
  sides             one a side: side, seats, names, wins (a Hand tie counts for each side in it),
                    points (Hand: penalty points, lowest wins)
  matches           one a match, by seed: seed, match_id, record (its path), kept (true: from the
                    folder's earlier run), winners (seats), reason (score, bam, forfeit, aborted),
                    score (by side), faulty (seats), faults: [{{seat, kind, code, detail, round}}]
                    (code: docs/records.md, "### Fault codes")
  startup_failures  one a bot that did not start: name, spec, seats, code, detail
  stopped           null, or why the run stopped: error, path, disk_full, unplayed (matches)
  fresh_deal_key    only when no key was given: the key that plays the same deals again (in
                    ${secret_deals.ENVIRONMENT}, with the same --seed)
"""


def register(commands: Any) -> None:
    """Add ``match`` to the ``waraq`` subcommands."""
    match = commands.add_parser(
        "match",
        help="play matches between bots over gRPC and record them",
        description="Play matches between bots over gRPC, record them, and print the results by side.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    match.add_argument(
        "--bots",
        nargs="+",
        required=True,
        metavar="BOT",
        help=f"per seat, or fewer repeated in turn (see seats below): {spec_kinds()}; NAME=BOT names it",
    )
    game_option(match)
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
    human = "; with a human seat {:g} s".format
    match.add_argument(
        "--decision-ms",
        type=milliseconds,
        help=f"per-decision deadline (default {TimeControl.decision_ms:g} ms{human(HUMAN_CLOCK[0] / 1000)})",
    )
    match.add_argument(
        "--bank-ms",
        type=milliseconds,
        help=f"per-match time bank (default {TimeControl.bank_ms:g} ms{human(HUMAN_CLOCK[1] / 1000)})",
    )
    match.add_argument(
        "--startup-ms",
        type=milliseconds,
        help=f"start-up deadline, and a person's to open their page (default {TimeControl.startup_ms:g} ms"
        f"{human(HUMAN_CLOCK[2] / 1000)})",
    )
    match.add_argument(
        "--json", action="store_true", help="print one JSON object on stdout instead of the tables (see below)"
    )
    sandbox_options.add_sandbox_options(match)
    lobby_options.add_lobby_options(match)
    add_page_options(match)
    match.set_defaults(run_command=play)


def time_control(args: argparse.Namespace, specs: Sequence[BotSpec]) -> TimeControl:
    """The clock given, each part not given the default: a bot's, or a person's when one sits."""
    person = any(spec.kind is SpecKind.HUMAN for spec in specs)
    defaults = HUMAN_CLOCK if person else (TimeControl.decision_ms, TimeControl.bank_ms, TimeControl.startup_ms)
    given = (args.decision_ms, args.bank_ms, args.startup_ms)
    return TimeControl(*(default if value is None else value for value, default in zip(given, defaults, strict=True)))


def play(args: argparse.Namespace, console: Console) -> int:
    rules = registry.load_rules(args.game, args.rules)
    given = secret_deals.take_given_key(args.deal_key) or ""
    key = given or secret_deals.new_key()
    specs = [BotSpec.parse(b) for b in args.bots]
    try:
        per_seat = fill_seats(specs, rules.players, rules.teams)
    except ValueError as error:
        raise ValueError(f"--bots: {error}") from None
    config = RunConfig(
        rules=rules,
        bots=per_seat,
        games=args.games,
        seed=args.seed,
        concurrency=args.concurrency,
        policy=args.policy,
        max_faults=args.max_faults,
        time_control=time_control(args, specs),
        gzip=args.gzip,
        deal_key=key,
        confinement=sandbox_options.confinement(args),
        lobby=lobby_options.lobby_config(args) or LobbyConfig(),
        page=page_config(args, interactive=sys.stdin.isatty() and not args.json),
    )
    wanted = run_folder.identity(config)
    folder = run_folder.choose(args.record, DEFAULT_RECORDS, wanted)
    run_folder.claim(folder, wanted, overwrite=args.overwrite)
    kept = run_folder.kept(folder, config, range(args.seed, args.seed + args.games))
    config = replace(config, record_dir=folder, skip=frozenset(kept))
    people = not args.json  # else a script reads stdout: one JSON object, and nothing else
    if people:
        _announce(console, args, rules, bool(given), specs, per_seat, kept, folder)
    for line in partners_served_together(per_seat, rules.teams):
        Console(stderr=not people, highlight=False, soft_wrap=True).print(line, markup=False)
    progress = Progress(TextColumn("matches"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console)
    task = progress.add_task("matches", total=args.games, completed=len(kept))
    with progress if people else contextlib.nullcontext():
        try:
            told = console if people else Console(stderr=True)
            report = asyncio.run(
                run(
                    config,
                    on_outcome=lambda _: progress.advance(task),
                    on_lobby=lambda address, tokens: _tell_dial_ins(told, address, tokens),
                    on_page=lambda pages: _tell_pages(told, pages),
                    on_page_kept=lambda keep_s: _tell_kept(told, keep_s),
                )
            )
        except BaseException:  # interrupted: the matches played so far can be played again too
            if not given:
                _tell_deal_key(console if people else Console(stderr=True), args.seed, key)
            raise
    outcomes = sorted([*kept.values(), *report.outcomes], key=lambda o: o.seed)
    names = [endpoint.name for endpoint in report.seats]
    failures = _startup_failures(report)
    status = exit_status(outcomes, bool(failures), report.stopped is not None)
    if people:
        _print_results(console, rules, outcomes, names, folder)
    # A run whose bot never played is a failed run (exit 1); told on stderr, --json or not.
    for spec, _, failure in failures:
        who = f"{spec.name} ({spec.value})" if spec.name else spec.value
        print_error(f"bot {who} failed to start: {failure.detail}")
    if report.stopped is not None:
        key_told = "" if given else " with the deal key " + ("below" if people else "of the JSON's fresh_deal_key")
        print_error(_stopped(report.stopped, len(outcomes), args.games, folder, key_told))
    if people:
        if not given:
            _tell_deal_key(console, args.seed, key)
    else:
        summary = _summary(args, rules, folder, specs, report, outcomes, set(kept), failures, status)
        if not given:
            summary["fresh_deal_key"] = key
        sys.stdout.write(orjson.dumps(summary, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE).decode())
    return status


def _announce(
    console: Console,
    args: argparse.Namespace,
    rules: Any,
    key_given: bool,
    specs: Sequence[BotSpec],
    per_seat: Sequence[BotSpec],
    kept: Mapping[int, MatchOutcome],
    folder: Path,
) -> None:
    """The run's first lines for a person: what is played, by whom, and what the records kept."""
    console.print(
        f"{args.game.capitalize()}, {rules.players} players ({args.rules}), "
        f"{args.games} match(es) from seed {args.seed} under "
        f"{'the deal key given' if key_given else 'a fresh deal key'}, policy {args.policy}: "
        + ", ".join(f"seat {i} {spec.name or spec}" for i, spec in enumerate(per_seat))
        + _repeated(len(specs), rules.players),
        highlight=False,
        soft_wrap=True,
        markup=False,  # a bot command or a rules path may hold brackets
    )
    if kept:
        console.print(
            f"{len(kept)} match(es) kept from the records of this run in {folder}/", highlight=False, markup=False
        )


def _tell_dial_ins(console: Console, address: str, tokens: Mapping[str, str]) -> None:
    """Each dial-in bot's line (:func:`tell_dial_ins`), and how a kit dials."""
    tell_dial_ins(console, address, tokens)
    console.print(
        f"  e.g. python sample_bots/starters/python/bot.py --connect {address} --token TOKEN; the match waits "
        f"up to --startup-ms for each",
        highlight=False,
        markup=False,
        soft_wrap=True,
    )
    console.file.flush()


def _tell_pages(console: Console, pages: Mapping[str, str]) -> None:
    """Each person's page: its address is the seat's key, so it is told once, here."""
    for name, address in pages.items():
        console.print(f"{name}: your seat's page is {address}", highlight=False, markup=False, soft_wrap=True)
    console.print(
        "  open it in a browser; the match starts once each page is open (up to --startup-ms)",
        highlight=False,
        markup=False,
        soft_wrap=True,
    )
    console.file.flush()


def _tell_kept(console: Console, keep_s: float) -> None:
    """The run is over, and the people's pages are kept a while for their replays."""
    console.print(
        f"the run is over: each person's page keeps its matches' replays for {keep_s / 60:g} min more; "
        "Ctrl-C to stop now (the results follow)",
        highlight=False,
        markup=False,
        soft_wrap=True,
    )
    console.file.flush()


def _print_results(
    console: Console, rules: Any, outcomes: Sequence[MatchOutcome], names: Sequence[str], folder: Path
) -> None:
    """The results table, every fault in one line, and where the records are."""
    console.print(_results_table(rules, outcomes, names))
    for outcome in outcomes:
        for fault in outcome.faults:
            console.print(
                f"fault in {outcome.match_id}, round {fault.round}, seat {fault.seat} ({names[fault.seat]}): "
                f"{fault.kind}: {fault.detail}",
                highlight=False,
                soft_wrap=True,
                markup=False,  # a fault's detail quotes the bot (its reply, its output)
            )
    console.print(f"records in {folder}/", highlight=False, soft_wrap=True, markup=False)


def exit_status(outcomes: Sequence[MatchOutcome], startup_failed: bool, stopped: bool) -> int:
    """0 when every match ended by play without a fault; 1 when any had a fault (substituted too),
    was forfeited or aborted, a bot did not start, or the run stopped before its end."""
    troubled = any(o.faults or o.reason in TROUBLED for o in outcomes)
    return 1 if troubled or startup_failed or stopped else 0


def _repeated(given: int, seats: int) -> str:
    """The first line's word on bots repeated to fill the seats: plainly, since it decides what is compared."""
    if given == seats:
        return ""
    if given == 1:
        return f" (1 bot for {seats} seats: it plays itself)"
    return f" ({given} bots for {seats} seats: repeated in turn)"


def _startup_failures(report: RunReport) -> list[tuple[BotSpec, list[int], Fault]]:
    """Each bot that did not start, the seats it was to hold, and its first failure.

    One a bot: a bot holding two seats is launched once per seat, and the two
    outputs may differ by a line of the relay's.
    """
    failed: dict[BotSpec, tuple[list[int], Fault]] = {}
    for seat, endpoint in enumerate(report.seats):
        if endpoint.failure is not None:
            seats, _ = failed.setdefault(endpoint.spec, ([], endpoint.failure))
            seats.append(seat)
    return [(spec, seats, failure) for spec, (seats, failure) in failed.items()]


def _stopped(error: RecordError, kept: int, games: int, folder: Path, key_told: str) -> str:
    """Why a run stopped early, what it kept, and how to go on: the same command, the same key
    (``key_told``: where a fresh key is told; "" when it was given)."""
    when = "when there is space" if error.disk_full else "once it can be written"
    return (
        f"{error}: {kept} match(es) kept in {folder}/; run the same command again{key_told} {when} "
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


def _side_totals(rules: Any, outcomes: Sequence[MatchOutcome]) -> tuple[list[int], list[int]]:
    """Wins and points per side (a Hand tie is a win for each side in it)."""
    wins = [0] * rules.teams
    points = [0] * rules.teams
    for outcome in outcomes:
        for side in {seat % rules.teams for seat in outcome.winners}:
            wins[side] += 1
        for side, score in enumerate(outcome.score):
            points[side] += score
    return wins, points


def _side_names(rules: Any, names: Sequence[str], side: int) -> list[str]:
    """The names of the bots of a side, each once, by seat."""
    return list(dict.fromkeys(names[s] for s in side_seats(rules, side)))


def _results_table(rules: Any, outcomes: Sequence[MatchOutcome], names: Sequence[str]) -> Table:
    """Wins and points per side, its bots by name, and how the matches ended."""
    wins, points = _side_totals(rules, outcomes)
    reasons: Counter[str] = Counter(o.reason for o in outcomes)
    table = Table(title=f"{len(outcomes)} match(es): " + ", ".join(f"{n} by {r}" for r, n in sorted(reasons.items())))
    # Hand's points are penalties: say so where the totals are shown.
    total = "penalty points (lowest wins)" if rules.LOWER_SCORE_WINS else "points"
    for column in ("side", "bots", "wins", total):
        table.add_column(column, justify="right" if column in ("wins", total) else "left")
    for side in range(rules.teams):
        table.add_row(
            f"seat{'s' if rules.teams < rules.players else ''} {side_name(rules, side)}",
            Text(" + ".join(_side_names(rules, names, side))),  # a bot's own name: not markup
            str(wins[side]),
            str(points[side]),
        )
    return table


def _summary(
    args: argparse.Namespace,
    rules: Any,
    folder: Path,
    specs: Sequence[BotSpec],
    report: RunReport,
    outcomes: Sequence[MatchOutcome],
    kept: set[int],
    failures: Sequence[tuple[BotSpec, list[int], Fault]],
    status: int,
) -> dict[str, Any]:
    """The --json object (its fields: :data:`EPILOG`)."""
    names = [endpoint.name for endpoint in report.seats]
    wins, points = _side_totals(rules, outcomes)
    stopped = report.stopped
    return {
        "format": FORMAT,
        "exit_status": status,
        "run": {
            "game": args.game,
            "rules": args.rules,
            "rules_hash": rules.rules_hash,
            "players": rules.players,
            "lowest_score_wins": bool(rules.LOWER_SCORE_WINS),
            "games": args.games,
            "seed": args.seed,
            "policy": args.policy,
            "max_faults": args.max_faults,
            "records": str(folder),
            "bots_given": len(specs),
            "repeated": len(specs) < rules.players,
        },
        "bots": [_seat_json(seat, endpoint, len(specs)) for seat, endpoint in enumerate(report.seats)],
        "sides": [
            {
                "side": side,
                "seats": side_seats(rules, side),
                "names": _side_names(rules, names, side),
                "wins": wins[side],
                "points": points[side],
            }
            for side in range(rules.teams)
        ],
        "matches": [_match_json(outcome, outcome.seed in kept) for outcome in outcomes],
        "startup_failures": [
            {
                "name": names[seats[0]],
                "spec": spec.value,
                "seats": seats,
                "code": str(failure.code),
                "detail": failure.detail,
            }
            for spec, seats, failure in failures
        ],
        "stopped": None
        if stopped is None
        else {
            "error": str(stopped),
            "path": str(stopped.path),
            "disk_full": stopped.disk_full,
            "unplayed": args.games - len(outcomes),
        },
    }


def _seat_json(seat: int, endpoint: Endpoint, given: int) -> dict[str, Any]:
    spec = endpoint.spec
    return {
        "seat": seat,
        "bot": seat % given,  # the seats are filled in turn (fill_seats)
        "name": endpoint.name,
        "named": bool(spec.name),
        "spec": spec.value,
        "version": endpoint.version,
    }


def _match_json(outcome: MatchOutcome, kept: bool) -> dict[str, Any]:
    return {
        "seed": outcome.seed,
        "match_id": outcome.match_id,
        "record": outcome.record,
        "kept": kept,
        "winners": list(outcome.winners),
        "reason": str(outcome.reason),
        "score": list(outcome.score),
        "faulty": list(outcome.faulty),
        "faults": [
            {"seat": f.seat, "kind": f.kind, "code": f.code, "detail": f.detail, "round": f.round}
            for f in outcome.faults
        ],
    }

"""``waraq replay``: show a recorded match, walk it, re-ask its decisions of a bot, verify records.

    waraq replay RECORD [--seat N] [--round R [--trick T]] [--plain]
    waraq replay RECORD --step [--seat N] [--round R [--trick T]]
    waraq replay RECORD --json [--seat N] [--round R [--trick T]]
    waraq replay RECORD|DIR... --ask BOT [--seat N]...
    waraq replay --verify RECORD|DIR...
    waraq replay RECORD --html OUT.html
    waraq replay RECORD...|DIR... --html OUTDIR

Parsing and printing only: the work is in :mod:`waraq.referee.replay.walk`,
:mod:`waraq.referee.replay.reask` and :mod:`waraq.referee.replay.verify`, the text in
:mod:`waraq.referee.replay.render_hokm` (Hokm) and :mod:`waraq.referee.replay.render_hand` (Hand),
chosen by the record's game; ``--verify``'s lines are :mod:`waraq.referee.replay.render_verdict`'s;
``--html``'s pages are :mod:`waraq.referee.replay.html.write`'s.
Hand has no tricks: ``--trick`` is Hokm's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any, cast

from rich.console import Console

from waraq.referee.common.arguments import milliseconds, print_error, refuse_writing_over
from waraq.referee.games import registry
from waraq.referee.games.registry import Part
from waraq.referee.launch import sandbox
from waraq.referee.launch.bots import BotSpec, Endpoint, a_bot
from waraq.referee.match.play import TimeControl
from waraq.referee.replay.reask import reask_all
from waraq.referee.replay.render import GameText, trick_games
from waraq.referee.replay.render_hokm import (
    STEP_HELP,
    ReaskRecord,
    ReaskSummary,
    Walker,
    start_index,
)
from waraq.referee.replay.render_verdict import VerdictLine, verify_summary
from waraq.referee.replay.verify import verify
from waraq.referee.replay.walk import Replay, Step, load, record_paths, request_json

MAX_STATUS = 125  # exit statuses above this mean other things to a shell


def register(commands: Any) -> None:
    """Add ``replay`` to the ``waraq`` subcommands."""
    replay = commands.add_parser(
        "replay",
        help="show a recorded match; re-ask its decisions of a bot (--ask); check records (--verify)",
        description="Show a match record in the terminal, walk it decision by decision, print the requests "
        "each seat received, re-ask them of another bot, or check records against the rules.",
    )
    replay.add_argument(
        "records",
        nargs="+",
        type=Path,
        metavar="RECORD",
        help="a record (.jsonl or .jsonl.gz); with --ask and --verify also folders of records",
    )
    replay.add_argument(
        "--seat",
        type=int,
        action="append",
        metavar="N",
        help="as seat N saw it (its own hand, no other); with --ask: the seats to ask (repeatable)",
    )
    replay.add_argument("--round", type=int, metavar="R", help="only round R")
    replay.add_argument("--trick", type=int, metavar="T", help="with --round: from trick T of that round")
    replay.add_argument(
        "--step", action="store_true", help="walk the decisions one at a time; commands on stdin: " + STEP_HELP
    )
    replay.add_argument(
        "--json",
        action="store_true",
        help="the DecisionRequests the seats received, one JSON object a line (protobuf JSON)",
    )
    replay.add_argument("--plain", action="store_true", help="no colour (the default when not writing to a terminal)")
    replay.add_argument(
        "--ask",
        metavar="BOT",
        help="send each logged decision to BOT (built-in, command with {port}, or address) and "
        "list where it decides differently; exit status 0 when it agrees on all",
    )
    replay.add_argument(
        "--verify",
        action="store_true",
        help="re-play each record and check every line; the exit status is the number that fail",
    )
    replay.add_argument(
        "--html",
        type=Path,
        metavar="OUT",
        help="write the match as one self-contained HTML page to OUT (opens offline, from disk); "
        "with a folder of records or several records, OUT is a folder: a page each and index.html",
    )
    replay.add_argument(
        "--startup-ms", type=milliseconds, default=TimeControl.startup_ms, help="--ask: start-up deadline"
    )
    replay.set_defaults(run_command=run)


def run(args: argparse.Namespace, console: Console) -> int:
    if args.plain:
        console = Console(color_system=None, highlight=False)
    else:
        console = Console(highlight=False)
    modes = [name for name in ("step", "json", "ask", "verify", "html") if getattr(args, name)]
    if len(modes) > 1:
        return _usage(f"--{modes[0]} and --{modes[1]} do not go together")
    if args.html is not None:
        return _html(console, args)
    if (args.ask or args.verify) and (args.round is not None or args.trick is not None):
        return _usage("--round and --trick are for showing one record, not with --ask or --verify")
    if args.verify:
        return _verify(console, args.records)
    if args.ask:
        return asyncio.run(_ask(console, args))
    if len(args.records) != 1 or args.records[0].is_dir():
        return _usage("give one record to show (folders and several records work with --ask and --verify)")
    if args.seat and len(args.seat) > 1:
        return _usage("--seat once: the match is shown as one seat saw it")
    if args.trick is not None and args.round is None:
        return _usage("--trick needs --round")
    replay = load(args.records[0])
    if replay.rules is None or replay.initial is None:
        print_error(f"{replay.path}: {replay.status}: {replay.problem}")
        return 1
    if args.trick is not None and not _text(replay).TRICKS:
        return _usage(f"--trick is for {trick_games()}: a {replay.game} record has no tricks (--round R shows a round)")
    seat = args.seat[0] if args.seat else None
    if seat is not None and not 0 <= seat < replay.players:
        return _usage(f"no seat {seat} in a {replay.players}-player match (seats 0-{replay.players - 1})")
    rounds = sorted({s.round for s in replay.steps})
    if args.round is not None and args.round not in rounds:
        has = f"rounds {rounds[0]}-{rounds[-1]}" if len(rounds) > 1 else f"round {rounds[0]}" if rounds else "no round"
        return _usage(f"no round {args.round} in this record: it has {has}")
    if args.trick is not None and not any(s.round == args.round and s.trick == args.trick for s in replay.steps):
        return _usage(f"no trick {args.trick} in round {args.round}")
    try:
        if args.json:
            _json(replay, _chosen(replay, seat, args.round, args.trick))
        elif args.step:
            _walk(console, replay, seat, args.round, args.trick)
        else:
            console.print(match_text(replay, seat, args.round, args.trick))
    except BrokenPipeError:  # `| head`: the reader has seen enough
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    if not replay.ok:
        print_error(f"{replay.path}: {replay.status}: {replay.problem}")
        return 1
    return 0


def _text(replay: Replay) -> GameText:
    """The replay's game's text part (each game's renderer is imported only for its game)."""
    return cast(GameText, registry.part(replay.game, Part.TEXT))


def match_text(replay: Replay, seat: int | None, round_: int | None, trick: int | None) -> Any:
    """The whole match as its game's renderer says it."""
    return _text(replay).match_text(replay, seat, round_, trick)


def step_screen(replay: Replay, step: Step, seat: int | None) -> Any:
    return _text(replay).step_screen(replay, step, seat)


def _usage(message: str) -> int:
    print_error(message)
    return 2


def _chosen(replay: Replay, seat: int | None, round_: int | None, trick: int | None) -> list[Step]:
    return [
        s
        for s in replay.steps
        if (seat is None or s.seat == seat)
        and (round_ is None or s.round == round_)
        and (trick is None or (s.trick or 0) >= trick)
    ]


def _json(replay: Replay, steps: list[Step]) -> None:
    """Each request as the seat received it (a request never sent to a lost seat is left out)."""
    out = sys.stdout
    for step in steps:
        if step.sent:
            out.write(json.dumps(request_json(replay.request(step)), separators=(",", ":"), ensure_ascii=False) + "\n")
    out.flush()


def _walk(console: Console, replay: Replay, seat: int | None, round_: int | None, trick: int | None) -> None:
    steps = replay.steps if seat is None else replay.steps_of(seat)
    if not steps:
        console.print("no decision to walk")
        return
    walker = Walker(steps, start_index(steps, round_, trick))
    # A game without tricks (Hand): the prompt does not offer `t T`.
    prompt = STEP_HELP if _text(replay).TRICKS else STEP_HELP.replace("  [t T] trick T", "")
    show = True
    while True:
        if show:
            if console.is_terminal:
                console.clear()
            console.print(step_screen(replay, walker.step, seat))
        console.print(f"{prompt} > ", end="", markup=False)
        line = sys.stdin.readline()
        if not line or not sys.stdin.isatty():  # typed input echoes its own newline; piped input does not
            console.print()
        if not line:  # end of input
            return
        message = walker.command(line)
        if message == "quit":
            return
        show = message is None
        if message:
            console.print(message, markup=False)


def _verify(console: Console, paths: list[Path]) -> int:
    total = failed = 0
    for verdict in verify(paths):
        console.print(VerdictLine(verdict), soft_wrap=True)
        total += 1
        failed += not verdict.ok
    console.print(verify_summary(total, failed))
    return min(failed, MAX_STATUS)


def _html(console: Console, args: argparse.Namespace) -> int:
    """One record -> one page at OUT; a folder or several records -> a page each in the folder OUT,
    with its index. A broken record still gets its page; like showing it, it makes the status 1."""
    from waraq.referee.replay.html.write import INDEX, write_folder, write_replay

    if args.seat or args.round is not None or args.trick is not None:
        return _usage(
            "--seat, --round and --trick are for the terminal: the page holds every seat and decision "
            "(its address opens one: OUT.html#d42/s1)"
        )
    for given in args.records:
        if not given.exists():
            return _usage(f"no record at {given}")
    out: Path = args.html
    one = len(args.records) == 1 and not args.records[0].is_dir() and not out.is_dir()
    if one:
        refuse_writing_over("--html", out, [(args.records[0], "the record read")])
        if not out.parent.is_dir():
            return _usage(f"--html {out}: no folder {out.parent} to write the page in")
        replay = load(args.records[0])
        try:
            size = write_replay(replay, out)
        except OSError as error:
            return _usage(f"--html {out}: cannot write the page: {error.strerror or error}")
        console.print(f"{out}: {size:,} bytes", markup=False, highlight=False, soft_wrap=True)
        return _broken([] if replay.ok else [replay])
    paths = record_paths(args.records)
    if not paths:
        return _usage("no records (*.jsonl, *.jsonl.gz) in " + ", ".join(map(str, args.records)))
    given = [(g, "a records folder read" if g.is_dir() else "a record read") for g in args.records]
    refuse_writing_over("--html", out, [*given, *((p, "a record read") for p in paths)], folder=True)
    if out.exists() and not out.is_dir():
        return _usage(f"--html {out}: is a file; with a folder or several records, OUT is a folder for the pages")
    broken: list[Replay] = []  # only these are kept: a ladder's folder holds thousands of records
    try:
        pages = write_folder(paths, out, on_page=lambda replay, _page: None if replay.ok else broken.append(replay))
    except OSError as error:
        return _usage(f"--html {out}: cannot write the pages: {error.strerror or error}")
    console.print(f"{out / INDEX}: {len(pages)} page{'s' if len(pages) != 1 else ''}", markup=False, soft_wrap=True)
    return _broken(broken)


def _broken(broken: list[Replay]) -> int:
    """Records that did not replay whole (their pages say why) get an error line each, and status 1."""
    for replay in broken:
        print_error(f"{replay.path}: {replay.status}: {replay.problem}")
    return 1 if broken else 0


async def _ask(console: Console, args: argparse.Namespace) -> int:
    spec = a_bot(BotSpec.parse(args.ask), "replay --ask")
    paths = record_paths(args.records)
    if not paths:
        return _usage("no records (*.jsonl, *.jsonl.gz) in " + ", ".join(map(str, args.records)))
    # The bot is asked each decision as its seat saw it: the records, which hold every hand, stay hidden.
    hidden = tuple({p.parent for p in paths} | {Path(r) for r in args.records})
    endpoint = Endpoint(spec, startup_ms=args.startup_ms, confinement=sandbox.Config(hidden=hidden))
    await endpoint.start()
    try:
        if endpoint.failure is not None:
            print_error(f"bot {spec} could not be made ready: {endpoint.failure.detail}")
            return 2
        results = await reask_all(
            endpoint,
            (load(p) for p in paths),
            args.seat,
            lambda r: console.print(ReaskRecord(r, endpoint.name), soft_wrap=True),
            keep=False,
        )
    finally:
        await endpoint.stop()
    if len(results) > 1:
        console.print(ReaskSummary(results, endpoint.name), soft_wrap=True)
    if not any(r.asked or r.unusable for r in results):
        print_error("nothing was asked: no record has a seat of this bot (choose seats with --seat)")
        return 2
    return 0 if all(r.all_agree for r in results) else 1

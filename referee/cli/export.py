"""``waraq export --dataset``: training data from records, one row per decision (docs/research.md).

    waraq export --dataset OUT.npz RECORD|DIR... [--seat N]... [--bot NAME]... [--game G] [--players N] [--overwrite]

Parsing and printing only: the work is :func:`waraq.referee.env.dataset.export_dataset`'s,
imported when the command runs, since NumPy is the optional ``env`` extra's
(without it, one line says so). A record that does not verify, or that the
dataset cannot hold, is an error line naming it, and the others are still
exported (exit status 1); a bad option or path is one line, exit status 2,
before anything is read or written.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rich.console import Console

from waraq.referee.common.arguments import integer_at_least, print_error, refuse_writing_over
from waraq.referee.games import registry
from waraq.referee.replay.walk import RECORD_SUFFIXES, record_paths

SUFFIX = ".npz"
MISSING = "waraq export --dataset needs NumPy, which is not installed: pip install 'waraq[env]'"


def register(commands: Any) -> None:
    """Add ``export`` to the ``waraq`` subcommands."""
    export = commands.add_parser(
        "export",
        help="turn records into training data: one row per decision, as NumPy arrays (--dataset OUT.npz)",
        description="Re-play each record and write, for each decision, the seat's encoded view, the legal "
        "mask, the action taken and the match's outcome for the seat, with where it came from, as one "
        "compressed NumPy .npz file (docs/research.md says every array). Needs the env extra.",
    )
    export.add_argument(
        "--dataset", type=Path, required=True, metavar="OUT.npz", help="the file to write (a NumPy .npz)"
    )
    export.add_argument(
        "records", nargs="+", type=Path, metavar="RECORD", help="records (.jsonl, .jsonl.gz) or folders of them"
    )
    export.add_argument(
        "--seat", type=integer_at_least(0), action="append", metavar="N", help="only seat N's decisions (repeatable)"
    )
    export.add_argument(
        "--bot",
        action="append",
        metavar="NAME",
        help="only the decisions of the bot the records name NAME (repeatable)",
    )
    export.add_argument(
        "--players",
        type=integer_at_least(2),
        metavar="N",
        help="only records of N players (a dataset holds one player count: by default the first record's)",
    )
    export.add_argument(
        "--game",
        choices=sorted(registry.GAMES),
        help="only records of this game (a dataset holds one game: by default the first record's)",
    )
    export.add_argument("--overwrite", action="store_true", help="replace OUT.npz if it exists")
    export.set_defaults(run_command=run)


def run(args: argparse.Namespace, console: Console) -> int:
    out: Path = args.dataset
    problem = _refusal(out, args.records, args.overwrite)
    if problem:
        print_error(problem)
        return 2
    try:
        from waraq.referee.env.dataset import Selection, export_dataset
    except ImportError:
        print_error(MISSING)
        return 2
    selection = Selection(
        seats=frozenset(args.seat) if args.seat else None,
        bots=frozenset(args.bot) if args.bot else None,
        players=args.players,
        game=args.game,
    )
    try:
        summary = export_dataset(args.records, out, selection, on_skip=lambda skipped: print_error(str(skipped)))
    except OSError as error:
        print_error(f"--dataset {out}: cannot write it: {error.strerror or error}")
        return 1
    if not summary.rows:
        print_error(_nothing(summary, args.game, args.players))
        return 1 if summary.skipped else 2
    skipped = f"; {summary.skipped} skipped" if summary.skipped else ""
    console.print(
        f"{out}: {summary.rows:,} decisions of {summary.records:,} records, {summary.players}-player "
        f"{summary.game} (observations of {summary.observation_size}), {summary.bytes:,} bytes{skipped}",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )
    return 1 if summary.skipped else 0


def _nothing(summary: Any, game: str | None, players: int | None) -> str:
    """Why no row was written, in one line."""
    if summary.read:
        bots = ", ".join(sorted(summary.bots_seen))
        why = f"no decision of the {summary.read} records read is selected (their bots: {bots})"
    elif summary.passed_over and not summary.skipped:
        wanted = " ".join(w for w in (f"{players}-player" if players else "", game or "") if w)
        why = f"none of the {summary.passed_over} records read is a {wanted} record"
    else:
        why = "nothing exported: no record could be"
    return f"{why}; {summary.out} is not written"


def _refusal(out: Path, records: list[Path], overwrite: bool) -> str | None:
    """Why the paths cannot be used, in one line; None when they can. Raises OutputError (exit 2) for an
    output onto an input."""
    reads: list[tuple[Path, str]] = []
    for given in records:
        if not given.exists():
            return f"no record or folder at {given}"
        found = record_paths([given])
        if not found:
            patterns = ", ".join("*" + suffix for suffix in RECORD_SUFFIXES)
            return f"no records ({patterns}) in {given}"
        reads += [(given, "a records folder read" if given.is_dir() else "a record read")]
        reads += [(path, "a record read") for path in found if path != given]
    refuse_writing_over("--dataset", out, reads)
    if out.suffix != SUFFIX:
        return f"--dataset {out}: the dataset is a NumPy {SUFFIX} file: name it {out.name}{SUFFIX} or so"
    if out.is_dir():
        return f"--dataset {out}: is a folder; give the file to write"
    if not out.parent.is_dir():
        return f"--dataset {out}: no folder {out.parent} to write it in"
    if out.exists() and not overwrite:
        return f"--dataset {out}: exists; --overwrite replaces it"
    return None

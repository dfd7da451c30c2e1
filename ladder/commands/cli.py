"""``waraq ladder``: parses options, calls the ladder's library functions, prints.

    waraq ladder init DIR [--game hokm|hand] [--rules PRESET|FILE] [--seed S] [--no-duplicates]
                          [--partners mixed|self]
    waraq ladder add NAME SPEC [--no-check] [--same-entry]
                          (SPEC: random, heuristic, a command with {port}, host:port)
    waraq ladder remove NAME
    waraq ladder run [--matches N | --more N | --until-stable] [--concurrency K] [--confidence P] [--margin E]
                     [--cap N] [--ray ADDRESS|auto] [--new-key]
    waraq ladder show [--pairs] [--all] [--bootstrap] [--figures] [--plot]
    waraq ladder report --html OUT.html [--all]
    waraq ladder export (--csv | --json) [--table standings|pairs|matches|ratings] [-o FILE]
    waraq ladder reinstate NAME | rerate

Every command but ``init`` works on the ladder in ``--dir`` (default: here).
Registered through the ``waraq.commands`` entry point (referee/cli/main.py).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.measure import Measurement
from rich.protocol import rich_cast
from rich.text import Text

from waraq.ladder.play import cluster, evidence, folder, ledger
from waraq.ladder.play.cluster import ClusterError
from waraq.ladder.play.scheduler import RunState
from waraq.ladder.present import live, plot, report, report_html, table
from waraq.ladder.present.live import LiveView, duration
from waraq.ladder.stats.ratings import environment
from waraq.ladder.stats.sequential import DEFAULT_MARGIN, Verdict
from waraq.ladder.stats.sprt import score_of_elo
from waraq.ladder.storage import key_file
from waraq.ladder.storage.config import CONFIG, DATABASE, PARTNERS, RECORDS, ConfigError, LadderConfig
from waraq.ladder.storage.store import Store, StoreError
from waraq.ladder.storage.store import problem as store_problem
from waraq.referee.common.arguments import print_error, refuse_writing_over
from waraq.referee.games import registry
from waraq.referee.games.options import RulesError
from waraq.referee.launch.bots import BotSpec, SpecKind, spec_kinds
from waraq.referee.lobby import options as lobby_options
from waraq.referee.lobby.options import LobbyConfig
from waraq.referee.records.record_file import RecordError

TABLES = ("standings", "pairs", "matches", "ratings")
COLUMNS = """Columns:
  Elo      the batch rating: a Bradley-Terry fit to every board (a team's strength is the sum of
           its bots'), centred on the bots that played; 100 Elo apart is a 64 % expected score
  95 %     its interval: ±1.96 standard errors robust to the correlation of a board's rooms
           (--bootstrap: percentiles of 200 fits to resampled boards)
  score    expected score against the field: the mean, over every other bot shown, of the chance
           to beat it one to one; unlike a win rate it does not depend on whom matchmaking seated
  μ, σ     TrueSkill, updated once per board from its paired result; matchmaking reads it
  boards   boards played: one deal in every seating of a duplicate set (one match without duplicates)
  matches  matches played; faults: the bot's faults
  vs next  the stopping rule on this row and the next: "above" (ordered) or "tied" (equal within
           the margin), each at the run's confidence over every pair and every look; blank: not yet
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "ladder",
        help="a ladder of bots on duplicate boards: init, add, run, show, report, export",
        description=(
            "A ladder: a folder with ladder.toml (what is played), ladder.sqlite (results, ratings) and records/. "
            "How it ranks and when it stops: docs/ranking.md."
        ),
    )
    commands = parser.add_subparsers(dest="ladder_command", required=True)
    where = argparse.ArgumentParser(add_help=False)
    where.add_argument("--dir", "-C", type=Path, default=Path("."), help="the ladder folder (default: .)")

    init = commands.add_parser("init", help="make a ladder folder")
    init.add_argument("folder", type=Path, metavar="DIR")
    init.add_argument("--game", choices=list(registry.GAMES), default=registry.DEFAULT_GAME, help="the game played")
    init.add_argument(
        "--rules",
        default="classic",
        help="a preset of the game or a TOML file; "
        + "; ".join(f"{game}: {', '.join(registry.presets(game))}" for game in registry.GAMES),
    )
    init.add_argument("--seed", type=int, help="the ladder's seed (default: a random one, written to ladder.toml)")
    init.add_argument("--no-duplicates", action="store_true", help="play each deal once, not once per seating")
    init.add_argument("--partners", choices=PARTNERS, default="mixed", help="teams: who partners whom")

    add = commands.add_parser("add", parents=[where], help="add a bot, or a new version of one")
    add.add_argument("name", metavar="NAME")
    add.add_argument("spec", metavar="SPEC", nargs="?", help=spec_kinds())
    add.add_argument(
        "--dial-in",
        action="store_true",
        help="a bot that dials the ladder's lobby (no SPEC): its token is printed once, and only a hash is kept",
    )
    add.add_argument(
        "--no-check", action="store_true", help="do not start it now (its identity is read at the first run)"
    )
    add.add_argument("--same-entry", action="store_true", help="a new version keeps the rating of the old one")

    remove = commands.add_parser("remove", parents=[where], help="take a bot out (its results stay)")
    remove.add_argument("name", metavar="NAME")

    reinstate = commands.add_parser("reinstate", parents=[where], help="lift a bot's suspension")
    reinstate.add_argument("name", metavar="NAME")

    token = commands.add_parser("token", parents=[where], help="a dial-in bot's token: --rotate replaces it")
    token.add_argument("name", metavar="NAME")
    token.add_argument(
        "--rotate", action="store_true", required=True, help="make a new token, printed once; the old one is refused"
    )

    _register_run(commands, where)

    _register_views(commands, where)

    commands.add_parser("rerate", parents=[where], help="rate every match again from the start ([trueskill] changed)")
    parser.set_defaults(run_command=main)


def _register_views(commands: argparse._SubParsersAction, where: argparse.ArgumentParser) -> None:
    """The commands that read a ladder: ``show``, ``report``, ``export``."""
    show = commands.add_parser(
        "show",
        parents=[where],
        help="the table; --pairs: head to head",
        description="The table, best first. " + COLUMNS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    show.add_argument("--pairs", action="store_true", help="head-to-head win rates with 95 %% intervals")
    show.add_argument("--all", action="store_true", help="also retired and removed bots")
    show.add_argument(
        "--bootstrap", action="store_true", help="Elo intervals from boards resampled (slower; default: robust errors)"
    )
    show.add_argument(
        "--figures", action="store_true", help="what the pairing buys: ρ, effective matches per board, the fitted β"
    )
    show.add_argument("--plot", action="store_true", help="each bot's TrueSkill μ over the matches, drawn here")

    report_ = commands.add_parser(
        "report",
        parents=[where],
        help="the standings, a plot of the ratings, head to head, faults and every match's replay, as one HTML file",
        description="One HTML file that works offline (no script, no request): the table, each bot's rating "
        "over the matches, the head-to-head matrix, faults per bot, and a link to each match's replay page, "
        "written in a folder beside it (for report.html: report-replays/).",
    )
    report_.add_argument(
        "--html", type=Path, required=True, metavar="OUT", help="the page to write, outside the ladder folder"
    )
    report_.add_argument("--all", action="store_true", help="also retired and removed bots")

    export = commands.add_parser("export", parents=[where], help="the table, pairs, matches or ratings as CSV or JSON")
    form = export.add_mutually_exclusive_group(required=True)
    form.add_argument("--csv", action="store_true")
    form.add_argument("--json", action="store_true")
    export.add_argument("--table", choices=TABLES, default="standings", help="CSV: which table (JSON has all)")
    export.add_argument("-o", "--output", type=Path, help="write here (outside the ladder folder) instead of to stdout")


def _register_run(commands: argparse._SubParsersAction, where: argparse.ArgumentParser) -> None:
    """``ladder run``'s options: the goal, the stopping rule, the cluster, the lobby."""
    run_ = commands.add_parser("run", parents=[where], help="play matches; Ctrl-C and `run` again continues")
    goal = run_.add_mutually_exclusive_group()
    goal.add_argument(
        "--matches",
        type=int,
        metavar="N",
        help="play until the ladder has N matches in all (rounded up to whole boards of duplicate deals)",
    )
    goal.add_argument("--more", type=int, metavar="N", help="play N matches more than it has")
    goal.add_argument(
        "--until-stable",
        action="store_true",
        help="play until every two neighbours of the table are ordered or shown equal within --margin (or the cap)",
    )
    run_.add_argument("--concurrency", type=int, metavar="K", help="matches at once (default: ladder.toml's)")
    run_.add_argument(
        "--confidence",
        type=float,
        help="--until-stable: the chance that every verdict is right, over every pair and every look "
        "(default: ladder.toml's)",
    )
    run_.add_argument(
        "--margin",
        type=float,
        metavar="ELO",
        help=f"--until-stable: two bots closer than this are shown equal (default: ladder.toml's, "
        f"{DEFAULT_MARGIN:g} Elo, a {100 * score_of_elo(DEFAULT_MARGIN):.0f} %% expected score)",
    )
    run_.add_argument("--cap", type=int, help="--until-stable: at most this many matches in all")
    run_.add_argument("--quiet", action="store_true", help="no live view; only the summary")
    run_.add_argument(
        "--new-key",
        action="store_true",
        help="the ladder's ladder.key is gone: make a new one and go on (boards begun under the lost key get "
        "other cards in their other rooms)",
    )
    cluster.add_option(run_)
    lobby_options.add_lobby_options(
        run_, default=None, default_said="ladder.toml's [lobby] address, else 127.0.0.1 on a free port"
    )


def main(args: argparse.Namespace, console: Console) -> int:
    """Run one ladder command: 0 done, 2 a bad folder, file or option, 1 a disk or database that failed
    (or a cluster that is not there)."""
    try:
        return COMMANDS[args.ladder_command](args, console)
    except cluster.Unreachable as error:  # a well-formed --ray where nothing listens: the run cannot begin
        print_error(str(error))
        return 1
    except (ConfigError, StoreError, RulesError, ClusterError) as error:
        print_error(str(error))
        return 2
    except sqlite3.Error as error:  # met after the database opened whole: a full disk, a page damaged since
        print_error(store_problem(_folder(args) / DATABASE, error))
        return 1
    except OSError as error:  # a record, the lock, an export: RecordError names its file itself
        print_error(str(error) if isinstance(error, RecordError) else f"{error.filename}: {error.strerror}")
        return 1


def _folder(args: argparse.Namespace) -> Path:
    return args.folder if args.ladder_command == "init" else args.dir


def _init(args: argparse.Namespace, console: Console) -> int:
    rules = registry.load_rules(args.game, args.rules)
    path = folder.init(args.folder, rules, seed=args.seed, duplicate=not args.no_duplicates, partners=args.partners)
    console.print(
        f"made ladder {path}: {describe(rules)}; "
        f"{'duplicate deals' if not args.no_duplicates else 'no duplicate deals'}; "
        f"its decks are drawn under the secret in {path / key_file.KEY_FILE}: keep it private. "
        f"Next: `waraq ladder add NAME SPEC -C {path}`, then `waraq ladder run -C {path}`",
        highlight=False,
        soft_wrap=True,
        markup=False,
    )
    return 0


def describe(rules: Any) -> str:
    """``Hokm, 4 players, to 7`` or ``Hand, 4 players each for himself, 5 rounds``: a game in a few words."""
    return str(rules.describe())


def _add(args: argparse.Namespace, console: Console) -> int:
    if args.dial_in == (args.spec is not None):
        raise ConfigError(f"ladder add {args.name}: give a SPEC ({spec_kinds()}), or --dial-in")
    if args.dial_in:
        return _add_dial_in(args, console)
    with folder.open_ladder(args.dir) as ladder:
        added = folder.add(ladder, args.name, args.spec, check=not args.no_check, same_entry=args.same_entry)
        note = _address_note(ladder.config, args.name, args.spec)
    console.print(added.message, highlight=False, soft_wrap=True, markup=False)
    if note:
        console.print(note, highlight=False, soft_wrap=True, markup=False)
    return 0


def _add_dial_in(args: argparse.Namespace, console: Console) -> int:
    with folder.open_ladder(args.dir) as ladder:
        added, token = folder.add_dial_in(ladder, args.name, same_entry=args.same_entry)
    if token is None:
        console.print(
            f"{args.name} is a dial-in bot of this ladder already; `waraq ladder token {args.name} --rotate` "
            "gives it a new token",
            highlight=False,
            soft_wrap=True,
            markup=False,
        )
        return 0
    console.print(
        f"added {args.name}, a dial-in bot: it plays while it is connected to `waraq ladder run`'s lobby",
        highlight=False,
        soft_wrap=True,
        markup=False,
    )
    _print_token(console, args.name, token)
    return 0


def _print_token(console: Console, name: str, token: str) -> None:
    console.print(f"token {token}", highlight=False, markup=False, soft_wrap=True)
    console.print(
        f"This is the only time it is shown: give it to {name}'s author (their bot dials with "
        "`--connect HOST:PORT --token TOKEN`, or WARAQ_TOKEN).",
        highlight=False,
        soft_wrap=True,
        markup=False,
    )


def _token(args: argparse.Namespace, console: Console) -> int:
    with folder.open_ladder(args.dir) as ladder:
        token = folder.rotate_token(ladder, args.name)
    console.print(f"{args.name}: a new token; the old one is refused from now on", highlight=False, markup=False)
    _print_token(console, args.name, token)
    return 0


def _address_note(config: LadderConfig, name: str, spec: str) -> str | None:
    """What an address bot can learn that a launched one cannot, on this ladder (docs/security.md)."""
    if BotSpec.parse(spec).kind != SpecKind.ADDRESS:
        return None
    risks = []
    if config.matchmaking.partners == "self" and config.layout.teams:
        risks.append("partnering itself, it is sent both partners' hands")
    if config.matchmaking.duplicate:
        risks.append("it can remember a duplicate deal's cards from its twin")
    if not risks:
        return None
    return (
        f"note: {name} is an address, one server the referee cannot split: {'; '.join(risks)} "
        "(a bot added as a command plays each seat and match in a process of its own)"
    )


def _remove(args: argparse.Namespace, console: Console) -> int:
    with folder.open_ladder(args.dir) as ladder:
        console.print(folder.remove(ladder, args.name), highlight=False, soft_wrap=True, markup=False)
    return 0


def _reinstate(args: argparse.Namespace, console: Console) -> int:
    with folder.open_ladder(args.dir) as ladder:
        console.print(folder.reinstate(ladder, args.name), highlight=False, markup=False)
    return 0


def _check_run_options(args: argparse.Namespace) -> None:
    """`ladder run`'s options, before the ladder is opened: a run refused changes nothing."""
    if args.confidence is not None and not 0.5 <= args.confidence < 1:
        raise ConfigError(f"--confidence {args.confidence}: expected a number in [0.5, 1)")
    if args.margin is not None and not args.margin > 0:
        raise ConfigError(f"--margin {args.margin}: expected a number of Elo > 0")
    for flag in ("matches", "more", "cap", "concurrency"):
        value = getattr(args, flag)
        if value is not None and value < 1:
            raise ConfigError(f"--{flag} {value}: expected an integer >= 1")


def _target(args: argparse.Namespace, ladder: folder.Ladder) -> ledger.Target:
    settings = ladder.config.run  # its values were checked as ladder.toml was read; the options by _check_run_options
    confidence = args.confidence if args.confidence is not None else settings.confidence
    margin = args.margin if args.margin is not None else settings.margin
    store = ladder.store
    if args.matches is not None:
        return ledger.Target(args.matches)
    if args.more is not None:
        counts = store.count_by_status()
        return ledger.Target(sum(counts.values()) - counts["cancelled"] + args.more)
    if args.until_stable:
        return ledger.Target(args.cap or settings.max_matches, True, confidence, margin)
    stored = store.meta("target")  # a bare `run` goes on toward the last run's goal
    if stored is not None:
        return ledger.Target.from_text(stored)
    return ledger.Target(args.cap or settings.max_matches, True, confidence, margin)


def _run(args: argparse.Namespace, console: Console) -> int:
    cluster.check(args.ray)  # no Ray, no start
    _check_run_options(args)
    with folder.open_ladder(args.dir) as ladder:
        try:
            return _play(args, console, ladder)
        except (RecordError, sqlite3.Error, ClusterError) as error:  # the bots are stopped: every result stays
            return _halted(args, ladder, error)


def _halted(args: argparse.Namespace, ladder: folder.Ladder, error: RecordError | sqlite3.Error | ClusterError) -> int:
    """A run stopped by a record or database it could not write, or its cluster: what it keeps, how to go on."""
    if isinstance(error, RecordError):
        what, full = str(error), error.disk_full
    elif isinstance(error, ClusterError):
        what, full = str(error), False
    else:
        what = store_problem(ladder.store.path, error)
        full = getattr(error, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL
    try:
        counts = ladder.store.count_by_status()
        stored = counts["rated"] + counts["unrated"] + counts["done"]
        kept = f"the ladder keeps the {stored} match{'es' * (stored != 1)} it stored"
    except sqlite3.Error:
        kept = "every match stored before stays"
    when = "when there is space" if full else "once that is mended"
    print_error(f"{what}: {kept}; `waraq ladder run -C {args.dir}` goes on with the others {when}")
    return 1


def _play(args: argparse.Namespace, console: Console, ladder: folder.Ladder) -> int:
    """`ladder run` on an open ladder: the goal stored, the matches played, the summary printed.

    Everything that can refuse the run is checked before the goal is stored: a refused run changes nothing."""
    target = _target(args, ladder)
    _, made = key_file.ensure(ladder.folder, ladder.store, new_key=args.new_key)  # the key's problems refuse here
    if made is not None:
        console.print(made, style="yellow", highlight=False, soft_wrap=True, markup=False)
    lobby = lobby_of(args, ladder)  # a bad --lobby (or --ray with dial-in bots) refuses here, before the goal
    with ladder.store.transaction():
        ladder.store.set_meta("target", target.to_text())
    concurrency = args.concurrency or ladder.config.run.concurrency
    state = RunState(target, concurrency, cluster=args.ray, lobby=lobby)
    state.on_lobby = lambda address: console.print(
        f"dial-in bots dial {address}", highlight=False, markup=False, soft_wrap=True
    )
    bots = ", ".join(b.name for b in ladder.config.bots) or "none"
    where = f" on the Ray cluster {args.ray}" if args.ray else ""
    console.print(
        f"ladder {ladder.folder}: {_goal(target)}, {concurrency} at once{where}; bots: {bots}",
        highlight=False,
        soft_wrap=True,
        markup=False,
    )
    live.play(ladder, state, console, lambda store: LiveView(state, store, ladder.config), quiet=args.quiet)
    return _summary(console, ladder, state)


def lobby_of(args: argparse.Namespace, ladder: folder.Ladder) -> LobbyConfig | None:
    """Where the dial-in bots dial: --lobby and its TLS, else ladder.toml's [lobby] (None: that one)."""
    dial_ins = [b.name for b in ladder.config.bots if b.bot_spec.kind is SpecKind.DIAL_IN]
    if args.ray and dial_ins:
        raise ConfigError(
            f"--ray: the dial-in bots ({', '.join(dial_ins)}) play on this machine only; run without --ray"
        )
    settings = ladder.config.lobby
    if args.lobby is None:
        args.lobby = settings.address or None
    try:
        given = lobby_options.lobby_config(args)
    except ValueError as error:
        raise ConfigError(str(error)) from None
    if given is None:
        return None
    grace = args.grace_s if args.grace_s != lobby_options.GRACE_S else settings.grace_s
    return replace(given, grace_s=grace)


def _goal(target: ledger.Target) -> str:
    if target.until_stable:
        return (
            f"until every two neighbours are ordered or shown equal within {target.margin:g} Elo, "
            f"at {target.confidence:.0%} (cap {target.matches} matches)"
        )
    return f"until {target.matches} matches"


def _summary(console: Console, ladder: folder.Ladder, state: RunState) -> int:
    rows = table.standings(ladder.store, ladder.config, rule=state.target.rule)
    console.print(table.StandingsTable(rows, title="Ladder"))
    for line in table.suspensions(rows):
        console.print(line, soft_wrap=True)
    for note in state.notes:
        console.print(note, style="yellow", highlight=False, soft_wrap=True, markup=False)  # notes quote bots' output
    counts = ladder.store.count_by_status()
    console.print(
        f"{state.played} matches played in {duration(state.elapsed)} "
        f"({state.played / max(state.playing_for, 1e-9):.2f} a second once the bots were up); "
        f"the ladder has {counts['rated'] + counts['unrated']} matches"
        + (f", {counts['cancelled']} cancelled" if counts["cancelled"] else "")
        + (f", {counts['planned'] + counts['done']} still to play" if counts["planned"] + counts["done"] else ""),
        highlight=False,
        soft_wrap=True,
    )
    finished = state.finished
    if state.stopping or finished is None:
        console.print("stopped before the goal: `waraq ladder run` continues where this run stopped", style="yellow")
        return 130 if state.stopping else 1
    if finished.reason is ledger.Ending.STABLE:
        console.print(Text.assemble(("stable:", "bold green"), " ", finished.detail), highlight=False, soft_wrap=True)
    elif finished.reason is ledger.Ending.CAP:
        open_pairs = [f"{a.bot} and {b.bot}" for a, b in zip(rows, rows[1:], strict=False) if a.vs_next == "open"]
        least = f"; still open: {', '.join(open_pairs)}" if open_pairs else ""
        console.print(
            Text.assemble(
                ("not stable:", "bold yellow"),
                f" {finished.detail}, before every two neighbours were ordered or shown equal within "
                f"{state.target.margin:g} Elo at {state.target.confidence:.0%}{least}"
                + copies_note(open_copies(ladder.store, rows), ladder.config),
            ),
            highlight=False,
            soft_wrap=True,
        )
    elif finished.reason is ledger.Ending.BOTS:
        console.print(Text.assemble(("stopped:", "red"), " ", finished.detail), highlight=False, soft_wrap=True)
        return 1
    else:
        console.print(f"done: {finished.detail}", highlight=False, markup=False)
    return 0


# Measured by issue 32's review, not here: two copies of one bot between a much stronger and a much
# weaker bot, mixed partners, need about this many matches to be shown tied (docs/ranking.md, "Partners").
COPIES_TIED_MIXED = 5000


def open_copies(store: Store, rows: Sequence[table.Standing]) -> list[tuple[str, str]]:
    """The pairs of copies of one bot in the table that the rule has not settled, upper first.

    Copies are entries of one version identity, as ``ladder add`` tells a version (the Hello's name and
    version, and the hash of the code where it has one), under two names: two copies can never be ordered,
    only tied. A pair is settled when every neighbour link from the upper copy down to the lower one is
    ordered or tied; an open link between them leaves it open.
    """
    identity = {e.name: (e.hello_name, e.hello_version, e.files_hash) for e in store.entries()}
    out = []
    for i, upper in enumerate(rows):
        for j in range(i + 1, len(rows)):
            same = identity.get(upper.bot)
            if same is None or same == (None, None, None) or identity.get(rows[j].bot) != same:
                continue
            if any(row.vs_next == Verdict.OPEN.value for row in rows[i:j]):
                out.append((upper.bot, rows[j].bot))
    return out


def copies_note(copies: Sequence[tuple[str, str]], config: LadderConfig) -> str:
    """What the closing line of a run stopped at its cap adds when copies of one bot are still open: why, and
    what settles them sooner."""
    if not copies:
        return ""
    pairs = ", ".join(f"{a} and {b}" for a, b in copies)
    are = "are copies" if len(copies) == 1 else "are each copies"
    said = f"; {pairs} {are} of one bot (the same version), which only a tie settles"
    if config.matchmaking.partners == "mixed" and config.layout.teams:
        return (
            f"{said}; with mixed partners, two copies between a much stronger and a much weaker bot take about "
            f"{COPIES_TIED_MIXED:,} matches to tie: a new ladder of bots each partnering itself "
            "(`waraq ladder init --partners self`) ties them far sooner, or a higher --cap goes on with this one"
        )
    return f"{said}: a higher --cap goes on with this one"


def figures_lines(ladder: folder.Ladder) -> list[str]:
    """What the pairing bought, in words: ρ, effective matches per board, and β fitted against ladder.toml's."""
    store, config = ladder.store, ladder.config
    bots = [e.id for e in store.entries()]
    found = evidence.gather(store, config, bots)
    rho, effective = found.rho(), found.effective_matches()
    lines = [
        f"{len(found.boards)} boards, {found.complete_boards} complete; "
        + (
            f"ρ = {rho:+.2f}: the correlation between a board's rooms of the result on the same cards"
            if rho is not None
            else "ρ: no board of two rooms yet"
        ),
    ]
    if effective is not None:
        rooms = max(len(b.rooms) for b in found.boards)
        lines.append(
            f"a board of {rooms} rooms is worth {effective:.2f} independent matches for the batch rating "
            f"({effective / rooms:.2f} a room)"
        )
    beta = evidence.fitted_beta(store, config)
    if beta is not None:
        lines.append(
            f"β fitted to the matches' results (TrueSkill's performance spread of one match): {beta:.2f}; "
            f"ladder.toml's [trueskill] beta = {config.trueskill.beta:g}"
        )
    return lines


def _show(args: argparse.Namespace, console: Console) -> int:
    with folder.open_ladder(args.dir, readonly=True) as ladder:
        intervals = "bootstrap" if args.bootstrap else "robust"
        rows = table.standings(ladder.store, ladder.config, everyone=args.all, intervals=intervals)
        counts = ladder.store.count_by_status()
        title = (
            f"Ladder {ladder.folder} ({describe(ladder.config.rules)}): {counts['rated'] + counts['unrated']} matches"
            + (f", {counts['planned'] + counts['done']} planned" if counts["planned"] + counts["done"] else "")
        )
        _print_whole(console, table.StandingsTable(rows, title=title))
        for line in table.suspensions(rows):
            console.print(line, soft_wrap=True)
        for dial_in in table.dial_ins(ladder.store, ladder.config):
            console.print(dial_in, highlight=False, markup=False, soft_wrap=True)
        if args.pairs:
            _print_whole(console, table.PairsTable(table.pairs(ladder.store, ladder.config.layout, everyone=args.all)))
        if args.figures:
            for figure in figures_lines(ladder):
                console.print(figure, highlight=False, markup=False, soft_wrap=True)
        if args.plot:
            found = report.gather(ladder, describe(ladder.config.rules), everyone=args.all)
            size = plot.size_for((console.width, console.height) if console.is_terminal else None)
            drawn = plot.ratings_plot(found.histories, size, colour=console.is_terminal and not console.no_color)
            console.file.write(drawn + "\n")  # as drawn: rich would cut its lines to a narrower console
    return 0


def _print_whole(console: Console, renderable: Any) -> None:
    """A table piped to a file keeps every column whole: only a terminal's width may cut one."""
    if console.is_terminal:
        console.print(renderable)
        return
    needed = Measurement.get(console, console.options.update_width(1 << 16), rich_cast(renderable)).maximum
    width = console.width
    console.width = max(width, needed)
    try:
        console.print(renderable)
    finally:
        console.width = width


def _report(args: argparse.Namespace, console: Console) -> int:
    refuse_writing_in_ladder("--html", args.html, args.dir)
    pages = report_html.replay_folder_of(args.html)
    refuse_writing_in_ladder(f"--html {args.html}: its replay pages' folder", pages, args.dir, folder=True)
    with folder.open_ladder(args.dir, readonly=True) as ladder:
        written = report_html.write_report(ladder, args.html, describe(ladder.config.rules), everyone=args.all)
    replays = f"; {written.replays} replay pages in {written.replay_folder}" if written.replays else ""
    console.print(
        f"wrote {written.path} ({written.size:,} bytes){replays}", highlight=False, markup=False, soft_wrap=True
    )
    return 0


def _export(args: argparse.Namespace, console: Console) -> int:
    if args.output is not None:
        refuse_writing_in_ladder("-o", args.output, args.dir)
    with folder.open_ladder(args.dir, readonly=True) as ladder:
        data = table.export_data(ladder.store, ladder.config)
    if args.json:
        text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
    else:
        text = table.to_csv(data[args.table])
    if args.output is not None:
        try:
            args.output.write_text(text, encoding="utf-8")
        except OSError as error:
            raise ConfigError(f"-o {args.output}: cannot write it: {error.strerror or error}") from None
        console.print(f"wrote {args.output}", highlight=False, markup=False)
    else:
        sys.stdout.write(text)
    return 0


def refuse_writing_in_ladder(option: str, out: Path, where: Path, *, folder: bool = False) -> None:
    """An output of a command that reads the ladder in ``where`` is none of its files, and not in its folder:
    ``--html L/ladder.sqlite`` would write the report over every result (raises ``OutputError``, exit status 2)."""
    reads = [
        (where / DATABASE, "the ladder's database"),
        (where / key_file.KEY_FILE, "the ladder's deal key"),
        (where / CONFIG, f"the ladder's {CONFIG}"),
        (where / RECORDS, "the ladder's records folder"),
    ]
    refuse_writing_over(option, out, reads, inside=[(where, "the ladder folder")], folder=folder)


def _rerate(args: argparse.Namespace, console: Console) -> int:
    with folder.open_ladder(args.dir) as ladder:
        count = ledger.rerate(ladder.store, ladder.config, environment(ladder.config.trueskill))
    console.print(
        f"rated {count} boards again from the start with the [trueskill] settings of ladder.toml", markup=False
    )
    return 0


COMMANDS = {
    "init": _init,
    "add": _add,
    "remove": _remove,
    "reinstate": _reinstate,
    "token": _token,
    "run": _run,
    "show": _show,
    "export": _export,
    "report": _report,
    "rerate": _rerate,
}

"""``waraq versus A B``: the head-to-head of an A/B test, played on boards until a sequential test decides.

    waraq versus A B [--dir DIR] [--game hokm|hand] [--rules PRESET|FILE] [--seed S] [--deal-key KEY]
                     [--sprt ELO0 ELO1 ALPHA BETA | --width ELO] [--boards N] [--concurrency K]
                     [--fill SPEC]... [--quiet] [--ray ADDRESS|auto]

A versus run is a ladder folder (default ``versus-A-B``) with A and B as its
first two bots, duplicate deals, and each bot partnering itself when the
game has teams; a game of more sides than two fills the other seats with
``--fill`` bots (default: heuristic), which only make the table. So it is
played, recorded, sandboxed and resumed exactly as a ladder is: Ctrl-C, or a
kill, and the same command goes on where it stopped, deciding on the same
boards. The test reads the complete boards in planned order
(ladder/play/head_to_head.py, ladder/stats/sprt.py).

The decks and the match ids (from which the built-in bots seed their own
choices) come from the seed *and* the folder's secret deal key
(ladder/storage/key_file.py), fresh for a new folder unless ``$WARAQ_DEAL_KEY`` or
``--deal-key`` gives one: so a new folder with the same ``--seed`` and key
plays the same boards, the same moves of the seeded bots and the same
verdict, where a seed alone plays other deals under a fresh key.

Exit status: 0 when H1 is accepted (or ``--width`` reached, or ``--boards``
played without a test), 1 when H0 is, 2 when the cap came first or the
options are wrong, 130 when interrupted.
"""

from __future__ import annotations

import argparse
import re
import time
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from waraq.ladder.commands.cli import describe
from waraq.ladder.play import cluster, folder, head_to_head, ledger
from waraq.ladder.play.cluster import ClusterError
from waraq.ladder.play.matchmaking import group_size
from waraq.ladder.play.scheduler import RunState
from waraq.ladder.present import live
from waraq.ladder.present.live import duration
from waraq.ladder.stats import sprt
from waraq.ladder.storage import config as cfg
from waraq.ladder.storage import key_file
from waraq.ladder.storage.config import ConfigError, LadderConfig
from waraq.ladder.storage.store import Store, StoreError
from waraq.referee.common.arguments import print_error, tell_dial_ins
from waraq.referee.common.game_options import RULES_HELP, game_option
from waraq.referee.games import registry
from waraq.referee.games.options import RulesError
from waraq.referee.launch import sandbox_options
from waraq.referee.launch.bots import BotSpec, SpecKind
from waraq.referee.match import secret_deals
from waraq.referee.records.record_file import RecordError

RESUME = ": every board stored stays; run the same command again to go on"
Ending = ledger.Ending
EXIT = {Ending.H1: 0, Ending.WIDTH: 0, Ending.TARGET: 0, Ending.H0: 1, Ending.CAP: 2, Ending.BOTS: 2}
DEFAULT_BOARDS = 2000  # the cap, with a test
# H0: no better; H1: 30 Elo better. Hokm's bots differ by hundreds of Elo; between two builds of
# one bot 30 (a 54 % score) is a difference worth knowing, and about 300 boards decide it.
DEFAULT_SPRT = (0.0, 30.0, 0.05, 0.05)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "versus",
        help="A against B on duplicate boards, until a sequential test decides",
        description=(
            "Plays boards (one deal in every seating, so card luck cancels) between two bots or two builds of one, "
            "shows the paired score, an Elo difference with its interval and the likelihood of superiority, and "
            "stops by itself. Exit status: 0 H1 accepted (or --width reached), 1 H0 accepted, 2 the cap came first."
        ),
    )
    parser.add_argument("a", metavar="A", help="[NAME=]SPEC: a built-in bot, a command with {port}, host:port")
    parser.add_argument("b", metavar="B", help="[NAME=]SPEC, the same")
    parser.add_argument("--dir", "-C", type=Path, help="the run's folder (default: versus-A-B); again to resume")
    game_option(parser)
    parser.add_argument("--rules", default="classic", help=RULES_HELP)
    parser.add_argument(
        "--seed",
        type=int,
        help="picks the deals with the deal key: the same seed and key, the same boards (default: a random seed, "
        "kept in the folder)",
    )
    parser.add_argument(
        "--deal-key",
        metavar="KEY",
        help=f"the secret a new folder's decks and match ids are drawn under, to play another run's boards again "
        f"(its folder's ladder.key; default: ${secret_deals.ENVIRONMENT}, else a fresh key). Bots must never learn "
        "it, and every process can read a command line: prefer the variable",
    )
    stop = parser.add_mutually_exclusive_group()
    stop.add_argument(
        "--sprt",
        nargs=4,
        type=float,
        metavar=("ELO0", "ELO1", "ALPHA", "BETA"),
        help=sprt_help(),
    )
    stop.add_argument("--width", type=float, metavar="ELO", help="stop when the 95 %% Elo interval is this narrow")
    parser.add_argument("--boards", type=int, metavar="N", help=f"at most N boards (default {DEFAULT_BOARDS})")
    parser.add_argument("--concurrency", type=int, default=4, metavar="K", help="matches at once (default 4)")
    parser.add_argument(
        "--fill", action="append", default=[], metavar="SPEC", help="a bot for the other seats of a 3- or 4-sided game"
    )
    parser.add_argument("--quiet", action="store_true", help="no live view; only the summary")
    cluster.add_option(parser)
    sandbox_options.add_sandbox_options(parser)
    parser.set_defaults(run_command=main)


def sprt_help() -> str:
    """``--sprt``'s help, its figures computed from the default test, so that it cannot go stale."""
    default = sprt.Sprt(*DEFAULT_SPRT)
    least, least_h0 = sprt.fewest_boards(default), sprt.fewest_boards(default, sprt.Decision.H0)
    return (
        "a sequential probability ratio test of H0: A−B = ELO0 against H1: A−B = ELO1, with error rates ALPHA and "
        f"BETA, on the boards' paired scores (default: {' '.join(f'{v:g}' for v in DEFAULT_SPRT)}; "
        f"{default.elo1:g} Elo is a {100 * default.s1:.0f} %% score). A board is at most won, so the default "
        f"accepts H1 after {least} boards at the fewest, when A wins every one, however much stronger A is "
        f"(H0: {least_h0} boards, every one lost)"
    )


def main(args: argparse.Namespace, console: Console) -> int:
    try:
        cluster.check(args.ray)  # no Ray, no start
    except ClusterError as error:
        print_error(str(error))
        return 2
    try:
        return _versus(args, console)
    except (ConfigError, StoreError, RulesError, ValueError) as error:
        print_error(str(error))
        return 2
    except (RecordError, ClusterError) as error:  # a record it could not write, or the cluster failed the run
        print_error(f"{error}{RESUME}")
        return 1


def _versus(args: argparse.Namespace, console: Console) -> int:
    for flag in ("boards", "concurrency"):
        value = getattr(args, flag)
        if value is not None and value < 1:
            raise ConfigError(f"--{flag} {value}: expected an integer >= 1")
    test = None if args.width is not None else sprt.Sprt(*(args.sprt or DEFAULT_SPRT))
    if args.width is not None and not args.width > 0:
        raise ConfigError(f"--width {args.width}: expected a number of Elo > 0")
    bots = _bots(args.a, args.b, args.fill)
    where = args.dir or Path(f"versus-{bots[0][0]}-{bots[1][0]}")
    rules = registry.load_rules(args.game, args.rules)
    deal_key = secret_deals.take_given_key(args.deal_key)
    _prepare(where, rules, args.seed, deal_key, bots, args.concurrency)
    with folder.open_ladder(where) as ladder:
        # As waraq match: this command's --sandbox and limits, kept in the folder for `ladder run` there.
        ladder.config = replace(ladder.config, sandbox=sandbox_settings(args))
        cfg.save(ladder.folder, ladder.config)
        size = group_size(ladder.config.layout, True)
        cap = (args.boards or DEFAULT_BOARDS) * size
        target = ledger.Target(cap, sprt=test, width=args.width)
        with ladder.store.transaction():
            ladder.store.set_meta("target", target.to_text())
        state = RunState(target, args.concurrency, cluster=args.ray)
        # A dial-in bot gets a token for this run, shown once; the address comes once the lobby listens.
        tokens = {
            bot.name: folder.rotate_token(ladder, bot.name)
            for bot in ladder.config.bots
            if bot.bot_spec.kind is SpecKind.DIAL_IN
        }
        state.on_lobby = lambda address: tell_dial_ins(console, address, tokens)
        names = " and ".join(b.name for b in ladder.config.bots[2:])
        console.print(
            f"versus {where}: {ladder.config.bots[0].name} against {ladder.config.bots[1].name}, "
            f"{describe_rules(ladder.config)}, {_goal(target, size)}" + (f"; filling seats: {names}" if names else ""),
            highlight=False,
            soft_wrap=True,
            markup=False,
        )
        try:
            config = ladder.config
            live.play(ladder, state, console, lambda store: LiveVersus(state, store, config), quiet=args.quiet)
        except (RecordError, OSError) as error:
            print_error(f"{error}{RESUME}")
            return 1
        found = head_to_head.summary(ladder.store, ladder.config)
        console.print(SummaryView(found, test, ladder.config.layout.low_wins))
        return _verdict(console, state, found)


def sandbox_settings(args: argparse.Namespace) -> cfg.SandboxSettings:
    """The ladder's [sandbox] table from the command's --sandbox and limits."""
    limits = {name: getattr(args, name) for name in sandbox_options.LIMIT_OPTIONS}
    return cfg.SandboxSettings(mode=args.sandbox, **limits)


def _bots(a: str, b: str, fills: list[str]) -> list[tuple[str, str]]:
    """(name, spec) of A, B and the fill bots: a name given as NAME=SPEC, else the built-in bot's, else A/B."""
    out: list[tuple[str, str]] = []
    for default, text in (("A", a), ("B", b), *((f"fill-{i + 1}", t) for i, t in enumerate(fills))):
        spec = BotSpec.parse(text)
        name = spec.name or (spec.value if spec.kind == SpecKind.BUILTIN else default)
        taken = {n for n, _ in out}
        if name in taken:
            name = f"{name}-{default.lower()}" if f"{name}-{default.lower()}" not in taken else f"{name}-{len(out)}"
        out.append((re.sub(r"[^A-Za-z0-9_.+-]", "-", name)[:40], spec.value))
    return out


def _prepare(
    where: Path, rules: Any, seed: int | None, deal_key: str | None, bots: list[tuple[str, str]], concurrency: int
) -> None:
    """Make the run's folder, or check that the one there is this head-to-head (then it resumes)."""
    if (where / "ladder.toml").exists():
        with folder.open_ladder(where, readonly=True) as ladder:
            had = [(b.name, b.spec) for b in ladder.config.bots]
            if [s for _, s in had[:2]] != [s for _, s in bots[:2]] or ladder.config.rules != rules:
                raise ConfigError(
                    f"{where} holds another head to head ({' against '.join(n for n, _ in had[:2])}, "
                    f"{describe_rules(ladder.config)}): give another --dir, or the same bots and rules to resume it"
                )
            _check_resumed(ladder, seed, deal_key)
        return
    teams = rules.teams < rules.players
    sides = rules.teams
    if len(bots) < sides:
        bots = bots + [(f"fill-{i + 1}", "heuristic") for i in range(sides - len(bots))]
    folder.init(where, rules, seed=seed, duplicate=True, partners="self" if teams else "mixed", deal_key=deal_key)
    with folder.open_ladder(where) as ladder:
        size = group_size(ladder.config.layout, True)
        # Small batches: the test looks at each batch's boundary, so a decision is not overshot by much.
        matchmaking = replace(ladder.config.matchmaking, batch=max(size, -(-concurrency // size) * size))
        ladder.config = replace(ladder.config, matchmaking=matchmaking)
        for name, spec in bots:
            folder.add(ladder, name, spec, check=False)


def _check_resumed(ladder: folder.Ladder, seed: int | None, deal_key: str | None) -> None:
    """A seed or key given again must be the folder's: its boards were dealt under them, and a run
    resumed under others would not be the run it goes on."""
    if seed is not None and seed != ladder.config.seed:
        raise ConfigError(
            f"--seed {seed}: {ladder.folder} plays seed {ladder.config.seed}; give that seed (or none) to resume it, "
            "or another --dir"
        )
    if deal_key is not None and deal_key != key_file.read(ladder.folder):
        raise ConfigError(
            f"{ladder.folder} deals under another key than the one given ({key_file.KEY_FILE}): give its key "
            "(or none) to resume it, or another --dir"
        )


def describe_rules(config: LadderConfig) -> str:
    return describe(config.rules)


def _goal(target: ledger.Target, size: int) -> str:
    boards = target.matches // size
    if target.sprt is not None:
        test = target.sprt
        return (
            f"SPRT of {test.elo0:g} against {test.elo1:g} Elo (α {test.alpha:g}, β {test.beta:g}) on boards of "
            f"{size} rooms, at most {boards} boards"
        )
    if target.width is not None:
        return f"until the 95 % interval is {target.width:g} Elo wide, at most {boards} boards"
    return f"{boards} boards"


def _verdict(console: Console, state: RunState, found: head_to_head.Summary) -> int:
    finished = state.finished
    if state.stopping or finished is None:
        console.print("stopped before a decision: the same command goes on where this run stopped", style="yellow")
        return 130 if state.stopping else 2
    style = {Ending.H1: "bold green", Ending.H0: "bold red", Ending.CAP: "bold yellow"}.get(finished.reason, "bold")
    console.print(Text(finished.detail, style=style), soft_wrap=True)
    return EXIT.get(finished.reason, 2)


class SummaryView:
    """W/L/D and points by room, the paired score, the Elo difference, LOS and the test, as a rich table."""

    def __init__(self, found: head_to_head.Summary, test: sprt.Sprt | None, low_wins: bool = False) -> None:
        self.found = found
        self.test = test
        self.low_wins = low_wins

    def __rich__(self) -> RenderableType:
        found, tally = self.found, self.found.tally
        grid = Table.grid(padding=(0, 2))
        grid.add_row(
            "matches",
            f"{found.matches}: {found.a} {found.wins} won, {found.losses} lost, {found.draws} the same rank; "
            f"{'penalty points (lower is better)' if self.low_wins else 'points'} {found.points[0]}–{found.points[1]}",
        )
        if tally.n:
            grid.add_row("boards", f"{tally.n}: paired score {100 * tally.mean:.1f} % ({_cells(tally)})")
            grid.add_row("Elo", _elo(tally))
            los = sprt.likelihood_of_superiority(tally)
            grid.add_row("LOS", f"{100 * los:.1f} %  (the chance that {found.a} is the better)")
        else:
            grid.add_row("boards", "none complete yet")
        if self.test is not None:
            llr = self.test.llr(tally)
            grid.add_row("SPRT", f"LLR {llr:+.2f}  (accept H0 at {self.test.lower:.2f}, H1 at {self.test.upper:.2f})")
        return grid


def _elo(tally: sprt.Tally) -> str:
    elo, low, high = sprt.elo_estimate(tally)
    if tally.mean in (0.0, 1.0):
        every = "won" if tally.mean else "lost"
        return f"{'+' if tally.mean else '-'}∞: every board {every}, so no finite estimate yet"
    if len(tally.cells) < 2:
        return f"{elo:+.1f}  (every board alike: no interval yet)"
    return f"{elo:+.1f}  (95 %: {low:+.1f} … {high:+.1f})"


def _cells(tally: sprt.Tally) -> str:
    """The board scores seen and how often, as fractions of the rooms: ``0: 3, 1/2: 9, 1: 12``."""
    return ", ".join(f"{Fraction(cell).limit_denominator(24)}: {tally.counts[cell]}" for cell in tally.cells)


class LiveVersus:
    """The live view: progress, and the summary read from the database once a second."""

    def __init__(self, state: RunState, store: Store, config: LadderConfig) -> None:
        self.state, self.store, self.config = state, store, config
        self._summary: head_to_head.Summary | None = None
        self._read = -1.0

    def __rich__(self) -> RenderableType:
        state = self.state
        if time.monotonic() - self._read > 0.9:
            self._summary = head_to_head.summary(self.store, self.config)
            self._read = time.monotonic()
        line = Text(
            f"{state.before + state.played} matches · {state.rate():.2f} matches/s · {state.in_flight} in flight · "
            f"{duration(state.elapsed)}"
            if state.playing is not None
            else "starting the bots…"
        )
        if state.stopping:
            line.append(" · stopping: the matches in flight finish (Ctrl-C again drops them)", style="yellow")
        parts: list[RenderableType] = [line]
        if self._summary is not None:
            parts.append(SummaryView(self._summary, state.target.sprt, self.config.layout.low_wins))
        parts += [Text(note, style="yellow") for note in state.notes[-3:]]
        parts += [Text(note, style="red") for note in state.suspensions[-3:]]
        parts += [Text(f"  {f}", overflow="ellipsis", no_wrap=True) for f in state.faults]
        return Group(*parts)

"""An upload, from archive to a ladder bot: unpacked, its manifest read, built, checked.

:func:`submit` lays out one bot version's folder, which the caller made empty
(``LADDER/bots/<author>/<bot>/v<N>/``, say)::

    upload/       the archive unpacked (archive.py), as it was sent
    bot/          what the build made (build.py), when the manifest has a build: the bot's folder
    build.log     the end of the build's output
    check/        check-bot's records and the bot's logs
    check.txt     check-bot's report, as ``waraq check-bot`` prints it
    check.json    the same, as ``waraq check-bot --json`` prints it

and says where the upload ended as a :class:`Stage` with a line for the
author. The check is ``waraq check-bot``'s (waraq.referee.conformance) of
the ladder's game and player count, the bot launched from its folder in the
sandbox (always: a stranger's bot never runs unconfined here) as the
ladder's bots are, under the ladder's limits; the bot must also declare
that game and count in its Hello, or no match would seat it. A bot that
passes is :attr:`Stage.READY`, with the ladder :class:`Bot` to add.

Nothing the uploader controls makes it raise: a bad archive or manifest, a
failing build, a bot that crashes or lies are each a stage and a message. It
raises for what is the arena's own doing: a folder that is not empty, a full
disk.
"""

from __future__ import annotations

import asyncio
import io
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

import orjson
from rich.console import Console

from waraq.ladder.storage.config import Bot
from waraq.ladder.submit import archive as archives
from waraq.ladder.submit import manifest as manifests
from waraq.ladder.submit.archive import ArchiveLimits, Unpacked, UploadError
from waraq.ladder.submit.build import BuildLimits, build
from waraq.ladder.submit.manifest import Manifest, ManifestError
from waraq.referee.conformance import report as reporting
from waraq.referee.conformance.cases import Status
from waraq.referee.conformance.check import CheckConfig, Report, check
from waraq.referee.games import registry
from waraq.referee.launch import sandbox
from waraq.referee.launch.bots import BotSpec

UPLOAD = "upload"
BOT = "bot"
BUILD_LOG = "build.log"
CHECK = "check"
CHECK_TEXT = "check.txt"
CHECK_JSON = "check.json"
REPORT_WIDTH = 120  # the check report's columns, as a wide terminal shows it
DETAIL_CHARS = 160  # of a failed case's detail, in the one-line message
CONFINED = sandbox.Config(sandbox.Isolation.ON)  # frozen: one instance serves every default argument


class Stage(StrEnum):
    """Where an upload ended."""

    REFUSED = "refused"  # its archive or its manifest
    BUILD_FAILED = "build_failed"
    CHECK_FAILED = "check_failed"
    READY = "ready"  # checked: its bot can join the ladder


@dataclass(frozen=True)
class SubmitLimits:
    archive: ArchiveLimits = ArchiveLimits()
    build: BuildLimits = BuildLimits()
    startup_ms: float = 30_000  # each of the check's bot processes, to start and answer Hello
    jobs: int = 2  # the check's stages played at once


@dataclass(frozen=True)
class Submission:
    stage: Stage
    message: str  # one line, for the author
    manifest: Manifest | None = None  # once it was read
    build_log: str = ""  # the end of the build's output, "" without a build
    check_report: str = ""  # check-bot's report as it prints it, "" when the check was not run
    bot: Bot | None = None  # the ladder's bot, when READY
    unpacked: Unpacked | None = None  # what the upload held

    @property
    def ready(self) -> bool:
        return self.stage is Stage.READY


async def submit(
    archive: Path,
    folder: Path,
    *,
    game: str,
    rules: Any,
    confinement: sandbox.Config = CONFINED,
    limits: SubmitLimits = SubmitLimits(),
    name: str = "",
    name_problem: Callable[[str], str | None] = lambda name: None,
) -> Submission:
    """Take the uploaded ``archive`` into the empty ``folder`` for a ladder of ``game`` under ``rules``:
    unpack, read the manifest, build, check. ``confinement``: the ladder's sandbox (its limits, its
    hidden folders: the ladder's own); ``name``: the bot's name in the ladder (default: the manifest's);
    ``name_problem``: why the ladder refuses the manifest's name (another author's, say), asked before
    anything is built, or None."""
    if registry.game_of_rules(rules) != game:
        raise ValueError(f"the rules {rules!r} are not {game}'s")
    upload = folder / UPLOAD
    upload.mkdir(mode=0o755)
    upload.chmod(0o755)  # a root referee's bot and build run as users of their own: they must read it
    try:
        # Off the event loop: 20,000 files or 256 MiB take seconds to write, and matches' clocks run meanwhile.
        unpacked = await asyncio.to_thread(archives.unpack, archive, upload, limits.archive)
        read = manifests.load(upload)
    except (UploadError, ManifestError) as refusal:
        return Submission(Stage.REFUSED, str(refusal))
    if game not in read.games:
        played = ", ".join(read.games)
        return Submission(Stage.REFUSED, f"{manifests.MANIFEST}: games = {played}: this ladder plays {game}", read)
    if (problem := name_problem(read.name)) is not None:  # refused before a build's minutes are spent on it
        return Submission(Stage.REFUSED, problem, read)
    home, log = upload, ""
    if read.build:
        home = folder / BOT
        home.mkdir(mode=0o755)
        home.chmod(0o755)
        built = await build(read.build, upload, home, limits.build)
        log = built.log
        (folder / BUILD_LOG).write_text(log, encoding="utf-8")
        if not built.ok:
            return Submission(Stage.BUILD_FAILED, built.message, read, log, unpacked=unpacked)
    missing = _missing(read, home)
    if missing is not None:
        stage = Stage.BUILD_FAILED if read.build else Stage.REFUSED
        return Submission(stage, missing, read, log, unpacked=unpacked)
    bot = read.bot(home, name)
    report = await _check(bot, folder, game, rules.players, confinement, limits)
    text = _as_author_sees(_text(report), folder)
    (folder / CHECK_TEXT).write_text(text, encoding="utf-8")
    as_json = orjson.dumps(reporting.to_json(report), option=orjson.OPT_INDENT_2).decode("utf-8")
    (folder / CHECK_JSON).write_text(_as_author_sees(as_json, folder), encoding="utf-8")
    failed = _failed(report, game, rules.players)
    if failed is not None:
        return Submission(Stage.CHECK_FAILED, failed, read, log, text, unpacked=unpacked)
    passed = report.count(Status.PASS)
    message = f"ready: {bot.name} passed check-bot's {passed} cases of {game} with {rules.players} players"
    return Submission(Stage.READY, message, read, log, text, bot, unpacked)


async def _check(
    bot: Bot, folder: Path, game: str, players: int, confinement: sandbox.Config, limits: SubmitLimits
) -> Report:
    """check-bot of the ladder's game and player count, the bot launched from its folder, confined."""
    config = CheckConfig(
        spec=BotSpec.parse(bot.spec),
        record_dir=folder / CHECK,
        games=frozenset({game}),
        players=frozenset({players}),
        jobs=limits.jobs,
        startup_ms=limits.startup_ms,
        confinement=replace(confinement, mode=sandbox.Isolation.ON),
        cwd=bot.cwd,
    )
    return await check(config)


def _missing(read: Manifest, home: Path) -> str | None:
    """Why the bot cannot start as its manifest says, found before it is started; None when it can."""
    if not read.runs:
        return None  # a module or a class, which only the interpreter finds
    path = home / read.runs
    made = "the build did not make it" if read.build else "the upload does not hold it"
    if not path.exists():
        return f"{manifests.MANIFEST}: run = {read.run!r} starts {read.runs}, and {made}"
    if read.program and not (path.is_file() and path.stat().st_mode & 0o111):
        return f"{manifests.MANIFEST}: run starts {read.runs}, which is not an executable file (set its mode's x bit)"
    return None


def _failed(report: Report, game: str, players: int) -> str | None:
    """The line that says why the check failed, or None when the bot is ready for this ladder."""
    failures = [verdict for verdict in report.verdicts if verdict.status is Status.FAIL]
    if failures:
        first = failures[0]
        detail = first.detail.splitlines()[0] if first.detail else ""
        if len(detail) > DETAIL_CHARS:
            detail = detail[: DETAIL_CHARS - 1] + "…"
        cases = f"{len(failures)} of {len(report.verdicts)} cases"
        return f"check-bot failed {cases}; the first, {first.case.id}: {detail}"
    hello = report.probe.hello
    said = {(g.game, n) for g in hello.games for n in g.players} if hello is not None else set()
    if (game, players) not in said:
        declared = "; ".join(f"{g.game} {', '.join(map(str, g.players))}" for g in hello.games) if hello else "nothing"
        return f"its Hello declares {declared}: this ladder plays {game} with {players} players"
    return None


def _as_author_sees(text: str, folder: Path) -> str:
    """The report without the server's own paths (its folders, its Python): the author reads it.
    A Python bot's ``python3`` runs on the referee's interpreter (manifest.py), shown as ``python3``."""
    for path, shown in ((str(folder), "."), (sys.executable, "python3")):
        text = text.replace(_json_escaped(path), _json_escaped(shown)).replace(path, shown)
    return text


def _json_escaped(text: str) -> str:
    return orjson.dumps(text).decode("utf-8")[1:-1]


def _text(report: Report) -> str:
    """The report as ``waraq check-bot`` prints it, on a wide terminal without colour."""
    out = io.StringIO()
    console = Console(file=out, width=REPORT_WIDTH, color_system=None, force_terminal=False, highlight=False)
    reporting.show(console, report)
    return out.getvalue()

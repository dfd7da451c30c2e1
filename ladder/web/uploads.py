"""Uploads: an author's archive received, built and checked in the background, and its versions.

Each upload is a row of ``uploads`` (in ``ladder.sqlite``) and a folder
``uploads/<id>/`` in the ladder folder: ``archive``, as received (removed
once the pipeline has read it), and ``files/``, the pipeline's folder (the
upload unpacked, the bot built, its build log and check report).
The submission pipeline (:mod:`waraq.ladder.submit.pipeline`) does the work,
off the request: the author's page shows its stage until it ends, ready or
refused with the reason.

An upload that passes is a new version of its bot (the manifest's name) and
plays at once; the author may choose an earlier one that passed
(:meth:`Arena.play_version`), and every version's results stay. An upload
that a stopped server left unfinished is told so at the next start: its
author uploads it again.

Only one upload is built at a time (:data:`BUILDS_AT_ONCE`): builds take CPU
from the matches, and a flood of uploads waits its turn rather than crowding
the ladder.

What an author keeps on the arena's disk is bounded (``--upload-mb``, the
versions playing aside): an upload that would pass the bound first makes room
by removing the author's oldest versions that no bot plays or runs from now
(each *removed*, its logs kept), and is refused if that is not enough. An
upload that did not pass keeps only its logs.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import sqlite3
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

from starlette.datastructures import UploadFile

from waraq.ladder.storage.store import Store, now
from waraq.ladder.submit import pipeline
from waraq.ladder.submit.pipeline import SubmitLimits
from waraq.ladder.web.access import Refused
from waraq.ladder.web.arena import Arena, ArenaError
from waraq.ladder.web.people import Person
from waraq.referee.common.digits import ascii_digits

log = logging.getLogger("waraq.serve")

UPLOADS = "uploads"  # in the ladder folder
ARCHIVE = "archive"
FILES = "files"
BUILDS_AT_ONCE = 1
WAITING_PER_AUTHOR = 3  # uploads of one author received and not yet ended
FORM_OVERHEAD = 64 * 1024  # a multipart form's own bytes around the archive

TABLE = """
CREATE TABLE IF NOT EXISTS uploads (
    id INTEGER PRIMARY KEY,
    person INTEGER NOT NULL REFERENCES people (id),
    base TEXT,                          -- the bot it is a version of: its manifest's name, once read
    stage TEXT NOT NULL,
    message TEXT NOT NULL DEFAULT '',
    spec TEXT,                          -- its run command, once ready
    made TEXT NOT NULL
);
"""


class Stage(StrEnum):
    RECEIVED = "received"  # waiting for its turn
    BUILDING = "building"  # unpacked, built and checked now
    READY = "ready"  # built and checked: it may play
    REFUSED = "refused"  # the archive or its manifest
    BUILD_FAILED = "build failed"
    CHECK_FAILED = "check failed"
    INTERRUPTED = "interrupted"  # the server stopped while it was built, or could not build it
    REMOVED = "removed"  # ready once; its files removed to keep its author within their bound

    @property
    def ended(self) -> bool:
        return self not in (Stage.RECEIVED, Stage.BUILDING)


# Where the pipeline ended, as an upload's stage.
STAGES = {
    pipeline.Stage.READY: Stage.READY,
    pipeline.Stage.REFUSED: Stage.REFUSED,
    pipeline.Stage.BUILD_FAILED: Stage.BUILD_FAILED,
    pipeline.Stage.CHECK_FAILED: Stage.CHECK_FAILED,
}


@dataclass(frozen=True)
class Upload:
    id: int
    person: int
    base: str | None
    stage: Stage
    message: str
    spec: str | None
    made: str
    number: int = 0  # its place among its bot's uploads, from 1
    playing: bool = False

    def files(self, folder: Path) -> Path:
        """The pipeline's folder (ladder/submit/pipeline.py): the upload, the bot built, its logs."""
        return folder / UPLOADS / str(self.id) / FILES

    def path(self, folder: Path) -> Path:
        """The unpacked, built bot: where it runs."""
        files = self.files(folder)
        return files / pipeline.BOT if (files / pipeline.BOT).is_dir() else files / pipeline.UPLOAD

    def with_playing(self, folder: Path, cwd: str | None) -> Upload:
        return Upload(**{**self.__dict__, "playing": cwd is not None and Path(cwd) == self.path(folder)})

    def build_log(self, folder: Path) -> str:
        return _read(self.files(folder) / pipeline.BUILD_LOG)

    def check_report(self, folder: Path) -> str:
        return _read(self.files(folder) / pipeline.CHECK_TEXT)

    def as_json(self) -> dict[str, Any]:
        return {
            "upload": self.id,
            "bot": self.base,
            "version": self.number,
            "stage": self.stage.value,
            "message": self.message,
            "made": self.made,
            "playing": self.playing,
        }


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _bytes_under(path: Path) -> int:
    """The bytes of the files under ``path`` (the unpacker makes no links, and none is followed)."""
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(root, name)).st_size
    return total


def _remove_bot(files: Path) -> None:
    """An upload's bot gone (the upload, its build, check-bot's records); its build log and report kept."""
    for part in (pipeline.UPLOAD, pipeline.BOT, pipeline.CHECK):
        shutil.rmtree(files / part, ignore_errors=True)


def _mib(size: int) -> str:
    return f"{size / (1 << 20):.1f}"


def prepare(store: Store) -> None:
    store.db.executescript(TABLE)


_COLUMNS = "id, person, base, stage, message, spec, made"


def _upload(row: tuple, number: int = 0) -> Upload:
    return Upload(row[0], row[1], row[2], Stage(row[3]), row[4], row[5], row[6], number)


def upload(store: Store, upload_id: int) -> Upload | None:
    row = store.db.execute(f"SELECT {_COLUMNS} FROM uploads WHERE id = ?", (upload_id,)).fetchone()
    if row is None:
        return None
    return next((u for u in of_bot(store, row[2]) if u.id == upload_id), None) if row[2] else _upload(row)


def of_bot(store: Store, base: str) -> list[Upload]:
    """A bot's uploads, numbered from 1 in the order they came, newest first."""
    rows = store.db.execute(f"SELECT {_COLUMNS} FROM uploads WHERE base = ? ORDER BY id", (base,)).fetchall()
    return [_upload(row, number) for number, row in reversed(list(enumerate(rows, start=1)))]


def of_person(store: Store, person_id: int) -> list[Upload]:
    rows = store.db.execute(f"SELECT {_COLUMNS} FROM uploads WHERE person = ? ORDER BY id DESC", (person_id,))
    return [_upload(row) for row in rows.fetchall()]


def _set(store: Store, upload_id: int, stage: Stage, message: str, **values: str | None) -> None:
    with store.transaction():
        store.db.execute("UPDATE uploads SET stage = ?, message = ? WHERE id = ?", (stage.value, message, upload_id))
        for column, value in values.items():  # the columns are this module's own names: base, spec
            store.db.execute(f"UPDATE uploads SET {column} = ? WHERE id = ?", (value, upload_id))


class Uploads:
    def __init__(self, arena: Arena, limits: SubmitLimits | None = None) -> None:
        self.arena = arena
        self.limits = limits or SubmitLimits()
        self.turns = asyncio.Semaphore(BUILDS_AT_ONCE)
        self.jobs: set[asyncio.Task] = set()
        store = arena.ladder.store
        prepare(store)
        with store.transaction():
            store.db.execute(
                "UPDATE uploads SET stage = ?, message = ? WHERE stage IN (?, ?)",
                (
                    Stage.INTERRUPTED.value,
                    "the server stopped before it was built and checked: upload it again",
                    Stage.RECEIVED.value,
                    Stage.BUILDING.value,
                ),
            )

    @property
    def store(self) -> Store:
        return self.arena.ladder.store

    async def check_room(self, person: Person, size: str | None) -> None:
        """Refuse an upload before its body is read: no size given, too big, too many of the author's
        waiting, or no room within the author's bound even once their old versions not in use are gone.
        Nothing is changed here: the form's CSRF value is not read yet (:meth:`make_room` acts)."""
        if size is None or not ascii_digits(size):
            raise Refused(411, "an upload says its size (Content-Length)")
        if int(size) > self.limits.archive.archive_bytes + FORM_OVERHEAD:
            raise Refused(413, f"an upload is at most {self.limits.archive.archive_bytes >> 20} MiB")
        waiting = [u for u in of_person(self.store, person.id) if not u.stage.ended]
        if len(waiting) >= WAITING_PER_AUTHOR:
            raise Refused(429, f"you have {len(waiting)} uploads waiting to be built: wait for them to end")
        kept = await self._kept(person)
        held = sum(bytes_ for _, bytes_, _ in kept)
        freed = sum(bytes_ for _, bytes_, removable in kept if removable)
        if held - freed + int(size) > self.arena.settings.upload_bytes:
            raise self._no_room(held)

    async def make_room(self, person: Person, size: int) -> None:
        """Remove the author's oldest versions that may go until ``size`` more bytes fit their bound."""
        bound, folder = self.arena.settings.upload_bytes, self.arena.folder
        kept = await self._kept(person)
        held = sum(bytes_ for _, bytes_, _ in kept)
        for found, bytes_, removable in kept:  # oldest first
            if held + size <= bound:
                return
            if removable:
                # Marked first: from here it cannot be chosen to play while its files go.
                message = f"removed to keep your uploads within {bound >> 20} MiB: upload it again to play it"
                _set(self.store, found.id, Stage.REMOVED, message)
                await asyncio.to_thread(_remove_bot, found.files(folder))
                held -= bytes_ - await asyncio.to_thread(_bytes_under, folder / UPLOADS / str(found.id))
        if held + size > bound:
            raise self._no_room(held)

    async def _kept(self, person: Person) -> list[tuple[Upload, int, bool]]:
        """The author's uploads but the versions playing, oldest first: each with its bytes on disk and
        whether it may be removed (a ready version no bot plays or runs from now)."""
        folder = self.arena.folder
        playing = {bot.cwd for bot in self.arena.ladder.config.bots}
        kept = [u for u in reversed(of_person(self.store, person.id)) if str(u.path(folder)) not in playing]
        sizes = await asyncio.to_thread(lambda: [_bytes_under(folder / UPLOADS / str(u.id)) for u in kept])
        return [
            (u, bytes_, u.stage is Stage.READY and self.arena.may_remove(u.path(folder)))
            for u, bytes_ in zip(kept, sizes, strict=True)
        ]

    def _no_room(self, held: int) -> Refused:
        bound = self.arena.settings.upload_bytes >> 20
        return Refused(
            413,
            f"your uploads keep {_mib(held)} MiB here besides the versions playing, of at most {bound} MiB: "
            "this one does not fit (a version that plays or still runs is never removed)",
        )

    async def receive(self, archive: UploadFile, person: Person) -> int:
        """Keep an upload's archive and start its build: its id."""
        with self.store.transaction():
            cursor = self.store.db.execute(
                "INSERT INTO uploads (person, stage, made) VALUES (?, ?, ?)", (person.id, Stage.RECEIVED.value, now())
            )
        upload_id = int(cursor.lastrowid or 0)
        folder = self.arena.folder / UPLOADS / str(upload_id)
        folder.mkdir(parents=True)
        with (folder / ARCHIVE).open("wb") as out:
            await asyncio.to_thread(shutil.copyfileobj, archive.file, out)
        job = asyncio.ensure_future(self._build(upload_id, person))
        self.jobs.add(job)
        job.add_done_callback(self.jobs.discard)
        return upload_id

    async def _build(self, upload_id: int, person: Person) -> None:
        """Build and check one upload; whatever goes wrong on the arena's side (a full disk) ends it
        *interrupted* with the reason, never leaves it building."""
        try:
            await self._submit(upload_id, person)
        except asyncio.CancelledError:
            raise  # the server stops: the next start marks it interrupted
        except Exception as error:  # the arena's own trouble, not the author's: said to them, logged here
            log.exception("upload %s could not be built", upload_id)
            reason = getattr(error, "strerror", None) or str(error) or type(error).__name__
            with contextlib.suppress(sqlite3.Error):
                _set(self.store, upload_id, Stage.INTERRUPTED, f"the server could not build it ({reason}): try again")

    async def _submit(self, upload_id: int, person: Person) -> None:
        folder = self.arena.folder / UPLOADS / str(upload_id)
        ladder = self.arena.ladder
        async with self.turns:
            _set(self.store, upload_id, Stage.BUILDING, "unpacking, building and checking")
            (folder / FILES).mkdir()
            result = await pipeline.submit(
                folder / ARCHIVE,
                folder / FILES,
                game=ladder.config.game,
                rules=ladder.config.rules,
                # The ladder's sandbox, its folder hidden (the check runs the bot as the ladder will).
                confinement=ladder.config.sandbox.confinement((ladder.folder,)),
                limits=self.limits,
                name_problem=lambda name: self._name_problem(name, person),
            )
        (folder / ARCHIVE).unlink(missing_ok=True)  # unpacked now (or refused): up to 64 MiB an upload back
        stage = STAGES[result.stage]
        base = result.manifest.name if result.manifest is not None else None
        if base is not None and (problem := self._name_problem(base, person)) is not None:
            stage, result = Stage.REFUSED, replace(result, message=problem)
        spec = result.bot.spec if result.bot is not None else None
        _set(self.store, upload_id, stage, result.message, base=base if stage is not Stage.REFUSED else None, spec=spec)
        if stage is Stage.READY and base is not None and spec is not None and result.bot is not None:
            try:
                self.arena.play_version(base, spec, Path(result.bot.cwd), person)
            except ArenaError as error:  # its name was taken while it was built
                stage = Stage.REFUSED
                _set(self.store, upload_id, stage, str(error), base=None)
        if stage is not Stage.READY:  # it will never run: its logs are all the author needs of it
            await asyncio.to_thread(_remove_bot, folder / FILES)
        # Built, it may hold far more than its archive did: back within the bound where old versions allow.
        with contextlib.suppress(Refused):
            await self.make_room(person, 0)

    def _name_problem(self, name: str, person: Person) -> str | None:
        try:
            self.arena.check_name(name, person)
        except ArenaError as error:
            return str(error)
        return None

    async def close(self) -> None:
        for job in self.jobs:
            job.cancel()
        await asyncio.gather(*self.jobs, return_exceptions=True)

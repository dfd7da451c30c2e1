"""What every visitor may see, computed once per change and shared by every page and API call.

The standings, ratings, head to head and match list are the ladder report's
(:func:`waraq.ladder.present.report.gather`), read in a thread of their own
from a read-only connection, so fitting the ratings never holds up the loop
that plays the matches and answers the pages. A visitor is shown the latest
snapshot at once; a snapshot older than the database (``PRAGMA data_version``
says when another connection committed) is made again in the background, at
most every :data:`MIN_AGE_S`. Fifty readers cost one fit a second, not fifty.

Nothing here is secret: the report holds the bots' names, versions, results
and the matches played (never one in flight). What only an author may see is
read elsewhere (:mod:`.author`).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import time
from dataclasses import dataclass, field
from pathlib import Path

from waraq.ladder.play.folder import Ladder, open_ladder
from waraq.ladder.present import report
from waraq.ladder.present.report import MatchLine, Report
from waraq.ladder.present.table import Standing
from waraq.ladder.storage.store import ACTIVE, SUSPENDED, Entry, Store
from waraq.ladder.web import people

MIN_AGE_S = 1.0


@dataclass(frozen=True)
class Snapshot:
    report: Report
    entries: tuple[Entry, ...]  # every version of every bot
    owners: dict[str, str]  # bot -> author
    version: int  # counts the snapshots made: a page or an event says which it showed
    made: float = field(default_factory=time.monotonic)

    def standings(self, *, everyone: bool = False) -> list[Standing]:
        """The table: the bots that play (active or suspended); ``everyone``: retired and removed too."""
        return [row for row in self.report.standings if everyone or row.status in (ACTIVE, SUSPENDED)]

    def base_of(self, name: str) -> str | None:
        """The bot (ladder.toml's name) of an entry's name, ``mybot.v2`` -> ``mybot``."""
        return next((e.base for e in self.entries if e.name == name), None)

    def versions(self, base: str) -> list[Entry]:
        return [e for e in self.entries if e.base == base]

    def bots(self) -> list[str]:
        return sorted({e.base for e in self.entries})

    def matches_of(self, base: str, limit: int = 30) -> list[MatchLine]:
        names = {e.name for e in self.versions(base)}
        return [m for m in reversed(self.report.matches) if names & set(m.bots)][:limit]

    def match(self, match_id: int) -> MatchLine | None:
        return next((m for m in self.report.matches if m.id == match_id), None)


class Views:
    """The latest snapshot of a ladder folder, made again when the database changes."""

    def __init__(self, folder: Path, description: str) -> None:
        self.folder = folder
        self.description = description
        # One thread: the read-only connection lives and dies in it (SQLite's rule), and two fits at
        # once would only slow each other.
        self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="waraq-views")
        self._ladder: Ladder | None = None
        self._seen_data: int | None = None
        self._latest: Snapshot | None = None
        self._making: asyncio.Future[Snapshot] | None = None
        self._made = 0

    async def current(self) -> Snapshot:
        """The latest snapshot; made first if there is none, else made again behind the scenes if stale."""
        if self._latest is None:
            return await self._refresh()
        if self._making is None and time.monotonic() - self._latest.made >= MIN_AGE_S:
            self._making = asyncio.ensure_future(self._refresh())
        return self._latest

    async def _refresh(self) -> Snapshot:
        loop = asyncio.get_running_loop()
        try:
            made = await loop.run_in_executor(self._pool, self._make)
        finally:
            self._making = None
        if made is not None:
            self._latest = made
        assert self._latest is not None
        return self._latest

    def _make(self) -> Snapshot | None:
        """In the views' thread: a new snapshot, or None when the database has not changed since the last."""
        if self._ladder is None:
            self._ladder = open_ladder(self.folder, readonly=True)
        store = self._ladder.store
        data = store.db.execute("PRAGMA data_version").fetchone()[0]
        if data == self._seen_data and self._latest is not None:
            # Nothing committed since: the same data, made fresh again (its age is what `current` reads).
            latest = self._latest
            return Snapshot(latest.report, latest.entries, latest.owners, latest.version)
        self._seen_data = data
        with store.snapshot():
            found = report.gather(self._ladder, self.description, everyone=True)
            entries = tuple(store.entries())
            owners = people.owners(store) if _has_people(store) else {}
        self._made += 1
        return Snapshot(found, entries, owners, self._made)

    def close(self) -> None:
        def shut() -> None:
            if self._ladder is not None:
                self._ladder.close()

        self._pool.submit(shut).result()
        self._pool.shutdown()


def _has_people(store: Store) -> bool:
    return store.db.execute("SELECT 1 FROM sqlite_master WHERE name = 'owners'").fetchone() is not None

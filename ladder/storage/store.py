"""``ladder.sqlite``: the schema, its transactions, and typed rows in and out.

SQLite in WAL mode: ``waraq ladder show`` reads a consistent snapshot while
``waraq ladder run`` writes. Every change is one transaction (``BEGIN
IMMEDIATE`` .. ``COMMIT``), so a kill at any moment leaves the database as it
was before or after a change, never half of one; ``synchronous = FULL`` makes
a commit survive a power cut too.

Matches are planned before they are played: a planned row holds the seed,
the seats and the record path, and goes ``planned -> done -> rated`` (or
``unrated``: no side won; or ``cancelled``: a bot was suspended before the
match was rated). The matches of one deal are a board (ladder/stats/boards.py),
rated as one. Ratings are rows, one per (board, bot), under the board's last
rated match and never updated: a bot's rating is its latest row, and the
whole history can be replayed.

A database that cannot be used is a :class:`StoreError` naming the file:
missing, empty, of another program or schema, or damaged (``PRAGMA
quick_check`` on every open, so a damaged page is found before a run starts,
not in the middle of one); :func:`problem` words any SQLite error met later
the same way (a full disk too). A read-only open (``waraq ladder show``)
never writes to the file, not even the header SQLite would write into an
empty one.

Schemas: 2 adds each fault's code (``faults.code``). A database of schema 1
is upgraded when first opened to write (one ``ALTER TABLE``: its faults keep
a NULL code); opened read-only, it is read as it is, every code None.

This module holds no ladder logic: ``ladder/play/ledger.py`` decides what to write.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import urllib.parse
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from waraq.ladder.storage.side_tables import DIAL_INS, MATCH_LOGS, SideTables, now
from waraq.referee.match.faults import FaultCode, FaultKind

SCHEMA_VERSION = 2
UPGRADABLE = "1"  # the schema :meth:`Store.open` upgrades to SCHEMA_VERSION (it lacks faults.code)
ACTIVE, SUSPENDED, RETIRED, REMOVED = "active", "suspended", "retired", "removed"
PLANNED, DONE, RATED, UNRATED, CANCELLED = "planned", "done", "rated", "unrated", "cancelled"
PROCESSED = (RATED, UNRATED, CANCELLED)
CRASHES = (FaultKind.CRASH, FaultKind.STARTUP)  # the faults that may mean the bot must be started again
# A dial-in bot that dropped mid-match: charged with the match, but no crash to suspend it for. It is
# seated again once it dials, and one dropped connection must not count once for each match it was in.
ABSENCES = (FaultCode.CONNECTION_LOST,)
SQLITE_MAGIC = b"SQLite format 3\x00"  # the first 16 bytes of every SQLite database file
DAMAGED = "it is not a whole ladder database; put back a copy of it"

# A match's identity: its board (the deal, whose number makes the seed) and its seating in it. The planned
# id is its alias, and the match id the bots see is made from that (ladder/play/planned_match.py). Made too in a
# database of this schema from before it, when first opened to write: no planning ever repeated a seating.
IDENTITY = "CREATE UNIQUE INDEX IF NOT EXISTS matches_by_identity ON matches (deal, position);"

SCHEMA = f"""
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE bots (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,          -- the entry as the table shows it: "mybot", "mybot.v2"
    base TEXT NOT NULL,                 -- its name in ladder.toml
    spec TEXT NOT NULL,
    hello_name TEXT, hello_version TEXT,
    files_hash TEXT,                    -- sha256 of the files its command names, if any
    status TEXT NOT NULL CHECK (status IN ('{ACTIVE}', '{SUSPENDED}', '{RETIRED}', '{REMOVED}')),
    reason TEXT,
    suspended_at INTEGER,               -- the match that suspended it; NULL: suspended at start-up
    added TEXT NOT NULL
);
CREATE TABLE matches (
    id INTEGER PRIMARY KEY,             -- planned order, which is also the rating order
    batch INTEGER NOT NULL,
    deal INTEGER NOT NULL,              -- its board: the matches of one deal play the same decks
    position INTEGER NOT NULL,          -- 0, 1, ..: the seating's rotation within the deal
    seed INTEGER NOT NULL,
    record TEXT NOT NULL,               -- relative to the ladder folder
    status TEXT NOT NULL CHECK (status IN ('{PLANNED}', '{DONE}', '{RATED}', '{UNRATED}', '{CANCELLED}')),
    note TEXT,                          -- why unrated or cancelled
    planned_at TEXT NOT NULL,
    finished_at TEXT,
    reason TEXT, winners TEXT, score TEXT, faulty TEXT, decisions INTEGER, seconds REAL
);
CREATE INDEX matches_by_status ON matches (status, id);
{IDENTITY}
CREATE INDEX matches_by_batch ON matches (batch, id);
CREATE TABLE seats (
    match_id INTEGER NOT NULL REFERENCES matches (id),
    seat INTEGER NOT NULL,
    bot_id INTEGER NOT NULL REFERENCES bots (id),
    won INTEGER,                        -- 1 or 0 once played: this seat is among the winners
    PRIMARY KEY (match_id, seat)
);
CREATE INDEX seats_by_bot ON seats (bot_id, match_id);
CREATE TABLE faults (
    id INTEGER PRIMARY KEY,
    match_id INTEGER NOT NULL REFERENCES matches (id),
    seat INTEGER NOT NULL,
    bot_id INTEGER NOT NULL REFERENCES bots (id),
    kind TEXT NOT NULL,
    detail TEXT NOT NULL,
    round INTEGER,
    code TEXT                           -- its FaultCode (docs/records.md "### Fault codes"); NULL before schema 2
);
CREATE INDEX faults_by_bot ON faults (bot_id, match_id);
CREATE TABLE ratings (
    match_id INTEGER NOT NULL REFERENCES matches (id),
    bot_id INTEGER NOT NULL REFERENCES bots (id),
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    PRIMARY KEY (bot_id, match_id)
);
CREATE TABLE log (                      -- what happened to bots outside matches, for `show`
    id INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    bot_id INTEGER REFERENCES bots (id),
    what TEXT NOT NULL
);
CREATE TABLE processes (                -- bot processes of a run, so a killed run's are ended next time
    pid INTEGER PRIMARY KEY,
    cmdline TEXT NOT NULL
);
"""


class DuplicateResult(RuntimeError):
    """A second result for a match that has one: refused, whoever played the match again (a Ray retry)."""


class StoreError(RuntimeError):
    """The database cannot be used (missing, empty, damaged, of another schema): the message says why."""


def problem(path: Path, error: sqlite3.Error) -> str:
    """What an SQLite error met in ``path`` means, in one line naming the file."""
    code = getattr(error, "sqlite_errorcode", None)
    if code == sqlite3.SQLITE_FULL:
        return f"disk full writing {path}"
    if code in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB) or "malformed" in str(error):
        return f"{path} is damaged ({error}): {DAMAGED}"
    return f"{path}: {error}"


# --- rows --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Entry:
    """One version of one bot: what is rated."""

    id: int
    name: str
    base: str
    spec: str
    hello_name: str | None
    hello_version: str | None
    files_hash: str | None
    status: str
    reason: str | None
    suspended_at: int | None
    added: str


@dataclass(frozen=True)
class Planned:
    """A match to play: everything needed to play it again the same way."""

    id: int
    batch: int
    deal: int
    position: int
    seed: int
    seats: tuple[int, ...]  # entry ids, by seat
    record: str  # the bots' match id is made from the id and the ladder's key (scheduler)


@dataclass(frozen=True)
class FaultRow:
    seat: int
    kind: str
    detail: str
    round: int | None
    code: str | None = None  # None: stored before faults had codes


@dataclass(frozen=True)
class Played:
    """A finished match as the ledger needs it."""

    id: int
    seats: tuple[int, ...]
    status: str
    reason: str
    winners: tuple[int, ...]
    score: tuple[int, ...]
    faulty: tuple[int, ...]
    faults: tuple[FaultRow, ...]
    deal: int = 0  # its board (ladder/stats/boards.py): the matches of one deal


@dataclass(frozen=True)
class Outcome:
    """What the scheduler brings back from a match."""

    match_id: int
    reason: str
    winners: tuple[int, ...]
    score: tuple[int, ...]
    faulty: tuple[int, ...]
    faults: tuple[FaultRow, ...]
    decisions: int
    seconds: float


# --- the store ---------------------------------------------------------------------------------


class Store(SideTables):
    def __init__(self, connection: sqlite3.Connection, path: Path) -> None:
        self.db = connection
        self.path = path
        self._depth = 0
        self._fault_code = "code"  # what a query of faults selects as the code: "NULL" in a schema 1 read-only

    @classmethod
    def create(cls, path: str | Path) -> Store:
        path = Path(path)
        if path.exists():
            raise StoreError(f"{path} exists already")
        try:
            store = cls(_connect(path), path)
            store.db.executescript(
                f"BEGIN IMMEDIATE; {SCHEMA} {DIAL_INS} {MATCH_LOGS} "
                f"INSERT INTO meta VALUES ('schema', '{SCHEMA_VERSION}'); COMMIT;"
            )
        except sqlite3.Error as error:  # a full disk: no half-made database is left to be taken for a ladder's
            for made in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
                made.unlink(missing_ok=True)
            raise StoreError(problem(path, error)) from None
        return store

    @classmethod
    def open(cls, path: str | Path, *, readonly: bool = False, any_thread: bool = False) -> Store:
        """Open a ladder database; ``any_thread``: a connection of its own for one other thread's use
        (the live view's refresh thread)."""
        path = Path(path)
        if not path.exists():
            raise StoreError(f"{path} does not exist")
        if not path.is_file():
            raise StoreError(f"{path} is not a file: a ladder database is one file")
        _check_header(path)
        try:
            connection = _connect(path, any_thread, readonly)
        except sqlite3.Error as error:
            raise StoreError(problem(path, error)) from None
        store = cls(connection, path)
        try:
            found = connection.execute("PRAGMA quick_check").fetchall()
            if found != [("ok",)]:
                raise StoreError(f"{path} is damaged ({_first_finding(found)}): {DAMAGED}")
            tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if "meta" not in tables:
                raise StoreError(f"{path} is an SQLite database, but not a ladder's (it has no table 'meta')")
            version = store.meta("schema")
        except sqlite3.Error as error:
            connection.close()
            raise StoreError(problem(path, error)) from None
        except StoreError:
            connection.close()
            raise
        if version not in (str(SCHEMA_VERSION), UPGRADABLE):
            connection.close()
            raise StoreError(f"{path} has schema {version}; this Waraq reads schema {SCHEMA_VERSION}")
        if version == UPGRADABLE and readonly:
            store._fault_code = "NULL"
        elif not readonly:
            try:
                if version == UPGRADABLE:
                    store._upgrade()
                connection.execute(IDENTITY)
                connection.executescript(DIAL_INS + MATCH_LOGS)
            except sqlite3.Error as error:
                connection.close()
                raise StoreError(problem(path, error)) from None
        return store

    def _upgrade(self) -> None:
        """Schema 1 to 2, in one transaction: the faults gain a code column, NULL for those stored."""
        with self.transaction():
            if self.meta("schema") != UPGRADABLE:  # another process upgraded it since it was read
                return
            self.db.execute("ALTER TABLE faults ADD COLUMN code TEXT")
            self.set_meta("schema", str(SCHEMA_VERSION))

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One atomic change; nested calls join the outer transaction."""
        if self._depth:
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
            return
        self.db.execute("BEGIN IMMEDIATE")
        self._depth = 1
        try:
            yield
            self.db.execute("COMMIT")
        except BaseException:
            # SQLite may have rolled back already (a full disk does): a second ROLLBACK would
            # raise and hide the error that matters.
            if self.db.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    self.db.execute("ROLLBACK")
            raise
        finally:
            self._depth = 0

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Several reads that see one state of the database, while a run writes."""
        if self._depth:
            yield
            return
        self.db.execute("BEGIN DEFERRED")
        self._depth = 1
        try:
            yield
        finally:
            self._depth = 0
            self.db.execute("COMMIT")

    # -- meta ------------------------------------------------------------------------------

    def meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str | None) -> None:
        self._in_transaction()
        if value is None:
            self.db.execute("DELETE FROM meta WHERE key = ?", (key,))
        else:
            self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    # -- bots ------------------------------------------------------------------------------

    def entries(self, statuses: Sequence[str] | None = None) -> list[Entry]:
        query = "SELECT * FROM bots"
        args: tuple[Any, ...] = ()
        if statuses is not None:
            query += f" WHERE status IN ({','.join('?' * len(statuses))})"
            args = tuple(statuses)
        return [Entry(*row) for row in self.db.execute(query + " ORDER BY id", args)]

    def entry(self, entry_id: int) -> Entry:
        return Entry(*self.db.execute("SELECT * FROM bots WHERE id = ?", (entry_id,)).fetchone())

    def entry_named(self, name: str) -> Entry | None:
        row = self.db.execute("SELECT * FROM bots WHERE name = ?", (name,)).fetchone()
        return Entry(*row) if row else None

    def current_entry(self, base: str) -> Entry | None:
        """The entry playing for ladder.toml's bot ``base`` (active or suspended), if any."""
        row = self.db.execute(
            "SELECT * FROM bots WHERE base = ? AND status IN (?, ?) ORDER BY id DESC LIMIT 1", (base, ACTIVE, SUSPENDED)
        ).fetchone()
        return Entry(*row) if row else None

    def free_name(self, base: str) -> str:
        """``base``, or ``base.v2``, ``base.v3``.. for a bot's later versions."""
        if self.entry_named(base) is None:
            return base
        number = 2
        while self.entry_named(f"{base}.v{number}") is not None:
            number += 1
        return f"{base}.v{number}"

    def add_entry(self, base: str, name: str, spec: str, identity: tuple[str | None, str | None, str | None]) -> int:
        self._in_transaction()
        cursor = self.db.execute(
            "INSERT INTO bots (name, base, spec, hello_name, hello_version, files_hash, status, added)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (name, base, spec, *identity, ACTIVE, now()),
        )
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def set_identity(self, entry_id: int, spec: str, identity: tuple[str | None, str | None, str | None]) -> None:
        self._in_transaction()
        self.db.execute(
            "UPDATE bots SET spec = ?, hello_name = ?, hello_version = ?, files_hash = ? WHERE id = ?",
            (spec, *identity, entry_id),
        )

    def set_status(
        self, entry_id: int, status: str, reason: str | None = None, suspended_at: int | None = None
    ) -> None:
        self._in_transaction()
        self.db.execute(
            "UPDATE bots SET status = ?, reason = ?, suspended_at = ? WHERE id = ?",
            (status, reason, suspended_at, entry_id),
        )

    def log(self, entry_id: int | None, what: str) -> None:
        self._in_transaction()
        self.db.execute("INSERT INTO log (at, bot_id, what) VALUES (?, ?, ?)", (now(), entry_id, what))

    def plan(self, matches: Iterable[Planned]) -> None:
        self._in_transaction()
        stamp = now()
        for match in matches:
            self.db.execute(
                "INSERT INTO matches (id, batch, deal, position, seed, record, status, planned_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (match.id, match.batch, match.deal, match.position, match.seed, match.record, PLANNED, stamp),
            )
            self.db.executemany(
                "INSERT INTO seats (match_id, seat, bot_id) VALUES (?, ?, ?)",
                [(match.id, seat, bot) for seat, bot in enumerate(match.seats)],
            )

    def pending(self) -> list[Planned]:
        """Matches planned and not yet played, in planned order."""
        rows = self.db.execute(
            "SELECT id, batch, deal, position, seed, record FROM matches WHERE status = ? ORDER BY id", (PLANNED,)
        ).fetchall()
        return [
            Planned(id_, batch, deal, position, seed, self.seats_of(id_), record)
            for id_, batch, deal, position, seed, record in rows
        ]

    def planned_since(self, entry_id: int, since: str) -> int:
        """Matches seating the entry planned at or after ``since`` (an ISO time as :func:`now` writes), cancelled
        ones left out: what an hourly bound counts."""
        row = self.db.execute(
            "SELECT count(DISTINCT s.match_id) FROM seats s JOIN matches m ON m.id = s.match_id "
            f"WHERE s.bot_id = ? AND m.planned_at >= ? AND m.status != '{CANCELLED}'",
            (entry_id, since),
        ).fetchone()
        return int(row[0])

    def seats_of(self, match_id: int) -> tuple[int, ...]:
        rows = self.db.execute("SELECT bot_id FROM seats WHERE match_id = ? ORDER BY seat", (match_id,))
        return tuple(r[0] for r in rows)

    def next_ids(self) -> tuple[int, int, int]:
        """(next match id, next batch, next deal): match ids start at 1, batches and deals at 0."""
        last_id, last_batch, last_deal = self.db.execute(
            "SELECT MAX(id), MAX(batch), MAX(deal) FROM matches"
        ).fetchone()
        if last_id is None:
            return 1, 0, 0
        return last_id + 1, last_batch + 1, last_deal + 1

    def batch_bounds(self, batch: int) -> tuple[int, int] | None:
        """(first id, number of matches) of a batch, or None if it was not planned."""
        row = self.db.execute("SELECT MIN(id), COUNT(*) FROM matches WHERE batch = ?", (batch,)).fetchone()
        return (row[0], row[1]) if row[1] else None

    def unprocessed_before(self, match_id: int) -> int:
        """Matches before ``match_id`` not yet rated, unrated or cancelled."""
        return self.db.execute(
            "SELECT COUNT(*) FROM matches WHERE id < ? AND status IN (?, ?)", (match_id, PLANNED, DONE)
        ).fetchone()[0]

    def count_live_before(self, match_id: int) -> int:
        """Matches before ``match_id`` not cancelled."""
        return self.db.execute(
            "SELECT COUNT(*) FROM matches WHERE id < ? AND status != ?", (match_id, CANCELLED)
        ).fetchone()[0]

    def count_by_status(self) -> dict[str, int]:
        counts = dict.fromkeys((PLANNED, DONE, RATED, UNRATED, CANCELLED), 0)
        counts.update(self.db.execute("SELECT status, COUNT(*) FROM matches GROUP BY status"))
        return counts

    # -- results ---------------------------------------------------------------------------

    def save_outcome(self, outcome: Outcome, bots_by_seat: Sequence[int]) -> str:
        """Store a played match's result and faults; a match cancelled meanwhile stays cancelled.

        Returns the match's status after the write. A second result for a match (one played twice, as a
        Ray retry may) is refused with :class:`DuplicateResult`, and the transaction it was in rolls back:
        what is rated comes from the first result only.
        """
        self._in_transaction()
        row = self.db.execute(
            "SELECT status, finished_at, deal, position FROM matches WHERE id = ?", (outcome.match_id,)
        ).fetchone()
        if row is None:
            raise KeyError(f"no match {outcome.match_id}")
        status, finished, deal, position = row
        if status not in (PLANNED, CANCELLED) or finished is not None:
            raise DuplicateResult(
                f"match {outcome.match_id} (deal {deal}, seating {position}) has a result already ({status}): "
                "a second one is refused"
            )
        self.db.execute(
            "UPDATE matches SET status = ?, finished_at = ?, reason = ?, winners = ?, score = ?, faulty = ?,"
            " decisions = ?, seconds = ? WHERE id = ?",
            (
                DONE if status == PLANNED else CANCELLED,
                now(),
                outcome.reason,
                json.dumps(outcome.winners),
                json.dumps(outcome.score),
                json.dumps(outcome.faulty),
                outcome.decisions,
                outcome.seconds,
                outcome.match_id,
            ),
        )
        self.db.executemany(
            "UPDATE seats SET won = ? WHERE match_id = ? AND seat = ?",
            [(int(seat in outcome.winners), outcome.match_id, seat) for seat in range(len(bots_by_seat))],
        )
        self.db.executemany(
            "INSERT INTO faults (match_id, seat, bot_id, kind, detail, round, code) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                (outcome.match_id, f.seat, bots_by_seat[f.seat], f.kind, f.detail, f.round, f.code)
                for f in outcome.faults
            ],
        )
        return DONE if status == PLANNED else CANCELLED

    def played_records(self) -> list[tuple[str, str]]:
        """(record, finished_at) of every match whose result was stored, the latest first."""
        return self.db.execute(
            "SELECT record, finished_at FROM matches WHERE finished_at IS NOT NULL ORDER BY finished_at DESC, id DESC"
        ).fetchall()

    def status_of(self, match_id: int) -> str:
        row = self.db.execute("SELECT status FROM matches WHERE id = ?", (match_id,)).fetchone()
        if row is None:
            raise KeyError(f"no match {match_id}")
        return row[0]

    def first_unprocessed(self) -> tuple[int, str] | None:
        row = self.db.execute(
            "SELECT id, status FROM matches WHERE status IN (?, ?) ORDER BY id LIMIT 1", (PLANNED, DONE)
        ).fetchone()
        return (row[0], row[1]) if row else None

    def played(self, match_id: int) -> Played:
        row = self.db.execute(
            "SELECT status, reason, winners, score, faulty, deal FROM matches WHERE id = ?", (match_id,)
        ).fetchone()
        faults = self.db.execute(
            f"SELECT seat, kind, detail, round, {self._fault_code} FROM faults WHERE match_id = ? ORDER BY id",
            (match_id,),
        )
        return Played(
            match_id,
            self.seats_of(match_id),
            row[0],
            row[1],
            tuple(json.loads(row[2])),
            tuple(json.loads(row[3])),
            tuple(json.loads(row[4])),
            tuple(FaultRow(*f) for f in faults),
            row[5],
        )

    def board_of(self, match_id: int, size: int) -> list[tuple[int, str]]:
        """(id, status) of every match of ``match_id``'s board (its deal, of at most ``size`` matches),
        in planned order. A board's matches are planned together, so their ids are consecutive."""
        return list(
            self.db.execute(
                "SELECT id, status FROM matches WHERE id BETWEEN ? AND ?"
                " AND deal = (SELECT deal FROM matches WHERE id = ?) ORDER BY id",
                (match_id - size + 1, match_id + size - 1, match_id),
            )
        )

    def mark(self, match_id: int, status: str, note: str | None = None) -> None:
        self._in_transaction()
        self.db.execute("UPDATE matches SET status = ?, note = ? WHERE id = ?", (status, note, match_id))

    def cancel_after(self, entry_id: int, after: int, note: str) -> list[int]:
        """Cancel the unprocessed matches after ``after`` that seat ``entry_id``; their ids."""
        self._in_transaction()
        ids = [
            r[0]
            for r in self.db.execute(
                "SELECT DISTINCT m.id FROM matches m JOIN seats s ON s.match_id = m.id"
                " WHERE s.bot_id = ? AND m.id > ? AND m.status IN (?, ?) ORDER BY m.id",
                (entry_id, after, PLANNED, DONE),
            )
        ]
        self.db.executemany("UPDATE matches SET status = ?, note = ? WHERE id = ?", [(CANCELLED, note, i) for i in ids])
        return ids

    def cancel_planned(self, entry_id: int, note: str) -> list[int]:
        """Cancel the matches not yet played that seat ``entry_id``; their ids."""
        self._in_transaction()
        ids = [
            r[0]
            for r in self.db.execute(
                "SELECT DISTINCT m.id FROM matches m JOIN seats s ON s.match_id = m.id"
                " WHERE s.bot_id = ? AND m.status = ? ORDER BY m.id",
                (entry_id, PLANNED),
            )
        ]
        self.db.executemany("UPDATE matches SET status = ?, note = ? WHERE id = ?", [(CANCELLED, note, i) for i in ids])
        return ids

    def fault_kinds(self) -> list[tuple[int, str, int]]:
        """(bot, fault kind, count) over every fault stored, as the table's faults column counts them."""
        query = "SELECT bot_id, kind, COUNT(*) FROM faults GROUP BY bot_id, kind ORDER BY bot_id, kind"
        return self.db.execute(query).fetchall()

    def crash_matches(self, entry_id: int, upto: int) -> int:
        """Processed matches up to ``upto`` in which the entry had a CRASH or STARTUP fault."""
        return self.db.execute(
            "SELECT COUNT(DISTINCT f.match_id) FROM faults f JOIN matches m ON m.id = f.match_id"
            f" WHERE f.bot_id = ? AND f.kind IN ({','.join('?' * len(CRASHES))}) AND m.id <= ?"
            f" AND m.status IN (?, ?) AND ({self._fault_code} IS NULL OR {self._fault_code} NOT IN (?))",
            (entry_id, *CRASHES, upto, RATED, UNRATED, *ABSENCES),
        ).fetchone()[0]

    def add_ratings(self, match_id: int, ratings: Iterable[tuple[int, float, float]]) -> None:
        self._in_transaction()
        self.db.executemany(
            "INSERT INTO ratings (match_id, bot_id, mu, sigma) VALUES (?, ?, ?, ?)",
            [(match_id, bot, mu, sigma) for bot, mu, sigma in ratings],
        )

    def rating_of(self, bot: int) -> tuple[float, float] | None:
        """A bot's latest (mu, sigma), or None before its first rated match."""
        row = self.db.execute(
            "SELECT mu, sigma FROM ratings WHERE bot_id = ? ORDER BY match_id DESC LIMIT 1", (bot,)
        ).fetchone()
        return (row[0], row[1]) if row else None

    def latest_ratings(self, before: int | None = None) -> dict[int, tuple[float, float]]:
        """Each bot's latest (mu, sigma), from matches before ``before`` if given."""
        limit = before if before is not None else 1 << 62
        rows = self.db.execute(
            "SELECT r.bot_id, r.mu, r.sigma FROM ratings r JOIN"
            " (SELECT bot_id, MAX(match_id) AS last FROM ratings WHERE match_id < ? GROUP BY bot_id) l"
            " ON r.bot_id = l.bot_id AND r.match_id = l.last",
            (limit,),
        )
        return {bot: (mu, sigma) for bot, mu, sigma in rows}

    def rating_history(self) -> list[tuple[int, int, float, float]]:
        """Every rating row: (match id, bot, mu, sigma), in match order."""
        return list(self.db.execute("SELECT match_id, bot_id, mu, sigma FROM ratings ORDER BY match_id, bot_id"))

    def delete_ratings(self) -> None:
        self._in_transaction()
        self.db.execute("DELETE FROM ratings")

    # -- what matchmaking and the board read -------------------------------------------------

    def seatings(self, before: int) -> list[tuple[int, ...]]:
        """The seats (entry ids by seat) of every match planned before ``before``, in order."""
        rows = self.db.execute(
            "SELECT match_id, bot_id FROM seats WHERE match_id < ? ORDER BY match_id, seat", (before,)
        )
        out: dict[int, list[int]] = {}
        for match_id, bot in rows:
            out.setdefault(match_id, []).append(bot)
        return [tuple(v) for v in out.values()]

    def results(self, statuses: Sequence[str] = (RATED, UNRATED)) -> list[Played]:
        """Every finished match of these statuses, in match order (for the board and export)."""
        marks = ",".join("?" * len(statuses))
        rows = self.db.execute(
            f"SELECT id, status, reason, winners, score, faulty, deal FROM matches WHERE status IN ({marks})"
            " ORDER BY id",
            tuple(statuses),
        ).fetchall()
        seats: dict[int, list[int]] = {}
        for match_id, bot in self.db.execute(
            f"SELECT s.match_id, s.bot_id FROM seats s JOIN matches m ON m.id = s.match_id"
            f" WHERE m.status IN ({marks}) ORDER BY s.match_id, s.seat",
            tuple(statuses),
        ):
            seats.setdefault(match_id, []).append(bot)
        faults: dict[int, list[FaultRow]] = {}
        for match_id, *fault in self.db.execute(
            f"SELECT f.match_id, f.seat, f.kind, f.detail, f.round, {self._fault_code} FROM faults f"
            " JOIN matches m ON m.id = f.match_id"
            f" WHERE m.status IN ({marks}) ORDER BY f.id",
            tuple(statuses),
        ):
            faults.setdefault(match_id, []).append(FaultRow(*fault))
        return [
            Played(
                r[0],
                tuple(seats.get(r[0], ())),
                r[1],
                r[2],
                tuple(json.loads(r[3])),
                tuple(json.loads(r[4])),
                tuple(json.loads(r[5])),
                tuple(faults.get(r[0], ())),
                r[6],
            )
            for r in rows
        ]

    def tallies(self) -> dict[int, tuple[int, int, int]]:
        """Per bot: (matches played and rated or unrated, matches won, faults)."""
        out: dict[int, list[int]] = {}
        for bot, played, won in self.db.execute(
            "SELECT s.bot_id, COUNT(DISTINCT s.match_id), COUNT(DISTINCT CASE WHEN s.won = 1 THEN s.match_id END)"
            " FROM seats s JOIN matches m ON m.id = s.match_id WHERE m.status IN (?, ?) GROUP BY s.bot_id",
            (RATED, UNRATED),
        ):
            out[bot] = [played, won, 0]
        for bot, faults in self.db.execute("SELECT bot_id, COUNT(*) FROM faults GROUP BY bot_id"):
            out.setdefault(bot, [0, 0, 0])[2] = faults
        return {bot: (p, w, f) for bot, (p, w, f) in out.items()}

    def match_rows(self) -> list[dict[str, Any]]:
        """Every match as a plain dict (export)."""
        self.db.row_factory = sqlite3.Row
        try:
            rows = [dict(r) for r in self.db.execute("SELECT * FROM matches ORDER BY id")]
        finally:
            self.db.row_factory = None
        seats: dict[int, list[int]] = {}
        for match_id, bot in self.db.execute("SELECT match_id, bot_id FROM seats ORDER BY match_id, seat"):
            seats.setdefault(match_id, []).append(bot)
        for row in rows:
            row["seats"] = seats.get(row["id"], [])
            for key in ("winners", "score", "faulty"):
                row[key] = json.loads(row[key]) if row[key] is not None else None
        return rows

    # -- bot processes of a run ------------------------------------------------------------

    def remember_process(self, pid: int, cmdline: str) -> None:
        with self.transaction():
            self.db.execute("INSERT OR REPLACE INTO processes VALUES (?, ?)", (pid, cmdline))

    def forget_process(self, pid: int) -> None:
        with self.transaction():
            self.db.execute("DELETE FROM processes WHERE pid = ?", (pid,))

    def processes(self) -> list[tuple[int, str]]:
        return list(self.db.execute("SELECT pid, cmdline FROM processes"))


def _first_finding(rows: list[tuple[str]]) -> str:
    """quick_check's first problem on one line (its rows may hold several, and a heading)."""
    lines = [line.strip() for (row,) in rows for line in str(row).splitlines()]
    return next((line for line in lines if line and not line.startswith("***")), "quick_check failed")


def _check_header(path: Path) -> None:
    """Refuse a file SQLite's own header says is not a whole database, before SQLite opens it:
    opening a WAL database makes its -wal and -shm files, and a damaged file needs neither."""
    size = path.stat().st_size
    if size == 0:
        raise StoreError(f"{path} is empty (0 bytes): not a ladder database; put back a copy of it")
    with path.open("rb") as file:
        header = file.read(100)
    if not header.startswith(SQLITE_MAGIC):
        raise StoreError(f"{path} is damaged (it does not start with SQLite's header): {DAMAGED}")
    if len(header) < 100:
        raise StoreError(f"{path} is damaged (cut short at {size} bytes, inside SQLite's 100-byte header): {DAMAGED}")
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages, changes, valid_for = (int.from_bytes(header[i : i + 4], "big") for i in (28, 24, 92))
    wal = path.with_name(path.name + "-wal")
    if changes == valid_for and pages and not (wal.exists() and wal.stat().st_size):  # then the size is the file's
        if size != pages * page_size:
            raise StoreError(
                f"{path} is damaged (it holds {size} bytes; its header says {pages} pages of {page_size}): {DAMAGED}"
            )


def _connect(path: Path, any_thread: bool = False, readonly: bool = False) -> sqlite3.Connection:
    # isolation_level=None: no implicit transactions; this module says BEGIN and COMMIT itself.
    # Read-only is SQLite's mode=ro, not only query_only: setting the journal mode writes the
    # header, and a connection that may write would write one into an empty file.
    where = f"file:{urllib.parse.quote(str(path.absolute()))}" + ("?mode=ro" if readonly else "")
    connection = sqlite3.connect(where, uri=True, isolation_level=None, timeout=30.0, check_same_thread=not any_thread)
    try:
        if readonly:
            connection.execute("PRAGMA query_only = ON")
        else:
            connection.execute("PRAGMA journal_mode = WAL")  # a ladder database is made in WAL mode; it stays so
            connection.execute("PRAGMA synchronous = FULL")
        connection.execute("PRAGMA foreign_keys = ON")
    except sqlite3.Error:
        connection.close()
        raise
    return connection

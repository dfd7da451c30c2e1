"""The tables a ladder's database gained after its schema: dial-in bots' tokens and connections, match logs.

Each is made ``IF NOT EXISTS`` when a database is opened to write (and with
a new one), so no schema number changes: a Waraq that does not know them
leaves them be, and one that does reads a database without them as holding
none. A read-only reader of a database no writer of this version opened yet
finds them missing, and reads nothing.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta

# Dial-in bots (waraq.referee.lobby): each one's token, as its digest only, and who is connected now. Made
# when a database is opened to write, as IDENTITY is: a Waraq that does not know them leaves them be, and
# one that does reads a database without them as holding no token and no connection.
DIAL_INS = """
CREATE TABLE IF NOT EXISTS tokens (
    base TEXT PRIMARY KEY,              -- the bot's name in ladder.toml: a token seats every version of it
    digest TEXT NOT NULL UNIQUE,        -- sha256 of the token (waraq.referee.lobby.tokens.digest), never the token
    made TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS connections (  -- the dial-in bots connected to the running ladder's lobby
    base TEXT PRIMARY KEY,
    since TEXT NOT NULL,
    peer TEXT NOT NULL,                 -- as gRPC names it: "ipv4:203.0.113.7:51234"
    streams INTEGER NOT NULL,
    run_pid INTEGER NOT NULL            -- the `ladder run` that saw it: a row of a run that died is stale
);
"""

# Where each launched seat's output of a match is: the byte range of its process's log (logs/ in the ladder
# folder) from the match's start to its end. A process plays several matches (and, with concurrency, several
# at once): the range holds what it wrote while this match was played. Made as DIAL_INS is.
MATCH_LOGS = """
CREATE TABLE IF NOT EXISTS match_logs (
    match_id INTEGER NOT NULL REFERENCES matches (id),
    seat INTEGER NOT NULL,
    log TEXT NOT NULL,                  -- relative to the ladder folder
    start INTEGER NOT NULL,
    end INTEGER NOT NULL,
    PRIMARY KEY (match_id, seat)
);
"""


def now(shift: timedelta = timedelta(0)) -> str:
    """UTC, to the millisecond, as every time the database holds: ``2026-12-04T15:45:33.123Z``; ``shift``
    from now (an hour ago, a week ahead), in the same form, so that it compares with them as text."""
    return (datetime.now(UTC) + shift).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class SideTables:
    """The rows of these tables, for :class:`~waraq.ladder.storage.store.Store`, which is one."""

    db: sqlite3.Connection
    _depth: int

    def _in_transaction(self) -> None:
        if not self._depth:
            raise RuntimeError("a change to the ladder database outside a transaction")

    # -- dial-in bots ----------------------------------------------------------------------------

    def set_token(self, base: str, digest: str) -> None:
        """Give ``base`` the token of this digest, in place of any it had."""
        self._in_transaction()
        self.db.execute(
            "INSERT INTO tokens (base, digest, made) VALUES (?, ?, ?)"
            " ON CONFLICT (base) DO UPDATE SET digest = excluded.digest, made = excluded.made",
            (base, digest, now()),
        )

    def drop_token(self, base: str) -> None:
        self._in_transaction()
        self.db.execute("DELETE FROM tokens WHERE base = ?", (base,))

    def bot_of_digest(self, digest: str) -> str | None:
        """The bot a token of this digest seats (its name in ladder.toml), or None."""
        try:
            row = self.db.execute("SELECT base FROM tokens WHERE digest = ?", (digest,)).fetchone()
        except sqlite3.OperationalError:  # read-only, a database from before dial-in bots: no token
            return None
        return row[0] if row else None

    def token_holders(self) -> list[str]:
        """The bots that hold a token."""
        try:
            return [row[0] for row in self.db.execute("SELECT base FROM tokens ORDER BY base")]
        except sqlite3.OperationalError:  # read-only, a database from before dial-in bots
            return []

    def set_connection(self, base: str, since: str, peer: str, streams: int, run_pid: int) -> None:
        self._in_transaction()
        self.db.execute(
            "INSERT OR REPLACE INTO connections (base, since, peer, streams, run_pid) VALUES (?, ?, ?, ?, ?)",
            (base, since, peer, streams, run_pid),
        )

    def drop_connection(self, base: str | None = None) -> None:
        """Forget ``base``'s connection (None: every one)."""
        self._in_transaction()
        if base is None:
            self.db.execute("DELETE FROM connections")
        else:
            self.db.execute("DELETE FROM connections WHERE base = ?", (base,))

    def connections(self) -> dict[str, tuple[str, str, int, int]]:
        """By bot: (since, peer, streams, the run's pid), as the running ladder last wrote them."""
        try:
            rows = self.db.execute("SELECT base, since, peer, streams, run_pid FROM connections").fetchall()
        except sqlite3.OperationalError:  # read-only, a database from before dial-in bots
            return {}
        return {base: (since, peer, streams, pid) for base, since, peer, streams, pid in rows}

    def save_match_logs(self, match_id: int, spans: Iterable[tuple[int, str, int, int]]) -> None:
        """(seat, log, start, end) for each launched seat of a match."""
        self._in_transaction()
        self.db.executemany(
            "INSERT OR REPLACE INTO match_logs VALUES (?, ?, ?, ?, ?)", [(match_id, *span) for span in spans]
        )

    def match_log(self, match_id: int, seat: int) -> tuple[str, int, int] | None:
        """The seat's log of the match: (log, start, end), or None (not launched here, or before logs were kept)."""
        if not self.db.execute("SELECT 1 FROM sqlite_master WHERE name = 'match_logs'").fetchone():
            return None  # a database opened read-only that no writer of this version opened yet
        row = self.db.execute(
            "SELECT log, start, end FROM match_logs WHERE match_id = ? AND seat = ?", (match_id, seat)
        ).fetchone()
        return (row[0], row[1], row[2]) if row else None

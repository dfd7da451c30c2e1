"""Ladders made for tests, and what a ladder database always holds."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from waraq.ladder.play import folder
from waraq.ladder.storage.store import CANCELLED, PLANNED, RATED
from waraq.referee.games.hokm.rules import PRESETS


def check_invariants(path) -> None:
    """What a ladder database always holds, whenever it was cut off (also used by test_ladder_run)."""
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    # A board (the matches of one deal) is rated under its last match rated: one rating row per bot
    # it seated; no other match has any.
    rows = db.execute(
        "SELECT m.id, m.deal, m.status, (SELECT COUNT(DISTINCT bot_id) FROM seats WHERE match_id = m.id),"
        " (SELECT COUNT(*) FROM ratings WHERE match_id = m.id) FROM matches m ORDER BY m.id"
    ).fetchall()
    last_rated = {deal: match_id for match_id, deal, status, _, _ in rows if status == RATED}
    for match_id, deal, status, bots, rated in rows:
        assert rated == (bots if last_rated.get(deal) == match_id else 0), (match_id, status)
    # A match has its result exactly when it was played; a planned one has none.
    for status, reason, won in db.execute(
        "SELECT m.status, m.reason, (SELECT COUNT(won) FROM seats WHERE match_id = m.id) FROM matches m"
    ):
        assert (reason is None) == (status == PLANNED) or status == CANCELLED
        assert (won == 0) == (reason is None)
    # Rated in order: nothing is rated after a match that is not.
    first_open = db.execute("SELECT MIN(id) FROM matches WHERE status IN ('planned', 'done')").fetchone()[0]
    if first_open is not None:
        assert db.execute("SELECT COUNT(*) FROM ratings WHERE match_id > ?", (first_open,)).fetchone()[0] == 0
    db.close()


SHORT = PRESETS["classic"].replace(target_score=1)


DEAL_KEY = "test-ladder-run-deal-key"


def make(path: Path, bots: dict[str, str], rules=SHORT, seed: int = 5, **options) -> Path:
    # One deal key for every ladder here, so that two ladders of one seed play the same matches.
    folder.init(path, rules, seed=seed, deal_key=DEAL_KEY, **options)
    with folder.open_ladder(path) as ladder:
        for name, spec in bots.items():
            folder.add(ladder, name, spec, check=False)  # identities are read at the first run
    return path


def count_planned(path) -> int:
    """Matches planned and not played yet."""
    db = sqlite3.connect(path)
    found = db.execute("SELECT COUNT(*) FROM matches WHERE status = 'planned'").fetchone()[0]
    db.close()
    return found


def matches_seating(folder: Path, base: str) -> list[int]:
    """The matches planned that seat any version of the bot ``base``."""
    db = sqlite3.connect(folder / "ladder.sqlite")
    rows = db.execute(
        "SELECT DISTINCT s.match_id FROM seats s JOIN bots b ON b.id = s.bot_id WHERE b.base = ?", (base,)
    ).fetchall()
    db.close()
    return sorted(row[0] for row in rows)


def last_planned(folder: Path) -> int:
    """The last match planned (-1: none)."""
    db = sqlite3.connect(folder / "ladder.sqlite")
    found = db.execute("SELECT COALESCE(MAX(id), -1) FROM matches").fetchone()[0]
    db.close()
    return found

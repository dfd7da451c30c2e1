"""Fault codes in ``ladder.sqlite``: stored with each fault, and a database from before them still opens.

Schema 2 adds ``faults.code``. A schema 1 database (made here from a schema 2
one by taking the column out again, which leaves exactly schema 1's table) is
upgraded when opened to write, its old faults keeping a NULL code, and read as
it is when opened read-only (``waraq ladder show`` writes nothing).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from waraq.ladder.storage.store import SCHEMA_VERSION, FaultRow, Outcome, Planned, Store, StoreError

TIMEOUT = FaultRow(0, "TIMEOUT", "no reply within 600 ms (deadline + bank)", 1, "no_reply")
ILLEGAL = FaultRow(1, "ILLEGAL", "seat 1 played '6S' but does not hold it", 2, "illegal_action")
SCHEMA_1_FAULTS = ["id", "match_id", "seat", "bot_id", "kind", "detail", "round"]  # the columns of schema 1


def play(store: Store, match_id: int, fault: FaultRow) -> None:
    """Plan and store one 2-player match between entries 1 and 2 that ``fault`` forfeits."""
    with store.transaction():
        store.plan([Planned(match_id, 0, match_id, 0, match_id, (1, 2), f"records/ladder-{match_id:06}.jsonl")])
        winner = 1 - fault.seat
        store.save_outcome(Outcome(match_id, "forfeit", (winner,), (0, 0), (fault.seat,), (fault,), 3, 0.1), (1, 2))


def ladder_of_schema_1(path: Path) -> Path:
    """A ladder database as schema 1 kept it: one match, one fault, no code."""
    store = Store.create(path)
    with store.transaction():
        for name in ("a", "b"):
            store.add_entry(name, name, "random", (None, None, None))
    play(store, 1, TIMEOUT)
    store.close()
    with sqlite3.connect(path) as db:
        db.execute("ALTER TABLE faults DROP COLUMN code")
        db.execute("UPDATE meta SET value = '1' WHERE key = 'schema'")
    return path


def schema_of(path: Path) -> tuple[str, list[str]]:
    with sqlite3.connect(path) as db:
        version = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()[0]
        columns = [row[1] for row in db.execute("PRAGMA table_info(faults)")]
    return version, columns


def test_a_fault_is_stored_with_its_code_and_read_back_with_it(tmp_path):
    store = Store.create(tmp_path / "ladder.sqlite")
    with store.transaction():
        for name in ("a", "b"):
            store.add_entry(name, name, "random", (None, None, None))
    play(store, 1, ILLEGAL)
    assert store.played(1).faults == (ILLEGAL,)
    assert store.results(["done"])[0].faults == (ILLEGAL,)
    store.close()
    assert schema_of(tmp_path / "ladder.sqlite") == (str(SCHEMA_VERSION), [*SCHEMA_1_FAULTS, "code"])


def test_a_schema_1_database_opened_to_write_is_upgraded_and_keeps_its_faults(tmp_path):
    path = ladder_of_schema_1(tmp_path / "ladder.sqlite")
    assert schema_of(path) == ("1", SCHEMA_1_FAULTS)
    store = Store.open(path)
    assert schema_of(path) == ("2", [*SCHEMA_1_FAULTS, "code"])
    old = FaultRow(TIMEOUT.seat, TIMEOUT.kind, TIMEOUT.detail, TIMEOUT.round, None)  # stored before codes
    assert store.played(1).faults == (old,)
    play(store, 2, ILLEGAL)
    assert [p.faults for p in store.results(["done"])] == [(old,), (ILLEGAL,)]
    store.close()
    again = Store.open(path)  # upgraded once: a second open finds schema 2
    assert again.played(2).faults == (ILLEGAL,)
    again.close()


def test_a_schema_1_database_opened_read_only_is_read_as_it_is_and_not_written(tmp_path):
    path = ladder_of_schema_1(tmp_path / "ladder.sqlite")
    before = path.read_bytes()
    store = Store.open(path, readonly=True)
    old = FaultRow(TIMEOUT.seat, TIMEOUT.kind, TIMEOUT.detail, TIMEOUT.round, None)
    assert store.played(1).faults == (old,)
    assert [p.faults for p in store.results(["done"])] == [(old,)]
    store.close()
    assert path.read_bytes() == before and schema_of(path)[0] == "1"


def test_a_schema_this_waraq_does_not_know_is_refused_naming_it(tmp_path):
    path = ladder_of_schema_1(tmp_path / "ladder.sqlite")
    with sqlite3.connect(path) as db:
        db.execute("UPDATE meta SET value = '7' WHERE key = 'schema'")
    with pytest.raises(StoreError, match=f"has schema 7; this Waraq reads schema {SCHEMA_VERSION}"):
        Store.open(path)


def test_a_database_from_before_the_identity_index_gains_it_when_opened_to_write(tmp_path):
    """A match's identity (deal, seating) is unique in every database a run writes, also in one made before."""
    path = tmp_path / "ladder.sqlite"
    Store.create(path).close()
    with sqlite3.connect(path) as db:
        db.execute("DROP INDEX matches_by_identity")
    Store.open(path, readonly=True).close()
    assert _indexes(path) == set()  # a read-only open writes nothing
    Store.open(path).close()
    assert _indexes(path) == {"matches_by_identity"}


def _indexes(path: Path) -> set[str]:
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE '%identity%'")
        return {name for (name,) in rows}

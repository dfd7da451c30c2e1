"""``ladder.key`` gone, garbled or loose, and a ``waraq ladder run`` refused: nothing it had is changed.

A real ladder (two random bots, one-point 2-player Hokm) plays 2 matches under
its key; each case below breaks its copy of that ladder as a careless or
hostile hand would, runs the real command, and reads the answer (exit status,
one line naming the file or option and what it must be) and the ladder after
it: the database byte for byte, its key, its records.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.deals import records_of
from tests.support.ladders import make
from waraq.ladder.storage import key_file
from waraq.referee.games.hokm.rules import PRESETS

RULES = PRESETS["two"].replace(target_score=1)
TWO = {"a": "random", "b": "random"}
WARAQ = str(Path(sys.executable).with_name("waraq"))


def waraq(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "WARAQ_DEAL_KEY"} | {"COLUMNS": "200", "NO_COLOR": "1"}
    return subprocess.run([WARAQ, *args], capture_output=True, text=True, timeout=300, cwd=cwd, env=env)


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> Path:
    """A ladder that played 2 matches under its key, its goal stored: the original each test copies."""
    path = make(tmp_path_factory.mktemp("played") / "L", TWO, rules=RULES)
    done = waraq("ladder", "run", "--matches", "2", "--quiet", "-C", "L", cwd=path.parent)
    assert done.returncode == 0, done.stdout + done.stderr
    assert meta(path)["target"].startswith("matches 2 ")
    with contextlib.closing(sqlite3.connect(path / "ladder.sqlite")) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # every page in ladder.sqlite itself: see copy()
    return path


def copy(played: Path, tmp_path: Path) -> Path:
    # Without the original's write-ahead log: its pages are in the database (the fixture checkpointed
    # it), and the file may vanish while it is copied when SQLite's last connection to it closes
    # (CI copied the folder's listing, then found no ladder.sqlite-wal to copy).
    ignored = shutil.ignore_patterns("ladder.sqlite-wal", "ladder.sqlite-shm")
    return Path(shutil.copytree(played, tmp_path / "L", symlinks=True, ignore=ignored))


def meta(path: Path) -> dict[str, str]:
    with sqlite3.connect(path / "ladder.sqlite") as db:
        return dict(db.execute("SELECT key, value FROM meta"))


def state(path: Path) -> dict[str, bytes | None]:
    """What a refused run must leave as it was: the database, the key, the records."""
    key = path / key_file.KEY_FILE
    found = {"ladder.sqlite": (path / "ladder.sqlite").read_bytes(), "key": key.read_bytes() if key.exists() else None}
    return found | {p.name: p.read_bytes() for p in sorted((path / "records").glob("*.jsonl*"))}


def refused_in_one_line(result) -> str:
    assert result.returncode == 2, result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


def set_meta(path: Path, key: str, value: str | None) -> None:
    with sqlite3.connect(path / "ladder.sqlite") as db:
        db.execute("DELETE FROM meta WHERE key = ?", (key,))
        if value is not None:
            db.execute("INSERT INTO meta VALUES (?, ?)", (key, value))
    sqlite3.connect(path / "ladder.sqlite").close()


def garble(path: Path) -> None:
    (path / key_file.KEY_FILE).write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff garbage")


# Each way a run is refused after matches were played: (how the ladder is broken, the run's extra options,
# what its one line says). The run asks for 6 matches: were anything stored, its goal would be.
REFUSALS: dict[str, tuple[Callable[[Path], None], tuple[str, ...], tuple[str, ...]]] = {
    "a key others may read": (
        lambda path: (path / key_file.KEY_FILE).chmod(0o644),
        (),
        ("L/ladder.key is mode 0644", "chmod 600"),
    ),
    "a garbled key": (
        garble,
        (),
        ("L/ladder.key is not a key file: byte 0 is not UTF-8 text", "it must hold one line, the ladder's deal key"),
    ),
    "two keys": (
        lambda path: (path / key_file.KEY_FILE).write_text("5a" * 32 + "\n" + "6b" * 32 + "\n"),
        (),
        ("L/ladder.key holds 2 key lines: it must hold one line, the ladder's deal key",),
    ),
    "the key gone": (
        lambda path: (path / key_file.KEY_FILE).unlink(),
        (),
        ("L/ladder.key is missing, but this ladder played matches under it (the latest: records/", "--new-key"),
    ),
    "--new-key with the key there": (
        lambda path: None,
        ("--new-key",),
        ("--new-key: ", "L/ladder.key is there, and a ladder's key is never replaced"),
    ),
    "a margin out of range": (lambda path: None, ("--margin", "-5"), ("--margin -5.0: expected a number of Elo > 0",)),
    "a lobby off loopback without TLS": (
        lambda path: None,
        ("--lobby", "0.0.0.0:0"),
        ("lobby address '0.0.0.0:0' is not loopback: give --tls-cert and --tls-key",),
    ),
    "a sandbox limit of 10^20": (
        lambda path: (path / "ladder.toml").write_text(
            (path / "ladder.toml").read_text().replace("memory_mb = 2048", "memory_mb = 100000000000000000000")
        ),
        (),
        ("[sandbox] memory_mb = 100000000000000000000: expected an integer from 16 to 1048576",),
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", list(REFUSALS))
def test_a_refused_run_says_why_in_one_line_and_changes_nothing(played, tmp_path, case):
    breaks, options, says = REFUSALS[case]
    path = copy(played, tmp_path)
    breaks(path)
    before = state(path)
    refused = waraq("ladder", "run", "--matches", "6", "--quiet", *options, "-C", "L", cwd=tmp_path)
    line = refused_in_one_line(refused)
    for fragment in says:
        assert fragment in line, line
    assert state(path) == before  # the database byte for byte: its goal, its rules, its key's date
    assert meta(path)["target"].startswith("matches 2 ")


@pytest.mark.slow
def test_a_key_gone_after_keyed_matches_goes_on_under_a_new_key_only_when_asked(played, tmp_path):
    path = copy(played, tmp_path)
    old = key_file.read(path)
    (path / key_file.KEY_FILE).unlink()
    line = refused_in_one_line(waraq("ladder", "run", "--matches", "4", "--quiet", "-C", "L", cwd=tmp_path))
    assert "a new key would deal the rest of each board begun under it other cards" in line
    assert not (path / key_file.KEY_FILE).exists()

    again = waraq("ladder", "run", "--matches", "4", "--quiet", "--new-key", "-C", "L", cwd=tmp_path)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "made a new deal key in L/ladder.key as --new-key asked" in " ".join(again.stdout.split())
    assert stat.S_IMODE((path / key_file.KEY_FILE).stat().st_mode) == 0o600
    assert key_file.read(path) != old
    played_now = records_of(path / "records")
    assert len(played_now) == 4 and all(events[0]["deal_key"] is True for events in played_now)
    # Said once: the next run reads the new key.
    after = waraq("ladder", "run", "--matches", "4", "--quiet", "-C", "L", cwd=tmp_path)
    assert after.returncode == 0 and "deal key" not in after.stdout, after.stdout + after.stderr


def test_a_ladder_from_before_the_database_said_so_is_judged_by_its_records(played, tmp_path):
    path = copy(played, tmp_path)
    set_meta(path, key_file.KEYED_SINCE, None)  # a ladder made before meta.deal_key_since
    (path / key_file.KEY_FILE).unlink()
    line = refused_in_one_line(waraq("ladder", "run", "--matches", "4", "--quiet", "-C", "L", cwd=tmp_path))
    assert "L/ladder.key is missing, but this ladder played matches under it" in line


@pytest.mark.slow
def test_a_ladder_older_than_keys_that_played_matches_still_gets_one(played, tmp_path):
    path = copy(played, tmp_path)
    set_meta(path, key_file.KEYED_SINCE, None)
    (path / key_file.KEY_FILE).unlink()
    for record in (path / "records").glob("*.jsonl"):  # its records as they were before keys: no deal_key
        lines = record.read_text().splitlines(keepends=True)
        header = json.loads(lines[0])
        del header["deal_key"]
        record.write_text(json.dumps(header) + "\n" + "".join(lines[1:]))
    made = waraq("ladder", "run", "--matches", "4", "--quiet", "-C", "L", cwd=tmp_path)
    assert made.returncode == 0, made.stdout + made.stderr
    assert "this ladder had no deal key: made L/ladder.key" in " ".join(made.stdout.split())
    assert stat.S_IMODE((path / key_file.KEY_FILE).stat().st_mode) == 0o600

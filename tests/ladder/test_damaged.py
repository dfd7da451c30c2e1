"""A damaged ``ladder.sqlite``: every ladder command says so naming the file, and ``show`` writes nothing.

A real ladder plays 8 matches once (a module fixture); each case damages a
copy of its database the way a disk, a crash or a person does (cut at
several sizes, garbage, a page overwritten, another program's database, an
empty file) and runs the commands on it: ``show`` and ``run`` as real
processes, the others through the same ``main`` in this process.
"""

from __future__ import annotations

import random
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.bad_inputs import THREE_RANDOM
from tests.support.ladders import make
from waraq.referee.cli import main as cli

WARAQ = str(Path(sys.executable).with_name("waraq"))
PAGE = 4096


def garbage(size: int) -> bytes:
    return random.Random(size).randbytes(size)


def overwrite(data: bytes, start: int, length: int) -> bytes:
    return data[:start] + garbage(length) + data[start + length :]


DAMAGE = {
    "empty": lambda data: b"",
    "cut-to-50-bytes": lambda data: data[:50],  # inside SQLite's 100-byte header
    "cut-to-one-page": lambda data: data[:PAGE],
    "cut-in-half": lambda data: data[: len(data) // 2],
    "cut-mid-page": lambda data: data[: 3 * PAGE + 1000],
    "garbage": lambda data: garbage(len(data)),
    "a-text-file": lambda data: b"a ladder, honestly\n" * 40,
    "header-overwritten": lambda data: overwrite(data, 0, 100),
    "middle-page-overwritten": lambda data: overwrite(data, (len(data) // PAGE // 2) * PAGE, PAGE),
    "another-database": None,  # made below: a whole SQLite database of another program
}
SAYS = {
    "empty": "is empty (0 bytes): not a ladder database",
    "another-database": "is an SQLite database, but not a ladder's (it has no table 'meta')",
}


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> Path:
    path = make(tmp_path_factory.mktemp("damaged") / "ladder", THREE_RANDOM)
    run = subprocess.run(
        [WARAQ, "ladder", "run", "--matches", "8", "--quiet", "-C", str(path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    with sqlite3.connect(path / "ladder.sqlite") as db:  # everything into the one file, as a copy would be
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path


@pytest.fixture(params=list(DAMAGE))
def damaged(request, played, tmp_path) -> tuple[Path, str]:
    path = tmp_path / "ladder"
    shutil.copytree(played, path, ignore=shutil.ignore_patterns("*-wal", "*-shm", "ladder.lock"))
    database = path / "ladder.sqlite"
    if DAMAGE[request.param] is None:
        database.unlink()
        with sqlite3.connect(database) as db:
            db.execute("CREATE TABLE notes (text TEXT)")
            db.execute("INSERT INTO notes VALUES ('not a ladder')")
    else:
        database.write_bytes(DAMAGE[request.param](database.read_bytes()))
    return path, SAYS.get(request.param, "is damaged (")


def files_of(path: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in path.iterdir() if p.name.startswith("ladder.sqlite")}


@pytest.mark.slow
@pytest.mark.parametrize("command", [("show",), ("show", "--pairs"), ("run", "--matches", "10", "--quiet")])
def test_show_and_run_say_the_database_is_damaged_in_one_line_and_show_writes_nothing(damaged, command):
    path, says = damaged
    before = files_of(path)
    done = subprocess.run([WARAQ, "ladder", *command, "-C", str(path)], capture_output=True, text=True, timeout=120)
    assert "Traceback" not in done.stdout + done.stderr, done.stderr
    assert done.returncode == 2 and not done.stdout
    assert done.stderr.strip() == done.stderr.strip().splitlines()[0]  # one line
    assert done.stderr.startswith(f"error: {path / 'ladder.sqlite'} ") and says in done.stderr
    if command[0] == "show":  # it only reads: not a byte of the database changed
        after = files_of(path)
        assert after["ladder.sqlite"] == before["ladder.sqlite"]
        # SQLite reads a WAL database through its -shm index; its -wal stays empty.
        assert not after.get("ladder.sqlite-wal")
        assert set(after) <= {"ladder.sqlite", "ladder.sqlite-wal", "ladder.sqlite-shm"}


@pytest.mark.parametrize(
    "command",
    [
        ("export", "--json"),
        ("export", "--csv"),
        ("add", "d", "random", "--no-check"),
        ("remove", "a"),
        ("reinstate", "a"),
        ("rerate",),
    ],
)
def test_every_other_ladder_command_says_so_too(damaged, command, capsys):
    path, says = damaged
    assert cli.main(["ladder", *command, "-C", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {path / 'ladder.sqlite'} ") and says in err and err.count("\n") == 1

"""An output path onto what a command reads is refused, before anything is written (issue 30, item 7).

``waraq ladder report --html L/ladder.sqlite`` wrote the report over the
ladder's database, ``ladder export -o L/ladder.key`` the table over its deal
key, ``replay REC --html REC`` the page over the record: one typo lost every
result. Each refusal here is one line naming the option, the path and what it
would overwrite, exit status 2, and every byte of the inputs is as it was, with
no file added anywhere: the ladder is a real one, played by the real commands,
copied afresh for each test; its records are checked again by ``replay --verify``.
The paths reach the inputs as typed, through ``..``, a symlink, a hard link and a
bind mount. The last tests are the legitimate uses, which still write.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from waraq.referee.cli.main import main

WARAQ = str(Path(sys.executable).with_name("waraq"))
RECORD = "ladder-000001.jsonl"  # the first match's record, in L/records/ and in its copy R/
OTHER = "ladder-000002.jsonl"


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> Path:
    """A ladder of two random bots that played 2 matches: made, filled and run by the real commands."""
    base = tmp_path_factory.mktemp("played")
    for args in (
        ("ladder", "init", "L", "--rules", "short", "--seed", "5"),
        ("ladder", "add", "a", "random", "-C", "L"),
        ("ladder", "add", "b", "random", "-C", "L"),
        ("ladder", "run", "--matches", "2", "--quiet", "-C", "L"),
    ):
        done = subprocess.run([WARAQ, *args], cwd=base, capture_output=True, text=True, timeout=180)
        assert done.returncode == 0, done.stdout + done.stderr
    assert sorted(p.name for p in (base / "L" / "records").iterdir()) == [RECORD, OTHER]
    return base / "L"


@pytest.fixture
def here(played, tmp_path, monkeypatch) -> Path:
    """A fresh copy of the ladder in ``L/``, its records also in ``R/`` (a folder of no ladder); the test runs here."""
    shutil.copytree(played, tmp_path / "L", symlinks=True)
    shutil.copytree(played / "records", tmp_path / "R")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def contents(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` (symlinks as their targets' names): its path -> the sha256 of its bytes."""
    found = {}
    for path in sorted(folder.rglob("*")):
        name = str(path.relative_to(folder))
        if path.is_symlink():
            found[name] = "-> " + os.readlink(path)
        elif path.is_file():
            found[name] = hashlib.sha256(path.read_bytes()).hexdigest()
        else:
            found[name] = "folder"
    return found


def link(name: str, target: str) -> Callable[[Path], None]:
    return lambda here: (here / name).symlink_to(here / target)


def hard_link(name: str, target: str) -> Callable[[Path], None]:
    return lambda here: os.link(here / target, here / name)


def ladder_at(name: str) -> Callable[[Path], None]:
    """The ladder copied to ``name`` too (there, the report's replay pages' folder would hold it)."""
    return lambda here: shutil.copytree(here / "L", here / name, symlinks=True)


@dataclass(frozen=True)
class Refusal:
    id: str
    args: tuple[str, ...]
    says: str  # the error line, after "error: "
    setup: Callable[[Path], None] | None = None
    cwd: str = "."


OVER = "refusing to write over an input (choose another path)"
IN_LADDER = "refusing to write there (choose a path outside it)"
DATABASE = f"is the ladder's database: {OVER}"
RECORD_READ = f"is the record read: {OVER}"
CASES = [
    Refusal(
        "report-over-the-database",
        ("ladder", "report", "--html", "L/ladder.sqlite", "-C", "L"),
        f"--html L/ladder.sqlite {DATABASE}",
    ),
    Refusal(
        "report-over-the-key",
        ("ladder", "report", "--html", "L/ladder.key", "-C", "L"),
        f"--html L/ladder.key is the ladder's deal key: {OVER}",
    ),
    Refusal(
        "report-over-the-config",
        ("ladder", "report", "--html", "L/ladder.toml", "-C", "L"),
        f"--html L/ladder.toml is the ladder's ladder.toml: {OVER}",
    ),
    Refusal(
        "report-onto-the-records",
        ("ladder", "report", "--html", "L/records", "-C", "L"),
        f"--html L/records is the ladder's records folder: {OVER}",
    ),
    Refusal(
        "report-over-a-record",
        ("ladder", "report", "--html", f"L/records/{RECORD}", "-C", "L"),
        f"--html L/records/{RECORD} is in the ladder folder L: {IN_LADDER}",
    ),
    Refusal(
        "report-in-the-ladder-folder",
        ("ladder", "report", "--html", "L/report.html", "-C", "L"),
        f"--html L/report.html is in the ladder folder L: {IN_LADDER}",
    ),
    Refusal(
        "report-from-inside-the-ladder",
        ("ladder", "report", "--html", "report.html"),
        f"--html report.html is in the ladder folder .: {IN_LADDER}",
        cwd="L",
    ),
    Refusal(
        "report-through-dot-dot",
        ("ladder", "report", "--html", "R/../L/ladder.sqlite", "-C", "L"),
        f"--html R/../L/ladder.sqlite {DATABASE}",
    ),
    Refusal(
        "report-through-a-symlink",
        ("ladder", "report", "--html", "report.html", "-C", "L"),
        f"--html report.html {DATABASE}",
        link("report.html", "L/ladder.sqlite"),
    ),
    Refusal(
        "report-over-a-hard-link",
        ("ladder", "report", "--html", "backup.sqlite", "-C", "L"),
        f"--html backup.sqlite {DATABASE}",
        hard_link("backup.sqlite", "L/ladder.sqlite"),
    ),
    Refusal(
        "report-replay-pages-hold-the-ladder",
        ("ladder", "report", "--html", "out.html", "-C", "out-replays/L"),
        f"--html out.html: its replay pages' folder out-replays holds the ladder's database "
        f"(out-replays/L/ladder.sqlite): {OVER}",
        ladder_at("out-replays/L"),
    ),
    Refusal(
        "export-over-the-key",
        ("ladder", "export", "--json", "-o", "L/ladder.key", "-C", "L"),
        f"-o L/ladder.key is the ladder's deal key: {OVER}",
    ),
    Refusal(
        "export-over-the-database",
        ("ladder", "export", "--csv", "-o", "L/ladder.sqlite", "-C", "L"),
        f"-o L/ladder.sqlite {DATABASE}",
    ),
    Refusal(
        "export-onto-the-ladder-folder",
        ("ladder", "export", "--json", "-o", "L", "-C", "L"),
        f"-o L is the ladder folder: {IN_LADDER}",
    ),
    Refusal(
        "export-through-a-folder-symlink",
        ("ladder", "export", "--csv", "-o", "M/ladder.toml", "-C", "L"),
        f"-o M/ladder.toml is the ladder's ladder.toml: {OVER}",
        link("M", "L"),
    ),
    Refusal(
        "replay-over-its-record", ("replay", f"R/{RECORD}", "--html", f"R/{RECORD}"), f"--html R/{RECORD} {RECORD_READ}"
    ),
    Refusal(
        "replay-over-a-hard-link-of-its-record",
        ("replay", f"R/{RECORD}", "--html", "page.html"),
        f"--html page.html {RECORD_READ}",
        hard_link("page.html", f"R/{RECORD}"),
    ),
    Refusal(
        "replay-over-a-ladder-record",
        ("replay", f"L/records/{RECORD}", "--html", f"L/records/{RECORD}"),
        f"--html L/records/{RECORD} {RECORD_READ}",
    ),
    Refusal(
        "replay-over-one-of-several",
        ("replay", f"R/{RECORD}", f"R/{OTHER}", "--html", f"R/{OTHER}"),
        f"--html R/{OTHER} is a record read: {OVER}",
    ),
    Refusal("replay-folder-onto-itself", ("replay", "R", "--html", "R"), f"--html R is a records folder read: {OVER}"),
    Refusal(
        "replay-folder-through-a-symlink",
        ("replay", "R", "--html", "S"),
        f"--html S is a records folder read: {OVER}",
        link("S", "R"),
    ),
    Refusal(
        "replay-pages-folder-holds-the-records",
        ("replay", "R", "--html", "."),
        f"--html . holds a records folder read (R): {OVER}",
    ),
    Refusal(
        "replay-pages-folder-holds-a-record",
        ("replay", f"R/{RECORD}", f"L/records/{OTHER}", "--html", "R"),
        f"--html R holds a record read (R/{RECORD}): {OVER}",
    ),
]


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_an_output_onto_an_input_is_one_line_exit_2_and_nothing_is_written(case, here, capsys, monkeypatch):
    if case.setup is not None:
        case.setup(here)
    before = contents(here)
    monkeypatch.chdir(here / case.cwd)
    status = main(list(case.args))
    said = capsys.readouterr()
    assert status == 2, said.out + said.err
    assert said.err.strip() == f"error: {case.says}"  # one line, all of it
    assert contents(here) == before  # no byte changed, no file or folder added: not even the replay pages' folder
    monkeypatch.chdir(here)
    for records in ("L/records", "R"):
        assert main(["replay", "--verify", records]) == 0, capsys.readouterr().out
    assert main(["ladder", "show", "-C", "L"]) == 0


@pytest.mark.system("root")  # a bind mount needs root (CI runs as root)
@pytest.mark.parametrize(
    ("args", "says"),
    [
        (
            ("ladder", "export", "--csv", "-o", "B/ladder.key", "-C", "L"),
            f"-o B/ladder.key is the ladder's deal key: {OVER}",
        ),
        (
            ("ladder", "report", "--html", "B/new.html", "-C", "L"),
            f"--html B/new.html is in the ladder folder L: {IN_LADDER}",
        ),
    ],
    ids=["export-over-the-key", "report-into-the-folder"],
)
def test_a_bind_mount_of_the_ladder_folder_is_the_ladder_folder(args, says, here, capsys):
    (here / "B").mkdir()
    subprocess.run(["mount", "--bind", str(here / "L"), str(here / "B")], check=True)
    try:
        key = (here / "L" / "ladder.key").read_bytes()
        assert main(list(args)) == 2
        assert capsys.readouterr().err.strip() == f"error: {says}"
        assert (here / "L" / "ladder.key").read_bytes() == key and not (here / "L" / "new.html").exists()
    finally:
        subprocess.run(["umount", str(here / "B")], check=True)


# --- what still writes ----------------------------------------------------------------------------------


def test_a_report_beside_the_ladder_is_written_with_its_replay_pages(here, capsys):
    database = (here / "L" / "ladder.sqlite").read_bytes()
    (here / "site").mkdir()
    assert main(["ladder", "report", "--html", "site/report.html", "-C", "L"]) == 0, capsys.readouterr().err
    assert "<title>Ladder L</title>" in (here / "site" / "report.html").read_text(encoding="utf-8")
    assert sorted(p.name for p in (here / "site" / "report-replays").iterdir()) == [
        "ladder-000001.html",
        "ladder-000002.html",
    ]
    assert (here / "L" / "ladder.sqlite").read_bytes() == database


def test_an_export_to_a_fresh_path_is_written(here, capsys):
    key = (here / "L" / "ladder.key").read_bytes()
    assert main(["ladder", "export", "--csv", "-o", "standings.csv", "-C", "L"]) == 0, capsys.readouterr().err
    rows = (here / "standings.csv").read_text(encoding="utf-8").splitlines()
    assert len(rows) == 3 and {row.split(",")[1] for row in rows[1:]} == {"a", "b"}
    assert (here / "L" / "ladder.key").read_bytes() == key


@pytest.mark.parametrize(
    ("args", "page"),
    [
        ((f"R/{RECORD}", "--html", "m.html"), "m.html"),
        ((f"R/{RECORD}", "--html", "R/m.html"), "R/m.html"),  # beside its record: it writes over nothing
        (("R", "--html", "pages"), "pages/index.html"),
        (("R", "--html", "R/pages"), "R/pages/index.html"),  # in the folder read: pages are never named as records
    ],
    ids=["one-page", "one-page-beside-its-record", "a-folder", "a-folder-in-the-folder-read"],
)
def test_a_replay_page_to_a_fresh_path_is_written(args, page, here, capsys):
    records = {name: (here / "R" / name).read_bytes() for name in (RECORD, OTHER)}
    assert main(["replay", *args]) == 0, capsys.readouterr().err
    assert (here / page).read_text(encoding="utf-8").startswith("<!doctype html>")
    assert {name: (here / "R" / name).read_bytes() for name in records} == records

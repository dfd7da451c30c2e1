"""``waraq export --dataset``: what it prints, its exit statuses, and what it refuses before writing.

A refusal is one line on stderr, exit status 2, and no file added or changed
anywhere: a path that is not there, a folder of no records, an output that is
not ``.npz``, is a folder, has no folder, exists, or is one of the records read
(as typed, or through a symlink). A record that does not verify, or that is of
a game with no encoding, is one line naming it; the others are written, exit 1.
Without NumPy the command says which extra to install. The rows themselves are
checked in tests/env/test_dataset.py.
"""

from __future__ import annotations

import asyncio
import hashlib
import shutil
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from waraq.bots.server import builtin_players
from waraq.referee.cli.main import main
from waraq.referee.env.dataset import ENCODINGS
from waraq.referee.games import registry
from waraq.referee.games.hokm.rules import PRESETS
from waraq.referee.match.play import MatchConfig, run_match
from waraq.referee.match.seats import InProcessSeat
from waraq.referee.records.record_file import RecordWriter
from waraq.referee.run.runner import match_id


def play(folder: Path, rules: Any, seeds: range) -> Path:
    """Matches of the built-in random bot on every seat, recorded as ``waraq match`` names them."""
    players = builtin_players()
    game = registry.game_of_rules(rules)
    folder.mkdir(parents=True, exist_ok=True)

    async def all_of_them() -> None:
        for seed in seeds:
            seats = [
                InProcessSeat(lambda match, seat: players["random"](match, seat, game), "random")
                for _ in range(rules.players)
            ]
            with RecordWriter(folder / f"{game}-{seed}.jsonl") as record:
                await run_match(MatchConfig(rules, seed, match_id(seed)), seats, record)

    asyncio.run(all_of_them())
    return folder


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("export")
    play(root / "R", PRESETS["short"], range(1, 4))
    play(root / "H", registry.load_rules("hand", "short"), range(1, 2))
    return root


@pytest.fixture
def here(made, tmp_path, monkeypatch) -> Path:
    """A fresh copy of the records; the test runs there."""
    shutil.copytree(made, tmp_path, dirs_exist_ok=True)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def contents(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
        for p in sorted(folder.rglob("*"))
    }


def test_a_folder_is_exported_with_one_line_saying_what_was_written(here, capsys):
    assert main(["export", "--dataset", "out.npz", "R"]) == 0
    out, err = capsys.readouterr()
    data = np.load(here / "out.npz")
    rows = len(data["obs"])
    lines = out.strip().splitlines()
    size = (here / "out.npz").stat().st_size
    assert lines == [f"out.npz: {rows:,} decisions of 3 records, 4-player hokm (observations of 501), {size:,} bytes"]
    assert err == ""


def test_the_options_filter_and_overwrite_replaces(here, capsys):
    assert main(["export", "--dataset", "out.npz", "R"]) == 0
    whole = np.load(here / "out.npz")
    assert main(["export", "--dataset", "out.npz", "R", "--seat", "2", "--seat", "0", "--overwrite"]) == 0
    assert set(np.load(here / "out.npz")["seat"]) == {0, 2}
    assert main(["export", "--dataset", "out.npz", "R", "--bot", "random", "--players", "4", "--overwrite"]) == 0
    assert len(np.load(here / "out.npz")["obs"]) == len(whole["obs"])
    capsys.readouterr()


def test_broken_and_hand_records_are_a_line_each_and_the_rest_is_written_with_status_1(here, capsys):
    records = sorted((here / "R").glob("*.jsonl"))
    records[0].write_text(records[0].read_text()[:-200])  # cut short in its last line
    (here / "R" / "later").mkdir()  # walked after the Hokm records
    (here / "R" / "later" / "hand-1.jsonl").write_bytes((here / "H" / "hand-1.jsonl").read_bytes())
    assert main(["export", "--dataset", "out.npz", "R"]) == 1
    out, err = capsys.readouterr()
    errors = err.strip().splitlines()
    assert len(errors) == 2, errors
    assert errors[0].startswith("error: R/hokm-1.jsonl: cut short: ")
    hand = "there is no hand encoding to export it with (only hokm)"
    if "hand" in ENCODINGS:
        hand = (
            "and this dataset is of 4-player hokm (observations of 501): export it to a file of its own (--game hand)"
        )
    assert errors[1].startswith("error: R/later/hand-1.jsonl: a ") and hand in errors[1]
    assert all(line.endswith("; not exported") for line in errors)
    assert out.strip().endswith("; 2 skipped")
    assert len(set(np.load(here / "out.npz")["record"])) == 2


def test_a_folder_of_hand_records(here, capsys):
    status = main(["export", "--dataset", "out.npz", "H"])
    out, err = capsys.readouterr()
    if "hand" in ENCODINGS:
        assert (status, err) == (0, "") and "decisions of 1 records, 4-player hand (observations of " in out
    else:
        assert status == 1 and not (here / "out.npz").exists()
        assert err.strip().splitlines() == [
            "error: H/hand-1.jsonl: a hand record: there is no hand encoding to export it with (only hokm); "
            "not exported",
            "error: nothing exported: no record could be; out.npz is not written",
        ]


def test_nothing_exportable_writes_nothing(here, capsys):
    (here / "B").mkdir()
    (here / "B" / "hokm-1.jsonl").write_text("not json\n")
    assert main(["export", "--dataset", "out.npz", "B"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "error: B/hokm-1.jsonl: corrupt: line 1 is not JSON: Expecting value; not exported",
        "error: nothing exported: no record could be; out.npz is not written",
    ]
    assert not (here / "out.npz").exists()
    assert main(["export", "--dataset", "out.npz", "R", "--bot", "nobody"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["error: no decision of the 3 records read is selected (their bots: random); out.npz is not written"]
    assert main(["export", "--dataset", "out.npz", "R", "--players", "2"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["error: none of the 3 records read is a 2-player record; out.npz is not written"]
    assert main(["export", "--dataset", "out.npz", "R", "--game", "hand", "--players", "4"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["error: none of the 3 records read is a 4-player hand record; out.npz is not written"]
    assert not (here / "out.npz").exists()


def refusals(here: Path) -> list[tuple[list[str], str]]:
    (here / "empty").mkdir()
    (here / "taken.npz").write_bytes(b"mine")
    (here / "a-folder.npz").mkdir()
    (here / "link.npz").symlink_to(here / "R" / "hokm-1.jsonl")
    return [
        (["--dataset", "out.npz", "nowhere"], "error: no record or folder at nowhere"),
        (["--dataset", "out.npz", "R", "empty"], "error: no records (*.jsonl, *.jsonl.gz) in empty"),
        (
            ["--dataset", "out.csv", "R"],
            "error: --dataset out.csv: the dataset is a NumPy .npz file: name it out.csv.npz or so",
        ),
        (["--dataset", "a-folder.npz", "R"], "error: --dataset a-folder.npz: is a folder; give the file to write"),
        (["--dataset", "no/such/out.npz", "R"], "error: --dataset no/such/out.npz: no folder no/such to write it in"),
        (["--dataset", "taken.npz", "R"], "error: --dataset taken.npz: exists; --overwrite replaces it"),
        (
            ["--dataset", "R/hokm-1.jsonl", "R"],
            "error: --dataset R/hokm-1.jsonl is a record read: refusing to write over an input (choose another path)",
        ),
        (
            ["--dataset", "link.npz", "R", "--overwrite"],
            "error: --dataset link.npz is a record read: refusing to write over an input (choose another path)",
        ),
        (
            ["--dataset", "R", "R"],
            "error: --dataset R is a records folder read: refusing to write over an input (choose another path)",
        ),
        (
            ["--dataset", "out.npz", "R", "--seat", "-1"],
            "error: waraq export: argument --seat: -1 is not allowed: expected an integer >= 0 "
            "(see `waraq export --help`)",
        ),
        (
            ["--dataset", "out.npz", "R", "--players", "1"],
            "error: waraq export: argument --players: 1 is not allowed: expected an integer >= 2 "
            "(see `waraq export --help`)",
        ),
        (
            ["R"],
            "error: waraq export: the following arguments are required: --dataset (see `waraq export --help`)",
        ),
    ]


def test_each_bad_argument_is_one_line_exit_2_and_nothing_written(here, capsys):
    for args, line in refusals(here):
        before = contents(here)
        try:
            status = main(["export", *args])
        except SystemExit as exit:  # argparse's own refusals
            status = exit.code
        out, err = capsys.readouterr()
        assert (status, err.strip().splitlines(), out) == (2, [line], ""), args
        assert contents(here) == before, args


def test_without_numpy_one_line_names_the_extra(here, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "numpy", None)  # an import of numpy now fails
    for module in [m for m in sys.modules if m.startswith("waraq.referee.env")]:
        monkeypatch.delitem(sys.modules, module)
    assert main(["export", "--dataset", "out.npz", "R"]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        "error: waraq export --dataset needs NumPy, which is not installed: pip install 'waraq[env]'"
    ]
    assert not (here / "out.npz").exists()

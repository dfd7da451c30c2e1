"""``waraq ladder add``: its help names every kind of bot, and an address bot is told what it can learn."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

WARAQ = str(Path(sys.executable).with_name("waraq"))


def waraq(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [WARAQ, *args], capture_output=True, text=True, timeout=60, env={**os.environ, "COLUMNS": "200"}
    )


def test_the_help_names_every_kind_of_bot_as_match_does():
    said = " ".join(waraq("ladder", "add", "--help").stdout.split())
    for kind in ("random", "greedy", "heuristic", "search", "{port}", "{socket}", "host:port", "unix:PATH"):
        assert kind in said, kind


@pytest.mark.parametrize(
    ("init", "partners_told", "twins_told"),
    [
        ((), False, True),  # mixed partners: never its own partner; duplicates: twins
        (("--partners", "self"), True, True),
        (("--partners", "self", "--no-duplicates"), True, False),
        (("--no-duplicates",), False, False),
    ],
)
def test_an_address_bot_is_told_in_one_line_what_one_server_is_sent(tmp_path, init, partners_told, twins_told):
    ladder = tmp_path / "ladder"
    assert waraq("ladder", "init", str(ladder), *init).returncode == 0
    added = waraq("ladder", "add", "far", "127.0.0.1:9", "--no-check", "-C", str(ladder))
    assert added.returncode == 0, added.stderr
    notes = [line for line in added.stdout.splitlines() if line.startswith("note:")]
    assert len(notes) == (1 if partners_told or twins_told else 0), added.stdout
    said = " ".join(notes)
    assert ("sent both partners' hands" in said) == partners_told
    assert ("remember a duplicate deal's cards from its twin" in said) == twins_told


def test_a_launched_bot_gets_no_such_note(tmp_path):
    ladder = tmp_path / "ladder"
    assert waraq("ladder", "init", str(ladder), "--partners", "self").returncode == 0
    added = waraq("ladder", "add", "r", "random", "--no-check", "-C", str(ladder))
    assert added.returncode == 0 and "note:" not in added.stdout, added.stdout + added.stderr

"""A launched bot that cannot be run at all is told why in its fault, not only in its loader's or shell's words.

A bot that runs on its author's machine may not run in the sandbox: its interpreter or a library lies
where the sandbox shows nothing (``~/.local``), or its files are readable by their owner only while
each bot runs as a fresh uid. The fault says what the sandbox shows, that files must be readable by
other users, and to compare with ``--sandbox off``; and where a relative program path was looked up.
"""

from __future__ import annotations

import shlex
import shutil
import sys
from pathlib import Path

import pytest

from tests.support.sandboxed import ON, play
from waraq.referee.launch import sandbox
from waraq.referee.launch.bots import BotSpec

OFF = sandbox.Config(mode=sandbox.Isolation.OFF)
RANDOM = BotSpec.parse("random")


def startup_fault(report) -> str:
    [outcome] = report.outcomes
    assert outcome.reason == "forfeit", outcome
    [fault, *_] = outcome.faults
    assert fault.kind == "STARTUP"
    return fault.detail


def bot_with_private_interpreter(home: Path) -> Path:
    """A bot folder whose script's interpreter is in ``home/.local/bin``: where a user installs one."""
    local = home / ".local" / "bin"
    local.mkdir(parents=True)
    shutil.copy("/bin/sh", local / "sh")
    folder = home / "bot"
    folder.mkdir()
    script = folder / "bot"
    script.write_text(f'#!{local / "sh"}\nexec {shlex.quote(sys.executable)} -m waraq.bots.server random "$@"\n')
    script.chmod(0o755)
    return folder


@pytest.mark.system("sandbox")
def test_an_interpreter_the_sandbox_does_not_show_is_status_127_and_told_what_it_shows(tmp_path):
    folder = bot_with_private_interpreter(tmp_path / "home")
    bot = BotSpec.parse("./bot --unix {socket}")
    fine = play([bot, RANDOM, bot, RANDOM], tmp_path / "off", OFF, cwd=folder)  # on the author's machine it plays
    assert [(o.reason, o.faults) for o in fine.outcomes] == [("score", [])]
    detail = startup_fault(play([bot, RANDOM, bot, RANDOM], tmp_path / "on", ON, cwd=folder))
    assert "exited with status 127 before it was ready (a program or a library it needs was not found" in detail
    assert f"./bot is resolved in {folder}" in detail
    assert sandbox.WHAT_A_BOT_SEES in detail
    assert "compare with --sandbox off" in detail


@pytest.mark.system("sandbox", "root")
def test_a_script_only_its_owner_may_read_is_told_each_bot_runs_as_a_fresh_user(tmp_path):
    folder = bot_with_private_interpreter(tmp_path / "home")
    script = folder / "bot"
    script.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m waraq.bots.server random "$@"\n')
    script.chmod(0o700)
    detail = startup_fault(play([BotSpec.parse("./bot --unix {socket}"), RANDOM] * 2, tmp_path / "on", ON, cwd=folder))
    assert "Permission denied" in detail  # the shell's own words, kept
    assert "must be readable by other users" in detail and "compare with --sandbox off" in detail


@pytest.mark.system("sandbox")
@pytest.mark.parametrize("confinement", [ON, OFF], ids=["sandbox on", "sandbox off"])
def test_a_relative_program_that_is_not_there_names_the_folder_it_was_looked_up_in(tmp_path, confinement):
    detail = startup_fault(
        play([BotSpec.parse("./nobot --unix {socket}"), RANDOM] * 2, tmp_path / "r", confinement, cwd=tmp_path)
    )
    assert "exited with status 127" in detail and f"./nobot is resolved in {tmp_path}" in detail
    assert "Traceback" not in detail  # the launcher's own exec failure is one line, as a shell's
    assert (sandbox.WHAT_A_BOT_SEES in detail) == (confinement is ON)

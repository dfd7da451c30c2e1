"""A bot's version identity hashes its code: the program its command runs, not the files it names.

The files are real (written in a temporary folder, resolved as the launched
command resolves them); the last test adds a real bot twice with
``waraq ladder add``, the bot rewriting its log in between.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from waraq.ladder.play import folder
from waraq.ladder.play.bot_code import code_files
from waraq.referee.games.hokm.rules import PRESETS
from waraq.referee.launch.bots import BotSpec

PYTHON = sys.executable


@pytest.fixture
def files(tmp_path):
    for name in ("bot.py", "bot.js", "hook.js", "bot.jar", "bot.log", "notes.txt"):
        (tmp_path / name).write_text(name)
    program = tmp_path / "mybot"
    program.write_text("#!/bin/sh\nexit 0\n")
    program.chmod(0o755)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text("print()")
    return tmp_path


@pytest.mark.parametrize(
    "command, code",
    [
        ("python3 -u -W ignore bot.py --log bot.log --notes notes.txt --port {port}", ["bot.py"]),
        (f"{PYTHON} bot.py bot.log --port {{port}}", ["bot.py"]),
        ("python3.11 -X dev -m pkg.mod --log=bot.log --port {port}", ["pkg/mod.py"]),
        ("python3 -c 'import sys' bot.py --port {port}", []),
        ("node --require hook.js bot.js --log bot.log --port {port}", ["bot.js"]),
        ("env WARAQ_X=1 node bot.js --port {port}", ["bot.js"]),
        ("./mybot --port {port} --log bot.log", ["mybot"]),
        ("java -Xmx64m -jar bot.jar --port {port} bot.log", ["bot.jar"]),
        ("bash -c 'exec ./mybot --port {port}'", []),
    ],
)
def test_the_code_is_the_script_module_or_executable_the_command_runs(files, command, code):
    assert code_files(BotSpec.parse(command), str(files)) == sorted((files / c).resolve() for c in code)


def test_a_program_found_on_the_path_is_its_own_code(files):
    found = code_files(BotSpec.parse("true --port {port}"))
    assert len(found) == 1 and found[0].name == "true" and os.access(found[0], os.X_OK)


def test_a_built_in_bot_is_its_modules_and_an_address_has_none():
    modules = {p.name for p in code_files(BotSpec.parse("heuristic"))}
    assert modules >= {"server.py", "hokm_heuristic.py", "hand_heuristic.py"}
    assert code_files(BotSpec.parse("127.0.0.1:50051")) == []


def test_a_built_in_bot_is_the_server_its_players_and_what_they_import_found_without_importing_them():
    # Read off the sources by hand: server.py imports codec, which imports hand_codec in a function;
    # the table names hokm_random and hand_random; hand_random imports hand_turn. Not heuristic's.
    code = """
import sys
from waraq.ladder.play.bot_code import code_files
from waraq.referee.launch.bots import BotSpec
print(sorted(p.name for p in code_files(BotSpec.parse("random"))))
print(sorted(m for m in sys.modules if m.startswith("waraq.bots")))
"""
    run = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    files, imported = run.stdout.splitlines()
    assert files == str(["codec.py", "hand_codec.py", "hand_random.py", "hand_turn.py", "hokm_random.py", "server.py"])
    assert imported == str(["waraq.bots"])  # the package (find_spec looks inside it), no bot module


BOT = """import sys
from waraq.bots import server
args = sys.argv[1:]
log = args.pop(args.index("--log") + 1); args.remove("--log")  # its log, written where it may write
sys.exit(server.main(["random", *args]))
"""


@pytest.mark.slow
def test_a_log_the_bot_writes_is_no_new_version_but_a_changed_script_is(tmp_path):
    (tmp_path / "bot.py").write_text(BOT)
    (tmp_path / "bot.log").write_text("")
    ladder = tmp_path / "ladder"
    folder.init(ladder, PRESETS["two"], seed=1)
    command = f"{PYTHON} bot.py --log bot.log --port {{port}}"

    def add() -> str:
        done = subprocess.run(
            [str(Path(PYTHON).with_name("waraq")), "ladder", "add", "mine", command, "-C", str(ladder)],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=tmp_path,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert "added mine" in add()
    (tmp_path / "bot.log").write_text("what the bot wrote while it ran\n")  # as a bot writes its log
    assert "in the ladder already, the same version" in add()
    (tmp_path / "bot.py").write_text(BOT + "# a change\n")
    assert "new version" in add()

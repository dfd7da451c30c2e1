"""waraq-bot.toml: what an uploaded bot says it is, read into a ladder bot, or refused in one line."""

from __future__ import annotations

import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from waraq.ladder.storage.config import Bot
from waraq.ladder.submit.manifest import MANIFEST, Manifest, ManifestError, load, parse
from waraq.referee.launch.bots import BotSpec, SpecKind

PYTHON = shlex.quote(sys.executable)


def manifest(**keys: Any) -> dict[str, Any]:
    return {"name": "mybot", "games": ["hokm"], "run": "python3 bot.py --port {port}", **keys}


def test_a_python_bot_runs_on_the_referees_python_in_its_folder():
    read = parse(manifest(description="Counts trumps.", build="sh build.sh"))
    assert read == Manifest(
        name="mybot",
        games=("hokm",),
        run="python3 bot.py --port {port}",
        build="sh build.sh",
        description="Counts trumps.",
        spec=f"{PYTHON} bot.py --port {{port}}",
        runs="bot.py",
    )
    assert read.bot(Path("/ladder/bots/alice/mybot/v1")) == Bot(
        "mybot", f"{PYTHON} bot.py --port {{port}}", cwd="/ladder/bots/alice/mybot/v1"
    )
    assert read.bot(Path("/x"), name="alice.mybot").name == "alice.mybot"
    assert BotSpec.parse(read.spec).kind is SpecKind.COMMAND


@pytest.mark.parametrize(
    ("run", "spec", "runs"),
    [
        ("python bot.py --port {port}", f"{PYTHON} bot.py --port {{port}}", "bot.py"),
        ("python3 -u src/bot.py --unix {socket}", f"{PYTHON} -u src/bot.py --unix {{socket}}", "src/bot.py"),
        ("python3 -m mybot.main --port {port}", f"{PYTHON} -m mybot.main --port {{port}}", ""),
        ("node bot.js --port {port}", "node bot.js --port {port}", "bot.js"),
        ("java -jar target/bot.jar --port {port}", "java -jar target/bot.jar --port {port}", "target/bot.jar"),
        ("java -cp lib/a.jar:classes bot.Main --port {port}", "java -cp lib/a.jar:classes bot.Main --port {port}", ""),
        ("./bot --unix {socket}", "./bot --unix {socket}", "bot"),
        ("bin/bot --port={port}", "bin/bot --port={port}", "bin/bot"),
        ("sh 'run me.sh' {port}", "sh 'run me.sh' {port}", "run me.sh"),
    ],
)
def test_the_programs_a_run_command_may_start(run, spec, runs):
    needs = run.split()[0]
    if needs in ("node", "java", "sh") and shutil.which(needs) is None:
        pytest.skip(f"{needs} is not installed here")
    read = parse(manifest(run=run))
    assert (read.spec, read.runs, read.program) == (spec, runs, "/" in run.split()[0])


REFUSED = {
    "unknown key": (manifest(author="x"), "unknown key 'author'; valid: build, description, games, name, run"),
    "close to a key": (manifest(bulid="x"), "unknown key 'bulid' (did you mean 'build'?)"),
    "no run": ({"name": "x", "games": ["hokm"]}, f"{MANIFEST} has no run: the command that starts it"),
    "a bad name": (manifest(name="my bot"), 'name = "my bot": expected a name of 1 to 40 letters'),
    "games not a list": (manifest(games="hokm"), 'games = "hokm": expected a list of one or more of hokm, hand'),
    "an unknown game": (manifest(games=["chess"]), '"chess" is no game here; expected hokm, hand'),
    "a game twice": (manifest(games=["hokm", "hokm"]), "a game is named twice"),
    "no listening": (manifest(run="python3 bot.py"), "the bot must listen on {port} or {socket}"),
    "a host program": (manifest(run="/bin/rm -rf / {port}"), "'/bin/rm' is a path outside the upload"),
    "a host program by name": (manifest(run="rm -rf {port}"), "'rm' is neither an interpreter this arena runs"),
    "a script outside": (manifest(run="python3 ../other/bot.py {port}"), "'../other/bot.py' leads out of the upload"),
    "an absolute script": (manifest(run="node /srv/ladder/x.js {port}"), "'/srv/ladder/x.js' is a path outside"),
    "an option naming a host file": (manifest(run="python3 bot.py --key=/etc/shadow {port}"), "'/etc/shadow'"),
    "a class path outside": (manifest(run="java -cp /usr/share/java Main {port}"), "'/usr/share/java' is a path"),
    "inline code": (manifest(run="python3 -c 'import os' {port}"), "-c gives python3 its code inline"),
    "inline shell": (manifest(run="sh -c 'cat /etc/passwd' {port}"), "-c gives sh its code inline"),
    "no script": (manifest(run="python3 --port {port}"), "python3 is given no script"),
    "a NAME= spec": (manifest(run="me=./bot {port}"), "its program 'me=./bot' holds '='"),
    "unbalanced quotes": (manifest(run="python3 'bot.py {port}"), "No closing quotation"),
    "a long description": (manifest(description="x" * 501), "description is 501 characters: at most 500"),
    "an empty build": (manifest(build=" "), 'build = " ": expected a command; leave the key out for none'),
    "a build not text": (manifest(build=["make"]), 'build = ["make"]: expected a string'),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_a_manifest_is_refused_naming_the_key_and_what_is_allowed(case):
    raw, expected = REFUSED[case]
    with pytest.raises(ManifestError) as refusal:
        parse(raw)
    assert expected in str(refusal.value)
    assert "\n" not in str(refusal.value)


def test_a_manifest_is_read_from_the_top_of_the_upload(tmp_path):
    (tmp_path / MANIFEST).write_text('name = "mybot"\ngames = ["hand"]\nrun = "python3 bot.py --port {port}"\n')
    assert load(tmp_path).games == ("hand",)


def test_a_missing_or_broken_manifest_says_what_the_upload_has(tmp_path):
    (tmp_path / "mybot").mkdir()
    (tmp_path / "README.md").write_text("")
    with pytest.raises(ManifestError, match=r"no waraq-bot.toml at its top \(it has: README.md, mybot/\)"):
        load(tmp_path)
    (tmp_path / MANIFEST).write_text("name = \n")
    with pytest.raises(ManifestError, match="waraq-bot.toml is not valid TOML: Invalid value"):
        load(tmp_path)
    (tmp_path / MANIFEST).write_bytes(b"name = '\xff'")
    with pytest.raises(ManifestError, match="not UTF-8"):
        load(tmp_path)
    (tmp_path / MANIFEST).write_text("#" * 70_000)
    with pytest.raises(ManifestError, match="over 64 KiB"):
        load(tmp_path)

"""An upload from archive to ladder bot: the starter kits go READY and play; each failure is a stage and a line.

The uploads are the repository's starter kits, zipped as an author would
(a top folder, as GitHub's zips have), with a waraq-bot.toml written here;
the version folder lies inside a ladder's folder, which the sandbox hides,
as the web service lays it out. The bots are real processes, checked by the
real check-bot in the real sandbox, and a READY bot then plays a real
ladder run.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import ROOT
from tests.support.uploads import tar_gz_of, zip_folder, zip_of
from waraq.ladder.play import folder as ladders
from waraq.ladder.submit.manifest import MANIFEST
from waraq.ladder.submit.pipeline import BOT, BUILD_LOG, CHECK_JSON, CHECK_TEXT, UPLOAD, Stage, Submission, submit
from waraq.referee.games.hokm.rules import HokmRules
from waraq.referee.launch import sandbox

pytestmark = pytest.mark.system("sandbox")  # every build and check runs in bubblewrap
STARTERS = ROOT / "sample_bots" / "starters"
RULES = HokmRules(target_score=1)
PYTHON_MANIFEST = 'name = "mybot"\ngames = ["hokm", "hand"]\nrun = "python3 bot.py --port {port}"\n'


@pytest.fixture
def ladder(tmp_path: Path) -> Path:
    path = tmp_path / "ladder"
    ladders.init(path, RULES, seed=3)
    return path


def version(ladder: Path) -> Path:
    """The empty folder the web service would make for the upload."""
    folder = ladder / "bots" / "alice" / "mybot" / "v1"
    folder.mkdir(parents=True)
    return folder


def send(archive: Path, ladder: Path) -> tuple[Submission, Path]:
    folder = version(ladder)
    confinement = sandbox.Config(sandbox.Isolation.ON, hidden=(ladder,))
    return asyncio.run(submit(archive, folder, game="hokm", rules=RULES, confinement=confinement)), folder


def python_kit(tmp_path: Path, manifest: str = PYTHON_MANIFEST, edit: tuple[str, str] | None = None) -> Path:
    """The Python starter kit as an author zips it, with a manifest (and one edit to bot.py)."""
    kit = tmp_path / "kit" / "mybot-main"
    shutil.copytree(STARTERS / "python", kit, ignore=shutil.ignore_patterns(".venv", "__pycache__"))
    (kit / MANIFEST).write_text(manifest)
    if edit is not None:
        source = (kit / "bot.py").read_text()
        assert edit[0] in source
        (kit / "bot.py").write_text(source.replace(*edit))
    return zip_folder(tmp_path / "mybot-main.zip", kit, top="mybot-main")


# -- ready ---------------------------------------------------------------------------------


@pytest.mark.slow
def test_the_python_starter_goes_ready_and_plays_in_the_ladder(tmp_path, ladder):
    submission, folder = send(python_kit(tmp_path), ladder)
    assert submission.stage is Stage.READY, submission.message + "\n" + submission.check_report
    assert re.fullmatch(r"ready: mybot passed check-bot's \d+ cases of hokm with 4 players", submission.message)
    bot = submission.bot
    assert bot is not None and bot.cwd == str(folder / UPLOAD)
    assert bot.spec == f"{sys.executable} bot.py --port {{port}}"
    assert submission.unpacked is not None and submission.unpacked.stripped == "mybot-main"
    assert re.search(r"python-starter: \d+ pass, 0 fail, 0 skipped", submission.check_report)
    assert (folder / CHECK_TEXT).read_text() == submission.check_report
    assert (folder / CHECK_JSON).exists() and not (folder / BUILD_LOG).exists()
    # The author reads the report: the server's folders and Python are not theirs to see.
    for shown in (submission.check_report, (folder / CHECK_JSON).read_text()):
        assert str(folder) not in shown and sys.executable not in shown
    assert submission.check_report.startswith("check-bot python3 bot.py --port {port}")
    assert "records in ./check/" in submission.check_report
    assert json.loads((folder / CHECK_JSON).read_text())["records"] == "./check"
    _plays_in(ladder, bot.name, bot.spec, Path(bot.cwd))


def _plays_in(ladder: Path, name: str, spec: str, cwd: Path) -> None:
    """The bot joins the ladder as the web service adds it (run in its folder) and plays a real run."""
    here = os.getcwd()
    os.chdir(cwd)  # a {port} command runs in the folder it was added from
    try:
        with ladders.open_ladder(ladder) as opened:
            ladders.add(opened, name, spec, check=False)
            ladders.add(opened, "random", "random", check=False)
    finally:
        os.chdir(here)
    ran = subprocess.run(
        [sys.executable, "-m", "waraq.referee.cli.main", "ladder", "run", "--matches", "2", "-C", str(ladder)],
        capture_output=True, text=True, timeout=300, cwd=ladder.parent,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stdout + ran.stderr
    shown = subprocess.run(
        [sys.executable, "-m", "waraq.referee.cli.main", "ladder", "show", "-C", str(ladder)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert name in shown.stdout and "suspended" not in shown.stdout, shown.stdout


@pytest.mark.slow
@pytest.mark.system("sandbox", "node")  # the kit's npm packages, installed by `npm ci` in its folder
def test_the_js_starter_goes_ready_with_its_packages(tmp_path, ladder):
    kit = tmp_path / "kit"
    shutil.copytree(STARTERS / "js", kit, symlinks=True)
    shutil.copy(ROOT / "protocol" / "waraq" / "v1" / "bot.proto", kit)  # as its README asks
    (kit / MANIFEST).write_text('name = "jsbot"\ngames = ["hokm"]\nrun = "node bot.js --port {port}"\n')
    submission, folder = send(zip_folder(tmp_path / "jsbot.zip", kit), ladder)
    assert submission.stage is Stage.READY, submission.message + "\n" + submission.check_report
    assert submission.bot is not None and submission.bot.spec == "node bot.js --port {port}"
    assert (folder / UPLOAD / "node_modules" / "@grpc" / "grpc-js").is_dir()


@pytest.mark.slow
def test_a_built_bot_runs_from_what_its_build_made(tmp_path, ladder):
    """The build writes the bot's program; the bot runs from the build's folder, not the upload."""
    kit = tmp_path / "kit"
    shutil.copytree(STARTERS / "python", kit, ignore=shutil.ignore_patterns(".venv", "__pycache__"))
    (kit / "bot.py").rename(kit / "bot.py.in")
    (kit / MANIFEST).write_text(PYTHON_MANIFEST.replace("run =", 'build = "cp bot.py.in bot.py"\nrun ='))
    submission, folder = send(zip_folder(tmp_path / "built.zip", kit), ladder)
    assert submission.stage is Stage.READY, submission.message + "\n" + submission.check_report
    assert submission.bot is not None and submission.bot.cwd == str(folder / BOT)
    assert (folder / BOT / "bot.py").exists() and not (folder / UPLOAD / "bot.py").exists()
    assert (folder / BUILD_LOG).read_text() == submission.build_log


# -- check failed --------------------------------------------------------------------------


@pytest.mark.slow
def test_a_bot_that_plays_illegal_cards_fails_the_check_with_its_report(tmp_path, ladder):
    illegal = ("action = rng.choice(request.legal)", 'action = pb.Action(card="ZZ")')
    submission, folder = send(python_kit(tmp_path, edit=illegal), ladder)
    assert submission.stage is Stage.CHECK_FAILED
    assert submission.message.startswith("check-bot failed ")
    assert submission.bot is None
    assert " fail " in submission.check_report and "python-starter:" in submission.check_report
    assert (folder / CHECK_TEXT).read_text() == submission.check_report


@pytest.mark.slow
def test_a_bot_whose_hello_leaves_out_the_ladders_players_fails(tmp_path, ladder):
    two = ('GAMES = {"hokm": [2, 3, 4], "hand": [2, 3, 4]}', 'GAMES = {"hokm": [2, 3]}')
    submission, _ = send(python_kit(tmp_path, edit=two), ladder)
    assert (submission.stage, submission.message) == (
        Stage.CHECK_FAILED,
        "its Hello declares hokm 2, 3: this ladder plays hokm with 4 players",
    )


# -- refused, or its build failed: before any bot starts ------------------------------------


def test_garbage_is_refused_and_nothing_is_left(tmp_path, ladder):
    archive = tmp_path / "bot.zip"
    archive.write_bytes(os.urandom(1000))
    submission, folder = send(archive, ladder)
    assert submission == Submission(
        Stage.REFUSED, "the upload is not an archive: expected a zip, a tar.gz (.tgz) or a tar"
    )
    assert [p.name for p in folder.iterdir()] == [UPLOAD] and list((folder / UPLOAD).iterdir()) == []


def test_a_hostile_archive_is_refused(tmp_path, ladder):
    archive = tar_gz_of(tmp_path / "a.tgz", [(MANIFEST, PYTHON_MANIFEST.encode()), ("../../../ladder.key", b"x")])
    submission, _ = send(archive, ladder)
    assert submission.stage is Stage.REFUSED and "'../../../ladder.key': a '..' in its path" in submission.message


def test_an_upload_without_a_manifest_is_refused_saying_what_it_holds(tmp_path, ladder):
    submission, _ = send(zip_of(tmp_path / "a.zip", {"bot.py": b"", "README.md": b""}), ladder)
    assert (submission.stage, submission.message) == (
        Stage.REFUSED,
        "the upload has no waraq-bot.toml at its top (it has: README.md, bot.py)",
    )


def test_a_bot_of_another_game_is_refused(tmp_path, ladder):
    manifest = PYTHON_MANIFEST.replace('["hokm", "hand"]', '["hand"]')
    submission, _ = send(zip_of(tmp_path / "a.zip", {MANIFEST: manifest.encode(), "bot.py": b""}), ladder)
    assert (submission.stage, submission.message) == (
        Stage.REFUSED,
        "waraq-bot.toml: games = hand: this ladder plays hokm",
    )
    assert submission.manifest is not None and submission.manifest.name == "mybot"


def test_a_name_the_ladder_refuses_is_refused_before_anything_is_built(tmp_path, ladder):
    manifest = PYTHON_MANIFEST.replace("run =", 'build = "touch built; exit 2"\nrun =')
    archive = zip_of(tmp_path / "a.zip", {MANIFEST: manifest.encode(), "bot.py": b""})
    folder = version(ladder)
    asked: list[str] = []

    def taken(name: str) -> str | None:
        asked.append(name)
        return f"the name {name!r} belongs to another author's bot: choose another name"

    submission = asyncio.run(submit(archive, folder, game="hokm", rules=RULES, name_problem=taken))
    assert (submission.stage, submission.message) == (
        Stage.REFUSED,
        "the name 'mybot' belongs to another author's bot: choose another name",
    )
    assert asked == ["mybot"] and not (folder / BOT).exists() and not (folder / BUILD_LOG).exists()


def test_a_run_whose_file_is_not_there_is_refused(tmp_path, ladder):
    submission, _ = send(zip_of(tmp_path / "a.zip", {MANIFEST: PYTHON_MANIFEST.encode(), "main.py": b""}), ladder)
    assert submission.stage is Stage.REFUSED
    assert submission.message == (
        "waraq-bot.toml: run = 'python3 bot.py --port {port}' starts bot.py, and the upload does not hold it"
    )


def test_a_failing_build_stops_the_upload_with_its_log(tmp_path, ladder):
    manifest = PYTHON_MANIFEST.replace("run =", 'build = "echo compiling; exit 2"\nrun =')
    submission, folder = send(zip_of(tmp_path / "a.zip", {MANIFEST: manifest.encode(), "bot.py": b""}), ladder)
    assert submission.stage is Stage.BUILD_FAILED
    assert submission.message == 'the build failed: "echo compiling; exit 2" ended with status 2; see its log'
    assert submission.build_log == "compiling\n" == (folder / BUILD_LOG).read_text()
    assert list((folder / BOT).iterdir()) == []


def test_a_build_that_does_not_make_the_program_fails(tmp_path, ladder):
    manifest = 'name = "gobot"\ngames = ["hokm"]\nbuild = "true"\nrun = "./bin/bot --port {port}"\n'
    submission, _ = send(zip_of(tmp_path / "a.zip", {MANIFEST: manifest.encode()}), ladder)
    assert (submission.stage, submission.message) == (
        Stage.BUILD_FAILED,
        "waraq-bot.toml: run = './bin/bot --port {port}' starts bin/bot, and the build did not make it",
    )

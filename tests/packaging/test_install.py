"""``pip install waraq`` installs one top-level name, every module of the project, and a working command.

A wheel is built from this checkout (no isolation: the venv's setuptools), installed
into a scratch folder without dependencies, and run from elsewhere, so what is found is
what the wheel holds and not this checkout.
"""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.support import ROOT

FOLDERS = {"referee": "waraq/referee", "ladder": "waraq/ladder", "sample_bots": "waraq/bots", "protocol/waraq": "waraq"}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(out), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=300,
        cwd=out,
    )
    (found,) = out.glob("waraq-*.whl")
    return found


@pytest.mark.slow
def test_the_wheel_installs_only_the_name_waraq(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    assert {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")} == {"waraq"}


def test_every_module_of_the_checkout_is_in_the_wheel_where_its_package_says(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {
        f"{into}/{path.relative_to(ROOT / folder).as_posix()}"
        for folder, into in FOLDERS.items()
        for path in (ROOT / folder).rglob("*.py")
        # The starter kits are folders a bot author copies out (sample_bots/starters/python/bot.py), no package.
        if "node_modules" not in path.parts and not path.is_relative_to(ROOT / "sample_bots" / "starters")
    }
    assert len(expected) > 60 and sorted(expected - names) == []
    assert "waraq/v1/bot.proto" in names  # what bot authors compile
    # The HTML replay's viewer, inlined into every page from the installed package's own files.
    viewer = {f"waraq/referee/replay/html/{n}" for n in ("template.html", "viewer.css", "viewer.js", "table.js")}
    # A human seat's page is served from the installed package's files too.
    page = {f"waraq/referee/human/{name}" for name in ("human.html", "human.js", "human.css")}
    assert sorted((viewer | page) - names) == []


@pytest.mark.slow
def test_the_installed_command_runs_from_the_wheel_alone(wheel, tmp_path):
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), str(wheel)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    code = (
        "import sys, runpy; import waraq.referee, waraq.bots.server; "
        "print(waraq.referee.__file__, waraq.bots.server.__file__); "
        "sys.argv = ['waraq', 'rules', 'two']; runpy.run_module('waraq.referee.cli.main', run_name='__main__')"
    )
    run = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin", "NO_COLOR": "1"},
    )
    assert run.returncode == 0, run.stderr
    where, text = run.stdout.split("\n", 1)
    assert all(p.startswith(str(target)) for p in where.split()), where
    assert '"players": 2' in text and "rules_hash sha256:" in text

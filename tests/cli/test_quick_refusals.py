"""Two options that used to pass or hang on a typo now answer at once (issue 30, item 8).

``check-bot --only CASE`` with no such case checked nothing and exited 0, so a
typo in CI always passed: now it is exit status 2 and one line naming it and
the cases there are. ``--ray HOST:PORT`` with nothing there took 13.7 minutes
for Ray to give up: now a TCP connection is tried first, and the answer is one
line within seconds (``ladder run``: exit 1, the run cannot begin; ``versus``:
2, since its 1 is a verdict). ``auto`` is not probed: Ray finds or starts the
cluster of this machine itself.
"""

from __future__ import annotations

import hashlib
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.ladders import make
from waraq.ladder.play import cluster
from waraq.referee.cli.main import main
from waraq.referee.conformance.check import case_ids, unknown_cases

WARAQ = str(Path(sys.executable).with_name("waraq"))
PROMPT = 10  # seconds: the most a refusal may take, Python's start and Ray's import check included


def test_an_unknown_only_case_is_exit_2_naming_it_and_listing_the_cases(tmp_path, capsys):
    folder = tmp_path / "check"
    status = main(["check-bot", "random", "--only", "timing.", "--only", "hokm-4.bamm", "--record", str(folder)])
    lines = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(lines) == 1, lines
    assert lines[0] == (
        "error: --only hokm-4.bamm: matches no case (give a case id or its beginning); the cases: "
        + ", ".join(case_ids())
    )
    assert not folder.exists()  # refused before the bot or its records folder


def test_several_unknown_cases_are_named_together(capsys):
    assert main(["check-bot", "random", "--only", "hokm-5.", "--only", "Timing."]) == 2
    assert capsys.readouterr().err.startswith("error: --only hokm-5., Timing.: match no case ")


def test_the_known_cases_are_every_game_count_and_kind_and_a_beginning_of_one_is_known():
    known = case_ids()
    assert {
        "startup.ready",
        "hello.games",
        "end.sigterm",
        "notes.size",
        "timing.deadline",
        "compat.unknown-fields",
        "hokm-4.bam",
        "hokm-2.draw-visible",
        "hokm-3.redeal",
        "hand-2.turn-swap",
        "hand-4.take",
    } <= set(known)
    assert not any(case.startswith(("hokm-4.discard", "hand-4.trump", "hokm-3.bam")) for case in known)
    assert unknown_cases(["timing.", "hokm-4.", "hand-", "hokm-4.bam", "end.sigterm", ""]) == []
    assert unknown_cases(["hokm-4.bamm", "timing", "hokm-1."]) == ["hokm-4.bamm", "hokm-1."]


def free_port() -> int:
    """A port where nothing listens: one the system just gave out, closed again."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def timed(*args: str, cwd: Path) -> tuple[subprocess.CompletedProcess[str], float]:
    begun = time.monotonic()
    done = subprocess.run([WARAQ, *args], cwd=cwd, capture_output=True, text=True, timeout=60)
    return done, time.monotonic() - begun


def test_ladder_run_on_a_ray_address_where_nothing_listens_is_one_line_and_exit_1_in_seconds(tmp_path):
    path = make(tmp_path / "L", {"a": "random", "b": "random"})
    database = hashlib.sha256((path / "ladder.sqlite").read_bytes()).hexdigest()
    address = f"127.0.0.1:{free_port()}"
    done, took = timed("ladder", "run", "--matches", "2", "--ray", address, "-C", "L", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert took < PROMPT
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: --ray {address}: nothing listens there ("), lines
    assert hashlib.sha256((path / "ladder.sqlite").read_bytes()).hexdigest() == database  # not even its goal stored


def test_versus_on_a_ray_address_where_nothing_listens_is_one_line_and_exit_2_in_seconds(tmp_path):
    address = f"localhost:{free_port()}"
    done, took = timed("versus", "random", "heuristic", "--ray", address, "--dir", "V", cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert took < PROMPT
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: --ray {address}: nothing listens there ("), lines
    assert not (tmp_path / "V").exists()


def test_a_ray_address_where_something_listens_passes_the_probe():
    with socket.socket() as head:
        head.bind(("127.0.0.1", 0))
        head.listen()
        cluster.probe(f"127.0.0.1:{head.getsockname()[1]}")
        cluster.probe(f"ray://127.0.0.1:{head.getsockname()[1]}")


def test_auto_and_forms_ray_reads_itself_are_not_probed(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("probed")

    monkeypatch.setattr(socket, "create_connection", refuse)
    for address in ("auto", "local", "no-port-here"):
        assert cluster.head_of(address) is None
        cluster.probe(address)
    assert cluster.head_of("[::1]:6379") == ("::1", 6379)


def test_a_ray_port_out_of_range_is_bad_usage():
    with pytest.raises(cluster.ClusterError, match=r"--ray h:70000: 70000 is not a port") as raised:
        cluster.check("h:70000")
    assert not isinstance(raised.value, cluster.Unreachable)

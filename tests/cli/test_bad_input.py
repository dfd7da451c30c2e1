"""Every bad input of tests/support/bad_inputs.py: one clear error line, the exit status it must give, no traceback.

Each case is a real ``waraq`` process in a folder of its own. They are run
four at a time by a module fixture (most of their time is Python starting),
then checked one test a case, so a failure names its case. The number of
tests here is the number of bad inputs tried; every one that passes gave no
traceback. Run them against another checkout (``PYTHONPATH=that/checkout``)
to count its tracebacks.
"""

from __future__ import annotations

import socket
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.support.bad_inputs import CASES, Case, environment, prepare

WARAQ = str(Path(sys.executable).with_name("waraq"))


def run(case: Case, here: Path) -> subprocess.CompletedProcess[str]:
    prepare(case, here)
    args = list(case.args)
    with socket.socket() as busy:
        if case.port:  # a port another program listens on
            busy.bind(("127.0.0.1", 0))
            busy.listen()
            args = [a.replace("{port}", str(busy.getsockname()[1])) for a in args]
        return subprocess.run(
            [WARAQ, *args],
            input=case.stdin,
            capture_output=True,
            text=True,
            timeout=240,
            cwd=here,
            env=environment(case),
        )


@pytest.fixture(scope="module")
def answers(tmp_path_factory):
    root = tmp_path_factory.mktemp("bad-inputs")
    with ThreadPoolExecutor(max_workers=4) as pool:
        done = {case.id: pool.submit(run, case, root / case.id) for case in CASES}
        answers = {name: future.result() for name, future in done.items()}
    return answers


def test_every_case_has_its_own_name():
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id, marks=pytest.mark.system(*c.system)) for c in CASES])
def test_a_bad_input_is_one_clear_line_and_a_failing_exit_status(case, answers):
    answer = answers[case.id]
    said = answer.stdout + answer.stderr
    assert "Traceback" not in said, said
    assert answer.returncode == case.status, said
    for fragment in case.says:
        assert fragment in answer.stderr, answer.stderr
    if case.one_line:
        lines = answer.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), answer.stderr

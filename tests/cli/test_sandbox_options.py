"""The sandbox's limits on the command line: each option's range is the sandbox's own, and --cpus is carried."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from waraq.referee.common.arguments import Parser
from waraq.referee.launch import sandbox, sandbox_options

WARAQ = str(Path(sys.executable).with_name("waraq"))


def parsed(*args: str) -> sandbox.Config:
    parser = Parser(prog="waraq match")
    sandbox_options.add_sandbox_options(parser)
    return sandbox_options.confinement(parser.parse_args(args))


def test_every_limit_of_the_sandbox_has_its_option_and_its_default() -> None:
    assert set(sandbox_options.LIMIT_OPTIONS) == set(sandbox.LIMIT_RANGES) - {"open_files"}  # open files: no option
    assert parsed().limits == sandbox.Limits()


@pytest.mark.parametrize("name", list(sandbox_options.LIMIT_OPTIONS))
def test_each_limit_takes_its_whole_range_and_is_carried_to_the_sandbox(name: str) -> None:
    for value in sandbox.LIMIT_RANGES[name]:
        assert getattr(parsed(f"--{name.replace('_', '-')}", str(value)).limits, name) == value


@pytest.mark.parametrize(("name", "value"), [
    ("memory_mb", "100000000000000000000"),  # it meant no limit at all
    ("cpus", "0"),
    ("cpus", str(sandbox.LIMIT_RANGES["cpus"][1] + 1)),
    ("processes", str(sandbox.LIMIT_RANGES["processes"][0] - 1)),
    ("cpu_seconds", "1e3"),
    ("scratch_mb", "-1"),
])  # fmt: skip
def test_a_limit_out_of_its_range_is_refused_in_one_line_naming_the_option(
    tmp_path: Path, name: str, value: str
) -> None:
    option = "--" + name.replace("_", "-")
    refused = subprocess.run(
        [WARAQ, "match", "--bots", "random", option, value], capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    assert refused.returncode == 2
    assert refused.stderr.count("\n") == 1, refused.stderr
    low, high = sandbox.LIMIT_RANGES[name]
    said = f"argument {option}: {value!r} is not allowed: expected a whole number from {low} to {high}"
    assert said in refused.stderr
    assert list(tmp_path.iterdir()) == []  # nothing was played

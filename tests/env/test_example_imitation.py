"""examples/imitation/run.py, the issue's example, end to end at a tiny scale: every step it takes
(records, export, training, serving under the sandbox, versus, a ladder) must still work."""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest

from tests.support import ROOT


@pytest.mark.slow
def test_the_example_trains_serves_and_rates_a_policy(tmp_path):
    run = [sys.executable, str(ROOT / "examples/imitation/run.py"), "--dir", str(tmp_path)]
    tiny = ["--games", "10", "--epochs", "1", "--hidden", "16", "--boards", "2", "--ladder-matches", "4"]
    done = subprocess.run([*run, *tiny], capture_output=True, text=True, timeout=600, cwd=tmp_path)
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    learned, held = (
        int(n.replace(",", "")) for n in re.search(r"([\d,]+) decisions to learn from, ([\d,]+)", out).groups()
    )
    assert learned > 0 and held > 0
    assert re.search(r"held out: picks the heuristic bot's action \d+\.\d% of the time", out)
    with np.load(tmp_path / "weights.npz") as net:  # the network policy.py serves: 501 -> 16 -> 1388
        assert net["w1"].shape == (501, 16) and net["w2"].shape == (16, 1388)
    for rival in ("random", "greedy"):
        assert f"versus {tmp_path}/versus-{rival}: imitation against {rival}" in out
    assert re.search(r"matches  4: imitation \d+ won, \d+ lost", out)  # both versus runs played their boards
    lines = out[out.index("Ladder ") :].splitlines()
    header = next(line for line in lines if " faults " in line)
    rows = {line.split()[1]: line for line in lines if line.split() and line.split()[0].isdigit()}
    assert sorted(rows) == ["greedy", "heuristic", "imitation", "random"]
    at = header.index("faults")  # the column, as the table aligns it: the served policy never faulted
    assert rows["imitation"][at : at + len("faults")].strip() == "0"

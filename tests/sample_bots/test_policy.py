"""``waraq bot serve --policy MODULE:CALLABLE``: any function of a seat's view, served as a bot, plays real
matches through the referee; a policy that names nothing is refused in one line."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap

import pytest

from tests.support import ROOT
from waraq.referee.games.hand.decisions import Turn
from waraq.referee.replay.walk import load

pytestmark = pytest.mark.slow  # a served policy and a real match: some seconds

WARAQ = [sys.executable, "-m", "waraq.referee.cli.main"]
SERVING = re.compile(r"serving waraq\.v1\.Bot on port (\d+)")
POLICIES = textwrap.dedent(
    """
    from waraq.referee.env.hokm_encoding import action_of, legal_mask
    from waraq.referee.games.hand.decisions import Turn

    def last(view, legal):
        return legal[-1]

    def draw_and_throw(view, legal):
        # Hand: a TURN lists no legal actions (a whole turn is built: waraq.bots.hand_turn helps).
        if view.kind == "TAKE":
            return "stock"
        return Turn((), view.drawn if view.drawn is not None else view.hand[-1])

    def first_index(view, legal):
        # An agent of the environments: it chooses an action index; the encoding decodes it.
        index = int(legal_mask(view).nonzero()[0][0])
        return action_of(index, view)
    """
)


@pytest.mark.parametrize(("game", "name"), [("hokm", "last"), ("hand", "draw_and_throw"), ("hokm", "first_index")])
def test_a_served_policy_plays_each_of_its_decisions_as_it_chose(tmp_path, game, name):
    (tmp_path / "agents.py").write_text(POLICIES)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    server = subprocess.Popen(
        [*WARAQ, "bot", "serve", "--policy", f"agents:{name}", "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=tmp_path, env=env,
    )  # fmt: skip
    try:
        assert server.stdout is not None
        port = SERVING.search(server.stdout.readline()).group(1)
        match = subprocess.run(
            [*WARAQ, "match", "--game", game, "--rules", "short", "--bots", f"127.0.0.1:{port}", "random",
             "--record", "rec"],
            capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300,
        )  # fmt: skip
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert match.returncode == 0, match.stdout + match.stderr
    replay = load(next((tmp_path / "rec").glob(f"{game}-1.jsonl")))
    mine = [step for step in replay.steps if step.seat in (0, 2)]
    assert mine and replay.bots[0] == f"agents:{name}"
    for step in mine:  # each the policy's own choice
        assert step.action == _chosen(name, step.view), (step.number, step.action)


def _chosen(name, view):
    if name == "last":
        return view.legal[-1]
    if name == "first_index":
        return view.legal[0]
    return "stock" if view.kind == "TAKE" else Turn((), view.drawn if view.drawn is not None else view.hand[-1])


@pytest.mark.parametrize(
    ("policy", "says"),
    [
        ("agents", "expected MODULE:CALLABLE"),
        ("nowhere:act", "cannot import nowhere: ModuleNotFoundError"),
        ("agents:absent", "agents has no absent"),
        ("agents:VALUE", "VALUE is not callable"),
    ],
)
def test_a_policy_that_names_no_callable_is_refused_in_one_line(tmp_path, policy, says):
    (tmp_path / "agents.py").write_text("VALUE = 3\n")
    refused = subprocess.run(
        [*WARAQ, "bot", "serve", "--policy", policy], capture_output=True, text=True, cwd=tmp_path, timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert refused.returncode == 2 and says in refused.stderr and len(refused.stderr.strip().splitlines()) == 1

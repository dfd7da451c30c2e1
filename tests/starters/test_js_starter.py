"""The JavaScript starter kit (sample_bots/starters/js) works copied out of the repository.

A bot author copies the kit's folder, runs ``npm ci`` and copies ``bot.proto``
beside ``bot.js`` (the kit's README.md, "## Install"); so does this module, in
tmp folders outside the checkout, where ``bot.js`` cannot fall back on the
checkout's ``protocol/``. ``npm ci --offline`` installs from npm's cache, which
the in-place ``npm ci`` of README.md's setup (and .ci/run) fills, so the test
needs no network. Real ``waraq match`` runs then launch the copy (sandboxed
where the machine can) over gRPC: Hokm with 4 players, with 2 under the kit's
``every-kind.toml``, and Hand with 4 and 2.

tests/sample_bots/test_js_bot.py checks the kit's strategy in place; this
module checks that a copy is a whole bot on its own.
"""

from __future__ import annotations

import contextlib
import os
import queue
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tests.support import ROOT
from waraq.referee.launch.bots import STOP_GRACE_S
from waraq.referee.records.record_file import read_record
from waraq.v1 import bot_pb2 as pb
from waraq.v1 import bot_pb2_grpc

pytestmark = pytest.mark.system("node")  # the kit runs on Node.js with its npm packages

KIT = ROOT / "sample_bots" / "starters" / "js"
PROTO = ROOT / "protocol" / "waraq" / "v1" / "bot.proto"
WARAQ = Path(sys.executable).with_name("waraq")  # the referee's command, beside this venv's python
BOT_COMMAND = "node bot.js --port {port}"  # as the kit's README gives it, run from the copy
NAME = "js-sample"  # what its Hello says (bot.js's NAME)
# A fixed deal key, so each run deals the same decks and the kinds below are asked every time.
DEAL_KEY = "35" * 32
HOKM_KINDS = {"TRUMP", "PLAY", "DISCARD", "DRAW", "REDEAL", "BAM"}
HAND_KINDS = {"TAKE", "TURN"}


# -- the kit, copied and installed -----------------------------------------------------------


def _copy_kit(into: Path) -> Path:
    """The kit as an author copies it, without what installing or the proto step may have put in place."""
    kit = into / "mybot"
    shutil.copytree(KIT, kit, ignore=shutil.ignore_patterns("node_modules", "bot.proto"))
    return kit


def _npm_ci(kit: Path) -> None:
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.fail("node and npm are not on PATH: the JS starter kit needs Node.js (v18 or later)")
    done = subprocess.run(
        ["npm", "ci", "--offline", "--no-audit", "--no-fund"], cwd=kit, capture_output=True, text=True, timeout=300
    )
    if done.returncode != 0:
        pytest.fail(
            "`npm ci --offline` failed in the copy: npm's cache is filled by README.md's setup "
            f"(`npm ci --prefix sample_bots/starters/js`); run it first.\n{done.stderr}"
        )


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The kit copied outside the repository, its packages installed: the README's steps but the last."""
    kit = _copy_kit(tmp_path_factory.mktemp("js-kit"))
    assert ROOT not in kit.parents, f"{kit} is inside the checkout, whose protocol/ bot.js would find"
    _npm_ci(kit)
    return kit


@pytest.fixture(scope="module")
def kit(installed: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Another such copy after the README's proto step, ``cp WARAQ/protocol/waraq/v1/bot.proto .``."""
    kit = tmp_path_factory.mktemp("js-kit") / "mybot"
    shutil.copytree(installed, kit, symlinks=True)
    shutil.copy(PROTO, kit / "bot.proto")
    return kit


# -- where the copy's bot.proto comes from ------------------------------------------------------


def _start(kit: Path, *options: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        ["node", "bot.js", "--port", "0", *options], cwd=kit, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def _refused(kit: Path, *options: str) -> subprocess.CompletedProcess[str]:
    """bot.js of ``kit`` run to its end: one that cannot serve stops at once."""
    command = ["node", "bot.js", "--port", "0", *options]
    return subprocess.run(command, cwd=kit, capture_output=True, text=True, timeout=30)


@contextlib.contextmanager
def _served(kit: Path, *options: str) -> Iterator[tuple[subprocess.Popen[str], grpc.Channel]]:
    """bot.js of ``kit`` serving on a free port, and a channel to it; killed at the end if still running."""
    process = _start(kit, *options)
    assert process.stdout is not None and process.stderr is not None
    try:
        line = process.stdout.readline()  # printed once it listens; "" if node died
        if not line.startswith(f"{NAME} bot serving waraq.v1.Bot on port "):
            process.kill()
            pytest.fail(f"bot.js printed {line!r}, stderr: {process.stderr.read()!r}")
        with grpc.insecure_channel(f"127.0.0.1:{int(line.rsplit(' ', 1)[-1])}") as channel:
            yield process, channel
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=10)
        process.stdout.close()
        process.stderr.close()


def _hello(channel: grpc.Channel) -> pb.HelloReply:
    return bot_pb2_grpc.BotStub(channel).Hello(pb.HelloRequest(protocol_version=1, referee="waraq"), timeout=10)


def test_the_copy_without_bot_proto_stops_and_says_what_to_copy(installed: Path) -> None:
    stopped = _refused(installed)
    assert stopped.returncode == 2 and stopped.stdout == ""
    assert f"no bot.proto beside {installed / 'bot.js'}" in stopped.stderr
    assert f"cp WARAQ/protocol/waraq/v1/bot.proto {installed}/" in stopped.stderr and "--proto PATH" in stopped.stderr


def test_the_copy_serves_the_bot_proto_given_by_flag(installed: Path) -> None:
    with _served(installed, "--proto", str(PROTO)) as (_, channel):
        hello = _hello(channel)
    assert hello.name == NAME and hello.protocol_version == 1
    assert {g.game: list(g.players) for g in hello.games} == {"hokm": [2, 3, 4], "hand": [2, 3, 4]}


def test_a_proto_flag_naming_no_file_is_refused_with_the_path(installed: Path, tmp_path: Path) -> None:
    missing = tmp_path / "old" / "bot.proto"
    stopped = _refused(installed, "--proto", str(missing))
    assert stopped.returncode == 2 and stopped.stdout == ""
    assert f"--proto {missing}: no such file" in stopped.stderr


# -- the copy after the proto step, served by hand: health, a stream, SIGTERM ------------------------


class Stream:
    """One Play call, written a message at a time, read a reply at a time."""

    def __init__(self, channel: grpc.Channel) -> None:
        self._out: queue.Queue[pb.RefereeMessage | None] = queue.Queue()
        self._replies = bot_pb2_grpc.BotStub(channel).Play(iter(self._out.get, None), timeout=30)

    def send(self, message: pb.RefereeMessage) -> None:
        self._out.put(message)

    def ask(self, request: pb.DecisionRequest) -> pb.DecisionReply:
        self.send(pb.RefereeMessage(decision=request))
        return next(self._replies).reply


def test_the_copy_is_healthy_answers_a_stream_and_exits_on_sigterm_within_the_referees_grace(kit: Path) -> None:
    with _served(kit) as (process, channel):
        health = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(service=""), timeout=10)
        assert health.status == health_pb2.HealthCheckResponse.SERVING
        assert _hello(channel).name == NAME
        stream = Stream(channel)
        stream.send(pb.RefereeMessage(start=pb.MatchStart(match_id="m-1", seat=0, game="hokm", players=4)))
        # Three spades among the five: the README's TRUMP rule names spades.
        view = pb.HokmView(seat=0, players=4, kind="TRUMP", hand=["AS", "KS", "QS", "2H", "3D"])
        suits = [pb.Action(suit=s) for s in "SHDC"]
        reply = stream.ask(pb.DecisionRequest(seq=7, kind="TRUMP", legal=suits, hokm=view))
        assert reply.seq == 7 and reply.action.WhichOneof("action") == "suit" and reply.action.suit == "S"
        began = time.monotonic()  # the stream is still open, as mid-match
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=10) == 0
        assert time.monotonic() - began < STOP_GRACE_S


def test_a_request_the_bot_cannot_answer_ends_its_stream_and_not_the_process(kit: Path) -> None:
    with _served(kit) as (process, channel):
        broken = Stream(channel)
        broken.send(pb.RefereeMessage(start=pb.MatchStart(match_id="m-1", seat=0, game="hokm", players=4)))
        broken.send(pb.RefereeMessage(decision=pb.DecisionRequest(seq=1)))  # no kind, no legal action, no view
        with pytest.raises(StopIteration):
            next(broken._replies)  # the stream ends with no reply
        other = Stream(channel)
        other.send(pb.RefereeMessage(start=pb.MatchStart(match_id="m-2", seat=1, game="hokm", players=4)))
        view = pb.HokmView(seat=1, players=4, kind="TRUMP", hand=["AS", "KS", "QS", "2H", "3D"])
        suits = [pb.Action(suit=s) for s in "SHDC"]
        assert other.ask(pb.DecisionRequest(seq=1, kind="TRUMP", legal=suits, hokm=view)).seq == 1
        assert process.poll() is None


# -- real matches: waraq match launches the copy --------------------------------------------------


@dataclass
class Run:
    returncode: int
    output: str
    matches: list[dict[str, Any]]  # per record: its path, events and the seats the kit held


def _waraq_match(kit: Path, records: Path, *args: str) -> Run:
    done = subprocess.run(
        [str(WARAQ), "match", *args, "--record", str(records)],
        cwd=kit,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "WARAQ_DEAL_KEY": DEAL_KEY},
    )
    matches = []
    for path in sorted(records.glob("*.jsonl")):
        record = read_record(path)
        assert record.complete, f"{path}: {record.problem}"
        seats = {s["seat"] for s in record.header["seats"] if s["bot"] == NAME}
        matches.append({"path": path, "events": record.events, "kit_seats": seats})
    return Run(done.returncode, done.stdout + done.stderr, matches)


# name: (the seats the kit holds, its matches, waraq match's options)
RUNS = {
    "hokm 4 players": ({0, 2}, 1, ["--bots", BOT_COMMAND, "random"]),
    # Under DEAL_KEY, seeds 1 and 2 ask the kit's seat BAM (both) and REDEAL (seed 2).
    "hokm 2 players, every kind": (
        {0},
        2,
        ["--bots", BOT_COMMAND, "random", "--rules", "every-kind.toml", "--games", "2", "--concurrency", "2"],
    ),
    "hand 4 players": ({0, 2}, 1, ["--game", "hand", "--bots", BOT_COMMAND, "random"]),
    "hand 2 players": ({0}, 1, ["--game", "hand", "--bots", BOT_COMMAND, "random", "--rules", "two"]),
}


@pytest.fixture(scope="module")
def runs(kit: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Run]:
    return {name: _waraq_match(kit, tmp_path_factory.mktemp("records"), *args) for name, (_, _, args) in RUNS.items()}


def _decisions(match: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for e in match["events"] if e["type"] == "decision" and e["seat"] in match["kit_seats"]]


@pytest.mark.parametrize("name", list(RUNS))
def test_each_match_ends_by_score_without_a_fault(runs: dict[str, Run], name: str) -> None:
    seats, games, _ = RUNS[name]
    run = runs[name]
    assert run.returncode == 0, run.output
    assert len(run.matches) == games, run.output
    for match in run.matches:
        events = match["events"]
        assert match["kit_seats"] == seats, f"{match['path']}: the kit's Hello did not name its seats"
        assert events[-1]["type"] == "result" and events[-1]["reason"] == "score", f"{match['path']}: {events[-1]}"
        assert [e for e in events if e["type"] == "fault"] == []
        mine = _decisions(match)
        assert mine, f"{match['path']}: the kit decided nothing"
        for decision in mine:  # its own reason every time: the strategy never threw nor chose an illegal action
            assert decision.get("note") and not decision["note"].startswith("fallback"), decision


def _kinds(run: Run) -> set[str]:
    return {e["kind"] for match in run.matches for e in _decisions(match)}


def test_every_kind_toml_asks_the_copy_every_hokm_kind(runs: dict[str, Run]) -> None:
    assert _kinds(runs["hokm 4 players"]) == {"TRUMP", "PLAY"}
    # seed-dependent (REDEAL needs a hakem's five without A, K, Q or J): after an engine change, pick another DEAL_KEY
    assert _kinds(runs["hokm 2 players, every kind"]) == HOKM_KINDS


@pytest.mark.parametrize("name", ["hand 4 players", "hand 2 players"])
def test_the_copy_takes_and_turns_and_lays_melds_in_hand(runs: dict[str, Run], name: str) -> None:
    assert _kinds(runs[name]) == HAND_KINDS
    steps = [
        step
        for match in runs[name].matches
        for e in _decisions(match)
        if e["kind"] == "TURN"
        for step in e["action"]["steps"]
    ]
    assert any("meld" in step for step in steps), f"{name}: the kit never laid a meld"

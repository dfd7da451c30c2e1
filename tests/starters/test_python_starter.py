"""The Python starter kit (sample_bots/starters/python) works copied out of the repository.

A bot author copies the kit's folder, generates its stubs and runs ``bot.py``
with grpcio alone; so does this module. The kit is copied to a tmp folder, its
``generate.sh`` run there, and ``bot.py`` played by real ``waraq match`` runs
(launched, sandboxed where the machine can, over gRPC) from an interpreter that
cannot import the repository's ``waraq`` at all: a virtual environment in the
copy, started with ``-I``, whose only third-party packages are this venv's,
reached through a path line in a ``.pth`` file. The editable install of
``waraq`` lives in a ``.pth`` of that folder too, but ``site`` reads the
``.pth`` files of site folders only, so it never runs there:
:func:`test_the_kit_interpreter_cannot_import_the_referee` checks that, so a
match won there is a match the kit played on its own.
"""

from __future__ import annotations

import ast
import os
import queue
import shutil
import signal
import subprocess
import sys
import sysconfig
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tests.support import ROOT
from waraq.referee.records.record_file import read_record
from waraq.v1 import bot_pb2 as pb
from waraq.v1 import bot_pb2_grpc

KIT = ROOT / "sample_bots" / "starters" / "python"
PROTO = ROOT / "protocol" / "waraq" / "v1" / "bot.proto"
STUBS = ("waraq/v1/bot_pb2.py", "waraq/v1/bot_pb2_grpc.py", "waraq/v1/bot_pb2.pyi")
WARAQ = Path(sys.executable).with_name("waraq")  # the referee's command, beside this venv's python
BOT_COMMAND = ".venv/bin/python -I bot.py --port {port}"  # run from the kit's copy
NAME = "python-starter"  # what its Hello says (README.md: "python-starter bot serving ...")
# A fixed deal key, so each run deals the same decks and the kinds below are asked every time.
DEAL_KEY = "5a" * 32
HOKM_KINDS = {"TRUMP", "PLAY", "DISCARD", "DRAW", "REDEAL", "BAM"}
HAND_KINDS = {"TAKE", "TURN"}


# -- the kit, copied and generated -------------------------------------------------------


def _copy_kit(into: Path) -> Path:
    """The kit as an author copies it: its own files only (no stubs, venv or caches made in place)."""
    kit = into / "python-starter"
    shutil.copytree(KIT, kit, ignore=shutil.ignore_patterns("waraq", ".venv", "__pycache__"))
    return kit


def _isolated_venv(kit: Path) -> Path:
    """A venv in the kit whose third-party packages are this venv's, without running its .pth files."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(kit / ".venv")], check=True)
    python = kit / ".venv" / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    (Path(site) / "referee-venv-packages.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return python


def _generate(kit: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(kit / "generate.sh"), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **env},
    )


@pytest.fixture(scope="module")
def kit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The kit copied outside the repository, with its venv made and its stubs generated there."""
    kit = _copy_kit(tmp_path_factory.mktemp("kit"))
    _isolated_venv(kit)
    made = _generate(kit, str(PROTO))  # generate.sh finds the kit's .venv/bin/python by itself
    assert made.returncode == 0, made.stderr
    return kit


# -- the kit on its own ----------------------------------------------------------------


def test_generate_writes_the_stubs_from_the_proto_given_or_copied_in(kit: Path, tmp_path: Path) -> None:
    for stub in STUBS:
        assert (kit / stub).is_file(), f"generate.sh made no {stub}"
    # The same stubs from a bot.proto copied into a second copy, generated with no argument.
    other = _copy_kit(tmp_path)
    shutil.copy(PROTO, other / "bot.proto")
    made = _generate(other, PYTHON=sys.executable)
    assert made.returncode == 0, made.stderr
    for stub in STUBS:
        assert (other / stub).read_bytes() == (kit / stub).read_bytes(), stub


def test_generate_without_a_proto_says_where_it_looked(tmp_path: Path) -> None:
    lone = _copy_kit(tmp_path)  # outside the repository, no bot.proto beside it
    made = _generate(lone, PYTHON=sys.executable)
    assert made.returncode == 2
    assert "no bot.proto at" in made.stderr and "give its path" in made.stderr
    assert not (lone / "waraq").exists()


def _imports(path: Path) -> Iterator[tuple[str, str]]:
    """(module, name) for each name a file imports; name is "" for a plain ``import module``."""
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            yield from ((alias.name, "") for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path.name}: a relative import"
            yield from ((node.module or "", alias.name) for alias in node.names)


def test_bot_imports_only_the_standard_library_grpc_and_its_own_stubs(kit: Path) -> None:
    allowed = {"grpc", "grpc_health", "google"}  # google.protobuf, in the generated stubs
    stubs = {("waraq.v1", "bot_pb2"), ("waraq.v1", "bot_pb2_grpc")}
    for source in ("bot.py", "waraq/v1/bot_pb2.py", "waraq/v1/bot_pb2_grpc.py"):
        for module, name in _imports(kit / source):
            top = module.split(".")[0]
            if top == "waraq":
                assert (module, name) in stubs, f"{source} imports {module} {name} of the repository"
            else:
                assert top in sys.stdlib_module_names or top in allowed, f"{source} imports {module}"
    assert {(m, n) for m, n in _imports(kit / "bot.py") if m.startswith("waraq")} == stubs


def test_the_kit_interpreter_cannot_import_the_referee(kit: Path) -> None:
    python = str(kit / ".venv" / "bin" / "python")
    missing = subprocess.run([python, "-I", "-c", "import waraq.referee"], capture_output=True, text=True)
    assert missing.returncode == 1
    assert "No module named 'waraq'" in missing.stderr
    # ... while what the kit needs is there: the runtimes, and grpc_tools for generate.sh.
    found = subprocess.run([python, "-I", "-c", "import grpc, grpc_health.v1.health, grpc_tools.protoc"])
    assert found.returncode == 0


def test_bot_loads_its_own_stubs_even_where_waraq_is_installed(kit: Path) -> None:
    # This venv has the referee's waraq (an editable install): bot.py must still take its own.
    script = (
        "import runpy, sys; runpy.run_path(sys.argv[1], run_name='starter');"
        "print(sys.modules['waraq.v1.bot_pb2'].__file__); print(sys.modules['waraq.v1.bot_pb2_grpc'].__file__)"
    )
    loaded = subprocess.run(
        [sys.executable, "-I", "-c", script, str(kit / "bot.py")], capture_output=True, text=True, check=True
    )
    assert loaded.stdout.split() == [str(kit / "waraq" / "v1" / name) for name in ("bot_pb2.py", "bot_pb2_grpc.py")]


# -- the kit served by hand: Hello, health, a stream, SIGTERM -------------------------------


@dataclass
class Served:
    process: subprocess.Popen[str]
    channel: grpc.Channel


@pytest.fixture
def served(kit: Path, tmp_path: Path) -> Iterator[Served]:
    socket = tmp_path / "bot.sock"
    process = subprocess.Popen(
        [str(kit / ".venv" / "bin" / "python"), "-I", "bot.py", "--unix", str(socket)],
        cwd=kit,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert process.stdout is not None
    hung = threading.Timer(30, process.kill)  # a bot that never says it listens fails, not hangs
    hung.start()
    line = process.stdout.readline()  # printed once it listens
    hung.cancel()
    assert line.strip() == f"{NAME} bot serving waraq.v1.Bot on unix:{socket}", line
    channel = grpc.insecure_channel(f"unix:{socket}")
    try:
        yield Served(process, channel)
    finally:
        channel.close()
        if process.poll() is None:
            process.kill()
        process.wait(timeout=10)
        process.stdout.close()


class Stream:
    """One Play call, written a message at a time, read a reply at a time."""

    def __init__(self, channel: grpc.Channel) -> None:
        self._out: queue.Queue[pb.RefereeMessage | None] = queue.Queue()
        self._replies = bot_pb2_grpc.BotStub(channel).Play(iter(self._out.get, None), timeout=30)

    def ask(self, request: pb.DecisionRequest) -> pb.DecisionReply:
        self._out.put(pb.RefereeMessage(decision=request))
        return next(self._replies).reply

    def start(self, match_id: str, seat: int, game: str) -> Stream:
        self._out.put(pb.RefereeMessage(start=pb.MatchStart(match_id=match_id, seat=seat, game=game, players=4)))
        return self

    def close(self) -> None:
        self._out.put(None)


def _trump(seq: int) -> pb.DecisionRequest:
    return pb.DecisionRequest(seq=seq, kind="TRUMP", legal=[pb.Action(suit=s) for s in "SHDC"])


def test_hello_and_health_say_what_the_kit_plays(served: Served) -> None:
    health = health_pb2_grpc.HealthStub(served.channel).Check(health_pb2.HealthCheckRequest(service=""), timeout=5)
    assert health.status == health_pb2.HealthCheckResponse.SERVING
    hello = bot_pb2_grpc.BotStub(served.channel).Hello(pb.HelloRequest(protocol_version=1, referee="waraq"), timeout=5)
    assert hello.name == NAME and hello.protocol_version == 1
    assert {g.game: list(g.players) for g in hello.games} == {"hokm": [2, 3, 4], "hand": [2, 3, 4]}


def test_replies_echo_seq_and_repeat_for_the_same_match_and_seat(served: Served) -> None:
    first = Stream(served.channel).start("m-7", 1, "hokm")
    again = Stream(served.channel).start("m-7", 1, "hokm")  # open at once: state is per stream
    answers = []
    for stream in (first, again):
        replies = [stream.ask(_trump(seq)) for seq in (1, 2, 3, 4, 5)]
        assert [r.seq for r in replies] == [1, 2, 3, 4, 5]
        assert all(r.action.WhichOneof("action") == "suit" and r.action.suit in "SHDC" for r in replies)
        assert all(r.note for r in replies)
        answers.append([r.action.suit for r in replies])
        stream.close()
    assert answers[0] == answers[1]


def test_a_turn_never_discards_the_card_taken(served: Served) -> None:
    stream = Stream(served.channel).start("m-1", 0, "hand")
    for seq in range(1, 11):  # ten draws of its rng: each must leave the taken 7H#0 alone
        view = pb.HandView(seat=0, players=2, kind="TURN", hand=["7H#0", "JK#1"], took="7H#0")
        reply = stream.ask(pb.DecisionRequest(seq=seq, kind="TURN", hand=view))
        assert reply.seq == seq
        assert reply.action.WhichOneof("action") == "turn"
        assert list(reply.action.turn.steps) == [] and reply.action.turn.discard == "JK#1"
    stream.close()


def test_sigterm_stops_it_within_two_seconds_even_mid_match(served: Served) -> None:
    stream = Stream(served.channel).start("m-2", 3, "hokm")
    assert stream.ask(_trump(1)).seq == 1  # a stream open and waiting, as in a match
    began = time.monotonic()
    served.process.send_signal(signal.SIGTERM)
    assert served.process.wait(timeout=5) == 0
    assert time.monotonic() - began < 2.0


# -- real matches: waraq match launches the copy -----------------------------------------


@dataclass
class Run:
    returncode: int
    output: str
    records: list[dict[str, Any]]  # per match: {"events": [...], "kit_seats": {...}}


def _start_match(kit: Path, records: Path, *args: str) -> tuple[subprocess.Popen[str], Path]:
    process = subprocess.Popen(
        [str(WARAQ), "match", *args, "--record", str(records)],
        cwd=kit,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "WARAQ_DEAL_KEY": DEAL_KEY},
    )
    return process, records


def _finish(process: subprocess.Popen[str], records: Path) -> Run:
    output, _ = process.communicate(timeout=300)
    matches = []
    for path in sorted(records.glob("*.jsonl")):
        record = read_record(path)
        assert record.complete, f"{path}: {record.problem}"
        seats = {s["seat"] for s in record.header["seats"] if s["bot"] == NAME}
        matches.append({"path": path, "events": record.events, "kit_seats": seats})
    return Run(process.returncode, output, matches)


# name: (the seats the kit holds, waraq match's options)
RUNS = {
    "hokm 4 players": ({0, 2}, ["--bots", BOT_COMMAND, "random"]),
    "hokm 3 players": ({0, 2}, ["--bots", BOT_COMMAND, "random", BOT_COMMAND, "--rules", "three"]),
    # Seeds 6 and 7 under DEAL_KEY: the kit's seat is asked REDEAL (seed 6) and BAM (seed 7).
    "hokm 2 players, every kind": (
        {0},
        ["--bots", BOT_COMMAND, "random", "--rules", "every-kind.toml", "--seed", "6", "--games", "2"],
    ),
    "hand 2 players": ({0}, ["--game", "hand", "--bots", BOT_COMMAND, "random", "--rules", "two"]),
    "hand partners": ({0, 2}, ["--game", "hand", "--bots", BOT_COMMAND, "heuristic", "--rules", "partners"]),
}


@pytest.fixture(scope="module")
def runs(kit: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Run]:
    # All at once: each run mostly waits on its bots' round trips, and together they take half the time.
    started = {name: _start_match(kit, tmp_path_factory.mktemp("records"), *args) for name, (_, args) in RUNS.items()}
    return {name: _finish(*run) for name, run in started.items()}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(RUNS))
def test_each_match_ends_by_score_without_a_fault(runs: dict[str, Run], name: str) -> None:
    run = runs[name]
    assert run.returncode == 0, run.output
    assert run.records, f"no record: {run.output}"
    for match in run.records:
        events = match["events"]
        assert match["kit_seats"] == RUNS[name][0], f"{match['path']}: the kit's Hello named no seat"
        assert events[-1]["reason"] == "score", f"{match['path']}: {events[-1]}"
        assert [e for e in events if e["type"] == "fault"] == []
        mine = [e for e in events if e["type"] == "decision" and e["seat"] in match["kit_seats"]]
        assert mine, f"{match['path']}: the kit decided nothing"
        for decision in mine:
            assert decision.get("note"), f"a decision without a note: {decision}"


def _kinds_decided(run: Run) -> set[str]:
    return {
        e["kind"]
        for match in run.records
        for e in match["events"]
        if e["type"] == "decision" and e["seat"] in match["kit_seats"]
    }


def test_the_kit_answers_every_hokm_kind(runs: dict[str, Run]) -> None:
    asked = set().union(*(_kinds_decided(run) for name, run in runs.items() if name.startswith("hokm")))
    assert asked == HOKM_KINDS  # seed-dependent: after an engine change, pick other seeds or DEAL_KEY


def test_the_kit_takes_the_stock_and_lays_no_melds_in_hand(runs: dict[str, Run]) -> None:
    for name in ("hand 2 players", "hand partners"):
        for match in runs[name].records:
            mine = [e for e in match["events"] if e["type"] == "decision" and e["seat"] in match["kit_seats"]]
            assert {e["kind"] for e in mine} == HAND_KINDS
            for event in mine:  # README.md's strategy: the stock always, and a turn that only discards
                if event["kind"] == "TAKE":
                    assert event["action"] == "stock"
                else:
                    assert event["action"]["steps"] == [] and event["action"]["discard"]

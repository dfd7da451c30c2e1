"""The Go starter kit (sample_bots/starters/go) as its README tells a bot author to use it.

Its folder is copied out of the repository and built there with its own
build.sh, given only the path of the ``.proto``: so nothing else of the
checkout is needed. The binary then plays real ``waraq match`` runs (the
command, as a process) against the built-in random bot: Hokm for 4, 3 and 2
players, and the kit's every-kind.toml (2 players, ``max_redeals = 3``,
``bam = true``), where the starter is asked every decision kind there is. Each
record is read back: no fault, and every decision of the starter's seats is
its README's answer with a note.

Go itself is the one thing whose absence skips these tests (CI installs it
from Debian: .ci/run); any other missing package fails the build, whose
message names what to install.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from tests.support import kit_matches
from tests.support.go_starter import KIT, NAME, PROTO, VERSION, decisions_with_views, starter_answer
from tests.support.kit_matches import Case, Played, play, play_all, starter_seats
from waraq.referee.games.hokm import engine as hokm
from waraq.referee.games.hokm.rules import load_rules
from waraq.v1 import bot_pb2, bot_pb2_grpc

pytestmark = pytest.mark.system("go")  # the kit is built with Go and Debian's gRPC for Go

# Seed-dependent: with kit_matches.DEAL_KEY each seed deals the same decks on every run, and
# each was checked to ask the starter these kinds; if one fails after an engine change, pick
# another seed. A starter's seat asked REDEAL needs no face card in its five, and BAM needs
# its side's 7 tricks to none: 2 players see both often.
ALL_KINDS = frozenset(hokm.KINDS)
CASES = {
    "four": Case("classic", ("random",), 1, frozenset({"TRUMP", "PLAY"})),
    "three": Case("three", ("random", "random"), 1, frozenset({"TRUMP", "PLAY"})),
    "two": Case("two", ("random",), 1, frozenset({"TRUMP", "PLAY", "DISCARD", "DRAW"})),
    "every-kind": Case("every-kind.toml", ("random",), 10, ALL_KINDS),
}


@pytest.fixture(scope="module")
def binary(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The kit's folder copied out of the repository, built there by its build.sh."""
    if shutil.which("go") is None:  # marked system("go"): a run without it stops before this, saying so
        pytest.fail("Go is not installed: the Go starter needs Debian's golang-go and its README's packages")
    kit = tmp_path_factory.mktemp("kit") / "mybot"
    shutil.copytree(KIT, kit, ignore=shutil.ignore_patterns("bin"))
    build = subprocess.run(
        [str(kit / "build.sh"), "--proto", str(PROTO)], capture_output=True, text=True, timeout=600, cwd=kit
    )
    assert build.returncode == 0, f"build.sh failed (exit {build.returncode}):\n{build.stderr}"
    built = kit / "bin" / "bot"
    assert built.is_file() and os.access(built, os.X_OK), build.stdout
    return built


@pytest.fixture(scope="module")
def matches(binary: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Played]:
    """Every case's `waraq match`, run at once."""
    return play_all(binary, CASES, tmp_path_factory.mktemp("go-starter-matches"))


@pytest.fixture(params=list(CASES))
def played(request: pytest.FixtureRequest, matches: dict[str, Played]) -> Played:
    return matches[request.param]


def test_the_match_ends_without_a_fault(played: Played) -> None:
    kit_matches.check_the_match_ends_without_a_fault(played, NAME, VERSION)


def test_the_starter_is_asked_every_kind_the_rules_bring(played: Played) -> None:
    kit_matches.check_the_starter_is_asked_every_kind_the_rules_bring(played, NAME)


def test_every_starter_decision_is_its_readmes_answer_with_a_note(played: Played) -> None:
    seats = starter_seats(played, NAME)
    for event, view in decisions_with_views(played.rules, played.events):
        if event["seat"] in seats:
            where = f"round {event['round']} seat {event['seat']}: {event}"
            assert event["action"] == starter_answer(view), where
            assert 0 < len(event.get("note", "").encode()) <= 1024, where


def test_every_kind_toml_turns_on_redeals_and_bam_for_two_players() -> None:
    rules = load_rules(KIT / "every-kind.toml")
    assert (rules.players, rules.max_redeals, rules.bam) == (2, 3, True)


def test_the_kit_copied_without_a_proto_refuses_to_build_and_says_where_to_find_one(tmp_path: Path) -> None:
    kit = tmp_path / "mybot"
    shutil.copytree(KIT, kit, ignore=shutil.ignore_patterns("bin"))
    build = subprocess.run([str(kit / "build.sh")], capture_output=True, text=True, timeout=60, cwd=kit)
    assert build.returncode == 1
    assert "no bot.proto" in build.stderr and "--proto FILE" in build.stderr, build.stderr
    assert not (kit / "bin" / "bot").exists()


# Slips a bot author may make in choose, put at its top in a copy of the kit: a panic, an
# action that is not legal, a note of 1,200 bytes (the referee takes 1,024), and a legal DISCARD
# with its two cards the other way round.
SLIPS = """\
	if decision.Kind == "TRUMP" {
		panic("a slip")
	}
	if decision.Kind == "PLAY" && len(decision.GetHokm().Trick) == 0 {
		return &pb.Action{Action: &pb.Action_Card{Card: "XX"}}, "leads a card nobody holds"
	}
	if decision.Kind == "PLAY" {
		return decision.Legal[0], strings.Repeat("é", 600)
	}
	if decision.Kind == "DISCARD" {
		pair := decision.Legal[0].GetDiscard().Cards
		return &pb.Action{Action: &pb.Action_Discard{Discard: &pb.Cards{Cards: []string{pair[1], pair[0]}}}}, "reversed"
	}
"""
CHOOSE = "func choose(decision *pb.DecisionRequest) (*pb.Action, string) {\n"


def test_a_slip_in_choose_costs_a_decision_not_the_match(binary: Path, tmp_path: Path) -> None:
    kit = tmp_path / "slips"
    shutil.copytree(KIT, kit, ignore=shutil.ignore_patterns("bin"))
    source = (kit / "main.go").read_text()
    assert source.count(CHOOSE) == 1
    (kit / "main.go").write_text(source.replace(CHOOSE, CHOOSE + SLIPS))
    # The .proto given as the one argument, as docs/first-bot.md does (the fixture above says --proto).
    build = subprocess.run([str(kit / "build.sh"), str(PROTO)], capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stderr

    played = play(kit / "bin" / "bot", Case("two", ("random",), 1, frozenset()), tmp_path / "match")
    assert played.run.returncode == 0, played.run.stderr
    assert [e for e in played.events if e["type"] == "fault"] == []
    seen = Counter()
    for event, view in decisions_with_views(played.rules, played.events):
        if event["seat"] != 0:
            continue
        note, legal = event.get("note", ""), view["legal"]
        if event["kind"] == "TRUMP":
            assert (event["action"], note) == (legal[0], "fallback: choose panicked: a slip"), event
        elif event["kind"] == "PLAY" and not view["trick"]:
            assert event["action"] == legal[0], event
            assert note == f"fallback: choose answered XX, which is not one of the {len(legal)} legal", event
        elif event["kind"] == "PLAY":
            assert note == "é" * 512, event  # cut to 1,024 bytes on a character's boundary: no fault
        elif event["kind"] == "DISCARD":
            assert note == "reversed" and sorted(event["action"]) == sorted(legal[0]), event
        seen[event["kind"]] += 1
    assert {"TRUMP", "PLAY", "DISCARD"} <= seen.keys(), seen
    # Each fallback is a line in the bot's log (one of the run's logs); a panic's with its stack.
    text = "".join(log.read_text() for log in (tmp_path / "match" / "records" / "logs").glob("*.log"))
    assert "choose panicked: a slip" in text and "main.choose(" in text
    assert "choose answered XX, which is not one of the" in text


def _serve(binary: Path) -> tuple[subprocess.Popen[str], int]:
    bot = subprocess.Popen([str(binary), "--port", "0"], stdout=subprocess.PIPE, text=True)
    assert bot.stdout is not None
    line = bot.stdout.readline()  # "go-starter bot serving waraq.v1.Bot on port N"
    assert line.startswith(f"{NAME} bot serving"), line
    return bot, int(line.split()[-1])


def test_hello_says_hokm_for_two_to_four_players_in_protocol_1(binary: Path) -> None:
    bot, port = _serve(binary)
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            reply = bot_pb2_grpc.BotStub(channel).Hello(bot_pb2.HelloRequest(protocol_version=1), timeout=10)
    finally:
        bot.terminate()
        bot.wait(10)
    assert (reply.name, reply.version, reply.protocol_version) == (NAME, VERSION, 1)
    assert [(g.game, list(g.players)) for g in reply.games] == [("hokm", [2, 3, 4])]


def test_sigterm_ends_the_bot_promptly_even_with_a_match_open(binary: Path) -> None:
    bot, port = _serve(binary)
    finished = threading.Event()

    def messages() -> Iterator[bot_pb2.RefereeMessage]:
        # A Play stream held open (never half-closed), as a referee killed mid-match leaves it.
        yield bot_pb2.RefereeMessage(start=bot_pb2.MatchStart(match_id="m-1", game="hokm", seat=0, players=4))
        finished.wait(30)

    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        stream = bot_pb2_grpc.BotStub(channel).Play(messages(), timeout=30)
        grpc.channel_ready_future(channel).result(timeout=10)
        time.sleep(0.5)  # the start message reaches the bot
        began = time.monotonic()
        bot.send_signal(signal.SIGTERM)
        returncode = bot.wait(10)
        took = time.monotonic() - began
        finished.set()
        stream.cancel()
    # The referee sends SIGKILL 3 s after SIGTERM (docs/protocol.md "#### Stopping").
    assert returncode == 0 and took < 3, f"exit {returncode} after {took:.1f} s"

"""Re-asking a record's decisions of a bot over gRPC, exactly as its seats received them.

The bots are real gRPC servers in the test's event loop (port 0), reached as
addresses, or a built-in bot the command launches. ``random`` and
``heuristic`` are deterministic given the match id and seat: a record of
``random`` re-asked of ``random`` must agree on every decision, and re-asked
of ``heuristic`` must differ exactly where ``heuristic``, shown the same view,
chooses another action.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest
from google.protobuf import json_format

from tests.support.hostile_bots import AT, ByteFaultBot
from tests.support.replay_records import played, render, waraq
from waraq.bots.hokm_heuristic import HeuristicPlayer
from waraq.bots.server import PlayerBot, builtin_players, start_server
from waraq.referee.games.hokm.engine import action_to_json
from waraq.referee.launch.bots import BotSpec, Endpoint
from waraq.referee.replay.reask import RecordAnswers, reask_all
from waraq.referee.replay.render_hand import hand_text
from waraq.referee.replay.render_hokm import ReaskRecord, ReaskSummary
from waraq.referee.replay.walk import load, request_json
from waraq.v1 import bot_pb2 as pb


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    return played(tmp_path_factory)


def reask(name: str, replays, seats=None, servicer=None):
    """Serve the built-in bot ``name`` (or ``servicer``) on port 0 and re-ask it the replays' decisions."""

    async def go():
        server, port = await start_server(servicer or PlayerBot(name, builtin_players()[name]), "127.0.0.1:0")
        endpoint = Endpoint(BotSpec.parse(f"127.0.0.1:{port}"), startup_ms=10_000)
        try:
            await endpoint.start()
            assert endpoint.failure is None
            return await reask_all(endpoint, replays, seats)
        finally:
            await endpoint.stop()
            await server.stop(None)

    return asyncio.run(go())


# -- the requests are the ones the seats received -----------------------------------


@pytest.mark.parametrize("name", ["faults", "forfeit", "timeout"])
def test_rebuilt_requests_are_the_ones_each_seat_received(records, name):
    """The scripted bot kept every request; the rebuilt ones equal them field for field.

    "faults" has an ILLEGAL (substituted, its overrun charged) and a MALFORMED
    (not charged) reply and a 5 ms deadline, so seq numbering and the time bank
    must be rebuilt across faults and overruns; the bank to within the record's
    0.001 ms rounding of each ``ms`` (a seat overran at most 40 times here).
    "timeout" has a seat lost to a reply that never came: the match ends on it.
    """
    replay = load(records.records(name)[0])
    assert replay.ok
    sent = [step for step in replay.steps if step.sent]
    for step in sent:
        received = records.received[(replay.match_id, step.seat)][step.seq - 1]
        rebuilt = replay.request(step)
        assert rebuilt.bank_ms == pytest.approx(received.bank_ms, abs=0.04)
        rebuilt.bank_ms = received.bank_ms
        assert rebuilt == received, f"decision {step.number}"
    assert len(sent) == sum(len(v) for (m, _), v in records.received.items() if m == replay.match_id)
    if name == "faults":
        assert min(step.bank_ms for step in replay.steps) < 20_000  # overruns were charged
    if name == "timeout":
        assert sent == replay.steps  # the loss forfeits at once: no request goes unsent
        last = replay.steps[-1]
        assert (last.seat, last.seq, last.fault["kind"], last.action) == (0, 3, "TIMEOUT", None)
        assert replay.result["reason"] == "forfeit" and replay.result["faulty"] == [0]


def test_a_lost_seat_played_for_as_records_once_had_it_marks_its_later_requests_not_sent(records):
    """Before a lost seat forfeited at once, substitute played for it: the record holds its
    later questions, each faulted at once and substituted, and the seat was never sent them."""
    replay = load(records.records("lost_before")[0])
    assert replay.ok, replay.problem
    mine = [(s.seq, s.fault["kind"] if s.fault else None, s.sent) for s in replay.steps if s.seat == 0]
    asked = [(1, None, True), (2, None, True), (3, "TIMEOUT", True)]
    assert mine == asked + [(4, "TIMEOUT", False), (5, "TIMEOUT", False)]
    assert replay.steps[-1].action is None and replay.result["faulty"] == [0]


def test_the_json_lines_are_the_requests_in_protobuf_json(records):
    path = records.records("faults")[0]
    run = waraq("replay", str(path), "--json", "--seat", "2")
    assert run.returncode == 0, run.stderr
    replay = load(path)
    received = records.received[(replay.match_id, 2)]
    lines = run.stdout.splitlines()
    assert len(lines) == len(received)
    for line, request in zip(lines, received, strict=True):
        parsed = json_format.Parse(line, pb.DecisionRequest())
        parsed.bank_ms = request.bank_ms
        assert parsed == request
    assert request_json(received[0])["hokm"]["seat"] == 2  # zeros and all fields are spelled out
    assert '"seq":1,' in lines[0]


# -- agreeing and differing ---------------------------------------------------------------


def test_re_asking_the_same_deterministic_bot_agrees_on_every_decision(records):
    replays = [load(p) for p in records.records("clean")]
    results = reask("random", replays)
    for result in results:
        assert result.seats == [0, 1, 2, 3]  # every seat was played by "random"
        assert result.asked == len(result.replay.steps) > 50
        assert result.agreed == result.asked and result.all_agree and not result.differences


def test_re_asking_another_bot_finds_exactly_where_it_decides_differently(records):
    replay = load(records.records("clean")[0])
    [result] = reask("heuristic", [replay], seats=[0, 2])
    # What heuristic would answer, asked directly in-process with each view it is sent.
    expected = []
    for step in replay.steps:
        if step.seat in (0, 2):
            choice = HeuristicPlayer(f"{replay.match_id}/{step.seat}")(step.view)
            if action_to_json(step.kind, choice) != step.action_json:
                expected.append((step.number, step.action_json, action_to_json(step.kind, choice)))
    found = [(d.step.number, d.logged.plain, d.new.plain) for d in result.differences]
    assert found == [(n, _plain(logged), _plain(new)) for n, logged, new in expected]
    assert result.asked == sum(1 for s in replay.steps if s.seat in (0, 2))
    assert result.agreed == result.asked - len(expected) and 0 < len(expected) < result.asked
    assert not result.all_agree


def test_a_bot_that_loses_its_stream_is_asked_nothing_more_on_it(records):
    # A reply over the 64 KiB limit loses the stream, as a timeout does: the seat's later decisions
    # are not asked (each would fault at once, "seat already lost") and are one problem, not differences.
    replay = load(records.records("clean")[0])
    [result] = reask("random", [replay], seats=[1], servicer=ByteFaultBot("oversize"))  # random until its 3rd
    mine = replay.steps_of(1)
    assert (result.asked, result.agreed) == (len(mine), AT - 1)
    found = [(d.step.number, d.new.plain.split(":")[0]) for d in result.differences]
    assert found == [(mine[AT - 1].number, "MALFORMED")]
    left = len(mine) - AT
    assert result.unasked == left
    assert result.problems == [
        f"s1: the bot stopped answering at decision {mine[AT - 1].number} (MALFORMED); {left} later decisions not asked"
    ]


def _plain(action) -> str:
    return " ".join(action) if isinstance(action, list) else str(action)


def test_the_default_seats_are_those_the_bot_of_that_name_played(records):
    replay = load(records.records("two")[0])  # random at seat 0, heuristic at seat 1
    [result] = reask("heuristic", [replay])
    assert result.seats == [1] and result.all_agree and result.asked == len(replay.steps_of(1))
    [result] = reask("heuristic", [load(records.records("faults")[0])])
    assert result.skipped.startswith("no seat was played by a bot named 'heuristic'") and result.asked == 0


def test_a_logged_fault_differs_from_a_legal_answer(records):
    replay = load(records.records("faults")[0])
    [result] = reask("random", [replay], seats=[1, 2])
    faulted = {d.step.number: d for d in result.differences if d.step.fault}
    illegal = next(s for s in replay.steps if s.fault and s.fault["kind"] == "ILLEGAL")
    malformed = next(s for s in replay.steps if s.fault and s.fault["kind"] == "MALFORMED")
    assert set(faulted) == {illegal.number, malformed.number}
    assert faulted[illegal.number].logged.plain.startswith("ILLEGAL: seat 2 played")


def test_the_differences_table_shows_the_hand_and_both_answers(records):
    replay = load(records.records("clean")[0])
    [result] = reask("heuristic", [replay], seats=[0])
    text = render(ReaskRecord(result, "heuristic"))
    first = result.differences[0].step
    assert text.startswith("Where heuristic decides differently")
    row = next(line for line in text.splitlines() if line.split()[:1] == [str(first.number)]).split()
    where = [f"{first.round}/{first.trick}"] if first.trick else [str(first.round), first.kind]
    assert row[1 : 2 + len(where)] == [*where, "s0"]
    assert row[-2:] == [result.differences[0].logged.plain, result.differences[0].new.plain]
    said = f"{replay.path} (s0): heuristic agrees on {result.agreed} of {result.asked} decisions"
    assert re.search(re.escape(said) + r" \(\d+ %\)$", " ".join(text.split())), text


@pytest.mark.parametrize(
    ("agreed", "asked", "unasked", "said"),
    [
        (275, 276, 0, "random agrees on 275 of 276 decisions (99 %)"),  # down, never up to 100
        (276, 276, 0, "random agrees on 276 of 276 decisions (100 %)"),
        (1, 276, 0, "random agrees on 1 of 276 decisions (0 %)"),
        (3, 58, 55, "random agrees on 3 of 58 decisions (5 %), 55 not asked"),
        (0, 58, 58, "random was not asked (58 decisions could not be put to it)"),
    ],
)
def test_the_agreement_line_rounds_down_and_says_what_was_not_asked(agreed, asked, unasked, said):
    result = RecordAnswers(None, Path("r.jsonl"), seats=[1], asked=asked, agreed=agreed, unasked=unasked)
    assert render(ReaskRecord(result, "random")).strip() == f"r.jsonl (s1): {said}"
    assert render(ReaskSummary([result], "random")).strip() == f"{said} in 1 record"


# -- the command, as a CI job would run it ------------------------------------------------------


def test_the_command_exits_0_when_the_bot_agrees_on_a_whole_folder(records):
    run = waraq("replay", str(records.root / "clean"), "--ask", "random")
    assert run.returncode == 0, run.stdout + run.stderr
    decisions = sum(len(load(p).steps) for p in records.records("clean"))
    assert run.stdout.splitlines()[-1] == f"random agrees on {decisions} of {decisions} decisions (100 %) in 2 records"


def test_the_command_exits_1_when_the_bot_decides_differently(records):
    run = waraq("replay", str(records.records("clean")[0]), "--ask", "heuristic", "--seat", "3")
    assert run.returncode == 1, run.stderr
    assert "Where heuristic decides differently" in run.stdout and "Traceback" not in run.stderr


def test_the_command_exits_2_when_the_bot_cannot_start(records):
    run = waraq("replay", str(records.records("clean")[0]), "--ask", "false {port}", "--startup-ms", "3000")
    assert run.returncode == 2
    assert "could not be made ready" in run.stderr and "Traceback" not in run.stderr


def test_an_illegal_reply_is_recorded_with_the_time_its_bank_was_charged(tmp_path, monkeypatch):
    """Replay rebuilds every bank from the record's ``ms``: an illegal reply's must be the time the
    referee charged, measured when the reply came, not when the engine turned it down after."""
    import itertools
    import types

    from waraq.referee.games.hokm.rules import PRESETS
    from waraq.referee.match import play as match_module
    from waraq.referee.match.play import MatchConfig, TimeControl, run_match
    from waraq.referee.match.seats import Answer
    from waraq.referee.records.record_file import RecordWriter

    ticks = itertools.count(0.0, 0.015)  # every reading of the clock is 15 ms after the last
    monkeypatch.setattr(match_module, "time", types.SimpleNamespace(perf_counter=lambda: next(ticks)))

    class Scripted:
        """Plays the first legal action, but answers its second question with a card it does not hold."""

        bot, version = "scripted", ""

        def __init__(self) -> None:
            self.banks: list[float] = []

        async def open(self, start):
            pass

        async def finish(self, end):
            pass

        async def ask(self, question):
            self.banks.append(question.bank_ms)
            view = question.view
            if len(self.banks) == 2:
                return Answer(next(c for c in range(52) if c not in view.hand))
            return Answer(view.legal[0])

    seats = [Scripted() for _ in range(4)]
    config = MatchConfig(
        PRESETS["classic"], 7, "m-test", TimeControl(decision_ms=10, bank_ms=60_000), policy="substitute"
    )
    path = tmp_path / "m.jsonl"
    with RecordWriter(path) as record:
        outcome = asyncio.run(run_match(config, seats, record))
    assert [f.kind for f in outcome.faults] == ["ILLEGAL"] * 4
    replay = load(path)
    assert replay.ok
    for seat, scripted in enumerate(seats):
        rebuilt = [step.bank_ms for step in replay.steps if step.seat == seat]
        # Each reply overran by 5 ms; the record rounds each ms to 0.001.
        assert rebuilt == pytest.approx(scripted.banks, abs=0.001 * len(rebuilt))


def test_re_asking_a_hand_record_shows_each_difference_with_the_seats_hand_as_hand_cards(tmp_path):
    # Re-asking reads records of any game: its table once read every hand as a Hokm hand, and failed.
    played_hand = waraq("match", "--game", "hand", "--rules", "short", "--bots", "random", "random",
                        "--record", str(tmp_path / "rec"))  # fmt: skip
    assert played_hand.returncode == 0, played_hand.stdout + played_hand.stderr
    replay = load(tmp_path / "rec" / "hand-1.jsonl")
    [result] = reask("heuristic", [replay], seats=[0])
    assert result.differences and not result.problems
    text = render(ReaskRecord(result, "heuristic"), width=200)
    first = result.differences[0].step
    held = hand_text(first.hand).plain
    assert held.split("  ")[0] in text and first.kind in text
    assert f"heuristic agrees on {result.agreed} of {result.asked} decisions" in " ".join(text.split())

"""Replay tells a recorded fault by its ``code``, never by its words; records before codes still replay.

The records are played by the real referee: over gRPC (tests/support/replay_records.py:
an illegal and a malformed reply with overruns charged, an illegal reply that
forfeits, a reply that never comes) and in-process under a clock that ticks
15 ms at each reading, so that every bank and fault follows by hand:

* deadline 10 ms, bank 12 ms, every reply 15 ms (5 ms over): each seat is
  told banks of 12, 7, 2, then its third reply cannot be paid (5 > 2):
  ``bank_spent``, the bank 0, and every later reply is ``bank_spent`` too.
  Under ``substitute`` with ``max_faults`` 3 the first seat to fault three
  times forfeits (a round lasts 7 tricks at least, so every seat gets that far).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import types
from pathlib import Path
from typing import Any

import pytest

from tests.support.replay_records import played, without_codes
from waraq.referee.games.hokm.rules import HokmRules
from waraq.referee.match import play as match_module
from waraq.referee.match.faults import Fault, FaultCode
from waraq.referee.match.play import MatchConfig, TimeControl, run_match
from waraq.referee.match.seats import Answer, Question
from waraq.referee.records.record_file import RecordWriter
from waraq.referee.replay.verify import verify_record
from waraq.referee.replay.walk import Replay, code_before_codes, load

RULES = HokmRules(target_score=1)


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    return played(tmp_path_factory)


class Scripted:
    """Plays its first legal action and keeps the bank each question told it."""

    version = ""

    def __init__(self, bot: str = "scripted", opening: Fault | None = None) -> None:
        self.bot = bot
        self.banks: list[float] = []
        self.opening = opening

    async def open(self, start: Any) -> None:
        if self.opening is not None:
            raise self.opening

    async def ask(self, question: Question) -> Answer:
        self.banks.append(question.bank_ms)
        return Answer(question.view.legal[0])

    async def finish(self, end: Any) -> None:
        return None


@pytest.fixture
def spent(tmp_path, monkeypatch) -> tuple[Path, list[Scripted]]:
    """The in-process match of the module docstring, and its seats."""
    ticks = itertools.count(0.0, 0.015)  # each reading of the clock is 15 ms after the one before
    monkeypatch.setattr(match_module, "time", types.SimpleNamespace(perf_counter=lambda: next(ticks)))
    seats = [Scripted() for _ in range(4)]
    config = MatchConfig(RULES, 3, "m-spent", TimeControl(decision_ms=10, bank_ms=12), "substitute", max_faults=3)
    path = tmp_path / "spent.jsonl"
    with RecordWriter(path) as record:
        asyncio.run(run_match(config, seats, record))
    return path, seats


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def rewrite(path: Path, out: Path, change) -> Path:
    """``path``'s record with ``change`` applied to each fault line."""
    events = lines(path)
    for event in events:
        if event["type"] == "fault":
            change(event)
    out.write_text("".join(json.dumps(e, separators=(",", ":"), ensure_ascii=False) + "\n" for e in events))
    return out


def walked(replay: Replay) -> list[tuple]:
    """What replay rebuilt of each question: the seat, its seq, its bank, whether it was sent, its fault."""
    return [
        (s.seat, s.seq, s.bank_ms, s.sent, s.fault["kind"] if s.fault else None, s.action_json) for s in replay.steps
    ]


def test_a_spent_bank_is_coded_and_replay_rebuilds_every_bank_from_the_record(spent):
    path, seats = spent
    faults = [e for e in lines(path) if e["type"] == "fault"]
    assert {(f["kind"], f["code"]) for f in faults} == {("TIMEOUT", "bank_spent")}
    assert all(f["detail"] == "replied after 15 ms and its time bank is spent" for f in faults)
    last = faults[-1]
    assert sum(f["seat"] == last["seat"] for f in faults) == 3 and "substituted" not in last
    for seat, scripted in enumerate(seats):
        mine = scripted.banks
        assert mine[:3] == pytest.approx([12, 7, 2]) and all(b == 0 for b in mine[3:]), (seat, mine)
    replay = load(path)
    assert replay.ok, replay.problem
    for seat, scripted in enumerate(seats):
        rebuilt = [s.bank_ms for s in replay.steps if s.seat == seat]
        assert rebuilt == pytest.approx(scripted.banks)
        codes = [s.fault["code"] if s.fault else None for s in replay.steps if s.seat == seat]
        assert codes[:2] == [None, None] and set(codes[2:]) <= {"bank_spent"}


@pytest.mark.parametrize("name", ["faults", "forfeit", "timeout"])
def test_reworded_details_change_nothing_replay_rebuilds(records, name, tmp_path):
    path = records.records(name)[0]
    reworded = rewrite(path, tmp_path / "reworded.jsonl", lambda fault: fault.update(detail="in other words"))
    assert walked(load(reworded)) == walked(load(path))
    assert verify_record(reworded).ok


def test_a_spent_bank_reworded_still_empties_the_bank(spent, tmp_path):
    path, _ = spent
    reworded = rewrite(path, tmp_path / "reworded.jsonl", lambda fault: fault.update(detail="late"))
    assert walked(load(reworded)) == walked(load(path))


@pytest.mark.parametrize("name", ["faults", "forfeit", "timeout"])
def test_a_record_written_before_codes_replays_as_the_same_record_with_them(records, name, tmp_path):
    path = records.records(name)[0]
    old = tmp_path / "old.jsonl"
    old.write_text(without_codes(path.read_text()))
    assert '"code"' in path.read_text() and '"code"' not in old.read_text()
    assert walked(load(old)) == walked(load(path))
    assert verify_record(old).ok


def test_a_spent_bank_in_a_record_before_codes_is_read_from_its_words(spent, tmp_path):
    path, _ = spent
    old = tmp_path / "old.jsonl"
    old.write_text(without_codes(path.read_text()))
    assert walked(load(old)) == walked(load(path))


@pytest.mark.parametrize(
    "fault",
    [
        Fault(FaultCode.OPEN_FAILED, "could not open the Play stream: UNAVAILABLE: failed to connect"),
        Fault(FaultCode.OPEN_TIMED_OUT, "could not open the Play stream: the bot took no MatchStart within 600 ms"),
        Fault(FaultCode.GAME_NOT_DECLARED, "its Hello declares games hand [4]; this match is hokm with 4 players"),
    ],
    ids=lambda fault: str(fault.code),
)
def test_a_fault_at_opening_is_no_question_with_its_code_and_without(fault, tmp_path):
    seats = [Scripted(), Scripted("cannot-open", fault), Scripted(), Scripted()]
    path = tmp_path / "opening.jsonl"
    with RecordWriter(path) as record:
        asyncio.run(run_match(MatchConfig(RULES, 5, "m-opening", TimeControl()), seats, record))
    events = lines(path)
    assert [e["type"] for e in events[-2:]] == ["fault", "result"] and events[-2]["code"] == fault.code
    old = tmp_path / "old.jsonl"
    old.write_text(without_codes(path.read_text()))
    reworded = rewrite(path, tmp_path / "reworded.jsonl", lambda event: event.update(detail="it did not open"))
    for variant in (path, old, reworded):
        replay = load(variant)
        assert replay.ok, (variant.name, replay.problem)
        assert replay.steps == [] and replay.result["faulty"] == [1], variant.name


def test_a_code_this_waraq_does_not_know_leaves_the_record_readable(spent, tmp_path):
    path, _ = spent
    later = rewrite(path, tmp_path / "later.jsonl", lambda fault: fault.update(code="a_code_of_a_later_referee"))
    replay = load(later)
    assert replay.ok, replay.problem
    assert len(replay.steps) == len(load(path).steps)


OLD_WORDS = [  # (kind, detail) as referees before codes wrote them, and the code replay reads
    ("TIMEOUT", "seat already lost: no reply within 250 ms (deadline + bank)", FaultCode.SEAT_ALREADY_LOST),
    ("CRASH", "seat already lost: the stream broke: UNAVAILABLE: Socket closed", FaultCode.SEAT_ALREADY_LOST),
    ("TIMEOUT", "could not open the Play stream: the bot took no MatchStart within 600 ms", FaultCode.OPEN_TIMED_OUT),
    ("CRASH", "could not open the Play stream: UNAVAILABLE: failed to connect", FaultCode.OPEN_FAILED),
    ("TIMEOUT", "replied after 512 ms and its time bank is spent", FaultCode.BANK_SPENT),
    ("TIMEOUT", "no reply within 600 ms (deadline + bank)", FaultCode.NO_REPLY),
    ("CRASH", "the bot closed the stream before replying", FaultCode.STREAM_BROKEN),
    ("ILLEGAL", "seat 0 played '6S' but does not hold it: holds 4S, 9S", None),
    ("MALFORMED", "reply carries seq 1003, the question was seq 3 (a late or extra reply)", None),
    ("STARTUP", "random was not ready within 1500 ms", None),
]


@pytest.mark.parametrize(("kind", "detail", "code"), OLD_WORDS)
def test_the_legacy_reading_tells_apart_what_replay_needs_from_the_old_words(kind, detail, code):
    assert code_before_codes(kind, detail) is code

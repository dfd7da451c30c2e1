"""A bug of the referee aborts its match with one result line, written by one function, for any caller.

``waraq match`` (referee/run/runner.py) and ``waraq ladder run``
(ladder/play/scheduler.py) both end such a match with
``play.abort_on_referee_error``: the record's last line is the abort of
docs/records.md "#### Reasons", the bots are charged with nothing, and the
bug is shown on stderr. The bug here is a seat that raises what is no Fault,
which the seat contract (``seats.Seat``) leaves to the referee.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from tests.support.ladders import make
from waraq.ladder.play import folder
from waraq.ladder.play.ledger import Target
from waraq.ladder.play.scheduler import RunState, Scheduler
from waraq.ladder.storage.store import Planned
from waraq.referee.games.hokm.rules import HokmRules
from waraq.referee.launch.bots import BotSpec
from waraq.referee.match.play import referee_error_result
from waraq.referee.match.seats import Answer, Question
from waraq.referee.replay.verify import verify_record
from waraq.referee.run import runner

RULES = HokmRules(target_score=1)
ABORT = {  # docs/records.md: score [], winners [], reason "aborted", the error in detail
    "type": "result",
    "score": [],
    "winners": [],
    "reason": "aborted",
    "detail": "referee error: RuntimeError: a bug in the referee",
}


class Buggy:
    """A seat that plays its first legal action, and at its second question fails as no seat may."""

    bot, version = "buggy", ""

    def __init__(self) -> None:
        self.asked = 0

    async def open(self, start: Any) -> None:
        return None

    async def ask(self, question: Question) -> Answer:
        self.asked += 1
        if self.asked == 2:
            raise RuntimeError("a bug in the referee")
        return Answer(question.view.legal[0])

    async def finish(self, end: Any) -> None:
        return None


class Handing:
    """Stands in for a started bot (an Endpoint): hands out the seat it was given."""

    def __init__(self, seat: Any) -> None:
        self._seat = seat

    def seat(self) -> Any:
        return self._seat


def last_line(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text().splitlines()[-1])


def test_the_abort_line_is_the_documented_one():
    assert referee_error_result(RuntimeError("a bug in the referee")) == ABORT
    assert referee_error_result(KeyError("seat"))["detail"] == "referee error: KeyError: 'seat'"


def test_waraq_match_aborts_the_match_and_writes_the_abort(tmp_path, capsys):
    config = runner.RunConfig(rules=RULES, bots=[BotSpec.parse("random")] * 4, seed=7, record_dir=tmp_path)
    record = tmp_path / runner.record_name(7)
    outcome = asyncio.run(runner._one_match(config, 7, [Handing(Buggy()) for _ in range(4)]))
    assert (outcome.reason, outcome.winners, outcome.score, outcome.faults) == ("aborted", (), (), [])
    assert outcome.record == str(record)
    assert last_line(record) == ABORT
    assert not any(json.loads(line)["type"] == "fault" for line in record.read_text().splitlines())
    assert verify_record(record).ok  # a referee's abort is a complete record
    assert "RuntimeError: a bug in the referee" in capsys.readouterr().err


def test_waraq_ladder_run_aborts_the_match_and_writes_the_same_abort(tmp_path, capsys):
    path = make(tmp_path / "ladder", {"a": "random", "b": "random"}, rules=HokmRules.from_dict({"preset": "two"}))
    with folder.open_ladder(path) as ladder:
        scheduler = Scheduler(ladder.folder, ladder.config, ladder.store, RunState(Target(1), 1))
        a, b = (entry.id for entry in ladder.store.entries())
        planned = Planned(1, 0, 0, 0, 3, (a, b), "records/ladder-000001.jsonl")
        with ladder.store.transaction():
            ladder.store.plan([planned])
        for key in scheduler._slots(planned):
            # A stand-in endpoint that hands out the buggy seat: not an Endpoint, but all the scheduler asks of one.
            scheduler.endpoints[key] = Handing(Buggy())  # type: ignore[assignment]
        outcome = asyncio.run(scheduler.play(planned))
    assert (outcome.reason, outcome.winners, outcome.score, outcome.faults, outcome.decisions) == (
        "aborted",
        (),
        (),
        (),
        0,
    )
    assert last_line(path / planned.record) == ABORT
    assert "RuntimeError: a bug in the referee" in capsys.readouterr().err

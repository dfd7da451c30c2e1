"""When the match runner writes a decision's record: while the next question is with its bot.

docs/records.md asks for a record written as the match is played, so that a crash
loses nothing already played. The runner writes a decision's events once the
next question is on its way (``Question.on_sent``), and a seat that never
says so gets the same record, only a question later.
"""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import Any

import pytest

from waraq.bots.hokm_random import RandomPlayer
from waraq.referee.games.hokm.rules import HokmRules
from waraq.referee.match.inprocess import play_match
from waraq.referee.match.play import MatchConfig, MatchOutcome, run_match
from waraq.referee.match.seats import Answer, InProcessSeat, Question
from waraq.referee.records.record_file import RecordWriter, read_record

RULES = HokmRules.from_dict({"target_score": 2, "max_redeals": 1, "bam": True})
SEED = 11
TIMES = ("ms", "bot_ms", "started")


def without_times(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in e.items() if k not in TIMES} for e in events]


class ForgetfulSeat:
    """An in-process seat that never calls ``on_sent``, as a third-party seat might not."""

    def __init__(self, inner: InProcessSeat) -> None:
        self.inner, self.bot, self.version, self.via = inner, inner.bot, inner.version, inner.via

    async def open(self, start: Any) -> None:
        await self.inner.open(start)

    async def ask(self, question: Question) -> Answer:
        return await self.inner.ask(dataclasses.replace(question, on_sent=None))

    async def finish(self, end: Any) -> None:
        await self.inner.finish(end)


def play(path: Path, *, forgetful: bool) -> tuple[MatchOutcome, list[int]]:
    """A recorded match between random players; how many decisions the record held at each question."""
    on_disk: list[int] = []

    def player(match: str, seat: int) -> Any:
        random_player = RandomPlayer(f"{match}/{seat}")

        def decide(view: Any) -> Any:
            on_disk.append(sum(e["type"] == "decision" for e in read_record(path).events))
            return random_player(view)

        return decide

    seats: list[Any] = [InProcessSeat(player, "random") for _ in range(RULES.players)]
    if forgetful:
        seats = [ForgetfulSeat(seat) for seat in seats]
    with RecordWriter(path) as record:
        outcome = asyncio.run(run_match(MatchConfig(RULES, SEED, "m-test"), seats, record))
    return outcome, on_disk


def test_each_decision_is_on_disk_when_the_next_question_reaches_its_bot(tmp_path):
    outcome, on_disk = play(tmp_path / "r.jsonl", forgetful=False)
    assert outcome.reason in ("score", "bam")
    assert on_disk == list(range(outcome.decisions))


def test_a_seat_that_never_says_its_question_was_sent_gets_the_same_record(tmp_path):
    outcome, on_disk = play(tmp_path / "told.jsonl", forgetful=False)
    late, late_on_disk = play(tmp_path / "untold.jsonl", forgetful=True)
    told, untold = read_record(tmp_path / "told.jsonl"), read_record(tmp_path / "untold.jsonl")
    assert told.complete and untold.complete
    assert late.decisions == outcome.decisions
    assert without_times(untold.events) == without_times(told.events)
    # Every decision still carries its own time, and the record is the engine's own events.
    decisions = [e for e in untold.events if e["type"] == "decision"]
    assert len(decisions) == late.decisions and all(isinstance(e["ms"], float) for e in decisions)
    players = [RandomPlayer(f"m-test/{seat}") for seat in range(RULES.players)]
    assert without_times(untold.events)[1:] == play_match(RULES, SEED, players).events
    # Only a question later: the decision before the last is always on disk.
    assert late_on_disk == [0] + list(range(late.decisions - 1))


class FailingSeat(ForgetfulSeat):
    """A seat whose ``ask`` fails, at its ``fail_at``-th question, with an error that is
    no bot's fault: a bug of the referee's own. It passes ``on_sent`` on, and counts
    every answer of the match."""

    answered = 0

    def __init__(self, inner: InProcessSeat, fail_at: int = 0) -> None:
        super().__init__(inner)
        self.asked, self.fail_at = 0, fail_at

    async def ask(self, question: Question) -> Answer:
        self.asked += 1
        if self.asked == self.fail_at:
            raise RuntimeError("a referee bug")
        answer = await self.inner.ask(question)
        FailingSeat.answered += 1
        return answer


def test_a_match_the_referee_fails_keeps_every_decision_taken_before_in_its_record(tmp_path):
    def random_players(match, seat):
        return RandomPlayer(f"{match}/{seat}")

    seats = [FailingSeat(InProcessSeat(random_players, "random"), fail_at=5 if s == 2 else 0) for s in range(4)]
    FailingSeat.answered = 0
    path = tmp_path / "r.jsonl"
    with RecordWriter(path) as record, pytest.raises(RuntimeError, match="a referee bug"):
        asyncio.run(run_match(MatchConfig(RULES, SEED, "m-test"), seats, record))
    decisions = [e for e in read_record(path).events if e["type"] == "decision"]
    assert FailingSeat.answered > 16 and len(decisions) == FailingSeat.answered  # the last one too
    assert all("ms" in e for e in decisions)
    players = [RandomPlayer(f"m-test/{seat}") for seat in range(RULES.players)]
    played = [e for e in play_match(RULES, SEED, players).events if e["type"] == "decision"]
    assert without_times(decisions) == played[: len(decisions)]

"""Whole matches over real gRPC: bot servers on port 0, launched bot processes, records."""

from __future__ import annotations

import asyncio
import gzip
import os

import grpc
import pytest

from tests.support.servers import FAST, match_against_servers
from waraq.bots.hokm_random import RandomPlayer
from waraq.referee.games.hokm.engine import replay
from waraq.referee.games.hokm.rules import PRESETS
from waraq.referee.launch.bots import BotSpec
from waraq.referee.match.faults import Fault, FaultCode, FaultKind
from waraq.referee.match.inprocess import play_match
from waraq.referee.match.play import MatchConfig, run_match
from waraq.referee.match.seats import InProcessSeat, RemoteSeat
from waraq.referee.records.record_file import RecordWriter, read_record
from waraq.referee.run.runner import RunConfig, run
from waraq.v1 import bot_pb2 as pb


@pytest.mark.parametrize("preset", ["classic", "three", "two"])
def test_a_match_over_grpc_ends_by_score_and_its_record_replays(preset, tmp_path):
    rules = PRESETS[preset].replace(target_score=3)
    path = tmp_path / "match.jsonl"
    names = ["heuristic" if seat % 2 else "random" for seat in range(rules.players)]
    outcome = asyncio.run(match_against_servers(rules, 5, "t-5", names, path))
    assert outcome.reason == "score" and not outcome.faults
    record = read_record(path)
    assert record.complete and record.problem is None
    header = record.header
    assert header["format"] == "waraq.record.v1" and header["rules_hash"] == rules.rules_hash
    assert [s["seat"] for s in header["seats"]] == list(range(rules.players))
    decisions = [e for e in record.events if e["type"] == "decision"]
    assert decisions and all(e["ms"] >= 0 for e in decisions)
    # The record alone gives the same match: every engine line and the result.
    state = replay(rules, record.events)
    assert state.result.winners == outcome.winners
    assert list(state.result.score) == record.events[-1]["score"]


def test_the_runner_launches_each_bot_once_per_seat_and_stops_it(tmp_path):
    config = RunConfig(
        rules=PRESETS["classic"].replace(target_score=2),
        bots=[BotSpec.parse("random"), BotSpec.parse("heuristic")] * 2,
        games=3,
        seed=10,
        concurrency=2,
        time_control=FAST,
        record_dir=tmp_path,
        gzip=True,
    )
    report = asyncio.run(run(config))
    assert [o.seed for o in report.outcomes] == [10, 11, 12]
    assert all(o.reason == "score" for o in report.outcomes)
    # One process per seat: partners served by one process would be sent each other's hands.
    assert sorted(b.name for b in report.bots) == ["heuristic", "heuristic", "random", "random"]
    assert len({b.pid for b in report.bots}) == 4
    for outcome in report.outcomes:
        with gzip.open(outcome.record, "rt") as file:
            assert file.readline().startswith('{"type":"match"')
        record = read_record(outcome.record)
        assert record.complete
        assert replay(config.rules, record.events).result.winners == outcome.winners
    for bot in report.bots:  # stopped: nothing of its process group is left
        assert bot.pid is not None and bot.process is None
        with pytest.raises(ProcessLookupError):
            os.killpg(bot.pid, 0)


def test_a_seat_on_a_closed_channel_is_a_crash_fault_not_an_exception():
    async def open_on_closed_channel():
        channel = grpc.aio.insecure_channel("127.0.0.1:1")
        await channel.close()
        seat = RemoteSeat(channel, "gone", "")
        with pytest.raises(Fault) as raised:
            await seat.open(pb.MatchStart(match_id="m"))
        return raised.value

    fault = asyncio.run(open_on_closed_channel())
    assert (fault.code, fault.kind, fault.lost) == (FaultCode.OPEN_FAILED, FaultKind.CRASH, True)
    assert "closed" in fault.detail


def test_in_process_seats_play_the_same_match_as_play_match(tmp_path):
    # The third kind of seat: Python callables behind the same runner, faults and record.
    rules = PRESETS["classic"].replace(target_score=2)
    seats = [InProcessSeat(lambda match, seat: RandomPlayer(f"{match}/{seat}"), "random") for _ in range(4)]
    path = tmp_path / "inprocess.jsonl"
    with RecordWriter(path) as record:
        outcome = asyncio.run(run_match(MatchConfig(rules, 9, "ip-9", FAST), seats, record))
    expected = play_match(rules, 9, [RandomPlayer(f"ip-9/{s}") for s in range(4)])
    assert outcome.reason == "score" and outcome.winners == expected.result.winners
    engine_lines = [
        {k: e[k] for k in ("type", "round", "seat", "kind", "action") if k in e}
        for e in read_record(path).events
        if e["type"] == "decision"
    ]
    assert engine_lines == [e for e in expected.events if e["type"] == "decision"]

"""The referee against misbehaving bots: typed faults, the two policies, and nothing left running.

Each misbehaving bot is a real process (``tests/bots/misbehaving.py``) that the
runner launches, plays like the random bot, and misbehaves at a chosen
decision of its seat. The other seats are a random bot served in the test's
event loop. Every run plays two or more matches, so the tests also see the
referee go on after each misbehaviour.

Hand-worked expectations used throughout: the matches are 4-player Hokm to
1 point, and the misbehaving bot sits at seat 1, team {1, 3}. A forfeit in
round 1 therefore has score 0-0 (a round ends only after 7 tricks, and each
misbehaviour here triggers within seat 1's first few plays) and winners 0 and 2.
"""

from __future__ import annotations

import asyncio
import json
import re
import shlex
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.support import TEST_BOTS
from waraq.bots.hokm_random import RandomPlayer
from waraq.bots.server import PlayerBot, builtin_players, start_server
from waraq.referee.games.cards import CARD_NAMES, SUIT_NAMES
from waraq.referee.games.hokm.engine import action_from_json, iter_replay, replay
from waraq.referee.games.hokm.rules import HokmRules
from waraq.referee.launch import sandbox
from waraq.referee.launch.bots import BotSpec
from waraq.referee.match.inprocess import play_match
from waraq.referee.match.play import TimeControl
from waraq.referee.records.record_file import Record, read_record
from waraq.referee.run.runner import RunConfig, RunReport, match_id, run

BOT = TEST_BOTS / "misbehaving.py"
RULES = HokmRules(target_score=1)
TC = TimeControl(decision_ms=1000, bank_ms=1000, startup_ms=10_000)  # room for a loaded machine
QUICK_STARTUP = TimeControl(decision_ms=300, bank_ms=300, startup_ms=1_500)  # for bots that never get ready
BAD = 1  # the misbehaving seat
OTHER_SIDE = (0, 2)
TIMING = ("ms", "bot_ms", "note")


# -- helpers ------------------------------------------------------------------


def misbehaving(tmp_path: Path, mode: str, *flags: str) -> BotSpec:
    """The launch command of a misbehaving bot that writes its pids to ``tmp_path / 'bot.pid'``."""
    argv = [sys.executable, str(BOT), mode, *flags, "--pidfile", str(tmp_path / "bot.pid"), "--port", "{port}"]
    return BotSpec.parse(shlex.join(argv))


def play_run(
    tmp_path: Path,
    bad: BotSpec,
    *,
    games: int = 2,
    seed: int = 1,
    policy: str = "forfeit",
    max_faults: int = 3,
    concurrency: int = 1,
    time_control: TimeControl = TC,
) -> tuple[RunReport, list[Record]]:
    """One ``runner.run`` with ``bad`` at seat 1 and random bots elsewhere; its outcomes' records."""

    async def go() -> RunReport:
        server, port = await start_server(PlayerBot("random", builtin_players()["random"]), "127.0.0.1:0")
        random_bot = BotSpec.parse(f"127.0.0.1:{port}")
        bots = [random_bot] * RULES.players
        bots[BAD] = bad
        config = RunConfig(
            rules=RULES,
            bots=bots,
            games=games,
            seed=seed,
            concurrency=concurrency,
            policy=policy,
            max_faults=max_faults,
            time_control=time_control,
            record_dir=tmp_path / "records",
            # Unconfined: the misbehaving bot writes its pids to tmp_path, and these tests check
            # those pids. A sandbox's own containment is tests/launch/test_sandbox.py's.
            confinement=sandbox.Config(mode=sandbox.Isolation.OFF),
        )
        try:
            return await run(config)
        finally:
            await server.stop(None)

    report = asyncio.run(go())
    assert [o.seed for o in report.outcomes] == list(range(seed, seed + games)), "every match has an outcome"
    return report, [read_record(o.record) for o in report.outcomes]


def faults_in(record: Record) -> list[dict[str, Any]]:
    return [e for e in record.events if e["type"] == "fault"]


def decisions_before(record: Record, event: dict[str, Any], seat: int) -> int:
    """How many decisions ``seat`` took before ``event``."""
    index = next(i for i, e in enumerate(record.events) if e is event)
    return sum(1 for e in record.events[:index] if e["type"] == "decision" and e["seat"] == seat)


def state_before(record: Record, event: dict[str, Any]):
    """The engine state just before ``event``, rebuilt from the record's lines before it."""
    index = next(i for i, e in enumerate(record.events) if e is event)
    states = list(iter_replay(RULES, record.events[:index]))  # yielded after each decision
    assert states
    return states[-1]


def engine_lines(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A record's engine events without the referee's times and notes (and without the header)."""
    return [{k: v for k, v in e.items() if k not in TIMING} for e in events if e["type"] not in ("match", "fault")]


def clean_events(seed: int) -> list[dict[str, Any]]:
    """The match the random bots play when nobody misbehaves (seeded as the random bot seeds itself)."""
    players = [RandomPlayer(f"{match_id(seed)}/{seat}") for seat in range(RULES.players)]
    return play_match(RULES, seed, players).events


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return stat.rpartition(")")[2].split()[0] not in ("Z", "X")  # a zombie has ended


def _group(pgid: int) -> list[int]:
    members = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rpartition(")")[2].split()
            except (FileNotFoundError, ProcessLookupError):
                continue
            if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
                members.append(int(entry.name))
    return members


def assert_nothing_left(tmp_path: Path) -> None:
    """The launched bot, its child and its whole process group have ended (after a short grace)."""
    info = json.loads((tmp_path / "bot.pid").read_text())
    deadline = time.monotonic() + 2.0
    while True:
        left = sorted({p for p in (info["pid"], info["child"]) if p and _alive(p)} | set(_group(info["pgid"])))
        if not left:
            return
        if time.monotonic() > deadline:
            pytest.fail(f"bot processes still running after the run: {left} (bot {info})")
        time.sleep(0.05)


def assert_readable(detail: str) -> None:
    """A sentence for a person: not empty, not a traceback or an object's repr."""
    assert len(detail) > 10 and "Traceback" not in detail and " object at 0x" not in detail, detail


def assert_forfeited(outcome, record: Record, kind: str, code: str) -> dict[str, Any]:
    """Seat 1 lost by forfeit with one ``kind`` fault of ``code``; returns the fault event."""
    assert (outcome.reason, outcome.faulty, outcome.winners) == ("forfeit", (BAD,), OTHER_SIDE)
    assert [(f.seat, f.kind, f.code) for f in outcome.faults] == [(BAD, kind, code)]
    assert record.complete
    assert record.events[-1] == {
        "type": "result",
        "score": [0, 0],
        "winners": list(OTHER_SIDE),
        "reason": "forfeit",
        "faulty": [BAD],
    }
    (fault,) = faults_in(record)
    assert (fault["seat"], fault["kind"], fault["code"], fault["round"]) == (BAD, kind, code, 1)
    assert "substituted" not in fault
    assert record.events[-2] is fault, "the fault ends the match: nothing is played after it"
    assert fault["detail"] == outcome.faults[0].detail
    assert_readable(fault["detail"])
    # What was played before the fault is a legal match (the forfeit line is the referee's, not the rules').
    replay(RULES, record.events[:-1])
    return fault


# -- forfeit: every misbehaviour is its typed fault ----------------------------

# (mode and flags, fault kind, seat 1's decisions before the fault in the first match or None if
# it depends on the cards). --at 3 faults at seat 1's 3rd request; `twice` sends its extra reply
# there, and the referee reads it as the answer to the 4th.
MISBEHAVIOURS = {
    "slow": (["slow", "--at", "3", "--child"], "TIMEOUT", 2),
    "exit": (["exit", "--at", "3", "--child"], "CRASH", 2),
    "illegal-unheld": (["illegal", "--how", "unheld", "--at", "3"], "ILLEGAL", 2),
    "illegal-revoke": (["illegal", "--how", "revoke", "--at", "2"], "ILLEGAL", None),
    "wrong_kind": (["wrong_kind", "--at", "3"], "MALFORMED", 2),
    "garbage": (["garbage", "--at", "3"], "MALFORMED", 2),
    "bad_seq": (["bad_seq", "--at", "3"], "MALFORMED", 2),
    "twice": (["twice", "--at", "3"], "MALFORMED", 3),
}
CODES = {  # the code of each misbehaviour's fault (docs/records.md "### Fault codes")
    "slow": "no_reply",
    "exit": "stream_broken",
    "illegal-unheld": "illegal_action",
    "illegal-revoke": "illegal_action",
    "wrong_kind": "bad_action",
    "garbage": "bad_action",
    "bad_seq": "wrong_seq",
    "twice": "wrong_seq",
}
assert CODES.keys() == MISBEHAVIOURS.keys()


def check_detail(name: str, fault: dict[str, Any], record: Record) -> None:
    """The detail names what went wrong, with the values a person needs to see it."""
    detail = fault["detail"]
    if name == "slow":
        assert "2000" in detail  # deadline 1000 ms + bank 1000 ms
    elif name == "illegal-unheld":
        # The bot played the first card of the round's first trick, which left its hand then.
        state = state_before(record, fault)
        assert f"'{CARD_NAMES[state.history[0].cards[0]]}'" in detail
    elif name == "illegal-revoke":
        # The bot played its lowest card off the led suit while holding the led suit.
        state = state_before(record, fault)
        led = state.trick[0] // 13
        card = min(c for c in state.hands[BAD] if c // 13 != led)
        assert f"'{CARD_NAMES[card]}'" in detail and SUIT_NAMES[led] in detail
    elif name == "wrong_kind":
        assert "card" in detail and "suit" in detail  # the field wanted and the one sent
    elif name == "garbage":
        assert "11X" in detail
    elif name == "bad_seq":
        assert re.search(r"\b1003\b", detail) and re.search(r"\b3\b", detail)  # sent seq 3 + 1000 for seq 3
    elif name == "twice":
        assert re.search(r"\b3\b", detail) and re.search(r"\b4\b", detail)  # seq 3's extra reply, read for seq 4


@pytest.mark.parametrize("name", MISBEHAVIOURS)
def test_a_misbehaviour_mid_match_forfeits_each_match_with_its_typed_fault(name, tmp_path):
    argv, kind, before = MISBEHAVIOURS[name]
    report, records = play_run(tmp_path, misbehaving(tmp_path, *argv), games=2)
    for number, (outcome, record) in enumerate(zip(report.outcomes, records, strict=True)):
        if name == "exit" and number == 1:  # the process is gone: the second match faults when it opens the seat
            assert_forfeited(outcome, record, kind, "open_failed")
            continue
        fault = assert_forfeited(outcome, record, kind, CODES[name])
        if before is not None:
            assert decisions_before(record, fault, BAD) == before
        else:
            assert decisions_before(record, fault, BAD) >= 1
        check_detail(name, fault, record)
    # A hung bot, and a bot that died leaving a child, leave nothing behind.
    assert_nothing_left(tmp_path)


@pytest.mark.slow
def test_a_hung_bot_that_ignores_sigterm_is_killed_with_its_whole_group(tmp_path):
    bad = misbehaving(tmp_path, "slow", "--at", "1", "--ignore-term", "--child")
    report, records = play_run(tmp_path, bad, games=1)
    assert_forfeited(report.outcomes[0], records[0], "TIMEOUT", "no_reply")
    assert_nothing_left(tmp_path)


# Bots that never get ready: a STARTUP fault when their seat is opened, in every match of the run.
# A seat that never started cannot be played for, so substitute forfeits it too (our reading); one
# substitute case is enough, the start-up wait is the same under both policies.
NEVER_READY = [
    ("crash_at_start", "forfeit"),
    ("never_healthy", "forfeit"),
    ("never_bind", "forfeit"),
    ("crash_at_start", "substitute"),
]
NEVER_READY_CODES = {"crash_at_start": "exited_at_startup", "never_healthy": "not_ready", "never_bind": "not_ready"}


@pytest.mark.parametrize(("mode", "policy"), NEVER_READY)
def test_a_bot_that_never_gets_ready_forfeits_every_match_with_a_startup_fault(mode, policy, tmp_path):
    # A bot that exits is not waited for: its start-up may take as long as a loaded machine needs.
    clock = replace(QUICK_STARTUP, startup_ms=60_000) if mode == "crash_at_start" else QUICK_STARTUP
    report, records = play_run(tmp_path, misbehaving(tmp_path, mode), policy=policy, time_control=clock)
    for outcome, record in zip(report.outcomes, records, strict=True):
        fault = assert_forfeited(outcome, record, "STARTUP", NEVER_READY_CODES[mode])
        assert decisions_before(record, fault, BAD) == 0
        if mode == "crash_at_start":  # the exit status and the bot's own last words
            assert re.search(r"\b3\b", fault["detail"]) and "crash_at_start" in fault["detail"]
        else:
            assert "1500" in fault["detail"]  # the start-up deadline it missed
    assert_nothing_left(tmp_path)


# -- substitute: the referee plays for the faulty seat ---------------------------

ONE_OFF = ["illegal-unheld", "wrong_kind", "garbage", "bad_seq", "twice"]


def assert_substituted(record: Record, fault: dict[str, Any]) -> None:
    """The substitute is legal where the fault happened and is the decision recorded next."""
    index = next(i for i, e in enumerate(record.events) if e is fault)
    state = state_before(record, fault)
    assert state.to_act == BAD
    assert action_from_json(state.kind, fault["substituted"]) in state.legal_actions()
    following = record.events[index + 1]
    assert following["type"] == "decision"
    assert (following["seat"], following["action"]) == (BAD, fault["substituted"])


@pytest.mark.parametrize("name", ONE_OFF)
def test_one_fault_under_substitute_is_played_for_and_the_match_goes_on(name, tmp_path):
    argv, kind, _ = MISBEHAVIOURS[name]
    report, records = play_run(tmp_path, misbehaving(tmp_path, *argv), policy="substitute")
    for outcome, record in zip(report.outcomes, records, strict=True):
        # One misbehaving reply is one fault: the bot answers every other request correctly.
        (fault,) = faults_in(record)
        assert (fault["seat"], fault["kind"], fault["code"]) == (BAD, kind, CODES[name])
        assert_readable(fault["detail"])
        assert_substituted(record, fault)
        assert [(f.seat, f.kind, f.code) for f in outcome.faults] == [(BAD, kind, CODES[name])]
        assert outcome.reason == "score" and outcome.faulty == ()
        assert record.complete and record.events[-1]["reason"] == "score"
        # The record, substitutes included, is a legal match with the same result.
        assert replay(RULES, record.events).result.winners == outcome.winners


@pytest.mark.parametrize("name", ["slow", "exit"])
def test_a_lost_stream_under_substitute_forfeits_at_once_with_the_one_fault_that_lost_it(name, tmp_path):
    # A timed-out or broken stream cannot answer again. Played for, the seat would fault again at each
    # later question, one cause charged up to max_faults times; it forfeits at once instead, exactly as
    # under forfeit: one fault, nothing substituted, seat 1's 3rd question the last.
    argv, kind, before = MISBEHAVIOURS[name]
    report, records = play_run(tmp_path, misbehaving(tmp_path, *argv), policy="substitute", max_faults=3)
    for number, (outcome, record) in enumerate(zip(report.outcomes, records, strict=True)):
        if name == "exit" and number == 1:  # gone before the match: its stream does not open
            fault = assert_forfeited(outcome, record, "CRASH", "open_failed")
            assert fault["detail"].startswith("could not open the Play stream")
            continue
        fault = assert_forfeited(outcome, record, kind, CODES[name])
        assert decisions_before(record, fault, BAD) == before
    assert_nothing_left(tmp_path)


def test_faults_add_up_and_the_one_that_reaches_max_faults_forfeits(tmp_path):
    # Garbage at seat 1's 2nd, 3rd and 4th requests, on a stream that stays in step: the first two
    # are played for, the third (max_faults = 3) forfeits.
    bad = misbehaving(tmp_path, "garbage", "--at", "2", "--count", "3")
    report, records = play_run(tmp_path, bad, policy="substitute", max_faults=3)
    for outcome, record in zip(report.outcomes, records, strict=True):
        faults = faults_in(record)
        assert [(f["seat"], f["kind"], f["code"]) for f in faults] == [(BAD, "MALFORMED", "bad_action")] * 3
        for fault in faults[:2]:
            assert_substituted(record, fault)
        assert "substituted" not in faults[2] and record.events[-2] is faults[2]
        assert decisions_before(record, faults[2], BAD) == 3  # its own first reply and two substitutes
        assert (outcome.reason, outcome.faulty, outcome.winners) == ("forfeit", (BAD,), OTHER_SIDE)


# -- the rest of the run is not disturbed --------------------------------------


@pytest.mark.slow
def test_a_timeout_in_one_match_leaves_the_runs_other_matches_as_if_nothing_happened(tmp_path):
    # Three matches, two at a time, one bot process for all: it hangs in the match of seed 12 only. The other
    # two must be exactly the matches the random bots play in-process; that one the same match up
    # to the fault.
    bad = misbehaving(tmp_path, "slow", "--at", "3", "--matches", match_id(12))
    report, records = play_run(tmp_path, bad, games=3, seed=11, concurrency=2)
    by_seed = {o.seed: (o, r) for o, r in zip(report.outcomes, records, strict=True)}
    for seed in (11, 13):
        outcome, record = by_seed[seed]
        assert outcome.reason == "score" and not outcome.faults
        assert engine_lines(record.events) == clean_events(seed)
    outcome, record = by_seed[12]
    assert outcome.reason == "forfeit" and outcome.faulty == (BAD,)
    played = engine_lines(record.events)[:-1]  # without the forfeit line
    assert played == clean_events(12)[: len(played)]
    assert_nothing_left(tmp_path)


@pytest.mark.slow
def test_overruns_draw_on_the_bank_and_a_spent_bank_is_a_timeout(tmp_path):
    # Decision 100 ms, bank 1000 ms, the bot takes 500 ms for every decision: its first two replies
    # overrun by about 400 ms each and are paid from the bank (about 200 ms left); the third cannot
    # be paid for (it would need 400). So seat 1 takes exactly two decisions, both past the deadline.
    # The referee waits for the third no longer than the deadline and the bank left (300 ms): no
    # reply came in that time, and the seat is lost (`bank_spent` is a reply that came in the
    # instant the wait ran out: tests/replay/test_fault_codes.py plays it on a clock of its own).
    tc = TimeControl(decision_ms=100, bank_ms=1_000, startup_ms=10_000)
    bad = misbehaving(tmp_path, "slow", "--at", "1", "--count", "1000", "--sleep-s", "0.5")
    report, records = play_run(tmp_path, bad, games=1, time_control=tc)
    (outcome,), (record,) = report.outcomes, records
    fault = assert_forfeited(outcome, record, "TIMEOUT", "no_reply")
    waited = re.fullmatch(r"no reply within (\d+) ms \(deadline \+ bank\)", fault["detail"])
    assert waited and 100 < int(waited[1]) <= 300, fault["detail"]  # the deadline and what the overruns left
    mine = [e for e in record.events if e["type"] == "decision" and e["seat"] == BAD]
    assert len(mine) == 2 and all(e["ms"] >= 500 for e in mine)
    assert decisions_before(record, fault, BAD) == 2

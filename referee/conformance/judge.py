"""Judge every case of a conformance run from its probe and the records of its stages.

A case reads faults by their code (:class:`~waraq.referee.match.faults.FaultCode`):
a question's situation case fails on any fault but a long note, which only
the notes case reads (its action was substituted: no evidence either way);
the timing cases read only time faults; the streams case only the faults of
a broken stream; the compatibility case every fault of its stage but those.
A situation never asked is skipped, saying why.
"""

from __future__ import annotations

import shlex
import statistics
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache, partial
from pathlib import Path

from waraq.referee.conformance import cases as c
from waraq.referee.conformance.cases import Case, Status, Verdict
from waraq.referee.conformance.played import Played, StageResult
from waraq.referee.conformance.situations import Oracle, Situation, situations
from waraq.referee.conformance.startup import Health, Probe
from waraq.referee.games import registry
from waraq.referee.games.registry import Part
from waraq.referee.match.faults import FaultCode
from waraq.referee.match.seats import CLOSE_WAIT_S
from waraq.referee.replay import walk

# What the referee can seat and check, in the order checked: each game's conformance part says.
GAMES = {
    game: registry.part(game, Part.CONFORMANCE).PLAYERS
    for game, entry in registry.GAMES.items()
    if Part.CONFORMANCE in entry.parts
}
TIME_CODES = frozenset({FaultCode.NO_REPLY, FaultCode.BANK_SPENT})
STREAM_CODES = frozenset(
    {
        FaultCode.OPEN_FAILED,
        FaultCode.OPEN_TIMED_OUT,
        FaultCode.STREAM_BROKEN,
        FaultCode.STREAM_CLOSED,
        FaultCode.NOT_A_MESSAGE,
        FaultCode.REPLY_TOO_BIG,
    }
)


@dataclass
class Evidence:
    """What a situation's questions showed: how often it was asked, and its first fault."""

    asked: int = 0
    noted: int = 0  # asked, but faulted for a long note, so its action was substituted: no evidence
    fault: tuple[walk.Step, Played] | None = None


def judge(first: Probe, pairs: list[tuple[str, int]], results: Iterable[StageResult]) -> list[Verdict]:
    verdicts: list[Verdict] = []

    def add(
        case: Case,
        status: Status,
        detail: str,
        where: tuple[walk.Step, Played] | None = None,
        match: Played | None = None,
    ) -> None:
        record = replay = None
        if where is not None:
            step, match = where
            replay = _replay_command(match.record, step)
        elif match is not None:
            replay = f"waraq replay {shlex.quote(str(match.record))}"
        if match is not None:
            record = str(match.record)
        verdicts.append(Verdict(len(verdicts) + 1, case, status, detail, record, replay))

    _judge_startup(first, add)
    results = list(results)
    if first.failure is not None:
        return verdicts
    for result in results:
        for played in result.matches:
            played.replay = walk.load(played.record)
    for game, n in pairs:
        for result in results:
            stage = result.stage
            if stage.game != game or stage.rules.players != n or not stage.situations:
                continue
            _judge_situations(game, n, result, _oracle(game), add)
    reading = {case: r for r in results for case in r.stage.cases}
    for case, judge_one in (
        (c.STREAMS, _judge_streams),
        (c.END, _judge_end),
        (c.TIMING_DEADLINE, partial(_judge_timing, c.TIMING_DEADLINE)),
        (c.TIMING_BANK, partial(_judge_timing, c.TIMING_BANK)),
        (c.COMPAT, _judge_compat),
    ):
        if case.id in reading:
            judge_one(reading[case.id], add)
    if results:
        _judge_notes(results, add)
    _judge_sigterm(first, add)
    return verdicts


Add = Callable[..., None]


def _judge_startup(first: Probe, add: Add) -> None:
    if first.failure is not None:
        add(c.STARTUP_READY, Status.FAIL, f"{first.failure.code}: {first.failure.detail}")
        for case in (c.STARTUP_HEALTH, c.HELLO_NAME, c.HELLO_PROTOCOL, c.HELLO_GAMES):
            add(case, Status.SKIP, "the bot did not start")
        return
    add(c.STARTUP_READY, Status.PASS, f"ready and answered Hello in {first.ready_ms:.0f} ms")
    if first.dialled:
        add(c.STARTUP_HEALTH, Status.SKIP, "a dial-in bot: it serves nothing, and its Hello came with its dial")
    elif first.health is Health.SERVING:
        add(c.STARTUP_HEALTH, Status.PASS, "SERVING")
    elif first.health is Health.ABSENT:
        add(c.STARTUP_HEALTH, Status.SKIP, "no health service: optional, the referee takes an answered Hello for ready")
    else:
        add(c.STARTUP_HEALTH, Status.FAIL, first.health_detail)
    hello = first.hello
    assert hello is not None  # started
    if hello.name:
        add(c.HELLO_NAME, Status.PASS, repr(hello.name) + (f", version {hello.version!r}" if hello.version else ""))
    else:
        add(c.HELLO_NAME, Status.FAIL, "HelloReply.name is empty: the referee names the bot by its command instead")
    if hello.protocol_version == 1:
        add(c.HELLO_PROTOCOL, Status.PASS, "1")
    else:
        add(c.HELLO_PROTOCOL, Status.FAIL, f"protocol_version {hello.protocol_version}: the referee speaks 1")
    said = [(g.game, sorted(g.players)) for g in hello.games]
    unknown = [f"{g} {n}" for g, ns in said for n in ns if g not in GAMES or n not in GAMES[g]]
    if not said or not any(ns for _, ns in said):
        add(c.HELLO_GAMES, Status.FAIL, "no games declared: the referee seats it in no match")
    elif unknown:
        add(c.HELLO_GAMES, Status.FAIL, f"declares what the referee cannot seat: {', '.join(unknown)}")
    else:
        add(c.HELLO_GAMES, Status.PASS, "; ".join(f"{g} {', '.join(map(str, ns))}" for g, ns in said))


@cache
def _oracle(game: str) -> Oracle | None:
    """What the game's situations ask of a view beyond the view (Hand's: the house heuristic's turn)."""
    oracle: Oracle | None = registry.part(game, Part.CONFORMANCE).oracle()
    return oracle


def _bot_steps(result: StageResult) -> Iterable[tuple[walk.Step, Played]]:
    mine = result.stage.seats_of_bot()
    for played in result.matches:
        assert played.replay is not None
        for step in played.replay.steps:
            if step.seat in mine and step.sent:
                yield step, played


def _code(step: walk.Step) -> FaultCode | None:
    if step.fault is None:
        return None
    code = step.fault.get("code")
    return FaultCode(code) if isinstance(code, str) and code in FaultCode._value2member_map_ else None


def _judge_situations(game: str, n: int, result: StageResult, oracle: Oracle | None, add: Add) -> None:
    stage = result.stage
    wanted = {situation: Evidence() for situation in stage.situations}
    ended: tuple[walk.Step, Played] | None = None  # a lost seat's fault, which ended a match
    for step, played in _bot_steps(result):
        found = situations(step.view, oracle)
        code = _code(step)
        for situation in found & set(wanted):
            evidence = wanted[situation]
            if code is FaultCode.NOTE_TOO_LONG:
                evidence.noted += 1  # its action was substituted: no evidence either way (the notes case reads it)
                continue
            evidence.asked += 1
            if code is not None and evidence.fault is None:
                evidence.fault = (step, played)
        if code is not None and code.lost:
            ended = ended or (step, played)
    matches = len(result.matches)
    for situation, evidence in wanted.items():
        case = c.situation_case(game, n, situation)
        if result.failure:
            add(case, Status.FAIL, f"the bot's process for stage {stage.name} did not start: {result.failure}")
        elif evidence.fault is not None:
            step, _ = evidence.fault
            assert step.fault is not None
            add(case, Status.FAIL, f"{step.where}: {step.fault['code']}: {step.fault['detail']}", evidence.fault)
        elif evidence.asked:
            add(case, Status.PASS, f"asked {evidence.asked} time{'s' if evidence.asked != 1 else ''}")
        elif evidence.noted:
            add(case, Status.SKIP, f"asked {evidence.noted} times, each answer faulted for its note (see {c.NOTES.id})")
        elif ended is not None:
            step, _ = ended
            assert step.fault is not None
            add(case, Status.SKIP, f"never asked: its match ended at {step.where} on {step.fault['code']}", ended)
        else:
            add(case, Status.SKIP, f"never arose in {matches} match{'es' if matches != 1 else ''}{_why_not(situation)}")


def _why_not(situation: Situation) -> str:
    if situation in (Situation.TURN_ADD, Situation.TURN_SWAP):
        return ": only a seat that has opened may add or take a joker, and the bot never opened where it could"
    if situation in (Situation.TURN_OPEN, Situation.TURN_OUT):
        return ": the house heuristic found no such turn in the bot's hands"
    return ""


def _faults(result: StageResult, codes: frozenset[FaultCode] | None = None) -> tuple[walk.Step, Played] | None:
    for step, played in _bot_steps(result):
        code = _code(step)
        if code is not None and (codes is None or code in codes):
            return step, played
    return None


def _failed(case: Case, where: tuple[walk.Step, Played], add: Add) -> None:
    step, _ = where
    assert step.fault is not None
    add(case, Status.FAIL, f"{step.where}: {step.fault['code']}: {step.fault['detail']}", where)


def _judge_streams(result: StageResult, add: Add) -> None:
    if result.failure:
        add(c.STREAMS, Status.FAIL, f"the bot's process did not start: {result.failure}")
        return
    broken = _faults(result, STREAM_CODES | TIME_CODES)
    if broken is not None:
        _failed(c.STREAMS, broken, add)
        return
    streams = len(result.stage.seats_of_bot()) * len(result.matches)
    add(c.STREAMS, Status.PASS, f"{len(result.matches)} matches at once: {streams} streams to one process")


def _judge_end(result: StageResult, add: Add) -> None:
    if result.failure:
        add(c.END, Status.SKIP, "the bot's process did not start")
        return
    if result.dialled:
        add(c.END, Status.SKIP, "a dial-in bot: the referee ends its streams after MatchEnd, with OK")
        return
    closes = [(played, ms) for played in result.matches for ms in played.closed_ms]
    lingering = [played for played, ms in closes if ms is None]
    if lingering:
        detail = (
            f"{len(lingering)} of {len(closes)} streams stayed open {CLOSE_WAIT_S:.0f} s after MatchEnd "
            "and the referee's close"
        )
        add(c.END, Status.FAIL, detail, match=lingering[0])
        return
    worst = max(ms for _, ms in closes if ms is not None) if closes else 0.0
    add(c.END, Status.PASS, f"{len(closes)} streams closed cleanly, the slowest {worst:.0f} ms after MatchEnd")


def _judge_timing(case: Case, result: StageResult, add: Add) -> None:
    if result.failure:
        add(case, Status.FAIL, f"the bot's process did not start: {result.failure}")
        return
    late = _faults(result, TIME_CODES)
    if late is not None:
        _failed(case, late, add)
        return
    clock = result.stage.clock
    times = [step.ms for step, _ in _bot_steps(result) if step.ms is not None]
    if not times:
        add(case, Status.SKIP, "no decision was answered")
        return
    over = sum(1 for ms in times if ms > clock.decision_ms)
    add(
        case,
        Status.PASS,
        f"{len(times)} answers, median {statistics.median(times):.1f} ms, slowest {max(times):.0f} ms "
        f"against {clock.decision_ms:.0f} ms a decision and a {clock.bank_ms:g} ms bank; "
        f"{over} over the deadline (paid from the bank)",
    )


def _judge_compat(result: StageResult, add: Add) -> None:
    if result.failure:
        add(c.COMPAT, Status.FAIL, f"the bot's process did not start: {result.failure}")
        return
    wrong = _faults(result, frozenset(FaultCode) - {FaultCode.NOTE_TOO_LONG} - TIME_CODES)
    if wrong is not None:
        _failed(c.COMPAT, wrong, add)
        return
    asked = sum(1 for _ in _bot_steps(result))
    add(c.COMPAT, Status.PASS, f"{asked} requests with an unknown field at every level answered")


def _judge_notes(results: list[StageResult], add: Add) -> None:
    sizes: list[int] = []
    for result in results:
        long = _faults(result, frozenset({FaultCode.NOTE_TOO_LONG}))
        if long is not None:
            _failed(c.NOTES, long, add)
            return
        sizes += [len(step.note.encode()) for step, _ in _bot_steps(result)]
    noted = [size for size in sizes if size]
    if not sizes:
        add(c.NOTES, Status.SKIP, "no decision was answered")
    else:
        longest = f", the longest {max(noted)} bytes" if noted else ""
        add(c.NOTES, Status.PASS, f"notes on {len(noted)} of {len(sizes)} answers{longest}")


def _judge_sigterm(first: Probe, add: Add) -> None:
    if first.failure is not None:
        add(c.SIGTERM, Status.SKIP, "the bot did not start")
    elif first.dialled:
        add(c.SIGTERM, Status.SKIP, "a dial-in bot: check-bot did not launch it, so it does not stop it")
    elif not first.launched:
        add(c.SIGTERM, Status.SKIP, "an address: check-bot did not launch it, so it does not stop it")
    elif first.exited_on_term is None:
        add(c.SIGTERM, Status.SKIP, "the referee could not tell how it ended")
    elif first.exited_on_term:
        add(c.SIGTERM, Status.PASS, f"exited {first.stop_ms:.0f} ms after SIGTERM")
    else:
        add(c.SIGTERM, Status.FAIL, f"still running {first.stop_ms:.0f} ms after SIGTERM: killed")


def _replay_command(path: Path, step: walk.Step) -> str:
    command = f"waraq replay {shlex.quote(str(path))} --seat {step.seat} --round {step.round}"
    return command + (f" --trick {step.trick}" if step.trick else "")

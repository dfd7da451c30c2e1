"""Re-ask a record's decisions of another bot (a new build) and list where it decides differently.

Each seat asked gets a new ``Play`` stream per record, opened with the
record's ``MatchStart`` for that seat, and then every request the seat
received, in order, exactly as it received it (same ``seq``, view, legal
actions, deadline and bank). So a bot that keeps state within a match sees
the same stream again, and a deterministic bot agrees with itself on every
decision. The answer is compared with the seat's logged answer; a logged
fault (the action then was a substitute) agrees only with a fault of the same
kind.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.text import Text

from waraq.referee.games import registry
from waraq.referee.games.dealers import DealError, MissingDeal
from waraq.referee.games.registry import Part
from waraq.referee.launch.bots import Endpoint
from waraq.referee.match.faults import Fault
from waraq.referee.match.seats import Question
from waraq.referee.replay.walk import Replay, Step


@dataclass(frozen=True)
class Difference:
    step: Step
    logged: Text  # the logged answer, or the fault
    logged_note: str
    new: Text  # the new answer (marked when illegal), or its fault
    new_note: str


@dataclass
class RecordAnswers:
    """What re-asking one record found."""

    replay: Replay | None  # dropped by reask_all(keep=False) once reported
    path: Path
    seats: list[int] = field(default_factory=list)
    asked: int = 0  # decisions compared (every request the seats received)
    unasked: int = 0  # of those, the ones never put to the bot: its stream did not open, or was lost
    agreed: int = 0
    differences: list[Difference] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # a bot that stopped answering, a record cut short
    skipped: str | None = None  # why nothing was asked: no seat of this bot in the record
    unusable: str | None = None  # why nothing could be asked: the record cannot be replayed

    @property
    def all_agree(self) -> bool:
        return self.unusable is None and self.asked == self.agreed


def seats_to_ask(replay: Replay, bot_name: str, seats: Sequence[int] | None) -> tuple[list[int], str | None]:
    """The seats given, or every seat the record's bot of this name played; or why none."""
    if seats:
        bad = [s for s in seats if not 0 <= s < replay.players]
        if bad:
            return [], f"no seat {bad[0]} in a {replay.players}-player match"
        return sorted(set(seats)), None
    found = replay.seats_played_by(bot_name)
    if not found:
        played = ", ".join(f"s{s} {name}" for s, name in enumerate(replay.bots))
        return [], f"no seat was played by a bot named {bot_name!r} ({played}); choose one with --seat"
    return found, None


async def reask_record(endpoint: Endpoint, replay: Replay, seats: Sequence[int] | None = None) -> RecordAnswers:
    """Ask ``endpoint``'s bot every logged decision of the seats (see the module docstring)."""
    answers = RecordAnswers(replay, replay.path)
    if replay.rules is None or replay.initial is None:
        answers.unusable = f"{replay.status}: {replay.problem}"
        return answers
    answers.seats, answers.skipped = seats_to_ask(replay, endpoint.name, seats)
    if answers.skipped:
        return answers
    if not replay.ok:
        answers.problems.append(f"record {replay.status}: {replay.problem}; asked the decisions it holds")
    for seat in answers.seats:
        await _ask_seat(endpoint, replay, seat, answers)
    answers.differences.sort(key=lambda d: d.step.number)  # in the order of the match
    return answers


async def reask_all(
    endpoint: Endpoint,
    replays: Iterable[Replay],
    seats: Sequence[int] | None = None,
    on_record: Callable[[RecordAnswers], None] | None = None,
    *,
    keep: bool = True,
) -> list[RecordAnswers]:
    """Re-ask record after record. For a big folder give a generator and ``keep=False``: each
    result's replay and differences are dropped once ``on_record`` has reported them."""
    results = []
    for replay in replays:
        result = await reask_record(endpoint, replay, seats)
        if on_record is not None:
            on_record(result)
        if not keep:
            result.replay, result.differences = None, []
        results.append(result)
    return results


async def _ask_seat(endpoint: Endpoint, replay: Replay, seat: int, answers: RecordAnswers) -> None:
    steps = [s for s in replay.steps_of(seat) if s.sent]
    bot = endpoint.seat()
    try:
        try:
            await bot.open(replay.match_start(seat))
        except Fault as fault:
            answers.problems.append(f"s{seat}: could not open a Play stream: {fault.kind}: {fault.detail}")
            answers.asked += len(steps)
            answers.unasked += len(steps)
            return
        tc = replay.time_control
        for index, step in enumerate(steps):
            question = Question(step.seq, step.view, replay.match_id, float(tc.get("decision_ms", 0)), step.bank_ms)
            answers.asked += 1
            try:
                answer = await bot.ask(question)
            except Fault as fault:
                _compare(answers, step, None, "", fault)
                if fault.lost:  # the stream is gone: nothing more can be asked on it
                    left = len(steps) - index - 1
                    if left:
                        answers.asked += left
                        answers.unasked += left
                        answers.problems.append(
                            f"s{seat}: the bot stopped answering at decision {step.number} ({fault.kind}); "
                            f"{left} later decision{'s' if left != 1 else ''} not asked"
                        )
                    return
                continue
            _compare(answers, step, answer.action, answer.note, None)
    finally:
        await bot.finish(replay.match_end())


def _compare(answers: RecordAnswers, step: Step, action: Any, note: str, fault: Fault | None) -> None:
    logged_fault = step.fault["kind"] if step.fault else None
    engine = _engine(step)
    legal = action is not None and _is_legal(engine, step, action)
    if fault is not None:
        same = logged_fault == str(fault.kind)
        new = Text(f"{fault.kind}: {fault.detail}", style="red")
    elif not legal:
        same = logged_fault == "ILLEGAL"
        new = _action_text(engine, step.kind, action).append(" (illegal)", style="red")
    else:
        same = logged_fault is None and engine.action_to_json(step.kind, action) == step.action_json
        new = _action_text(engine, step.kind, action)
    if same:
        answers.agreed += 1
        return
    if step.fault is not None:
        logged = Text(f"{step.fault['kind']}: {step.fault.get('detail', '')}", style="red")
    else:
        logged = _action_text(engine, step.kind, step.action)
    answers.differences.append(Difference(step, logged, step.note, new, note))


def _engine(step: Step) -> Any:
    return registry.engine(registry.game_of_rules(step.before.rules))


def _is_legal(engine: Any, step: Step, action: Any) -> bool:
    """Among the listed legal actions; a decision that lists none (Hand's TURN) is checked whole,
    on a copy of the state: only the engine's IllegalAction makes it illegal."""
    legal = step.view.legal
    if legal:
        return any(type(a) is type(action) and a == action for a in legal)
    state = step.before.clone()
    try:
        state.apply(action)
    except engine.IllegalAction:
        return False
    except (DealError, MissingDeal):  # legal, but it leads where the record has no deal or restock
        return True
    return True


def _action_text(engine: Any, kind: str, action: Any) -> Text:
    """An action as its game's replay shows it."""
    return registry.part(engine.GAME, Part.TEXT).action_text(kind, action)

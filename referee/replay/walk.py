"""A match record rebuilt into a walkable list of decisions (docs/records.md: "the record alone reproduces the match").

:func:`load` reads a record, re-plays it through the engine and gives a
:class:`Replay`: the header, and one :class:`Step` per question the referee
put to a seat, with the state when it was asked, what the seat answered (and
its note, its time, its fault) and the exact ``DecisionRequest`` the seat
received: the referee numbers ``seq`` per seat from 1 and tells each seat its
bank left, which follow from the record's ``ms`` fields and faults (the
match's own :class:`~waraq.referee.match.time_bank.TimeBank` rebuilds it). A
fault is told by its ``code``, never by the words of its ``detail``; only
records written before codes are read by their words, in one place
(:func:`code_before_codes`).

A record that cannot be fully reproduced is still walked as far as it goes;
:attr:`Replay.status` (a :class:`ReplayStatus`) says why it stops:
``"corrupt"`` (a line that cannot be read, a header that is not a record's),
``"cut short"`` (a crash or a kill: no ``result`` line) or ``"inconsistent"``
(a line that does not follow from the play, e.g. a tampered ``round_end`` or
``result``).

A ``connection`` line (a dial-in seat's connection lost, or back) changes no
decision: the walk keeps it as a :class:`Connection`, in
:attr:`Replay.connections`, with how many decisions came before it; which
step it is shown with is :meth:`Replay.step_of`'s to say, for the text and the
HTML page alike.

The header's ``game`` picks the engine (:mod:`waraq.referee.games.registry`);
everything here goes through the small surface every engine module offers
(``ENGINE_EVENTS``, ``replay``, ``iter_replay``, the action spellings, its
errors) and the state's generic members (``to_act``, ``kind``, ``round``,
``scores``, ``view``, ``clone``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from waraq.referee.games import registry
from waraq.referee.games.options import RulesError, quote
from waraq.referee.match.faults import FaultCode, FaultKind
from waraq.referee.match.time_bank import TimeBank
from waraq.referee.records.record_file import FORMAT, Stop, read_record
from waraq.referee.wire import codec as wire
from waraq.referee.wire.common import request_json  # the record's JSON of a request: its users read it here
from waraq.v1 import bot_pb2 as pb


class ReplayStatus(StrEnum):
    """How far a record could be reproduced (the module docstring); spelled so in verdicts."""

    OK = "ok"
    CORRUPT = "corrupt"
    CUT_SHORT = "cut short"
    INCONSISTENT = "inconsistent"
    UNREADABLE = "unreadable"


OK, CORRUPT, CUT_SHORT = ReplayStatus.OK, ReplayStatus.CORRUPT, ReplayStatus.CUT_SHORT
INCONSISTENT, UNREADABLE = ReplayStatus.INCONSISTENT, ReplayStatus.UNREADABLE
# Results the engines reach themselves: Hokm's score and bam; Hand's score, and its "aborted" (a round
# that never ends). "forfeit" is only the referee's, and so is an "aborted" with a "detail" (a referee
# error; see waraq.referee.run.runner).
ENGINE_REASONS = ("score", "bam", "aborted")
RECORD_SUFFIXES = (".jsonl", ".jsonl.gz")
PLAY = "PLAY"  # Hokm's kind whose steps are numbered by trick


class Change(StrEnum):
    """What a ``connection`` line says of its seat (docs/records.md)."""

    LOST = "lost"  # its stream was lost, or the bot closed its side
    BACK = "back"  # the bot dialled again and has the seat back


@dataclass(frozen=True)
class Connection:
    """A ``connection`` line: a dial-in seat away, or back. Public: every seat may be shown it."""

    line: int
    seat: int
    change: Change
    at: str  # as the record has it: UTC, ISO 8601, to the millisecond
    away_ms: float | None  # ``back``: how long the seat was away, when the line says
    after: int  # how many decisions were answered before it (the steps made when the walk reached it)


@dataclass(frozen=True)
class Step:
    """One question put to one seat, and what came of it.

    ``before`` is the whole state when the seat was asked (every hand: for
    rendering; the seat itself only ever saw :attr:`view`). ``after`` is the
    state once the answer was applied, or None when the match ended on this
    question's fault (or the record stops there).
    """

    number: int  # 1-based, in the match's order of questions
    line: int  # the record line of the decision (of the fault, when unanswered)
    seat: int
    kind: str
    round: int
    trick: int | None  # PLAY: which trick of the round (1-based)
    before: Any  # the game's state (HokmState, HandState)
    after: Any
    action: Any  # the engine's value of the action played; None if unanswered
    note: str = ""
    ms: float | None = None
    bot_ms: float | None = None
    fault: dict[str, Any] | None = None  # this question's fault event (the action was substituted)
    fault_line: int | None = None
    seq: int = 0  # as the seat's request carried it
    bank_ms: float = 0.0  # the seat's bank left when asked, as its request carried it
    sent: bool = True  # False: the seat was already lost, so the referee did not send the request

    @property
    def view(self) -> Any:
        """What the seat knew when asked: exactly the view of its request."""
        return self.before.view(self.seat)

    @property
    def hand(self) -> tuple[int, ...]:
        return tuple(self.before.hands[self.seat])

    @property
    def action_json(self) -> Any:
        if self.action is None:
            return None
        return registry.engine(registry.game_of_rules(self.before.rules)).action_to_json(self.kind, self.action)

    @property
    def where(self) -> str:
        return f"round {self.round}, " + (f"trick {self.trick}" if self.trick else self.kind)


@dataclass
class Replay:
    """A record walked through the engine, as far as it goes."""

    path: Path
    events: list[dict[str, Any]] = field(default_factory=list)  # events[i] is on line i + 1
    rules: Any = None  # the game's rules, once the header is read
    initial: Any = None  # the state before the first decision
    steps: list[Step] = field(default_factory=list)
    connections: list[Connection] = field(default_factory=list)  # in the record's order
    status: ReplayStatus = OK
    problem: str | None = None  # one line: why the record is not OK
    checked_lines: int = 0  # lines reproduced and checked, from the top

    @property
    def header(self) -> dict[str, Any]:
        return self.events[0] if self.events and self.events[0].get("type") == "match" else {}

    @property
    def ok(self) -> bool:
        return self.status == OK

    @property
    def game(self) -> str:
        """The header's game once its rules are read ("hokm" for a record that has none)."""
        return registry.game_of_rules(self.rules) if self.rules is not None else registry.DEFAULT_GAME

    @property
    def match_id(self) -> str:
        return str(self.header.get("match_id") or _stem(self.path))

    @property
    def players(self) -> int:
        return self.rules.players if self.rules else 0

    @property
    def bots(self) -> list[str]:
        """The bot's name at each seat, from the header."""
        names = [f"seat {i}" for i in range(self.players)]
        for entry in self.header.get("seats") or []:
            if isinstance(entry, dict) and isinstance(entry.get("seat"), int) and 0 <= entry["seat"] < len(names):
                names[entry["seat"]] = str(entry.get("bot", names[entry["seat"]]))
        return names

    @property
    def connected_via(self) -> list[str | None]:
        """How the referee reached the bot at each seat, from the header's ``via`` ("launched",
        "address", "dial-in", "in-process"): None where the header does not say (an older record)."""
        via: list[str | None] = [None] * self.players
        for entry in self.header.get("seats") or []:
            if isinstance(entry, dict) and isinstance(entry.get("seat"), int) and 0 <= entry["seat"] < len(via):
                given = entry.get("via")
                via[entry["seat"]] = None if given is None else str(given)
        return via

    @property
    def time_control(self) -> dict[str, float]:
        return dict(self.header.get("time_control") or {})

    @property
    def result(self) -> dict[str, Any] | None:
        last = self.events[-1] if self.events else None
        return last if last and last.get("type") == "result" and self.status != CORRUPT else None

    def steps_of(self, seat: int) -> list[Step]:
        return [s for s in self.steps if s.seat == seat]

    def step_of(self, connection: Connection, walked: Sequence[Step] | None = None) -> Step | None:
        """The step a connection line is shown with, in a walk over ``walked`` (every step, or one
        seat's): the first of them asked after the line, else the last (None: a walk of no step).

        The one rule for where a connection line falls: the text's round and trick filters, the step
        screens and the HTML page all go by it."""
        walked = self.steps if walked is None else walked
        return next((s for s in walked if s.number > connection.after), walked[-1] if walked else None)

    def seats_played_by(self, bot: str) -> list[int]:
        return [seat for seat, name in enumerate(self.bots) if name == bot]

    def match_start(self, seat: int) -> pb.MatchStart:
        """The MatchStart the seat's Play stream opened with."""
        assert self.rules is not None and self.initial is not None
        state, tc = self.initial, self.time_control
        return pb.MatchStart(
            match_id=self.match_id,
            game=self.game,
            rules_json=self.rules.canonical_json(),
            rules_hash=self.rules.rules_hash,
            seat=seat,
            players=self.rules.players,
            partners=[s for s in state.team_seats(state.team_of(seat)) if s != seat],
            time_control=pb.TimeControl(
                decision_ms=tc.get("decision_ms", 0), bank_ms=tc.get("bank_ms", 0), startup_ms=tc.get("startup_ms", 0)
            ),
        )

    def match_end(self) -> pb.MatchEnd | None:
        """The MatchEnd the seats were told, if the record has its result."""
        result = self.result
        if result is None or result.get("reason") == "aborted":
            return None
        return pb.MatchEnd(
            winners=result.get("winners", []),
            reason=result.get("reason", ""),
            score=result.get("score", []),
            faulty=result.get("faulty", []),
        )

    def request(self, step: Step) -> pb.DecisionRequest:
        """Exactly the DecisionRequest the referee sent for ``step``."""
        return wire.decision_request(
            step.seq,
            step.view,
            match_id=self.match_id,
            deadline_ms=self.time_control.get("decision_ms", 0),
            bank_ms=step.bank_ms,
        )

    def timeline(self) -> Iterator[tuple[int, dict[str, Any], Step | None, Any]]:
        """``(line, event, step, state)`` for each line reproduced: ``step`` for a decision
        (or the fault that ended the match), ``state`` the state once the line happened."""
        if self.initial is None:
            return
        by_line = {s.line: s for s in self.steps}
        by_line.update({s.fault_line: s for s in self.steps if s.fault_line is not None})
        state = self.initial
        for index, event in enumerate(self.events[: self.checked_lines]):
            line = index + 1
            step = by_line.get(line)
            if step is not None and step.after is not None and line == step.line:
                state = step.after
            yield line, event, step, state


def load(path: str | Path) -> Replay:
    """Read and re-play one record; never raises for a bad record (see :attr:`Replay.status`)."""
    record = read_record(path)
    replay = Replay(Path(path), record.events)
    if not record.events and record.problem is not None:
        if record.stop is Stop.CUT_SHORT:
            replay.status, replay.problem = CUT_SHORT, f"{record.problem}: nothing before it"
        elif record.stop is Stop.UNREADABLE:
            replay.status, replay.problem = UNREADABLE, record.problem.removeprefix("cannot be read: ")
        else:
            replay.status, replay.problem = CORRUPT, record.problem
        return replay
    try:
        _Walk(replay).run()
    except _Stop as stop:
        replay.status, replay.problem = stop.status, stop.detail
    if replay.status in (OK, CUT_SHORT) and record.problem is not None:
        # Every whole line was fine, but reading stopped early: say why it stopped.
        replay.status = CUT_SHORT if record.stop is Stop.CUT_SHORT else CORRUPT
        replay.problem = f"{record.problem}; {_readable_to(replay)}"
    elif replay.status == OK and replay.result is None:
        replay.status = CUT_SHORT
        replay.problem = f"no result line; {_readable_to(replay)}"
    return replay


def record_paths(paths: list[str | Path]) -> list[Path]:
    """Record files named, and those in folders named (recursively), in a natural order."""
    found: list[Path] = []
    for given in map(Path, paths):
        if given.is_dir():
            inside = [p for p in given.rglob("*") if p.is_file() and p.name.endswith(RECORD_SUFFIXES)]
            found.extend(sorted(inside, key=_natural))
        else:
            found.append(given)
    return found


class _Stop(Exception):
    def __init__(self, status: ReplayStatus, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail


class _Walk:
    """One pass over a record's lines, in step with the engine re-playing it."""

    def __init__(self, replay: Replay) -> None:
        self.replay = replay
        self.events = replay.events

    def run(self) -> None:
        """Walk every line in step with the engine, adding a step per question; :class:`_Stop` where it cannot."""
        if not self.events:
            raise _Stop(CUT_SHORT, "the record is empty: it stops before its header")
        self._read_header()
        if self._over_before_the_deal():
            return
        self._deal()
        for line, event in enumerate(self.events, start=1):
            self._line(line, event)
        self._finish()

    def _read_header(self) -> None:
        """Read the rules from the header, and pick out the lines the engine wrote."""
        replay, events = self.replay, self.events
        rules = replay.rules = self._header()
        self.engine_module = registry.engine(registry.game_of_rules(rules))
        self.players = rules.players
        self.result = events[-1] if events[-1].get("type") == "result" else None
        self.referee_result = self.result is not None and _referee_result(self.result)
        engine = [
            (line, e)
            for line, e in enumerate(events, start=1)
            if e.get("type") in self.engine_module.ENGINE_EVENTS and not (self.referee_result and e is self.result)
        ]
        self.engine_lines = [line for line, _ in engine]
        self.engine_events = [e for _, e in engine]

    def _over_before_the_deal(self) -> bool:
        """Whether the match ended before any card was dealt (bots that could not start); checks its result."""
        events, result = self.events, self.result
        if any(e.get("type") == "deal" for e in self.engine_events) or not all(
            e.get("type") in ("match", "ace_draw", "fault", "result") for e in events
        ):
            return False
        self.replay.checked_lines = len(events)
        if result is None:
            raise _Stop(CUT_SHORT, f"no result line; it stops before the first deal, after line {len(events)}")
        if result.get("reason") != "forfeit" and result.get("reason") != "aborted":
            raise _Stop(INCONSISTENT, f"line {len(events)}: a result before the first deal")
        return True  # a forfeit before any card was dealt

    def _deal(self) -> None:
        """Start the engine's replay from the deal (checked), and each seat's clock and questions."""
        engine_module, replay, n = self.engine_module, self.replay, self.players
        engine_events = self.engine_events
        first_decision = next((i for i, e in enumerate(engine_events) if e.get("type") == "decision"), None)
        try:
            # The engine's own replay of the lines before the first decision: the deal, checked.
            self.state = engine_module.replay(replay.rules, engine_events[:first_decision])
        except engine_module.ReplayError as error:
            raise self._replay_error(error) from None
        replay.initial = self.state
        self.playing = engine_module.iter_replay(replay.rules, engine_events)
        clock = replay.time_control
        self.banks = [TimeBank(clock.get("decision_ms", 0), clock.get("bank_ms", 0)) for _ in range(n)]
        self.seq, self.lost = [0] * n, [False] * n
        self.pending: tuple[int, dict[str, Any]] | None = None  # a question's fault, awaiting its decision
        self.faulted: set[int] = set()

    def _question(self, seat: int, fault: dict[str, Any] | None) -> tuple[int, float, bool]:
        """A question put to ``seat``: its request's ``seq``, the bank it was told, and whether it was sent."""
        self.seq[seat] += 1
        sent = not self.lost[seat] and not (fault and _code(fault) is FaultCode.SEAT_ALREADY_LOST)
        return self.seq[seat], self.banks[seat].left_ms, sent

    def _line(self, line: int, event: dict[str, Any]) -> None:
        """One line of the record after the header, checked against the play so far."""
        kind = event.get("type")
        self.replay.checked_lines = line - 1
        if line == 1:
            return
        if kind == "match":
            raise _Stop(CORRUPT, f"line {line} is a second 'match' header")
        if kind == "fault":
            self._fault_line(line, event)
        elif kind == "decision":
            self._decision_line(line, event)
        elif kind == "connection":
            self._connection_line(line, event)
        elif kind == "result" and line != len(self.events):
            raise _Stop(INCONSISTENT, f"line {line + 1}: an event after the result of line {line}")
        elif kind == "result" and self.referee_result:
            self.replay.checked_lines = line - 1
            self._referee_result(line, event, self.state, self.pending, self.faulted)

    def _fault_line(self, line: int, event: dict[str, Any]) -> None:
        """A fault: kept as pending until the decision that answers its question, if it is on one."""
        seen = self._fault(line, event, self.players)
        self.faulted.add(event["seat"])
        if not self.replay.steps and self._at_open(event):
            return
        pending, state = self.pending, self.state
        if pending is not None:
            raise _Stop(INCONSISTENT, f"line {line}: a second fault on one question (the first: line {pending[0]})")
        if state.is_over:
            raise _Stop(INCONSISTENT, f"line {line}: a fault of seat {event['seat']} after the match is over")
        if event["seat"] != state.to_act:
            raise _Stop(
                INCONSISTENT,
                f"line {line}: a fault of seat {event['seat']}, but seat {state.to_act} is to act "
                f"({self._where(state)})",
            )
        self.pending = (line, seen)

    def _connection_line(self, line: int, event: dict[str, Any]) -> None:
        """A dial-in seat away or back: kept, with the number of decisions before it; it changes no decision.
        A line that names no seat of the match, or a change this Waraq does not know (a later one's), is
        passed over, as any line replay does not know."""
        seat, change, at = event.get("seat"), event.get("change"), event.get("at")
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < self.players:
            return
        if change not in tuple(Change):
            return
        self.replay.connections.append(
            Connection(
                line=line,
                seat=seat,
                change=Change(change),
                at="" if at is None else str(at),
                away_ms=_number(event.get("away_ms")),
                after=len(self.replay.steps),
            )
        )

    def _decision_line(self, line: int, event: dict[str, Any]) -> None:
        """A decision: the engine plays it, and it becomes a step with its fault, time and request."""
        engine_module, replay = self.engine_module, self.replay
        before = self.state
        try:
            self.state = state = next(self.playing).clone()
        except StopIteration:  # the engine has no decision pending: the match is over
            raise _Stop(INCONSISTENT, f"line {line}: a decision after the match is over") from None
        except engine_module.ReplayError as error:
            raise self._replay_error(error) from None
        fault_line, fault = self.pending if self.pending is not None else (None, None)
        seat = event["seat"]
        if fault is not None and "substituted" in fault and fault["substituted"] != event.get("action"):
            raise _Stop(
                INCONSISTENT,
                f"line {fault_line}: the fault says {fault['substituted']!r} was substituted, "
                f"line {line} plays {event.get('action')!r}",
            )
        if fault is not None and "substituted" not in fault:
            raise _Stop(INCONSISTENT, f"line {fault_line}: a fault without a substitute, yet play goes on")
        number, bank_left, sent = self._question(seat, fault)
        ms = _number(event.get("ms"))
        assert before.kind is not None  # the engine played a decision from it: one was pending
        replay.steps.append(
            Step(
                number=len(replay.steps) + 1,
                line=line,
                seat=seat,
                kind=before.kind,
                round=before.round,
                trick=_trick(before),
                before=before,
                after=state,
                action=engine_module.action_from_json(before.kind, event["action"]),
                note=str(event.get("note") or ""),
                ms=ms,
                bot_ms=_number(event.get("bot_ms")),
                fault=fault,
                fault_line=fault_line,
                seq=number,
                bank_ms=bank_left,
                sent=sent,
            )
        )
        self.lost[seat] = _charge(self.banks[seat], fault, ms) or self.lost[seat]
        self.pending = None

    def _finish(self) -> None:
        """After the last line: no decision left unplayed, a last unanswered fault as its step, and the result."""
        events, replay, state = self.events, self.replay, self.state
        replay.checked_lines = len(events)
        try:
            for _ in self.playing:  # the engine's last check: no recorded event left unexplained
                raise _Stop(INCONSISTENT, "the record has decisions the walk did not see")
        except self.engine_module.ReplayError as error:
            raise self._replay_error(error) from None
        if self.pending is not None:
            line, fault = self.pending
            number, bank_left, sent = self._question(fault["seat"], fault)
            assert state.kind is not None  # the fault came while the match was not over, and no decision since
            replay.steps.append(
                Step(
                    number=len(replay.steps) + 1,
                    line=line,
                    seat=fault["seat"],
                    kind=state.kind,
                    round=state.round,
                    trick=_trick(state),
                    before=state,
                    after=None,
                    action=None,
                    fault=fault,
                    fault_line=line,
                    seq=number,
                    bank_ms=bank_left,
                    sent=sent,
                )
            )
        if self.result is not None and not self.referee_result and not state.is_over:
            raise _Stop(INCONSISTENT, f"line {len(events)}: a result, but the match is not over")

    def _header(self) -> Any:
        header = self.events[0]
        if header.get("type") != "match":
            raise _Stop(CORRUPT, "line 1 is not the 'match' header")
        if header.get("format") != FORMAT:
            raise _Stop(CORRUPT, f"line 1: format {header.get('format')!r}, expected {FORMAT!r}")
        game = header.get("game")
        if game not in registry.GAMES:
            known = ", ".join(map(repr, registry.GAMES))
            raise _Stop(CORRUPT, f"line 1: game {game!r}: only records of {known} can be replayed")
        for key in ("rules", "seed", "seats", "time_control"):
            if key not in header:
                raise _Stop(CORRUPT, f"line 1: the header has no {key!r}")
        if not isinstance(header["rules"], dict):
            raise _Stop(CORRUPT, "line 1: the header's rules are not an object")
        try:
            rules = registry.rules_from_dict(game, header["rules"])
        except RulesError as error:
            raise _Stop(CORRUPT, f"line 1: the header's rules are not valid: {error}") from None
        if header.get("rules_hash") != rules.rules_hash:
            raise _Stop(
                INCONSISTENT,
                f"line 1: rules_hash {header.get('rules_hash')!r} is not the hash of the header's rules "
                f"({rules.rules_hash})",
            )
        tc = header["time_control"]
        if not isinstance(tc, dict) or not all(isinstance(tc.get(k), (int, float)) for k in ("decision_ms", "bank_ms")):
            raise _Stop(CORRUPT, "line 1: time_control needs decision_ms and bank_ms in ms")
        if type(header["seed"]) is not int:  # the decks are in the record, but its seed must still say which match
            raise _Stop(CORRUPT, f"line 1: seed {quote(header['seed'], 60, repr)} is not an integer")
        seats = header["seats"]
        if not isinstance(seats, list):
            raise _Stop(CORRUPT, f"line 1: seats {quote(seats, 60, repr)} is not a list of {{seat, bot, version}}")
        if len(seats) != rules.players:
            raise _Stop(INCONSISTENT, f"line 1: {rules.players} players, but the header lists {len(seats)} seats")
        for index, entry in enumerate(seats):
            if not (isinstance(entry, dict) and entry.get("seat") == index and isinstance(entry.get("bot"), str)):
                raise _Stop(
                    CORRUPT,
                    f"line 1: seats[{index}] = {quote(entry, 60, repr)} is not {{seat: {index}, bot: a name, …}}",
                )
        return rules

    def _fault(self, line: int, event: dict[str, Any], players: int) -> dict[str, Any]:
        seat = event.get("seat")
        if not isinstance(seat, int) or not 0 <= seat < players or not isinstance(event.get("kind"), str):
            raise _Stop(CORRUPT, f"line {line}: a fault event needs a seat (0-{players - 1}) and a kind")
        return event

    @staticmethod
    def _at_open(fault: dict[str, Any]) -> bool:
        """A fault raised when the seat's stream was opened, not on a question."""
        code = _code(fault)
        return fault["kind"] == FaultKind.STARTUP or (code is not None and code.at_opening)

    def _referee_result(
        self, line: int, result: dict[str, Any], state: Any, pending: tuple | None, faulted: set[int]
    ) -> None:
        reason = result.get("reason")
        if reason == "aborted":
            return  # a referee error ended the match: nothing follows from the play
        if reason != "forfeit":
            raise _Stop(INCONSISTENT, f"line {line}: result reason {reason!r} is none of score, bam, forfeit, aborted")
        if state.is_over:
            raise _Stop(INCONSISTENT, f"line {line}: a forfeit, but the play had already ended the match")
        faulty = result.get("faulty")
        if not isinstance(faulty, list) or not faulty or not set(faulty) <= faulted:
            raise _Stop(
                INCONSISTENT,
                f"line {line}: forfeit with faulty {faulty!r}, but the faults are of seats {sorted(faulted)}",
            )
        if pending is not None and pending[1]["seat"] not in faulty:
            raise _Stop(INCONSISTENT, f"line {line}: the fault of line {pending[0]} is not among the faulty {faulty}")
        losing = {state.team_of(s) for s in faulty}
        winners = [s for s in range(state.players) if state.team_of(s) not in losing]
        if result.get("winners") != winners:
            raise _Stop(
                INCONSISTENT,
                f"line {line}: record has winners = {result.get('winners')!r}, the forfeit gives {winners}",
            )
        if result.get("score") != state.scores:
            raise _Stop(
                INCONSISTENT, f"line {line}: record has score = {result.get('score')!r}, the play gives {state.scores}"
            )

    def _replay_error(self, error: ValueError) -> _Stop:
        """The engine's "event K" (among engine events) as the record's line."""
        message = str(error)
        found = re.match(r"event (\d+)", message)
        if found and 0 < int(found.group(1)) <= len(self.engine_lines):
            message = f"line {self.engine_lines[int(found.group(1)) - 1]}" + message[found.end() :]
        return _Stop(INCONSISTENT, message)

    @staticmethod
    def _where(state: Any) -> str:
        trick = _trick(state)
        return f"round {state.round}, " + (f"trick {trick}" if trick else str(state.kind))


def _charge(bank: TimeBank, fault: dict[str, Any] | None, ms: float | None) -> bool:
    """Charge a question to its seat's bank as the match did (:mod:`waraq.referee.match.time_bank`);
    whether it lost the seat, so that the referee sent it no more requests.

    A reply that came, even an illegal one, pays its time past the deadline;
    one that found the bank spent leaves it at 0 (the record's ``ms`` is
    rounded, and might just not spend it again). A malformed reply costs
    nothing, nor does one that never came.
    """
    if fault is None or fault["kind"] == FaultKind.ILLEGAL:
        bank.charge(ms or 0.0)
        return False
    code = _code(fault)
    if code is FaultCode.BANK_SPENT:
        bank.empty()
        return False
    return code is not None and code.lost


def _code(fault: dict[str, Any]) -> FaultCode | None:
    """A recorded fault's code; for a record written before codes, :func:`code_before_codes`'.
    None for a code this Waraq does not know (a later one's): its kind is all there is to go by."""
    code = fault.get("code")
    if code is None:
        return code_before_codes(fault["kind"], str(fault.get("detail", "")))
    try:
        return FaultCode(code)
    except ValueError:
        return None


def code_before_codes(kind: str, detail: str) -> FaultCode | None:
    """LEGACY: the code of a fault recorded before faults carried one, told from its words.

    Records in the wild written before codes must still replay and verify; for
    them, and only them, the detail's words say what replay needs (as replay
    read them then): a lost seat asked again, a stream that did not open, a
    spent bank. Any other TIMEOUT and any CRASH lost the seat (read as
    ``no_reply`` and ``stream_broken``); STARTUP, ILLEGAL and MALFORMED faults
    need no more than their kind (None).
    """
    if detail.startswith("seat already lost"):
        return FaultCode.SEAT_ALREADY_LOST
    if detail.startswith("could not open"):
        return FaultCode.OPEN_TIMED_OUT if kind == FaultKind.TIMEOUT else FaultCode.OPEN_FAILED
    if kind == FaultKind.TIMEOUT:
        return FaultCode.BANK_SPENT if "bank is spent" in detail else FaultCode.NO_REPLY
    if kind == FaultKind.CRASH:
        return FaultCode.STREAM_BROKEN
    return None


def _trick(state: Any) -> int | None:
    """Hokm, before a PLAY: which trick of the round (1-based); None for any other decision."""
    return len(state.history) + 1 if state.kind == PLAY else None


def _referee_result(result: dict[str, Any]) -> bool:
    """A result the referee wrote (a forfeit, an abort on its own error), not the engine."""
    return result.get("reason") not in ENGINE_REASONS or "detail" in result


def _readable_to(replay: Replay) -> str:
    lines = len(replay.events)
    if not lines:
        return "nothing before it can be read"
    where = replay.steps[-1].where if replay.steps else "before the first decision"
    return f"readable up to line {lines} ({where})"


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _stem(path: Path) -> str:
    name = path.name
    for suffix in sorted(RECORD_SUFFIXES, key=len, reverse=True):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return path.stem


def _natural(path: Path) -> list[Any]:
    # The odd parts are the runs of 0-9 (\d takes '٣' too), compared as numbers.
    return [int(part) if i % 2 else part for i, part in enumerate(re.split(r"([0-9]+)", str(path)))]


__all__ = [
    "Change",
    "Connection",
    "Replay",
    "ReplayStatus",
    "Step",
    "load",
    "record_paths",
    "request_json",
    "code_before_codes",
    "OK",
    "CORRUPT",
    "CUT_SHORT",
    "INCONSISTENT",
    "UNREADABLE",
]

"""Run one match: the engine, one seat per player, the clock, the fault policy, the record.

Every way a match can end is a typed :class:`MatchOutcome` (a score, a bam,
a forfeit with the faulty seats); nothing a bot does escapes as an
exception. The record is written event by event as the match is played.

The fault policy: under ``forfeit`` a seat's first fault loses the match for
its side. Under ``substitute`` the referee plays a random legal action in
its place and counts the fault (a ``fault`` event with ``substituted``, then
the ``decision`` played), and the fault that reaches ``max_faults`` forfeits.
But a seat that is *lost* (:attr:`~waraq.referee.match.faults.FaultCode.lost`: its stream
timed out, broke or closed, sent bytes that are no message, or was cut for a
message over the size limit) forfeits at once under either policy, charged
with that one fault: it cannot be asked again, and playing on for it would
charge one cause again at every later decision. So in a record a fault
without ``substituted`` is always the last event before the forfeit's
``result``; a fault at a seat's opening (its Hello does not declare the
match, its stream cannot be opened) forfeits before the first decision.
Records written before this rule hold the lost seat's later questions, each
faulted at once (``seat_already_lost``) and substituted; replay still reads
them (:attr:`waraq.referee.replay.walk.Step.sent`). The time bank is
:class:`~waraq.referee.match.time_bank.TimeBank`'s. An error of the referee
itself is no seat's fault: whoever plays the match writes its result with
:func:`abort_on_referee_error`.

The runner knows no game: the rules name theirs (:mod:`waraq.referee.games.registry`),
whose engine deals, checks, substitutes (``state.random_action``) and spells
the events; the seats ask whichever game's questions.
"""

from __future__ import annotations

import random
import time
import traceback
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from waraq.referee.games import registry
from waraq.referee.games.results import ResultReason
from waraq.referee.match import secret_deals
from waraq.referee.match.faults import Fault, FaultCode
from waraq.referee.match.seats import Answer, Question, Seat, TellsConnections
from waraq.referee.match.time_bank import TimeBank
from waraq.referee.records.record_file import FORMAT, RecordWriter
from waraq.v1 import bot_pb2 as pb


class FaultPolicy(StrEnum):
    """What a fault costs (the module docstring); spelled so in the record's header and on the command line."""

    FORFEIT = "forfeit"
    SUBSTITUTE = "substitute"

    @classmethod
    def of(cls, value: str) -> FaultPolicy:
        try:
            return cls(value)
        except ValueError:
            raise ValueError(f"fault policy {value!r}: expected one of {', '.join(POLICIES)}") from None


POLICIES = tuple(policy.value for policy in FaultPolicy)  # the spellings, for option checkers that compare str


@dataclass(frozen=True)
class TimeControl:
    """Milliseconds. Generous by default: a loaded 2-core machine must not cause false timeouts."""

    decision_ms: float = 10_000
    bank_ms: float = 60_000
    startup_ms: float = 30_000

    def __post_init__(self) -> None:
        for name, value in asdict(self).items():
            if not (isinstance(value, (int, float)) and value > 0):
                raise ValueError(f"time control {name} = {value!r}: expected a positive number of ms")


@dataclass(frozen=True)
class MatchConfig:
    rules: Any  # any game's rules (HokmRules, HandRules): their GAME picks the engine
    seed: int
    match_id: str  # sent to the bots: opaque, keyed by the deal key (waraq.referee.match.secret_deals.match_id)
    time_control: TimeControl = TimeControl()
    policy: FaultPolicy = FaultPolicy.FORFEIT  # a spelling is taken too ("substitute")
    max_faults: int = 3  # substitute: a seat's faults that forfeit the match
    # The secret every shuffle and substitute is drawn under (waraq.referee.match.secret_deals). Without
    # it the decks follow from the seed alone, and a bot finds them by trying seeds against
    # its own hand: only in-process play and tests, which seat no stranger's bot, go without.
    deal_key: str = ""
    # The decks to deal instead of the seed's: a staged deal (waraq.referee.conformance), duck-typed as the
    # game's dealer. The record holds every deck dealt, so replay needs nothing of it.
    dealer: Any = None

    @property
    def dealing_seed(self) -> int | str:
        return secret_deals.dealing_seed(self.seed, self.deal_key)

    def __post_init__(self) -> None:
        object.__setattr__(self, "policy", FaultPolicy.of(self.policy))


@dataclass
class FaultRecord:
    seat: int
    kind: str
    detail: str
    round: int
    code: str | None = None  # the FaultCode; None when read from a record written before codes


@dataclass
class MatchOutcome:
    match_id: str
    seed: int
    winners: tuple[int, ...]
    reason: ResultReason
    score: tuple[int, ...]
    faulty: tuple[int, ...] = ()
    faults: list[FaultRecord] = field(default_factory=list)
    decisions: int = 0
    record: str | None = None


def referee_error_result(error: BaseException) -> dict[str, Any]:
    """The ``result`` line of a match aborted by the referee's own error (docs/records.md "#### Reasons")."""
    detail = f"referee error: {type(error).__name__}: {error}"
    return {"type": "result", "score": [], "winners": [], "reason": ResultReason.ABORTED, "detail": detail}


def abort_on_referee_error(error: BaseException, record: RecordWriter | None) -> None:
    """A referee bug ended a match: its record ends with the abort, and the bug is shown on stderr.

    The match's caller (``waraq match``'s runner, the ladder's scheduler) calls this and
    goes on with its other matches; the bots are charged with nothing.
    """
    if record is not None:
        record.write(referee_error_result(error))
    traceback.print_exception(error)


async def run_match(config: MatchConfig, seats: Sequence[Seat], record: RecordWriter | None = None) -> MatchOutcome:
    """Play ``config``'s match between ``seats`` (seat i plays seat i) and return how it ended."""
    rules = config.rules
    if len(seats) != rules.players:
        raise ValueError(f"{rules.players} seats needed, {len(seats)} given")
    run = _Run(config, seats, record)
    try:
        return await run.play()
    finally:
        run.write_engine_events()  # whatever was played, even if the referee itself failed
        await run.finish_seats()


class _Run:
    def __init__(self, config: MatchConfig, seats: Sequence[Seat], record: RecordWriter | None) -> None:
        self.config = config
        self.seats = seats
        self.record = record
        self.game = registry.game_of_rules(config.rules)
        self.engine = registry.engine(self.game)
        self.state = self.engine.new_match(config.rules, config.dealing_seed, config.dealer)
        self.written = 0  # engine events written to the record
        self.taken: dict[str, Any] | None = None  # the times of the decision whose events wait to be written
        self.faults: list[FaultRecord] = []
        self.fault_count = [0] * config.rules.players
        clock = config.time_control
        self.banks = [TimeBank(clock.decision_ms, clock.bank_ms) for _ in range(config.rules.players)]
        self.substitutes = random.Random(f"waraq/{config.dealing_seed}/substitute")
        self.end: pb.MatchEnd | None = None
        for seat in seats:
            if isinstance(seat, TellsConnections):  # its connection lines go in the record, in their place
                seat.tell = self.write

    def write(self, event: dict[str, Any]) -> None:
        """Write one of the runner's events (a fault, a forfeit), after the engine's before it."""
        if self.record is not None:
            self.write_engine_events()
            self.record.write(event)

    def write_engine_events(self) -> None:
        """Write the engine's events not yet written, the decision just taken with its times.

        Each question calls it once it is on its way to its bot (``Question.on_sent``):
        the record is written while the bot thinks, not between a reply and the next
        question (bench/transport.py). The loop in :meth:`play` calls it too, in case a seat
        did not.
        """
        times, self.taken = self.taken, None
        record = self.record
        if record is None:
            return
        events = self.state.events
        new = events[self.written :]
        self.written = len(events)
        if times is not None:
            for i, event in enumerate(new):
                if event["type"] == "decision":  # the one just taken: any others follow from it
                    new[i] = {**event, **times}
                    break
        record.write_now(new)

    async def play(self) -> MatchOutcome:
        config, rules, state = self.config, self.config.rules, self.state
        if self.record is not None:
            self.record.write(self.header())
        self.write_engine_events()
        failed = []
        for opener, bot in enumerate(self.seats):
            try:
                await bot.open(self.match_start(opener))
            except Fault as opening:
                self.fault(opener, opening)
                failed.append(opener)
        if failed:
            return self.forfeit(failed)
        seq = [0] * rules.players
        illegal = self.engine.IllegalAction
        seats, banks, match_id = self.seats, self.banks, config.match_id
        deadline_ms = config.time_control.decision_ms
        sent = self.write_engine_events
        forfeit_first = config.policy is FaultPolicy.FORFEIT
        while state.result is None:
            seat = state.to_act
            assert seat is not None  # a match not over has a seat to act
            seq[seat] += 1
            question = Question(seq[seat], state.view(seat), match_id, deadline_ms, banks[seat].left_ms, sent)
            begun = time.perf_counter()
            ms = None
            try:
                answer = await seats[seat].ask(question)
                ms = (time.perf_counter() - begun) * 1000
                if ms > deadline_ms and not banks[seat].charge(ms):  # (the comparison spares a call a decision)
                    raise Fault(FaultCode.BANK_SPENT, f"replied after {ms:.0f} ms and its time bank is spent")
                if self.taken is not None:  # the seat did not call on_sent
                    self.write_engine_events()
                state.apply(answer.action)
            except (Fault, illegal) as problem:
                if ms is None:  # no reply, or a malformed one: its time runs to now
                    ms = (time.perf_counter() - begun) * 1000
                # else an illegal reply: the record keeps the time its bank was charged
                # for, so that replay rebuilds the bank from the record exactly.
                fault = problem if isinstance(problem, Fault) else Fault(FaultCode.ILLEGAL_ACTION, str(problem))
                if forfeit_first or fault.lost or self.fault_count[seat] + 1 >= config.max_faults:
                    self.fault(seat, fault)
                    return self.forfeit([seat])
                answer = Answer(state.random_action(self.substitutes))
                self.fault(seat, fault, substituted=answer.action)
                state.apply(answer.action)
            times: dict[str, Any] = {"ms": round(ms * 1000) / 1000}  # to the µs; round(ms, 3) is slower
            if answer.note:
                times["note"] = answer.note
            if answer.bot_ms is not None:
                times["bot_ms"] = answer.bot_ms
            self.taken = times  # written when the next question is sent, or below
        self.write_engine_events()
        result = state.result
        self.end = pb.MatchEnd(winners=result.winners, reason=result.reason, score=result.score)
        return self.outcome(result.winners, result.reason, result.score)

    def fault(self, seat: int, fault: Fault, substituted: Any = None) -> None:
        self.fault_count[seat] += 1
        round_ = self.state.round
        self.faults.append(FaultRecord(seat, str(fault.kind), fault.detail, round_, str(fault.code)))
        event: dict[str, Any] = {
            "type": "fault",
            "round": round_,
            "seat": seat,
            "kind": str(fault.kind),
            "code": str(fault.code),
            "detail": fault.detail,
        }
        if substituted is not None:
            kind = self.state.kind
            assert kind is not None  # a substitute answers the pending decision
            event["substituted"] = self.engine.action_to_json(kind, substituted)
        self.write(event)

    def forfeit(self, faulty_seats: list[int]) -> MatchOutcome:
        """The faulty side loses: every seat not on a faulty seat's side wins (none, if all faulted)."""
        state = self.state
        losing = {state.team_of(s) for s in faulty_seats}
        winners = tuple(s for s in range(state.players) if state.team_of(s) not in losing)
        faulty = tuple(sorted(faulty_seats))
        score = tuple(state.scores)
        self.write(
            {
                "type": "result",
                "score": list(score),
                "winners": list(winners),
                "reason": ResultReason.FORFEIT,
                "faulty": list(faulty),
            }
        )
        self.end = pb.MatchEnd(winners=winners, reason=ResultReason.FORFEIT, score=score, faulty=faulty)
        return self.outcome(winners, ResultReason.FORFEIT, score, faulty)

    def outcome(self, winners, reason, score, faulty=()) -> MatchOutcome:
        return MatchOutcome(
            match_id=self.config.match_id,
            seed=self.config.seed,
            winners=tuple(winners),
            reason=reason,
            score=tuple(score),
            faulty=tuple(faulty),
            faults=self.faults,
            decisions=sum(1 for e in self.state.events if e["type"] == "decision"),
            record=str(self.record.path) if self.record else None,
        )

    async def finish_seats(self) -> None:
        for bot in self.seats:
            try:
                await bot.finish(self.end)
            except Exception:
                pass

    def header(self) -> dict[str, Any]:
        config = self.config
        return {
            "type": "match",
            "format": FORMAT,
            "game": self.game,
            "match_id": config.match_id,
            "rules": config.rules.to_dict(),
            "rules_hash": config.rules.rules_hash,
            "seed": config.seed,
            "deal_key": bool(config.deal_key),  # whether a secret key was mixed in (never the key)
            "seats": [_seat_header(i, seat) for i, seat in enumerate(self.seats)],
            "time_control": asdict(config.time_control),
            "policy": str(config.policy),
            "started": datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        }

    def match_start(self, seat: int) -> pb.MatchStart:
        rules, tc = self.config.rules, self.config.time_control
        team = self.state.team_seats(self.state.team_of(seat))
        return pb.MatchStart(
            match_id=self.config.match_id,
            game=self.game,
            rules_json=rules.canonical_json(),
            rules_hash=rules.rules_hash,
            seat=seat,
            players=rules.players,
            partners=[s for s in team if s != seat],
            time_control=pb.TimeControl(decision_ms=tc.decision_ms, bank_ms=tc.bank_ms, startup_ms=tc.startup_ms),
        )


def _seat_header(number: int, seat: Seat) -> dict[str, Any]:
    """A seat as the header names it: its bot, version, and how the seat reached it, if it says."""
    header: dict[str, Any] = {"seat": number, "bot": seat.bot, "version": seat.version}
    via = getattr(seat, "via", None)  # optional in Seat: a seat of a test or a plug-in may not say
    if via is not None:
        header["via"] = str(via)
    return header

"""One match played by the referee's own runner, one seat of it played by the caller step by step.

The seat environments' second way to play. The first steps the engine and asks the
built-in players in-process, which is what training wants: nothing but the rules
between two steps. This one is for evaluation: the other seats may be any Waraq bot
spec (a command, an address, a built-in bot as its own process, as ``waraq match``
starts them), and the match is the referee's, ``run_match`` itself: the same deal,
clocks, faults, fault policy and record, so ``waraq replay --verify`` checks what
the agent played. The agent's seat is one more :class:`~waraq.referee.match.seats.Seat`,
whose question comes out of :meth:`RefereedMatch.start` and :meth:`RefereedMatch.answer`
and whose answer goes back in.

The runner is a coroutine and an environment is called step by step, so this owns
an event loop that runs only inside its calls, until the agent is asked or the match
is over: one thread, no locks. Between calls the loop stands still and the bots wait
on their sockets. The agent keeps the match's clock as every seat does: the time
between a question and its answer is the agent's, and a spent bank is its fault.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from waraq.referee.games import registry
from waraq.referee.launch import sandbox
from waraq.referee.launch.bots import BotSpec, Endpoint
from waraq.referee.match.faults import Fault, FaultCode
from waraq.referee.match.play import MatchConfig, MatchOutcome, TimeControl, run_match
from waraq.referee.match.seats import Answer, Question, Seat, Via
from waraq.referee.records.record_file import RecordWriter
from waraq.referee.run.runner import match_id, record_name

AGENT = "agent"  # the agent's name in the records


class AgentSeat:
    """The caller's seat: the match waits at each question until the caller answers it."""

    def __init__(self, name: str) -> None:
        self.bot = name
        self.version = ""
        self.via = Via.IN_PROCESS
        self.question: Question | None = None  # the one waiting for its answer
        self.asked = asyncio.Event()
        self._answer: asyncio.Future[Any] | None = None

    async def open(self, start: Any) -> None:
        pass

    async def ask(self, question: Question) -> Answer:
        if question.on_sent is not None:
            question.on_sent()
        self._answer = asyncio.get_running_loop().create_future()
        self.question = question
        self.asked.set()
        try:
            return Answer(await self._answer)
        finally:
            self.question = None

    def give(self, action: Any) -> None:
        assert self._answer is not None and not self._answer.done(), "no question waits for an answer"
        self._answer.set_result(action)

    def fail(self, fault: Fault) -> None:
        """The answer is a fault of the agent's: the runner charges it as any seat's."""
        assert self._answer is not None and not self._answer.done(), "no question waits for an answer"
        self._answer.set_exception(fault)

    async def finish(self, end: Any) -> None:
        pass


class RefereedMatch:
    """The other seats' bots, started once; :meth:`start` plays a match of them with the agent."""

    def __init__(
        self,
        rules: Any,
        seat: int,
        specs: Sequence[str],
        *,
        time_control: TimeControl | None = None,
        record_dir: Path | None = None,
    ) -> None:
        n = rules.players
        others = [s for s in range(n) if s != seat]
        if len(specs) != len(others):
            raise ValueError(f"{len(others)} bots needed for the other seats, {len(specs)} given: {list(specs)!r}")
        self.rules = rules
        self.game = registry.game_of_rules(rules)
        self.seat = seat
        self.time_control = time_control or TimeControl()
        self.record_dir = record_dir
        confinement = sandbox.DEFAULT
        if record_dir is not None:
            record_dir.mkdir(parents=True, exist_ok=True)
            confinement = replace(confinement, hidden=(*confinement.hidden, record_dir))
        logs = record_dir / "logs" if record_dir is not None else None
        self.agent = AgentSeat(AGENT)
        self.outcome: MatchOutcome | None = None
        self.record: Path | None = None  # the last match's record
        self._loop = asyncio.new_event_loop()
        self._match: asyncio.Task[MatchOutcome] | None = None
        self._endpoints = {
            s: Endpoint(
                BotSpec.parse(spec), startup_ms=self.time_control.startup_ms, log_dir=logs, confinement=confinement
            )
            for s, spec in zip(others, specs, strict=True)
        }
        self._loop.run_until_complete(_all(e.start() for e in self._endpoints.values()))
        failed = [(e.spec, e.failure) for e in self._endpoints.values() if e.failure is not None]
        if failed:
            self.close()
            spec, fault = failed[0]
            raise ValueError(f"the bot {spec} did not start: {fault.detail}")

    def start(self, seed: int, dealer: Any = None) -> Any:
        """Begin match ``seed`` (dealt by ``dealer`` if given): the agent's first view, or None if it ended first."""
        self._abandon()
        self.outcome = None
        config = MatchConfig(self.rules, seed, match_id(seed), self.time_control, dealer=dealer)
        seats: list[Seat] = [
            self.agent if s == self.seat else self._endpoints[s].seat() for s in range(self.rules.players)
        ]
        self.record = None if self.record_dir is None else self.record_dir / record_name(seed, self.game)
        self._match = self._loop.create_task(self._play(config, seats, self.record))
        return self._run()

    def answer(self, action: Any) -> Any:
        """The agent's action: its next view, or None once the match is over (:attr:`outcome`)."""
        self.agent.give(action)
        return self._run()

    def illegal(self, detail: str) -> Any:
        """The agent chose an action that is not legal: its ILLEGAL fault, and the match goes on as the
        fault policy says (forfeit: it is over). Its next view, or None once it is over."""
        self.agent.fail(Fault(FaultCode.ILLEGAL_ACTION, detail))
        return self._run()

    def close(self) -> None:
        if self._loop.is_closed():
            return
        self._abandon()
        self._loop.run_until_complete(_all(e.stop() for e in self._endpoints.values()))
        self._loop.close()

    @staticmethod
    async def _play(config: MatchConfig, seats: Sequence[Seat], record: Path | None) -> MatchOutcome:
        if record is None:
            return await run_match(config, seats)
        with RecordWriter(record) as writer:
            return await run_match(config, seats, writer)

    def _run(self) -> Any:
        """Run the match until the agent is asked or the match is over."""
        match = self._match
        assert match is not None
        asked = self._loop.create_task(self.agent.asked.wait())
        self._loop.run_until_complete(asyncio.wait({match, asked}, return_when=asyncio.FIRST_COMPLETED))
        asked.cancel()
        self.agent.asked.clear()
        if match.done():
            self.outcome = match.result()
            self._match = None
            return None
        assert self.agent.question is not None
        return self.agent.question.view

    def _abandon(self) -> None:
        """Stop a match left unfinished (a reset mid-match): the runner tells the bots it ended."""
        match, self._match = self._match, None
        if match is not None and not match.done():
            match.cancel()
            self._loop.run_until_complete(_all([match]))


async def _all(awaitables: Iterable[Awaitable[Any]]) -> None:
    """Await each; gather made inside the loop, for a loop that is not the thread's current one."""
    await asyncio.gather(*awaitables, return_exceptions=True)

"""A person's desk: the seats one person holds in a run, what they were told, and their answers.

A human seat is played through a page (:mod:`.app`), but the referee asks it
as it asks any bot: a :class:`~waraq.referee.match.seats.RemoteSeat` over a
:class:`PageLine`, which offers the four calls of a gRPC client call
(``write``, ``read``, ``done_writing``, ``cancel``), as a dial-in seat's line
does. So the seat's clock, faults and record are every bot's: only how the
bytes travel differs. The page is sent the protocol's own messages
(``RefereeMessage``: start, decision, end) in protobuf's JSON mapping, and
answers with the protocol's ``BotMessage``, parsed by protobuf.

A person's desk keeps every message sent to their seats, numbered, so a page
opened late, reloaded or open twice reads them all again from the start
(:meth:`Person.after`). Only the messages of that person's own seats are on
it: nothing else a page could be sent.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from google.protobuf import json_format

from waraq.referee.match.faults import Fault, FaultCode
from waraq.referee.match.seats import LineLost
from waraq.referee.wire.common import request_json
from waraq.v1 import bot_pb2 as pb

TOKEN_BYTES = 16  # a person's page address holds 128 random bits: no other local user or site can guess it


class Door(StrEnum):
    """What the desk adds to the protocol's messages: things a page shows that no message says."""

    ANSWERED = "answered"  # a reply was taken (another tab of the same page stops offering the question)
    LOST = "lost"  # the seat was lost (a fault, or the match stopped): no more questions for it
    REPLAY = "replay"  # the match is over and recorded: its replay is offered
    OVER = "over"  # the run is over; the page stays served ``keep_s`` more seconds, for its replays


class Refused(ValueError):
    """An answer the desk does not pass on; ``status`` is the HTTP status the page gets with the reason."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status


@dataclass
class PageLine:
    """One seat of one match, played through its person's page; see the module docstring."""

    person: Person
    match_id: str = ""
    seat: int = -1
    view: Any = None  # the engine's view of the question out (Hand's turn builder reads it): None when none is
    asking: int = 0  # the seq of the question out, 0 when none is
    ended: bool = False
    _replies: asyncio.Queue[Any] = field(default_factory=lambda: asyncio.Queue(1))
    _gone: Fault | None = None

    async def write(self, message: bytes | pb.RefereeMessage) -> None:
        if self._gone is not None:
            raise LineLost(self._gone)
        # A decision comes serialized (once, for every kind of seat): the page reads it as JSON.
        told = pb.RefereeMessage.FromString(message) if isinstance(message, bytes) else message
        body = told.WhichOneof("body")
        if body == "start":
            self.match_id, self.seat = told.start.match_id, told.start.seat
            self.person.lines[(self.match_id, self.seat)] = self
        elif body == "decision":
            self.asking = told.decision.seq
        self.person.publish(self, {"message": request_json(told)})

    async def read(self) -> Any:
        reply = await self._replies.get()
        if reply is None:  # woken by cancel()
            assert self._gone is not None
            raise LineLost(self._gone)
        return reply

    async def done_writing(self) -> None:
        self.ended = True
        self.asking = 0

    def cancel(self) -> None:
        """The seat is lost (a fault), or the match was stopped: the page is told, a read is woken."""
        if self._gone is None:
            self._gone = Fault(FaultCode.STREAM_CLOSED, "the referee closed this seat")
            if not self.ended and self.seat >= 0:
                self.person.publish(self, {"door": Door.LOST})
        self.ended = True
        self.asking = 0
        self.view = None
        if self._replies.empty():
            self._replies.put_nowait(None)

    def take(self, message: pb.BotMessage) -> None:
        """The page's answer to the question out: passed on to the seat, as a bot's reply is read."""
        self.asking = 0
        self.view = None
        self._replies.put_nowait(message)
        self.person.publish(self, {"door": Door.ANSWERED, "seq": message.reply.seq})


class Person:
    """One person: their page's secret token, their seats' lines, and every message sent to them."""

    def __init__(self, name: str, token: str | None = None, key: str = "") -> None:
        self.name = name  # what the page and the record call them
        self.key = key or name  # who they are on the desk: a name in a run, an exhibition's id in an arena
        self.token = token or secrets.token_urlsafe(TOKEN_BYTES)
        self.lines: dict[tuple[str, int], PageLine] = {}
        self.events: list[dict[str, Any]] = []
        self.records: dict[str, Path] = {}  # the records of this person's matches that are over, by match id
        self.opened = asyncio.Event()  # the page has asked for its messages once
        self.closed = False  # the run is over: nothing more will be sent
        self._news = asyncio.Event()

    def line(self) -> PageLine:
        return PageLine(self)

    def publish(self, line: PageLine, event: dict[str, Any]) -> None:
        self._tell(line.match_id, line.seat, event)

    def _tell(self, match_id: str, seat: int, event: dict[str, Any]) -> None:
        """Number the event, keep it, and wake the pages waiting for news."""
        self.events.append({"n": len(self.events), "match_id": match_id, "seat": seat, **event})
        self._news.set()
        self._news = asyncio.Event()

    def recorded(self, match_id: str, record: Path) -> None:
        """A match of this person's is over and its record written: the page may offer its replay."""
        held = sorted(seat for (match, seat) in self.lines if match == match_id)
        if held:
            self.records[match_id] = record
            self.publish(self.lines[(match_id, held[0])], {"door": Door.REPLAY})

    async def after(self, n: int, wait_s: float) -> list[dict[str, Any]]:
        """The events from number ``n`` on; waits up to ``wait_s`` for one when there is none yet."""
        self.opened.set()
        if n >= len(self.events) and not self.closed:
            news = self._news
            try:
                async with asyncio.timeout(wait_s):
                    await news.wait()
            except TimeoutError:
                return []
        return self.events[n:]

    def over(self, keep_s: float) -> None:
        """The run is over: nothing more will be asked, and the page is served ``keep_s`` more seconds."""
        self._tell("", -1, {"door": Door.OVER, "keep_s": keep_s})  # of no match and no seat: of the run

    def close(self) -> None:
        """The page is about to stop being served: a page waiting for news is answered now."""
        self.closed = True
        self._news.set()

    def answer(self, match_id: str, seat: int, message: Any) -> None:
        """Pass the page's ``BotMessage`` (JSON) to the seat's question out; :class:`Refused` says why not."""
        line = self.lines.get((match_id, seat))
        if line is None:
            raise Refused(404, f"you hold no seat {seat} in match {match_id!r}")
        if not line.asking:
            raise Refused(409, "that seat has no question out: it was answered, or the clock ran out")
        parsed = _bot_message(message)
        if parsed.WhichOneof("body") != "reply" or parsed.reply.seq != line.asking:
            raise Refused(409, f"the question out is seq {line.asking}: answer it with a reply carrying that seq")
        line.take(parsed)

    def asked(self, match_id: str, seat: int) -> PageLine:
        """The line of the seat's question out (the turn builder reads its view); :class:`Refused` if none."""
        line = self.lines.get((match_id, seat))
        if line is None or not line.asking or line.view is None:
            raise Refused(409, f"seat {seat} of match {match_id!r} has no question out")
        return line


def _bot_message(value: Any) -> pb.BotMessage:
    if not isinstance(value, dict):
        raise Refused(400, 'expected a BotMessage as a JSON object, e.g. {"reply": {"seq": 3, "action": {...}}}')
    try:
        return json_format.ParseDict(value, pb.BotMessage())
    except json_format.ParseError as error:
        raise Refused(400, f"not a BotMessage: {error}") from None


class Desk:
    """The people of one run, by their page's token and by key (their name in a run)."""

    def __init__(self) -> None:
        self.people: dict[str, Person] = {}  # by key

    def person(self, key: str, name: str = "") -> Person:
        """The person of ``key``, made (called ``name``, else ``key``) the first time."""
        found = self.people.get(key)
        if found is None:
            found = self.people[key] = Person(name or key, key=key)
        return found

    def by_token(self, token: str) -> Person | None:
        for person in self.people.values():
            if secrets.compare_digest(person.token, token):
                return person
        return None

    def leave(self, key: str) -> None:
        """The person of ``key`` is done with this desk: their page finds nobody, and their messages go."""
        self.people.pop(key, None)

    def __iter__(self) -> Iterator[Person]:
        return iter(self.people.values())

    def over(self, keep_s: float) -> None:
        for person in self.people.values():
            person.over(keep_s)

    def close(self) -> None:
        for person in self.people.values():
            person.close()

    def recorded(self, match_id: str, record: Path) -> None:
        """A match is over and recorded: each person who held a seat in it is offered its replay."""
        for person in self.people.values():
            person.recorded(match_id, record)

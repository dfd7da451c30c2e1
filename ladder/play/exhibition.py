"""Exhibition matches: a person at a seat against the ladder's bots, recorded and replayable, never rated.

``waraq serve`` lets a signed-in person play one match against any bot of the
ladder (:mod:`waraq.ladder.web.exhibitions` is its door). The match is the
ladder's game under its rules, with the ladder's sandbox and the person's
clock (:data:`~waraq.referee.human.options.HUMAN_CLOCK`); the bots' seats are
launched anew for it, one process a seat, as a ladder's are. Its deal is
fresh: its own seed and its own deal key, drawn from the system's secure
source, so it shares no deck with any board of the ladder (the ladder's key
never deals it, and its record, shown to the person, predicts nothing).

Nothing of it reaches the ratings: its record goes to ``exhibitions/`` in the
ladder folder (hidden from every bot, as the whole folder is), and one row of
the ``exhibitions`` table says who played whom and how it ended, so the
person finds it again after a restart.
"""

from __future__ import annotations

import asyncio
import json
import secrets
from collections import Counter
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from waraq.ladder.play import bots as launch
from waraq.ladder.play.folder import Ladder
from waraq.ladder.storage.side_tables import now
from waraq.ladder.storage.store import ACTIVE
from waraq.referee.games.registry import game_of_rules
from waraq.referee.games.results import ResultReason
from waraq.referee.human.desk import Desk
from waraq.referee.human.options import HUMAN_CLOCK
from waraq.referee.launch.bots import BotSpec, Endpoint, SpecKind
from waraq.referee.match import secret_deals
from waraq.referee.match.play import MatchConfig, MatchOutcome, TimeControl, abort_on_referee_error, run_match
from waraq.referee.records.record_file import RecordWriter

FOLDER = "exhibitions"  # in the ladder folder: the records of exhibition matches
AT_ONCE = 2  # exhibitions played at once in one arena: each holds processes and a person's attention
TABLE = """
CREATE TABLE IF NOT EXISTS exhibitions (
    id TEXT PRIMARY KEY,                -- 16 hex digits: the exhibition's own, in its page's address
    person INTEGER NOT NULL,            -- who played it (people.id)
    seat INTEGER NOT NULL,              -- the person's seat
    bots TEXT NOT NULL,                 -- JSON: the bot at each seat by its ladder name, "" at the person's
    started TEXT NOT NULL,
    ended TEXT,                         -- NULL while it is played (or if the server stopped under it)
    reason TEXT,                        -- as a record's result says it: score, bam, forfeit, aborted
    winners TEXT,                       -- JSON: the winning seats
    record TEXT NOT NULL                -- relative to the ladder folder
);
"""


_ROWS = "SELECT id, person, seat, bots, started, ended, reason, winners, record FROM exhibitions"


class Stage(StrEnum):
    STARTING = "starting"  # the bots are launched and the person's page awaited
    PLAYING = "playing"
    OVER = "over"
    STOPPED = "stopped"  # the server stopped before its end: its record holds what was played


class ExhibitionError(ValueError):
    """A match that cannot be started: the reason, for whoever asked."""


@dataclass
class Exhibition:
    id: str
    person: int  # people.id
    name: str  # the person's name: their seat's name in the record
    seat: int
    bots: list[str]  # by seat; "" at the person's
    record: Path
    stage: Stage = Stage.STARTING
    reason: str = ""
    winners: list[int] = field(default_factory=list)
    match_id: str = ""
    token: str = ""  # the person's page token for this match (its desk's)


class Exhibitions:
    """The exhibitions of one arena: a desk of people and the matches played now."""

    def __init__(self, ladder: Ladder) -> None:
        self.ladder = ladder
        self.desk = Desk()
        self.playing: dict[str, Exhibition] = {}
        self._latest: dict[int, str] = {}  # each person's latest exhibition, by people.id
        self._tasks: set[asyncio.Task[Any]] = set()
        self._in_use: Counter[str] = Counter()  # the folders of the bots launched for exhibitions now
        ladder.store.db.executescript(TABLE)

    def folders_in_use(self) -> set[str]:
        """The folders bots are launched in for the exhibitions now (from before their start to their stop)."""
        return {folder for folder, count in self._in_use.items() if count}

    def bots(self) -> list[str]:
        """The ladder bots a person may play: active, and launched by the ladder (a dial-in bot is not its own
        to start)."""
        config, store = self.ladder.config, self.ladder.store
        active = {entry.base for entry in store.entries([ACTIVE])}
        return [bot.name for bot in config.bots if bot.name in active and bot.bot_spec.kind is not SpecKind.DIAL_IN]

    def seats(self, opponent: str, partner: str) -> list[str]:
        """The bot at each seat, the person's at seat 0: ``partner`` beside them in a game of teams, and
        ``opponent`` at every other seat."""
        rules = self.ladder.config.rules
        allowed = self.bots()
        for name in (opponent, partner):
            if name and name not in allowed:
                raise ExhibitionError(f"{name!r} is no bot you may play here: {', '.join(allowed) or 'none is'}")
        if not opponent:
            raise ExhibitionError("choose a bot to play against")
        teams = rules.teams
        bots = [
            "" if seat == 0 else (partner or opponent) if seat % teams == 0 else opponent
            for seat in range(rules.players)
        ]
        return bots

    def start(self, person: int, name: str, opponent: str, partner: str = "") -> Exhibition:
        """Begin a match for ``person``; :class:`ExhibitionError` when it may not begin now."""
        bots = self.seats(opponent, partner)
        if any(e.person == person for e in self.playing.values()):
            raise ExhibitionError("you are in an exhibition match already: finish it first")
        if len(self.playing) >= AT_ONCE:
            raise ExhibitionError(f"{AT_ONCE} exhibition matches are being played: try again when one is over")
        ident = secrets.token_hex(8)
        folder = self.ladder.folder / FOLDER
        folder.mkdir(exist_ok=True)
        game = game_of_rules(self.ladder.config.rules)
        exhibition = Exhibition(ident, person, name, 0, bots, folder / f"{game}-{ident}.jsonl")
        store = self.ladder.store
        with store.transaction():
            store.db.execute(
                "INSERT INTO exhibitions (id, person, seat, bots, started, record) VALUES (?, ?, ?, ?, ?, ?)",
                (ident, person, 0, json.dumps(bots), now(), str(exhibition.record.relative_to(self.ladder.folder))),
            )
        # A long-lived arena keeps each person's latest exhibition on its desk only (its page and its
        # messages); an earlier one is replayed from its record.
        earlier = self._latest.pop(person, None)
        if earlier is not None:
            self.desk.leave(earlier)
        self._latest[person] = ident
        exhibition.token = self.desk.person(ident, name).token
        self.playing[ident] = exhibition
        task = asyncio.ensure_future(self._play(exhibition))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return exhibition

    async def _play(self, exhibition: Exhibition) -> None:
        config = self.ladder.config
        person = Endpoint(
            BotSpec(SpecKind.HUMAN, SpecKind.HUMAN.value, exhibition.id),
            startup_ms=HUMAN_CLOCK[2],
            desk=self.desk,
        )
        endpoints: list[Endpoint] = []
        folders: list[str] = []
        outcome: MatchOutcome | None = None
        try:
            for name in exhibition.bots:
                if not name:
                    endpoints.append(person)
                    continue
                bot = config.bot(name)
                assert bot is not None  # seats() checked it
                if bot.cwd:  # in use from before its start: an old version's folder is not removed under it
                    folders.append(bot.cwd)
                    self._in_use[bot.cwd] += 1
                endpoints.append(
                    await launch.start(
                        bot,
                        startup_ms=config.time_control.startup_ms,
                        attempts=1,
                        log_dir=self.ladder.folder / "logs",
                        confinement=config.sandbox.confinement((self.ladder.folder,)),
                        store=self.ladder.store,
                    )
                )
            await person.start()
            exhibition.stage = Stage.PLAYING
            outcome = await self._match(exhibition, endpoints)
        finally:
            await asyncio.gather(*(launch.stop(e, self.ladder.store) for e in endpoints if e is not person))
            self._in_use.subtract(folders)
            self._ended(exhibition, outcome)

    async def _match(self, exhibition: Exhibition, endpoints: list[Endpoint]) -> MatchOutcome:
        key = secret_deals.new_key()
        seed = secrets.randbelow(2**31)
        exhibition.match_id = secret_deals.match_id(key, f"exhibition/{exhibition.id}")
        clock = TimeControl(*HUMAN_CLOCK)
        match = MatchConfig(self.ladder.config.rules, seed, exhibition.match_id, clock, deal_key=key)
        record = RecordWriter(exhibition.record)
        try:
            return await run_match(match, [e.seat() for e in endpoints], record)
        except Exception as error:  # a referee bug: this match is aborted, the arena goes on
            abort_on_referee_error(error, record)
            return MatchOutcome(match.match_id, seed, (), ResultReason.ABORTED, (), record=str(record.path))
        finally:
            record.close()

    def _ended(self, exhibition: Exhibition, outcome: MatchOutcome | None) -> None:
        self.playing.pop(exhibition.id, None)
        if outcome is None:
            exhibition.stage = Stage.STOPPED
            return
        exhibition.stage, exhibition.reason, exhibition.winners = Stage.OVER, str(outcome.reason), list(outcome.winners)
        store = self.ladder.store
        with store.transaction():
            store.db.execute(
                "UPDATE exhibitions SET ended = ?, reason = ?, winners = ? WHERE id = ?",
                (now(), exhibition.reason, json.dumps(exhibition.winners), exhibition.id),
            )
        self.desk.recorded(exhibition.match_id, exhibition.record)

    def holds(self, person: int, ident: str) -> bool:
        """Whether ``ident`` is the exhibition on the desk for ``person`` (people.id): theirs, and their latest.
        Asked at each request of a seat's page: from memory, not the database."""
        return self._latest.get(person) == ident

    def of_person(self, person: int) -> list[dict[str, Any]]:
        """The person's exhibitions, newest first, as the database has them."""
        rows = self.ladder.store.db.execute(_ROWS + " WHERE person = ? ORDER BY started DESC", (person,)).fetchall()
        return [self._row(row) for row in rows]

    def by_id(self, ident: str) -> dict[str, Any] | None:
        row = self.ladder.store.db.execute(_ROWS + " WHERE id = ?", (ident,)).fetchone()
        return None if row is None else self._row(row)

    def _row(self, row: tuple[Any, ...]) -> dict[str, Any]:
        playing = self.playing.get(row[0])
        return {
            "id": row[0],
            "person": row[1],
            "seat": row[2],
            "bots": json.loads(row[3]),
            "started": row[4],
            "ended": row[5],
            "reason": row[6],
            "winners": json.loads(row[7]) if row[7] else [],
            "record": self.ladder.folder / row[8],
            "playing": playing is not None,
            "token": playing.token if playing is not None else "",
        }

    async def close(self) -> None:
        """The server stops: the people's pages are answered, the matches in play cancelled (their records
        keep what was played)."""
        self.desk.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

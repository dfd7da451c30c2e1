"""Many matches at once between the same bots: what ``waraq match`` runs.

Each launched bot is started once per seat it holds (:func:`seat_slots`) and
serves that seat in every match; matches run concurrently up to
``concurrency``. Match ``i`` of a run with seed ``S`` is played with seed
``S + i``, so any match can be played again alone with the same deal key (the
seed alone predicts nothing when there is one: :mod:`waraq.referee.match.secret_deals`).
A referee bug in one match aborts that match only. A record that cannot be
written (a full disk) stops the run: no match starts after it, and the report
says which file and why (``RunReport.stopped``); every record already whole
stays as it is. Fewer bots than seats fill them in turn only where that is
fair (:func:`fill_seats`), and bots that would share a name are told apart
(:func:`names_apart`) before any record names them.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

from waraq.referee.games.registry import game_of_rules
from waraq.referee.games.results import ResultReason
from waraq.referee.human.desk import Desk
from waraq.referee.human.options import EXTRA, PageConfig
from waraq.referee.launch import sandbox
from waraq.referee.launch.bots import BotSpec, Endpoint, SpecKind
from waraq.referee.lobby.lobby import Lobby
from waraq.referee.lobby.options import LobbyConfig, Told, lobby_for_run
from waraq.referee.match import secret_deals
from waraq.referee.match.play import (
    FaultPolicy,
    MatchConfig,
    MatchOutcome,
    TimeControl,
    abort_on_referee_error,
    run_match,
)
from waraq.referee.records.record_file import RecordError, RecordWriter
from waraq.referee.replay.html.write import render_page
from waraq.referee.replay.walk import load

Bot = TypeVar("Bot")  # whatever names a bot: a BotSpec here, a ladder entry's id there


@dataclass(frozen=True)
class RunConfig:
    rules: Any  # any game's rules (see MatchConfig)
    bots: Sequence[BotSpec]  # one per seat
    games: int = 1
    seed: int = 1
    concurrency: int = 1
    policy: str = FaultPolicy.FORFEIT  # or its spelling: checked when a match is made (FaultPolicy.of)
    max_faults: int = 3
    time_control: TimeControl = TimeControl()
    record_dir: Path | None = None
    gzip: bool = False
    deal_key: str = ""  # see MatchConfig.deal_key; `waraq match` gives a fresh one unless told one
    # How launched bots are confined (waraq.referee.launch.sandbox); the records are hidden from them besides.
    confinement: sandbox.Config = sandbox.Config()
    skip: frozenset[int] = frozenset()  # seeds not to play: their records are kept (waraq.referee.run.run_folder)
    lobby: LobbyConfig = LobbyConfig()  # where dial-in bots dial, if any is given
    page: PageConfig = PageConfig()  # where a human seat's page is served, if a person sits

    def __post_init__(self) -> None:
        if len(self.bots) != self.rules.players:
            raise ValueError(f"{self.rules.players} players need {self.rules.players} bots, {len(self.bots)} given")
        named: dict[str, BotSpec] = {}
        for spec in self.bots:
            other = named.setdefault(spec.name, spec) if spec.name else spec
            if other != spec:  # two bots under one name: the summary could not tell them apart
                raise ValueError(
                    f"bots {other.value!r} and {spec.value!r} are both named {spec.name!r}: give each its own name"
                )
        if self.games < 1 or self.concurrency < 1:
            raise ValueError("games and concurrency must be at least 1")

    @property
    def seeds(self) -> list[int]:
        """The seeds of the matches to play, in order."""
        return [seed for seed in range(self.seed, self.seed + self.games) if seed not in self.skip]


@dataclass
class RunReport:
    outcomes: list[MatchOutcome] = field(default_factory=list)
    bots: list[Endpoint] = field(default_factory=list)  # each process once
    seats: list[Endpoint] = field(default_factory=list)  # the one serving each seat, by seat
    stopped: RecordError | None = None  # the record that could not be written, which ended the run


def match_id(seed: int, deal_key: str = "") -> str:
    """The id the bots see for match ``seed`` (:func:`waraq.referee.match.secret_deals.run_match_id`)."""
    return secret_deals.run_match_id(seed, deal_key)


def seat_slots(bots: Sequence[Bot], one_server: Callable[[Bot], bool] = lambda bot: False) -> list[tuple[Bot, int]]:
    """Which process serves each seat: a bot gets one process per seat it holds in a match.

    A process that served two seats of one match would be sent both their hands:
    partners would see each other's cards. Seat ``i`` is served by process
    ``slots[i]``, the bot and its process number (0 for its first seat); a bot
    for which ``one_server`` holds, an address someone else runs, is one server
    whatever it serves, and the referee cannot split it.
    """
    held: dict[Bot, int] = {}
    slots = []
    for bot in bots:
        slot = 0 if one_server(bot) else held.get(bot, 0)
        held[bot] = slot + 1
        slots.append((bot, slot))
    return slots


def _one_server(spec: BotSpec) -> bool:
    return spec.kind.one_server


def fill_seats(bots: Sequence[Bot], players: int, teams: int) -> list[Bot]:
    """One bot a seat from ``bots``, repeated in turn (seat ``i`` gets bot ``i mod n``) where that is fair.

    It is fair when every bot holds as many seats, and in a game of teams each
    bot's seats are on one team; or one bot holds every seat (it plays itself).
    Four seats in two teams take 1, 2 or 4 bots: two are one team's each, while
    three would put the first bot on both teams, partner to another and
    against itself. Four seats each alone take 1, 2 or 4 too; three seats 1 or
    3 (of two bots one would hold two seats); two seats 1 or 2. Any other
    number raises ValueError, saying which would do (:func:`fair_counts`).
    """
    n = len(bots)
    fair = fair_counts(players, teams)
    if n in fair:
        return [bots[seat % n] for seat in range(players)]
    counts = f"give {_or_list(fair)} bots"
    if n > players:
        raise ValueError(f"{n} bots for {players} seats: {counts} (at most {players}: fewer are repeated in turn)")
    held = [list(range(first, players, n)) for first in range(n)]
    spread = next((i for i, seats in enumerate(held) if len({seat % teams for seat in seats}) > 1), None)
    if teams < players and spread is not None:
        which = ORDINALS[spread] if spread < len(ORDINALS) else f"number {spread + 1}"
        why = (
            f"the {which} bot would hold seats {_and_list(held[spread])}, on both teams: partner to another bot "
            "and against itself"
        )
    else:
        why = f"the first bot would hold {len(held[0])} seats ({_and_list(held[0])}), the last {len(held[-1])}"
    raise ValueError(f"{n} bots for {players} seats, repeated in turn: {why}; {counts}")


ORDINALS = ("first", "second", "third", "fourth", "fifth")


def fair_counts(players: int, teams: int) -> list[int]:
    """How many bots can fill ``players`` seats in ``teams`` sides fairly (:func:`fill_seats`)."""
    return [n for n in range(1, players + 1) if n == 1 or (players % n == 0 and (teams == players or n % teams == 0))]


def _or_list(numbers: Sequence[int]) -> str:
    return ", ".join(map(str, numbers[:-1])) + " or " + str(numbers[-1]) if len(numbers) > 1 else str(numbers[0])


def _and_list(numbers: Sequence[int]) -> str:
    return ", ".join(map(str, numbers[:-1])) + " and " + str(numbers[-1]) if len(numbers) > 1 else str(numbers[0])


def names_apart(wanted: Sequence[tuple[str, bool]]) -> list[str]:
    """Each bot's name for a run, no two alike: ``wanted`` holds one ``(name, given)`` a bot, in the
    order of their first seats. A name its user gave is kept as it is (no two are alike:
    :class:`RunConfig`); any other that is taken already gets the first free ``#2``, ``#3``, …
    (two bots whose Hellos both say ``heuristic``: ``heuristic``, ``heuristic#2``)."""
    taken = {name for name, given in wanted if given}
    names = []
    for name, given in wanted:
        if not given:
            number, base = 1, name
            while name in taken:
                number += 1
                name = f"{base}#{number}"
            taken.add(name)
        names.append(name)
    return names


def _name_apart(bots: Sequence[BotSpec], endpoints: dict[tuple[BotSpec, int], Endpoint]) -> None:
    """Call each bot by its user's name, else its Hello's, told apart (:func:`names_apart`): what the
    records' seats, and whoever reads the report, call it. A bot's processes share its name."""
    first = {spec: endpoints[spec, 0] for spec in bots}  # its first seat's process: a bot's first slot is 0
    names = names_apart([(spec.name or endpoint.name, bool(spec.name)) for spec, endpoint in first.items()])
    name_of = dict(zip(first, names, strict=True))
    for (spec, _), endpoint in endpoints.items():
        endpoint.name = name_of[spec]


def record_name(seed: int, game: str = "hokm") -> str:
    """``<game>-<seed>.jsonl``: one folder can hold both games' records."""
    return f"{game}-{seed}.jsonl"


async def run(
    config: RunConfig,
    on_outcome: Callable[[MatchOutcome], None] | None = None,
    on_lobby: Told | None = None,
    on_page: Callable[[dict[str, str]], None] | None = None,
    on_page_kept: Callable[[float], None] | None = None,
) -> RunReport:
    """Play the run's matches. With dial-in bots, a lobby listens first (``config.lobby``) and
    ``on_lobby`` is told where and each bot's token, made for this run alone. With human seats,
    their page is served first (``config.page``) and ``on_page`` told each person's address; after the
    run it is kept ``config.page.keep_s`` more, and ``on_page_kept`` told so."""
    dial_ins = sorted({spec.name or spec.value for spec in config.bots if spec.kind is SpecKind.DIAL_IN})
    people = sorted({spec.name or spec.value for spec in config.bots if spec.kind is SpecKind.HUMAN})
    async with contextlib.AsyncExitStack() as stack:
        lobby = await stack.enter_async_context(lobby_for_run(dial_ins, config.lobby, on_lobby)) if dial_ins else None
        desk = (
            await stack.enter_async_context(_page_for_run(people, config.page, on_page, on_page_kept))
            if people
            else None
        )
        return await _run(config, on_outcome, lobby, desk)
    raise AssertionError("unreachable: the exit stack returns or raises")


def replay_page(record: Path) -> str:
    """A record's HTML replay, for a person's page once their match is over."""
    return render_page(load(record))


def _page_for_run(
    people: list[str],
    config: PageConfig,
    tell: Callable[[dict[str, str]], None] | None,
    kept: Callable[[float], None] | None,
) -> contextlib.AbstractAsyncContextManager[Desk]:
    """The human seats' page; imported only when a person sits, since the web stack is an extra."""
    try:
        from waraq.referee.human.server import page_for_run
    except ImportError as error:
        raise ValueError(
            f"a human seat's page needs the web stack, which is not installed ({error.name}): "
            f"pip install 'waraq[{EXTRA}]'"
        ) from None
    return page_for_run(people, config, replay_page, tell, kept)


async def _run(
    config: RunConfig,
    on_outcome: Callable[[MatchOutcome], None] | None,
    lobby: Lobby | None,
    desk: Desk | None = None,
) -> RunReport:
    endpoints: dict[tuple[BotSpec, int], Endpoint] = {}
    confinement = config.confinement
    if config.record_dir is not None:
        config.record_dir.mkdir(parents=True, exist_ok=True)  # to be hidden, it must be there
        confinement = replace(confinement, hidden=(*confinement.hidden, config.record_dir))
    for slot in seat_slots(config.bots, _one_server):
        if slot not in endpoints:
            logs = config.record_dir / "logs" if config.record_dir else None
            endpoints[slot] = Endpoint(
                slot[0],
                startup_ms=config.time_control.startup_ms,
                log_dir=logs,
                confinement=confinement,
                lobby=lobby,
                desk=desk,
            )
    report = RunReport(
        bots=list(endpoints.values()), seats=[endpoints[s] for s in seat_slots(config.bots, _one_server)]
    )
    seeds = config.seeds
    if not seeds:
        _name_apart(config.bots, endpoints)
        return report  # every match is kept from an earlier run: no bot needs to start
    try:
        await asyncio.gather(*(e.start() for e in endpoints.values()))
        _name_apart(config.bots, endpoints)  # before any record's header names them
        gate = asyncio.Semaphore(config.concurrency)

        async def one(seed: int) -> None:
            async with gate:
                if report.stopped is not None:
                    return
                try:
                    outcome = await _one_match(
                        config, seed, [endpoints[s] for s in seat_slots(config.bots, _one_server)]
                    )
                except RecordError as error:  # matches in flight go on: what they finish is kept
                    report.stopped = report.stopped or error
                    return
            report.outcomes.append(outcome)
            if desk is not None and outcome.record is not None:
                desk.recorded(outcome.match_id, Path(outcome.record))
            if on_outcome is not None:
                on_outcome(outcome)

        await asyncio.gather(*(one(seed) for seed in seeds))
    finally:
        await asyncio.gather(*(e.stop() for e in endpoints.values()))
    report.outcomes.sort(key=lambda o: o.seed)
    return report


async def _one_match(config: RunConfig, seed: int, endpoints: Sequence[Endpoint]) -> MatchOutcome:
    mid = match_id(seed, config.deal_key)
    record = None
    if config.record_dir is not None:
        name = record_name(seed, game_of_rules(config.rules))
        record = RecordWriter(config.record_dir / (name + (".gz" if config.gzip else "")))
    match = MatchConfig(
        config.rules, seed, mid, config.time_control, FaultPolicy.of(config.policy), config.max_faults, config.deal_key
    )
    try:
        return await run_match(match, [e.seat() for e in endpoints], record)
    except RecordError:
        raise  # not the match's fault: the run stops (see run)
    except Exception as error:  # a referee bug: this match is aborted, the run goes on
        abort_on_referee_error(error, record)
        return MatchOutcome(mid, seed, (), ResultReason.ABORTED, (), record=str(record.path) if record else None)
    finally:
        if record is not None:
            record.close()

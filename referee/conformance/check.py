"""Play a conformance run's stages against a bot; :mod:`.judge` reads their records.

Each stage gets a fresh process of a launched bot (an address is the one
server it is), so a crash in one stage fails the cases of that stage and no
other. Matches are played under the ``substitute`` policy with no limit on
faults: a wrong answer is recorded and the match goes on, so every later
situation is still put to the bot (the timing stages forfeit at the first
fault instead: a slow bot is slow at every question). A lost seat (a broken
stream, a timeout) ends its match, charged to the situation it was asked in.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypeVar, cast

from waraq.referee.common import built_in
from waraq.referee.conformance import cases as c
from waraq.referee.conformance import stages as s
from waraq.referee.conformance.cases import Status, Verdict
from waraq.referee.conformance.future_fields import with_future_fields
from waraq.referee.conformance.judge import GAMES, judge
from waraq.referee.conformance.played import Played, StageResult
from waraq.referee.conformance.startup import Probe, probe
from waraq.referee.games import registry
from waraq.referee.games.registry import Part
from waraq.referee.launch import sandbox
from waraq.referee.launch.bots import BotSpec, Endpoint, SpecKind
from waraq.referee.lobby.lobby import Lobby
from waraq.referee.lobby.options import LobbyConfig, lobby_for_run
from waraq.referee.match.play import MatchConfig, abort_on_referee_error, run_match
from waraq.referee.match.seats import InProcessSeat, RemoteSeat, Seat
from waraq.referee.records.record_file import RecordError, RecordWriter
from waraq.v1 import bot_pb2 as pb

NO_LIMIT = 1_000_000  # faults a seat may make before its match is forfeited: never, in a check
T = TypeVar("T")


@dataclass(frozen=True)
class CheckConfig:
    spec: BotSpec
    record_dir: Path
    games: frozenset[str] = frozenset()  # only these (empty: every game the bot declares)
    players: frozenset[int] = frozenset()  # only these counts (empty: every count it declares)
    jobs: int = 2  # stages played at once
    startup_ms: float = 30_000
    confinement: sandbox.Config = sandbox.DEFAULT
    only: tuple[str, ...] = ()  # case ids or their beginnings ("timing.", "hokm-4."): these cases alone
    lobby: LobbyConfig = LobbyConfig()  # where a dial-in bot dials (a spec of dial-in)
    cwd: str | None = None  # where a launched bot runs (its own folder, as a ladder's is); None: here

    def wants(self, case_id: str) -> bool:
        return not self.only or any(case_id.startswith(prefix) for prefix in self.only)


@dataclass
class Report:
    spec: BotSpec
    probe: Probe
    verdicts: list[Verdict]
    seconds: float
    record_dir: Path

    @property
    def name(self) -> str:
        return self.probe.hello.name if self.probe.hello is not None and self.probe.hello.name else str(self.spec)

    def count(self, status: Status) -> int:
        return sum(1 for v in self.verdicts if v.status is status)

    @property
    def ok(self) -> bool:
        return self.count(Status.FAIL) == 0


def declared(hello: pb.HelloReply | None, config: CheckConfig) -> list[tuple[str, int]]:
    """The games and player counts to check: what the Hello declares, narrowed by the config."""
    if hello is None or hello.protocol_version != 1:
        return []  # the referee seats a bot of another protocol in no match (hello.protocol says so)
    said = {(g.game, n) for g in hello.games for n in g.players}
    wanted = [(game, n) for game, counts in GAMES.items() for n in counts if (game, n) in said]
    return [
        (game, n)
        for game, n in wanted
        if (not config.games or game in config.games) and (not config.players or n in config.players)
    ]


def plan(pairs: list[tuple[str, int]], config: CheckConfig) -> list[s.Stage]:
    """The stages the wanted cases read (every stage feeds the notes case)."""
    stages: list[s.Stage] = []
    for game, n in pairs:
        stages += _game_stages(game, n)
    if pairs:
        stages += s.common_stages(*pairs[0])
    return [stage for stage in stages if any(config.wants(case) for case in _fed_by(stage))]


def _game_stages(game: str, n: int) -> list[s.Stage]:
    stages: list[s.Stage] = registry.part(game, Part.CONFORMANCE).stages(n)
    return stages


def case_ids() -> list[str]:
    """Every case a check can judge, of every game and player count the referee seats (the probe's and
    those each stage feeds), in alphabetical order."""
    found = {case.id for case in c.PROBED}
    for game, counts in GAMES.items():
        for n in counts:
            for stage in [*_game_stages(game, n), *s.common_stages(game, n)]:
                found |= _fed_by(stage)
    return sorted(found)


def unknown_cases(only: Iterable[str]) -> list[str]:
    """The ``--only`` values that are no case's id nor the beginning of one (a typo would check nothing)."""
    known = case_ids()
    return [prefix for prefix in only if not any(case.startswith(prefix) for case in known)]


def _fed_by(stage: s.Stage) -> set[str]:
    fed = {c.situation_case(stage.game, stage.rules.players, situation).id for situation in stage.situations}
    return fed | stage.cases | {c.NOTES.id}


async def check(
    config: CheckConfig,
    on_stage: Callable[[str], None] | None = None,
    on_lobby: Callable[[str, str], None] | None = None,
) -> Report:
    """Check the bot. A dial-in bot (``dial-in``): a lobby listens first, and ``on_lobby`` is told its
    address and the one token made for this check, which the bot dials with."""
    if config.spec.kind is not SpecKind.DIAL_IN:
        return await _check(config, on_stage, None)

    def tell(address: str, tokens: dict[str, str]) -> None:
        if on_lobby is not None:
            on_lobby(address, tokens[DIALLED])

    async with lobby_for_run([DIALLED], config.lobby, tell) as lobby:
        return await _check(config, on_stage, lobby)


DIALLED = "dial-in"  # the lobby's name for the bot a check made its token for


async def _check(config: CheckConfig, on_stage: Callable[[str], None] | None, lobby: Lobby | None) -> Report:
    begun = time.perf_counter()
    config.record_dir.mkdir(parents=True, exist_ok=True)
    confinement = replace(config.confinement, hidden=(*config.confinement.hidden, config.record_dir))
    config = replace(config, confinement=confinement)
    first = await probe(_endpoint(config, lobby))
    pairs = declared(first.hello, config) if first.failure is None else []
    stages = plan(pairs, config)
    gate = asyncio.Semaphore(config.jobs)

    async def one(stage: s.Stage) -> StageResult:
        async with gate:
            result = await play_stage(stage, config, lobby)
        if on_stage is not None:
            on_stage(stage.name)
        return result

    results = _or_first_error(await asyncio.gather(*(one(stage) for stage in stages), return_exceptions=True))
    verdicts = [v for v in judge(first, pairs, results) if config.wants(v.case.id)]
    verdicts = [replace(v, number=number) for number, v in enumerate(verdicts, 1)]
    return Report(config.spec, first, verdicts, time.perf_counter() - begun, config.record_dir)


def _or_first_error(results: list[T | BaseException]) -> list[T]:
    """The results of a gather that waited for every task, or the first error among them raised.

    Waiting for all before raising (a full disk fails every stage) is what lets every stage stop
    its bot: a stage still running when the error left would be cancelled with its process
    unreaped, and asyncio would say so on stderr after the check's one line.
    """
    for result in results:
        if isinstance(result, BaseException):
            raise result
    return cast(list[T], results)


def _endpoint(config: CheckConfig, lobby: Lobby | None = None) -> Endpoint:
    return Endpoint(
        config.spec,
        startup_ms=config.startup_ms,
        log_dir=config.record_dir / "logs",
        cwd=config.cwd,
        confinement=config.confinement,
        lobby=lobby,
        dial_name=DIALLED,
    )


async def play_stage(stage: s.Stage, config: CheckConfig, lobby: Lobby | None = None) -> StageResult:
    endpoint = _endpoint(config, lobby)
    await endpoint.start()
    result = StageResult(stage, dialled=lobby is not None)
    try:
        if endpoint.failure is not None:
            result.failure = endpoint.failure.detail
            return result
        if stage.concurrent:
            games = (_play(stage, seed, endpoint, config) for seed in stage.seeds)
            result.matches = _or_first_error(await asyncio.gather(*games, return_exceptions=True))
        else:
            result.matches = [await _play(stage, seed, endpoint, config) for seed in stage.seeds]
    finally:
        await endpoint.stop()
    return result


async def _play(stage: s.Stage, seed: int, endpoint: Endpoint, config: CheckConfig) -> Played:
    rules = stage.rules
    mine = stage.seats_of_bot()
    remote: list[RemoteSeat] = []
    seats: list[Seat] = []
    for seat in range(rules.players):
        if seat in mine:
            bot = endpoint.seat()
            if isinstance(bot, RemoteSeat):
                if stage.unknown_fields:
                    bot.rewrite = with_future_fields
                bot.watch_close = stage.watch_close and endpoint.spec.kind is not SpecKind.DIAL_IN
                remote.append(bot)
            seats.append(bot)
        else:
            seats.append(_stand_in(stage))
    path = config.record_dir / f"{stage.name}-{seed}.jsonl"
    match = MatchConfig(
        rules,
        seed,
        f"check-{stage.name}-{seed}",
        stage.clock,
        stage.policy,
        NO_LIMIT,
        dealer=stage.dealer() if stage.dealer is not None else None,
    )
    record = RecordWriter(path)
    try:
        await run_match(match, seats, record)
    except RecordError:
        raise  # the record cannot be written (a full disk): the check stops, saying which file and why
    except Exception as error:  # a referee bug: the record says so; the check goes on
        abort_on_referee_error(error, record)
    finally:
        record.close()
    return Played(seed, path, [bot.closed_ms for bot in remote])


def _stand_in(stage: s.Stage) -> InProcessSeat:
    own = registry.part(stage.game, Part.CONFORMANCE).stand_in(stage.stand_in)
    if own is not None:
        player, name = own
        return InProcessSeat(player, name)
    player = built_in.get(stage.stand_in).player_class(stage.game)
    return InProcessSeat(lambda match, seat: player(f"{match}/{seat}"), stage.stand_in)

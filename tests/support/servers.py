"""Sample bots as real gRPC servers in the test's own process, for whole matches over the wire."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import grpc

from tests.support.proxy import CorruptingProxy
from waraq.bots.server import PlayerBot, builtin_players, start_server
from waraq.referee.launch.bots import BotSpec
from waraq.referee.match.play import MatchConfig, MatchOutcome, TimeControl, run_match
from waraq.referee.match.seats import RemoteSeat, open_channel
from waraq.referee.records.record_file import RecordWriter
from waraq.referee.run.runner import RunConfig, RunReport, run

FAST = TimeControl(decision_ms=5_000, bank_ms=30_000, startup_ms=30_000)


async def match_against_servers(
    rules: Any, seed: int, match_id: str, names: Sequence[str], record_path: Path, timing: TimeControl = FAST
) -> MatchOutcome:
    """One match of ``rules`` recorded to ``record_path``: seat i is the sample bot ``names[i]``,
    each seat a server of its own on a free port."""
    players = builtin_players()
    servers, channels, seats = [], [], []
    try:
        for name in names:
            server, port = await start_server(PlayerBot(name, players[name]), "127.0.0.1:0")
            servers.append(server)
            channels.append(open_channel(f"127.0.0.1:{port}"))
            seats.append(RemoteSeat(channels[-1], name, "test"))
        with RecordWriter(record_path) as record:
            return await run_match(MatchConfig(rules, seed, match_id, timing), seats, record)
    finally:
        for channel in channels:
            await channel.close()
        for server in servers:
            await server.stop(None)


def run_one_against_random(
    serve: Callable[[], Awaitable[tuple[grpc.aio.Server, int]]],
    rules: Any,
    seat: int,
    record_dir: Path,
    *,
    proxied: bool = False,
    **options: Any,
) -> tuple[RunReport, str, list[str]]:
    """``runner.run`` of two matches: seat ``seat`` is the bot ``serve`` starts in the test's event
    loop (it returns the server and its port), reached through a :class:`~tests.support.proxy.CorruptingProxy`
    when ``proxied``; every other seat is the random sample bot. ``options`` go to RunConfig.

    Returns the report, the address seat ``seat`` was reached at, and the corruptions the proxy did.
    """

    async def go() -> tuple[RunReport, str, list[str]]:
        good, good_port = await start_server(PlayerBot("random", builtin_players()["random"]), "127.0.0.1:0")
        server, port = await serve()
        proxy = CorruptingProxy(port)
        if proxied:
            port = await proxy.start()
        bots = [BotSpec.parse(f"127.0.0.1:{good_port}")] * rules.players
        bots[seat] = BotSpec.parse(f"127.0.0.1:{port}")
        try:
            report = await run(RunConfig(rules=rules, bots=bots, games=2, record_dir=record_dir, **options))
            return report, str(bots[seat]), proxy.done
        finally:
            await proxy.close()
            await server.stop(None)
            await good.stop(None)

    report, address, done = asyncio.run(go())
    assert [o.seed for o in report.outcomes] == [1, 2], "the run plays on to its second match"
    return report, address, done


def assert_clean_end(outcome: MatchOutcome, events: list[dict[str, Any]]) -> None:
    """The match ended by score, with no fault in the outcome or the record."""
    faults = [e for e in events if e["type"] == "fault"]
    assert outcome.reason == "score", f"match ended by {outcome.reason}: {faults or outcome.faults}"
    assert not faults and not outcome.faults

"""Sample bots as real gRPC servers in the test's own process, for whole matches over the wire."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from referee.match import MatchConfig, MatchOutcome, TimeControl, run_match
from referee.records import RecordWriter
from referee.seats import RemoteSeat, open_channel
from sample_bots.server import PlayerBot, builtin_players, start_server

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

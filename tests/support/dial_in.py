"""Dial-in bots under test: the Python starter kit, copied and generated, dialling a real lobby
from a process of its own; and a series of matches with any kit behind a proxy that cuts its
connection, which the Python, JavaScript and Go kits' tests share.

Test modules that use the ``python_kit`` fixture import it from here.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from tests.support import ROOT
from tests.support.cutting_proxy import Cut, CuttingProxy
from waraq.bots.server import builtin_players
from waraq.referee.games import registry
from waraq.referee.lobby.lobby import Lobby
from waraq.referee.lobby.seat import DialInSeat
from waraq.referee.lobby.tokens import TokenTable
from waraq.referee.match.play import FaultPolicy, MatchConfig, MatchOutcome, TimeControl, run_match
from waraq.referee.match.seats import InProcessSeat
from waraq.referee.records.record_file import RecordWriter, read_record
from waraq.referee.replay.verify import verify_record

KIT = ROOT / "sample_bots" / "starters" / "python"


@pytest.fixture(scope="session")
def python_kit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The kit's folder copied, its stubs generated with this interpreter."""
    kit = tmp_path_factory.mktemp("kit") / "python"
    shutil.copytree(KIT, kit, ignore=shutil.ignore_patterns("waraq", ".venv", "__pycache__"))
    made = subprocess.run(
        ["sh", str(kit / "generate.sh"), str(ROOT / "protocol" / "waraq" / "v1" / "bot.proto")],
        env={**os.environ, "PYTHON": sys.executable},
        capture_output=True,
        text=True,
    )
    assert made.returncode == 0, made.stderr
    return kit


async def start_dialling(
    argv: Sequence[str], token: str, *, cwd: Path | None = None, stderr: int = asyncio.subprocess.STDOUT
) -> asyncio.subprocess.Process:
    """A kit's command, its token in the environment as the kits' READMEs advise; its output piped, for
    a test to read (stderr into stdout unless told)."""
    return await asyncio.create_subprocess_exec(
        *argv,
        cwd=cwd,
        env={**os.environ, "WARAQ_TOKEN": token},
        stdout=asyncio.subprocess.PIPE,
        stderr=stderr,
    )


async def dial_kit(kit: Path, address: str, token: str, *extra: str) -> asyncio.subprocess.Process:
    """The Python kit dialling ``address`` with ``token``."""
    return await start_dialling([sys.executable, "-I", "bot.py", "--connect", address, *extra], token, cwd=kit)


async def stop(process: asyncio.subprocess.Process) -> str:
    """End a bot (SIGTERM, then SIGKILL) and return what it printed, stdout then stderr."""
    if process.returncode is None:
        process.terminate()
        try:
            await asyncio.wait_for(process.wait(), 5)
        except TimeoutError:
            process.kill()
    out, err = await process.communicate()
    return b"".join(part or b"" for part in (out, err)).decode(errors="replace")


class Kit:
    """The Python starter kit dialling a lobby from a process of its own, for a test that waits on
    something else (a ``waraq`` command) while the kit plays."""

    def __init__(self, kit: Path, address: str, token: str, *extra: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-I", "bot.py", "--connect", address, *extra],
            cwd=kit,
            env={**os.environ, "WARAQ_TOKEN": token},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )

    def stop(self) -> str:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
        assert self.process.stdout is not None
        return self.process.stdout.read()


def free_port() -> int:
    """A port nothing listens on now, for a command that must be told one (a ladder's lobby)."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# -- a series of matches with a dial-in bot behind a proxy that cuts ------------------------------

CLOCK = TimeControl(decision_ms=10_000, bank_ms=60_000, startup_ms=20_000)
DEAL_KEY = "c7" * 32
GAMES = {  # game -> (rules, the in-process bot at the odd seats)
    "hokm": (registry.load_rules("hokm", {"players": 4, "target_score": 2}), "random"),
    "hand": (registry.load_rules("hand", "short"), "heuristic"),
}
VOLATILE = ("ms", "bot_ms", "started", "policy")  # what differs between two plays of one match (and its policy)
Dialler = Callable[[str, str], Awaitable[asyncio.subprocess.Process]]  # (address, token) -> the bot dialling


class Series(NamedTuple):
    outcomes: list[MatchOutcome]
    paths: list[Path]  # each match's record
    proxy: CuttingProxy
    output: str  # what the bot printed


async def play_series(
    dial: Dialler,
    tmp: Path,
    game: str,
    policy: FaultPolicy,
    cuts: Sequence[Cut] = (),
    *,
    matches: int = 1,
    between: bool = False,
    grace_s: float = 20.0,
    refuse_after_cut: bool = False,
) -> Series:
    """``matches`` matches of ``game``: the bot ``dial`` starts at the even seats, dialling a real lobby
    through a :class:`CuttingProxy` making ``cuts``; a house bot in process at the odd seats.
    ``between``: every connection is cut between two matches."""
    rules, other = GAMES[game]
    tokens = TokenTable()
    token = tokens.issue("kit")
    lobby = Lobby(tokens, grace_s=grace_s)
    port = int((await lobby.listen("127.0.0.1:0")).rpartition(":")[2])
    proxy = CuttingProxy(("127.0.0.1", port), list(cuts), refuse_after_cut=refuse_after_cut)
    bot = await dial(await proxy.start(), token)
    outcomes, paths = [], []
    try:
        assert await lobby.wait_for("kit", 20), "the bot did not dial in"
        players = builtin_players()[other]
        for number in range(matches):
            if between and number:
                proxy.cut_now()
            seats: list[Any] = [
                DialInSeat(lobby, "kit", "kit", "", wait_s=20)
                if seat % 2 == 0
                else InProcessSeat(lambda match, seat_: players(match, seat_, game), other)
                for seat in range(rules.players)
            ]
            path = tmp / f"{game}-{policy}-{number}.jsonl"
            config = MatchConfig(rules, 7 + number, f"match-{number}", CLOCK, policy, deal_key=DEAL_KEY)
            with RecordWriter(path) as record:
                outcomes.append(await asyncio.wait_for(run_match(config, seats, record), 120))
            paths.append(path)
    finally:
        output = await stop(bot)
        await proxy.close()
        await lobby.close()
    return Series(outcomes, paths, proxy, output)


def same_play(path: Path) -> list[dict[str, Any]]:
    """The record's lines but for the times, the policy and the connection lines."""
    return [
        {key: value for key, value in event.items() if key not in VOLATILE}
        for event in read_record(path).events
        if event["type"] != "connection"
    ]


def connections(path: Path) -> list[tuple[int, str]]:
    return [(e["seat"], e["change"]) for e in read_record(path).events if e["type"] == "connection"]


def check_taken_back(path: Path, uncut: Path, *, cuts: int) -> None:
    """The match whose connection was cut ``cuts`` times is the uncut one but for its connection lines,
    every seat lost came back each time, in order, and the record verifies."""
    assert same_play(path) == same_play(uncut)
    changes = connections(path)
    lost = [seat for seat, change in changes if change == "lost"]
    assert len(lost) >= cuts, changes  # each cut took at least the seat being asked
    for seat in set(lost):
        assert [c for s, c in changes if s == seat] == ["lost", "back"] * lost.count(seat), changes
    assert verify_record(path).ok, verify_record(path).problem

"""A dial-in bot whose connection is cut mid-match dials again and plays on: the record is the same.

The Python starter kit, a real process, dials a real lobby on loopback
through a proxy that resets the connection (tests/support/cutting_proxy.py):
as the referee's request is on its way (mid-decision), as the bot's reply is
(mid-reply), just after a reply got through, and between matches. The kit
dials again by itself with the match and seat, and the referee sends the
MatchStart and the pending request again. Each cut match is compared with the
same match played without a cut, line by line, but for the times and the
``connection`` lines: the same decisions, notes and result, under either fault
policy, in Hokm (the kit holding two seats, so both its streams are cut at
once) and in Hand. A bot that never comes back loses its seat after the grace
with a ``connection_lost`` fault, and the match ends for the others.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.lobby.conftest import dial_kit, stop
from tests.support.cutting_proxy import Cut, CuttingProxy, after_reply, mid_decision, mid_reply
from waraq.bots.server import builtin_players
from waraq.referee.games import registry
from waraq.referee.lobby.lobby import Lobby
from waraq.referee.lobby.seat import DialInSeat
from waraq.referee.lobby.tokens import TokenTable
from waraq.referee.match.play import FaultPolicy, MatchConfig, MatchOutcome, TimeControl, run_match
from waraq.referee.match.seats import InProcessSeat
from waraq.referee.records.record_file import RecordWriter, read_record
from waraq.referee.replay.verify import verify_record

CLOCK = TimeControl(decision_ms=10_000, bank_ms=60_000, startup_ms=20_000)
DEAL_KEY = "c7" * 32
GAMES = {  # game -> (rules, the in-process bot at the odd seats)
    "hokm": (registry.load_rules("hokm", {"players": 4, "target_score": 2}), "random"),
    "hand": (registry.load_rules("hand", "short"), "heuristic"),
}
VOLATILE = ("ms", "bot_ms", "started", "policy")  # what differs between two plays of one match (and its policy)


async def _series(
    kit: Path,
    tmp: Path,
    game: str,
    policy: FaultPolicy,
    cuts: Sequence[Cut] = (),
    *,
    matches: int = 1,
    between: bool = False,
    grace_s: float = 20.0,
    refuse_after_cut: bool = False,
) -> tuple[list[MatchOutcome], list[Path], CuttingProxy, str]:
    """``matches`` matches of ``game``: the kit at the even seats through the proxy, the in-process bot
    at the odd ones. ``between``: every connection is cut between two matches."""
    rules, other = GAMES[game]
    tokens = TokenTable()
    token = tokens.issue("kit")
    lobby = Lobby(tokens, grace_s=grace_s)
    port = int((await lobby.listen("127.0.0.1:0")).rpartition(":")[2])
    proxy = CuttingProxy(("127.0.0.1", port), list(cuts), refuse_after_cut=refuse_after_cut)
    kit_process = await dial_kit(kit, await proxy.start(), token)
    outcomes, paths = [], []
    try:
        assert await lobby.wait_for("kit", 20), "the kit did not dial in"
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
        output = await stop(kit_process)
        await proxy.close()
        await lobby.close()
    return outcomes, paths, proxy, output


def _same_play(path: Path) -> list[dict[str, Any]]:
    """The record's lines but for the times and the connection lines."""
    return [
        {key: value for key, value in event.items() if key not in VOLATILE}
        for event in read_record(path).events
        if event["type"] != "connection"
    ]


def _connections(path: Path) -> list[tuple[int, str]]:
    return [(e["seat"], e["change"]) for e in read_record(path).events if e["type"] == "connection"]


@pytest.fixture(scope="module")
def uncut(python_kit: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Path]]:
    """Each game's two matches, played with no cut: what every cut series must match."""

    async def both() -> dict[str, list[Path]]:
        tmp = tmp_path_factory.mktemp("uncut")
        runs = [_series(python_kit, tmp, game, FaultPolicy.FORFEIT, matches=2) for game in GAMES]
        return {game: run[1] for game, run in zip(GAMES, await asyncio.gather(*runs), strict=True)}

    return asyncio.run(both())


@pytest.mark.slow
@pytest.mark.parametrize("policy", list(FaultPolicy))
@pytest.mark.parametrize("game", list(GAMES))
def test_cut_mid_decision_mid_reply_and_after_a_reply_changes_nothing_but_the_connection_lines(
    python_kit: Path, tmp_path: Path, uncut: dict[str, list[Path]], game: str, policy: FaultPolicy
) -> None:
    cuts = [mid_decision(3), mid_reply(6), after_reply(9)]
    outcomes, paths, proxy, output = asyncio.run(_series(python_kit, tmp_path, game, policy, cuts))
    assert all(cut.done for cut in cuts), f"a cut never came: {cuts}"
    assert proxy.connections >= 4, output  # the first dial, and one more after each cut
    (outcome,), (path,) = outcomes, paths
    assert outcome.faults == [], output
    assert _same_play(path) == _same_play(uncut[game][0])
    changes = _connections(path)
    lost = [seat for seat, change in changes if change == "lost"]
    assert len(lost) >= 3, changes  # each cut took at least the seat being asked
    for seat in set(lost):  # every seat lost came back, each time, in order
        assert [c for s, c in changes if s == seat] == ["lost", "back"] * lost.count(seat), changes
    assert verify_record(path).ok, verify_record(path).problem


@pytest.mark.slow
@pytest.mark.parametrize("game", list(GAMES))
def test_a_cut_between_matches_costs_the_bot_nothing(
    python_kit: Path, tmp_path: Path, uncut: dict[str, list[Path]], game: str
) -> None:
    outcomes, paths, proxy, output = asyncio.run(
        _series(python_kit, tmp_path, game, FaultPolicy.FORFEIT, matches=2, between=True)
    )
    assert proxy.cut_times, "no cut"
    assert [o.faults for o in outcomes] == [[], []], output
    for path, before in zip(paths, uncut[game], strict=True):
        assert _same_play(path) == _same_play(before)
        # The cut stream waited for a seat; the lobby may hand it out before it sees it is gone, and
        # the record then says so: it was lost, and the bot's next stream took the seat back.
        assert set(_connections(path)) <= {(0, "lost"), (0, "back"), (2, "lost"), (2, "back")}
        changes = [change for _, change in _connections(path)]
        assert changes.count("lost") == changes.count("back")


@pytest.mark.slow
def test_a_bot_that_never_comes_back_loses_its_seat_after_the_grace(python_kit: Path, tmp_path: Path) -> None:
    outcomes, paths, proxy, output = asyncio.run(
        _series(
            python_kit, tmp_path, "hokm", FaultPolicy.SUBSTITUTE, [mid_decision(4)], grace_s=1.0, refuse_after_cut=True
        )
    )
    (outcome,), (path,) = outcomes, paths
    assert outcome.reason == "forfeit", output
    (fault,) = outcome.faults
    assert fault.code == "connection_lost" and fault.kind == "CRASH"
    assert "within the 1 s grace" in fault.detail
    assert outcome.winners == (1, 3)  # the kit's side forfeits; the others' result stands
    assert verify_record(path).ok, verify_record(path).problem

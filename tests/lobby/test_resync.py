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
from pathlib import Path

import pytest

from tests.support.cutting_proxy import after_reply, mid_decision, mid_reply
from tests.support.dial_in import (
    GAMES,
    Series,
    check_taken_back,
    connections,
    dial_kit,
    play_series,
    same_play,
)
from waraq.referee.match.play import FaultPolicy
from waraq.referee.replay.verify import verify_record


def _series(kit: Path, tmp: Path, game: str, policy: FaultPolicy, *cuts, **options) -> Series:
    return asyncio.run(play_series(lambda a, t: dial_kit(kit, a, t), tmp, game, policy, cuts, **options))


@pytest.fixture(scope="module")
def uncut(python_kit: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Path]]:
    """Each game's two matches, played with no cut: what every cut series must match."""
    tmp = tmp_path_factory.mktemp("uncut")
    return {game: _series(python_kit, tmp, game, FaultPolicy.FORFEIT, matches=2).paths for game in GAMES}


@pytest.mark.slow
@pytest.mark.parametrize("policy", list(FaultPolicy))
@pytest.mark.parametrize("game", list(GAMES))
def test_cut_mid_decision_mid_reply_and_after_a_reply_changes_nothing_but_the_connection_lines(
    python_kit: Path, tmp_path: Path, uncut: dict[str, list[Path]], game: str, policy: FaultPolicy
) -> None:
    cuts = [mid_decision(3), mid_reply(6), after_reply(9)]
    outcomes, paths, proxy, output = _series(python_kit, tmp_path, game, policy, *cuts)
    assert all(cut.done for cut in cuts), f"a cut never came: {cuts}"
    assert proxy.connections >= 4, output  # the first dial, and one more after each cut
    (outcome,), (path,) = outcomes, paths
    assert outcome.faults == [], output
    check_taken_back(path, uncut[game][0], cuts=len(cuts))


@pytest.mark.slow
@pytest.mark.parametrize("game", list(GAMES))
def test_a_cut_between_matches_costs_the_bot_nothing(
    python_kit: Path, tmp_path: Path, uncut: dict[str, list[Path]], game: str
) -> None:
    outcomes, paths, proxy, output = _series(python_kit, tmp_path, game, FaultPolicy.FORFEIT, matches=2, between=True)
    assert proxy.cut_times, "no cut"
    assert [o.faults for o in outcomes] == [[], []], output
    for path, before in zip(paths, uncut[game], strict=True):
        assert same_play(path) == same_play(before)
        # The cut stream waited for a seat; the lobby may hand it out before it sees it is gone, and
        # the record then says so: it was lost, and the bot's next stream took the seat back.
        assert set(connections(path)) <= {(0, "lost"), (0, "back"), (2, "lost"), (2, "back")}
        changes = [change for _, change in connections(path)]
        assert changes.count("lost") == changes.count("back")


@pytest.mark.slow
def test_a_bot_that_never_comes_back_loses_its_seat_after_the_grace(python_kit: Path, tmp_path: Path) -> None:
    outcomes, paths, proxy, output = _series(
        python_kit, tmp_path, "hokm", FaultPolicy.SUBSTITUTE, mid_decision(4), grace_s=1.0, refuse_after_cut=True
    )
    (outcome,), (path,) = outcomes, paths
    assert outcome.reason == "forfeit", output
    (fault,) = outcome.faults
    assert fault.code == "connection_lost" and fault.kind == "CRASH"
    assert "within the 1 s grace" in fault.detail
    assert outcome.winners == (1, 3)  # the kit's side forfeits; the others' result stands
    assert verify_record(path).ok, verify_record(path).problem

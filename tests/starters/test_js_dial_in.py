"""The JavaScript starter kit dials a referee's lobby (``node bot.js --connect``) and plays its seats.

Three sides of it, each against a real lobby on loopback and the kit as a
process of its own:

- ``waraq match --bots kit=dial-in random`` prints the lobby's address and
  the kit's token; the kit, started with them, plays 4-player Hokm (both
  partner seats, so it keeps a spare stream open as each is seated) and Hand
  to the end, and the record says its seats came ``via`` dial-in.
- A proxy resets the kit's connection mid-decision, mid-reply and just after
  a reply (tests/support/cutting_proxy.py). The kit dials back for each seat
  with its match and seat, and the match is the one played without a cut:
  the same lines but for the times and the ``connection`` lines. The kit's
  strategy has no randomness, so a request sent again is answered the same.
- A lobby that refuses the kit (a wrong token; the bot already connected
  from another address) stops it with one line naming the refusal.

tests/lobby/test_resync.py does the same to the Python kit, whose series this
module's follows.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.support import ROOT
from tests.support.cutting_proxy import Cut, CuttingProxy, after_reply, mid_decision, mid_reply
from tests.support.dial_in import GAMES, check_taken_back, connections, play_series, start_dialling, stop
from waraq.referee.lobby.lobby import Lobby
from waraq.referee.lobby.tokens import TokenTable
from waraq.referee.match.play import FaultPolicy, MatchOutcome
from waraq.referee.records.record_file import read_record

pytestmark = pytest.mark.system("node")  # the kit runs on Node.js with its npm packages

KIT = ROOT / "sample_bots" / "starters" / "js"
WARAQ = Path(sys.executable).with_name("waraq")  # the referee's command, beside this venv's python
NAME = "js-sample"  # what the kit's Hello says (bot.js's NAME)
DEAL_KEY = "c7" * 32
# The line waraq match prints for a dial-in bot; wide enough a console never wraps it, but a wrap
# between the words would still be read.
DIAL_LINE = re.compile(r"dial-in bot kit: dial (\S+) with token\s+(wq_\S+)")


async def _dial_js(address: str, token: str) -> asyncio.subprocess.Process:
    """The kit in place dialling ``address``, its token in the environment as its README says."""
    return await start_dialling(["node", "bot.js", "--connect", address], token, cwd=KIT)


# -- waraq match, with the kit dialling in ------------------------------------------------------


def _waraq_match_with_the_kit(records: Path, *args: str) -> tuple[int, str, str]:
    """``waraq match`` with the kit as dial-in bot ``kit``, started from the line the run prints:
    the run's exit status, its output and the kit's."""
    env = {**os.environ, "WARAQ_DEAL_KEY": DEAL_KEY, "COLUMNS": "400"}
    command = [str(WARAQ), "match", "--bots", "kit=dial-in", "random", *args, "--record", str(records)]
    run = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    assert run.stdout is not None
    printed = ""
    kit = None
    try:
        while (found := DIAL_LINE.search(printed)) is None:
            line = run.stdout.readline()
            assert line, f"waraq match ended without a dial-in line:\n{printed}"
            printed += line
        address, token = found.groups()
        kit = subprocess.Popen(
            ["node", "bot.js", "--connect", address],
            cwd=KIT,
            env={**os.environ, "WARAQ_TOKEN": token},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        printed += run.communicate(timeout=300)[0]
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
        kit_output = ""
        if kit is not None:  # it dials on for the next match: it stops only when told to
            kit.terminate()
            kit_output = kit.communicate(timeout=10)[0]
    return run.returncode, printed, kit_output


@pytest.mark.parametrize(("game", "rules"), [("hokm", "short"), ("hand", "short")])
def test_waraq_match_plays_the_kit_that_dials_in_with_the_printed_address_and_token(
    tmp_path: Path, game: str, rules: str
) -> None:
    status, output, kit_output = _waraq_match_with_the_kit(tmp_path, "--game", game, "--rules", rules)
    assert status == 0, f"{output}\nthe kit:\n{kit_output}"
    (path,) = sorted(tmp_path.glob("*.jsonl"))
    record = read_record(path)
    assert record.complete, record.problem
    seats = record.header["seats"]
    assert len(seats) == 4
    kit_seats = {s["seat"] for s in seats if s["bot"] == "kit"}
    assert kit_seats == {0, 2}  # both partner seats: the kit opened a stream for each
    assert all(s["via"] == "dial-in" and s["version"] == "0.1.0" for s in seats if s["seat"] in kit_seats), seats
    events = record.events
    assert [e for e in events if e["type"] == "fault"] == []
    assert events[-1]["type"] == "result" and events[-1]["reason"] == "score", events[-1]
    mine = [e for e in events if e["type"] == "decision" and e["seat"] in kit_seats]
    assert mine, "the kit decided nothing"
    assert all(e.get("note") and not e["note"].startswith("fallback") for e in mine)
    assert f"{NAME} bot dialling " in kit_output


# -- cuts mid-match: the kit dials back for its seats ----------------------------------------------


def _match_through_proxy(tmp: Path, game: str, cuts: Sequence[Cut]) -> tuple[MatchOutcome, Path, str]:
    """One match of ``game``: the kit at the even seats behind a proxy that makes ``cuts``
    (tests/support/dial_in.py). Its outcome, its record and what the kit printed."""
    (outcome,), (path,), _, output = asyncio.run(play_series(_dial_js, tmp, game, FaultPolicy.FORFEIT, cuts))
    return outcome, path, output


@pytest.fixture(scope="module")
def uncut(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each game's match through the proxy with no cut: what a cut one must match."""

    tmp = tmp_path_factory.mktemp("uncut")
    played = {game: _match_through_proxy(tmp, game, ()) for game in GAMES}
    for game, (outcome, path, output) in played.items():
        assert outcome.faults == [] and connections(path) == [], f"{game}: {output}"
    return {game: path for game, (_, path, _) in played.items()}


@pytest.mark.slow
@pytest.mark.parametrize("game", list(GAMES))
def test_cut_mid_decision_mid_reply_and_after_a_reply_changes_nothing_but_the_connection_lines(
    tmp_path: Path, uncut: dict[str, Path], game: str
) -> None:
    cuts = [mid_decision(3), mid_reply(6), after_reply(9)]
    outcome, path, output = _match_through_proxy(tmp_path, game, cuts)
    assert all(cut.done for cut in cuts), f"a cut never came: {cuts}"
    assert outcome.faults == [], output
    check_taken_back(path, uncut[game], cuts=len(cuts))
    assert "dialling again" in output  # the kit says on stderr why it dials again


# -- a lobby that refuses the kit ------------------------------------------------------------------


async def _refused(token_given: str, *, second_address: bool) -> tuple[int | None, str]:
    """The kit dialling a lobby with ``token_given`` (``second_address``: while the same bot already
    waits there from 127.0.0.1, through a proxy that dials from 127.0.0.2): its exit status, or None
    if it went on dialling, and what it printed."""
    tokens = TokenTable()
    token = tokens.issue("kit")
    lobby = Lobby(tokens)
    address = await lobby.listen("127.0.0.1:0")
    proxy = CuttingProxy(("127.0.0.1", int(address.rpartition(":")[2])), source="127.0.0.2")
    first = None
    if second_address:
        first = await _dial_js(address, token)
        assert await lobby.wait_for("kit", 20), "the first kit did not dial in"
        address = await proxy.start()
    kit = await _dial_js(address, token_given or token)
    try:
        status: int | None = await asyncio.wait_for(kit.wait(), 20)
    except TimeoutError:
        status = None
    finally:
        output = await stop(kit)
        if first is not None:
            await stop(first)
        await proxy.close()
        await lobby.close()
    return status, output


@pytest.mark.parametrize(
    ("token", "second_address", "refusal"),
    [
        ("wq_not-a-token-anyone-holds", False, "UNAUTHENTICATED: no bot holds this token"),
        ("", True, "FAILED_PRECONDITION: this bot is connected from another address"),
    ],
    ids=["wrong token", "another address"],
)
def test_a_lobby_that_refuses_the_kit_stops_it_with_one_line_naming_the_refusal(
    token: str, second_address: bool, refusal: str
) -> None:
    status, output = asyncio.run(_refused(token, second_address=second_address))
    assert status is not None and status != 0, output
    dialling, *said = output.splitlines()
    assert dialling.startswith(f"{NAME} bot dialling 127.0.0.1:"), output
    assert len(said) == 1, output  # no retries, no stack trace
    assert said[0].startswith("the lobby at 127.0.0.1:") and f"refused this bot: {refusal}" in said[0], output

"""The Go starter kit dialling in (``bin/bot --connect``): a real process, a real lobby.

First as its README tells a bot author: ``waraq match --bots kit=dial-in
random`` prints an address and a token, the kit dials them, and the match is
played with the kit's seats marked ``"via": "dial-in"``, each decision its
README's answer. The kit plays Hokm only (its Hello says so, and
test_go_starter.py pins that): a Hand match refuses its seats at the start,
and the kit, unharmed, offers a seat again.

Then against the referee's Lobby in this process, through a proxy that
resets the connection (tests/support/cutting_proxy.py), as in
tests/lobby/test_resync.py for the Python kit: cut as a request is on its way,
as a reply is, just after a reply got through, and between matches, the kit
dials back for its seats and the match is the uncut one but for the times and
the ``connection`` lines. Last, what dialling again cannot mend: a wrong
token, or the same bot from a second address, stops the kit with one line
that names the refusal; and TLS, trusting a certificate given with
``--tls-ca`` (made by Go's own generate_cert.go), and only that.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.support.cutting_proxy import Cut, CuttingProxy, after_reply, mid_decision, mid_reply
from tests.support.dial_in import (
    Series,
    check_taken_back,
    connections,
    play_series,
    same_play,
    start_dialling,
    stop,
)
from tests.support.go_starter import NAME, VERSION, decisions_with_views, starter_answer
from tests.support.kit_matches import DEAL_KEY, WARAQ
from waraq.referee.games.hokm.rules import load_rules
from waraq.referee.lobby.lobby import Lobby
from waraq.referee.lobby.tokens import TokenTable
from waraq.referee.match.play import FaultPolicy
from waraq.referee.records.record_file import read_record

pytestmark = pytest.mark.system("go")  # the kit is built with Go and Debian's gRPC for Go

# What `waraq match` prints for each dial-in bot (referee/cli/match.py, _tell_dial_ins).
DIAL_LINE = re.compile(r"dial-in bot kit: dial (\S+) with token (\S+)")


# -- the kit as a process ------------------------------------------------------------------


async def _dial(binary: Path, address: str, token: str, *extra: str) -> asyncio.subprocess.Process:
    """The kit dialling ``address``, its token in the environment as its README advises."""
    return await start_dialling([str(binary), "--connect", address, *extra], token, stderr=asyncio.subprocess.PIPE)


async def _next_line(kit: asyncio.subprocess.Process, containing: str, within_s: float = 20) -> str:
    """The kit's first stderr line that holds ``containing``."""
    assert kit.stderr is not None
    async with asyncio.timeout(within_s):
        while True:
            line = (await kit.stderr.readline()).decode(errors="replace")
            assert line, f"the kit ended its output before a line with {containing!r}"
            if containing in line:
                return line


# -- waraq match, the kit dialling its lobby -----------------------------------------------


def _waraq_match(binary: Path, here: Path, *options: str) -> tuple[subprocess.CompletedProcess[str], Path, str]:
    """A `waraq match --bots kit=dial-in random` run in ``here``, the kit started with the address and
    token it prints: the run, its one record, and what the kit printed."""
    here.mkdir()
    command = [WARAQ, "match", "--bots", "kit=dial-in", "random", "--seed", "3", "--deal-key", DEAL_KEY,
               "--record", "records", *options]  # fmt: skip
    # Wide, so that Rich does not wrap the token line.
    waraq = subprocess.Popen(
        command,
        cwd=here,
        env={**os.environ, "COLUMNS": "500"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert waraq.stdout is not None
    told = ""
    while (found := DIAL_LINE.search(told)) is None:
        line = waraq.stdout.readline()
        assert line, f"waraq match printed no dial line:\n{told}"
        told += line
    address, token = found.groups()
    kit = subprocess.Popen(
        [str(binary), "--connect", address],
        env={**os.environ, "WARAQ_TOKEN": token},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        out, err = waraq.communicate(timeout=300)
    finally:
        alive = kit.poll() is None
        kit.terminate()
        kit_output = kit.communicate(timeout=10)[0]
    assert alive, f"the kit ended before the run did:\n{kit_output}"
    run = subprocess.CompletedProcess(command, waraq.returncode, told + out, err)
    (record,) = (here / "records").glob("*.jsonl")
    return run, record, kit_output


@pytest.mark.parametrize("rules", ["classic", "two"])
def test_a_waraq_match_plays_the_kit_dialled_in_at_its_seats(go_starter: Path, tmp_path: Path, rules: str) -> None:
    run, path, kit_output = _waraq_match(go_starter, tmp_path / "run", "--rules", rules)
    assert run.returncode == 0, f"{run.stdout}\n{run.stderr}\n{kit_output}"
    record = read_record(path)
    assert record.complete, record.problem
    assert [e for e in record.events if e["type"] == "fault"] == []
    players = load_rules(record.header["rules"]).players
    kit_seats = set(range(0, players, 2))  # the specs fill the seats in turn
    assert [s["seat"] for s in record.header["seats"] if s["via"] == "dial-in"] == sorted(kit_seats)
    assert {(s["bot"], s["version"]) for s in record.header["seats"] if s["seat"] in kit_seats} == {("kit", VERSION)}
    # The same choose as on a Play stream: every decision of the kit's is its README's answer.
    asked = 0
    for event, view in decisions_with_views(load_rules(record.header["rules"]), record.events):
        if event["seat"] in kit_seats:
            assert event["action"] == starter_answer(view), event
            asked += 1
    assert asked > 0
    assert f"{NAME} bot dialling" in kit_output


def test_a_hand_match_refuses_the_hokm_only_kit_at_the_start_and_the_kit_offers_a_seat_again(
    go_starter: Path, tmp_path: Path
) -> None:
    run, path, kit_output = _waraq_match(go_starter, tmp_path / "run", "--game", "hand")
    assert run.returncode == 1, run.stdout
    faults = [e for e in read_record(path).events if e["type"] == "fault"]
    assert {e["seat"] for e in faults} == {0, 2}, faults
    for fault in faults:
        assert fault["kind"] == "STARTUP" and "declares games hokm [2, 3, 4]" in fault["detail"], fault
    # The seat it was refused is no seat lost: it dials a new offer, it does not stop.
    assert "Aborted (the referee closed this seat), dialling again" in kit_output, kit_output


# -- the Lobby in this process, and a proxy that cuts ---------------------------------------


def _series(binary: Path, tmp: Path, policy: FaultPolicy, cuts: Sequence[Cut] = (), **options: Any) -> Series:
    """Hokm matches with the kit at the even seats behind the cutting proxy (tests/support/dial_in.py)."""
    return asyncio.run(play_series(lambda a, t: _dial(binary, a, t), tmp, "hokm", policy, cuts, **options))


@pytest.fixture(scope="module")
def uncut(go_starter: Path, tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Two matches played with no cut: what every cut series must match."""
    tmp = tmp_path_factory.mktemp("uncut")
    return _series(go_starter, tmp, FaultPolicy.FORFEIT, matches=2).paths


@pytest.mark.parametrize("policy", list(FaultPolicy))
def test_cut_mid_decision_mid_reply_and_after_a_reply_changes_nothing_but_the_connection_lines(
    go_starter: Path, tmp_path: Path, uncut: list[Path], policy: FaultPolicy
) -> None:
    cuts = [mid_decision(3), mid_reply(6), after_reply(9)]
    outcomes, paths, proxy, output = _series(go_starter, tmp_path, policy, cuts)
    assert all(cut.done for cut in cuts), f"a cut never came: {cuts}"
    assert proxy.connections >= 4, output  # the first dial, and one more after each cut
    (outcome,), (path,) = outcomes, paths
    assert outcome.faults == [], output
    check_taken_back(path, uncut[0], cuts=len(cuts))
    assert "dialling again" in output, output


def test_a_cut_between_matches_costs_the_kit_nothing(go_starter: Path, tmp_path: Path, uncut: list[Path]) -> None:
    outcomes, paths, proxy, output = _series(go_starter, tmp_path, FaultPolicy.FORFEIT, matches=2, between=True)
    assert proxy.cut_times, "no cut"
    assert [o.faults for o in outcomes] == [[], []], output
    for path, before in zip(paths, uncut, strict=True):
        assert same_play(path) == same_play(before)
        # The cut stream waited for a seat; the lobby may hand it out before it sees it is gone, and the
        # record then says so: it was lost, and the kit's next stream took the seat back.
        changes = [change for _, change in connections(path)]
        assert changes.count("lost") == changes.count("back"), connections(path)


# -- what dialling again cannot mend ------------------------------------------------------------


async def _refused(binary: Path, token: str, lobby: Lobby, address: str) -> tuple[int, list[str]]:
    """The kit dialling ``address`` until it stops by itself: its exit status and its stderr lines."""
    kit = await _dial(binary, address, token)
    try:
        async with asyncio.timeout(20):
            out, err = await kit.communicate()
    finally:
        await stop(kit)
    assert out.decode().startswith(f"{NAME} bot dialling {address}"), out
    return kit.returncode or 0, err.decode().splitlines()


def test_a_wrong_token_stops_the_kit_with_one_line_naming_the_refusal(go_starter: Path) -> None:
    async def dial_wrong() -> tuple[int, list[str], str]:
        tokens = TokenTable()
        tokens.issue("kit")
        lobby = Lobby(tokens)
        address = await lobby.listen("127.0.0.1:0")
        try:
            status, lines = await _refused(go_starter, "wq_not-a-token-of-anyones", lobby, address)
        finally:
            await lobby.close()
        return status, lines, address

    status, lines, address = asyncio.run(dial_wrong())
    assert status == 1
    assert lines == [
        f"{NAME}: the lobby at {address} refused this bot: UNAUTHENTICATED: "
        "no bot holds this token (wrong, replaced or revoked)"
    ]


def test_the_same_bot_from_a_second_address_stops_that_kit_and_leaves_the_first(go_starter: Path) -> None:
    async def dial_twice() -> tuple[int, list[str], bool]:
        tokens = TokenTable()
        token = tokens.issue("kit")
        lobby = Lobby(tokens)
        address = await lobby.listen("127.0.0.1:0")
        first = await _dial(go_starter, address, token)
        elsewhere = CuttingProxy(("127.0.0.1", int(address.rpartition(":")[2])), source="127.0.0.2")
        try:
            assert await lobby.wait_for("kit", 20), "the first kit did not dial in"
            status, lines = await _refused(go_starter, token, lobby, await elsewhere.start())
            return status, lines, first.returncode is None
        finally:
            await stop(first)
            await elsewhere.close()
            await lobby.close()

    status, lines, first_dials_on = asyncio.run(dial_twice())
    assert status == 1
    (line,) = lines
    assert line.startswith(f"{NAME}: the lobby at 127.0.0.1:") and "refused this bot: FAILED_PRECONDITION: " in line
    assert "connected from another address" in line
    assert first_dials_on


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and its key, made by the Go toolchain's own generator."""
    here = tmp_path_factory.mktemp("tls")
    goroot = subprocess.run(["go", "env", "GOROOT"], capture_output=True, text=True, check=True).stdout.strip()
    made = subprocess.run(
        ["go", "run", f"{goroot}/src/crypto/tls/generate_cert.go", "--host", "127.0.0.1"],
        cwd=here,
        env={**os.environ, "GO111MODULE": "off"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert made.returncode == 0, made.stderr
    return here / "cert.pem", here / "key.pem"


def test_tls_trusts_the_certificate_given_with_tls_ca_and_only_that(
    go_starter: Path, certificate: tuple[Path, Path]
) -> None:
    cert, key = certificate

    async def dial_over_tls() -> tuple[str, str, bool]:
        tokens = TokenTable()
        token = tokens.issue("kit")
        lobby = Lobby(tokens)
        address = await lobby.listen("127.0.0.1:0", tls=(key.read_bytes(), cert.read_bytes()))
        # With --tls alone the system's CAs do not know this certificate: no dial gets through.
        untrusting = await _dial(go_starter, address, token, "--tls")
        try:
            failure = await _next_line(untrusting, "dialling again")
            stranger = lobby.presence("kit")
        finally:
            await stop(untrusting)
        trusting = await _dial(go_starter, address, token, "--tls-ca", str(cert))
        try:
            in_ = await lobby.wait_for("kit", 20)
            hello = lobby.hello("kit")
            name = hello.name if hello is not None else ""
        finally:
            await stop(trusting)
            await lobby.close()
        return failure, name, in_ and stranger is None

    failure, name, only_the_trusting = asyncio.run(dial_over_tls())
    assert "certificate" in failure, failure
    assert only_the_trusting
    assert name == NAME

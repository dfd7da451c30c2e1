"""The lobby against strangers: every dial it must not take is refused with a status that says why.

A real :class:`Lobby` listens on loopback in the test's event loop, and raw
gRPC clients dial it: wrong, empty, revoked and borrowed tokens, a token
replayed from a second address, a stream that says nothing, one that says the
wrong thing or too much, a take-back of a seat that was never the bot's, and a
thousand wrong tokens from one host while the Python starter kit plays a
match. Each ends with its own status and nothing else: after each, a bot with
a right token still dials in and plays (:func:`_plays`), and the match under
the flood ends as it would have, its decisions no slower. Last, the throttle's
schedule with a clock of the test's own, and the tokens.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import statistics
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import grpc
import pytest

from tests.support import ROOT
from tests.support.cutting_proxy import CuttingProxy
from tests.support.dial_in import dial_kit, stop
from waraq.bots.server import builtin_players
from waraq.referee.games import registry
from waraq.referee.lobby import lobby as lobby_module
from waraq.referee.lobby import throttle
from waraq.referee.lobby.line import SeatLine
from waraq.referee.lobby.lobby import SERVICE, Lobby, Presence
from waraq.referee.lobby.seat import DialInSeat
from waraq.referee.lobby.throttle import Throttle
from waraq.referee.lobby.tokens import PREFIX, TokenTable, digest, new_token
from waraq.referee.match.play import FaultPolicy, MatchConfig, MatchOutcome, TimeControl, run_match
from waraq.referee.match.seats import REPLY_LIMIT, InProcessSeat
from waraq.referee.records.record_file import RecordWriter, read_record
from waraq.referee.replay.verify import verify_record
from waraq.v1 import bot_pb2 as pb

DIAL = f"/{SERVICE}/Dial"
Code = grpc.StatusCode


# -- a raw client, and what the lobby says to it -------------------------------------------


def _wire(message: bytes | pb.BotMessage) -> bytes:
    """What goes on the wire: a message serialized, or bytes as they are (to send what is no message)."""
    return message if isinstance(message, bytes) else message.SerializeToString()


def _call(channel: grpc.aio.Channel) -> Any:
    """A new Dial stream, nothing sent on it yet."""
    dial = channel.stream_stream(DIAL, request_serializer=_wire, response_deserializer=pb.RefereeMessage.FromString)
    return dial()


def _dial(token: str, name: str = "stranger", match_id: str = "", seat: int = 0) -> pb.BotMessage:
    return pb.BotMessage(dial=pb.Dial(token=token, hello=pb.HelloReply(name=name), match_id=match_id, seat=seat))


def _reply(seq: int = 1) -> pb.BotMessage:
    return pb.BotMessage(reply=pb.DecisionReply(seq=seq))


async def _status(call: Any) -> tuple[grpc.StatusCode, str]:
    """How the lobby ended the stream: its code and details."""
    return await call.code(), await call.details()


class _Presences:
    """The lobby's ``on_presence`` calls, kept to wait on: each bot connected, with its streams."""

    def __init__(self) -> None:
        self.now: dict[str, Presence] = {}
        self._changed = asyncio.Event()

    def __call__(self, bot: str, presence: Presence | None) -> None:
        if presence is None:
            self.now.pop(bot, None)
        else:
            self.now[bot] = presence
        self._changed.set()

    def streams(self, bot: str) -> int:
        presence = self.now.get(bot)
        return 0 if presence is None else presence.streams

    async def until(self, holds: Callable[[], bool], wait_s: float = 10.0) -> None:
        async with asyncio.timeout(wait_s):
            while not holds():
                self._changed.clear()
                await self._changed.wait()


@contextlib.asynccontextmanager
async def _serving(tokens: TokenTable) -> AsyncIterator[tuple[Lobby, grpc.aio.Channel, _Presences]]:
    """A lobby on a free loopback port, a channel to it, and its presence calls."""
    presences = _Presences()
    lobby = Lobby(tokens, on_presence=presences)
    address = await lobby.listen("127.0.0.1:0")
    channel = grpc.aio.insecure_channel(address)
    try:
        yield lobby, channel, presences
    finally:
        await channel.close()
        await lobby.close()


async def _take_now(lobby: Lobby, bot: str, match_id: str = "m", seat: int = 0) -> tuple[SeatLine, Any] | None:
    """A stream of ``bot``'s waiting now, made a seat's line; None when none is (no time to wait)."""
    return await lobby.take(bot, match_id, seat, wait_s=0)


async def _plays(lobby: Lobby, channel: grpc.aio.Channel, token: str, bot: str, presences: _Presences) -> None:
    """A bot with a right token dials in, is seated, answers a request and is told the end: the lobby
    still does its work (a refusal before neither crashed nor stalled it)."""
    call = _call(channel)
    await call.write(_dial(token, name=bot))
    await presences.until(lambda: presences.streams(bot) >= 1)
    taken = await _take_now(lobby, bot, "after", 1)
    assert taken is not None, f"{bot}'s dial was not waiting for a seat"
    line, hello = taken
    assert hello.name == bot
    await line.write(pb.RefereeMessage(start=pb.MatchStart(match_id="after", seat=1)))
    assert (await call.read()).start.match_id == "after"
    line.asking = 1
    await line.write(pb.RefereeMessage(decision=pb.DecisionRequest(seq=1)))
    assert (await call.read()).decision.seq == 1
    await call.write(_reply(1))
    assert (await line.read()).reply.seq == 1
    await line.done_writing()
    assert await _status(call) == (Code.OK, "")


# -- 1-3: tokens that seat nobody, or somebody else ----------------------------------------


@pytest.mark.parametrize("token", ["wq_" + "A" * 43, ""], ids=["wrong", "empty"])
def test_a_wrong_or_empty_token_is_unauthenticated_and_the_lobby_seats_the_next_bot(token: str) -> None:
    async def body() -> None:
        tokens = TokenTable()
        right = tokens.issue("A")
        async with _serving(tokens) as (lobby, channel, presences):
            call = _call(channel)
            await call.write(_dial(token))
            code, details = await _status(call)
            assert code is Code.UNAUTHENTICATED, details
            assert "no bot holds this token" in details
            assert lobby.connected() == {}
            await _plays(lobby, channel, right, "A", presences)

    asyncio.run(body())


def test_a_right_token_gets_in_from_a_host_whose_wrong_ones_are_crowded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Bots behind one NAT with a stranger who floods: the stranger is refused at once, the bot seated."""
    monkeypatch.setattr(throttle, "MOST_WAITING", 2)
    monkeypatch.setattr(throttle, "FREE", 0)
    monkeypatch.setattr(throttle, "FIRST_S", 60.0)  # a refusal that waits, waits past the test

    async def body() -> None:
        tokens = TokenTable()
        right = tokens.issue("A")
        async with _serving(tokens) as (lobby, channel, presences):
            waiting = [_call(channel) for _ in range(2)]
            for call in waiting:
                await call.write(_dial("wq_wrong"))
            crowded = _call(channel)
            await crowded.write(_dial("wq_wrong"))
            code, details = await _status(crowded)  # answered at once: two already wait
            assert code is Code.RESOURCE_EXHAUSTED, details
            await _plays(lobby, channel, right, "A", presences)
            for call in waiting:
                call.cancel()

    asyncio.run(body())


def test_a_revoked_token_dials_no_more_and_its_waiting_stream_is_never_seated() -> None:
    async def body() -> None:
        tokens = TokenTable()
        old = tokens.issue("A")
        async with _serving(tokens) as (lobby, channel, presences):
            waiting = _call(channel)
            await waiting.write(_dial(old, name="old"))
            await presences.until(lambda: presences.streams("A") == 1)
            new = tokens.issue("A")  # the old token is revoked; its stream waits on

            again = _call(channel)
            await again.write(_dial(old))
            assert (await _status(again))[0] is Code.UNAUTHENTICATED

            fresh = _call(channel)
            await fresh.write(_dial(new, name="new"))
            await presences.until(lambda: presences.streams("A") == 2)
            taken = await _take_now(lobby, "A")  # the old stream is first in line: skipped
            assert taken is not None
            assert taken[1].name == "new"
            code, details = await _status(waiting)
            assert code is Code.UNAUTHENTICATED, details
            assert "replaced or revoked" in details
            await presences.until(lambda: presences.streams("A") == 1)  # the new one, seated
            assert await _take_now(lobby, "A") is None
            taken[0].cancel()
            assert (await _status(fresh))[0] is Code.ABORTED

    asyncio.run(body())


def test_another_bots_token_seats_only_that_bot() -> None:
    async def body() -> None:
        tokens = TokenTable()
        tokens.issue("A")
        b_token = tokens.issue("B")
        async with _serving(tokens) as (lobby, channel, presences):
            call = _call(channel)
            await call.write(_dial(b_token, name="claims to be A"))
            await presences.until(lambda: presences.streams("B") == 1)
            assert lobby.presence("A") is None
            assert await _take_now(lobby, "A") is None  # B's stream, waiting, is not A's
            assert not call.done()
            taken = await _take_now(lobby, "B")
            assert taken is not None and taken[1].name == "claims to be A"
            await taken[0].done_writing()
            assert (await _status(call))[0] is Code.OK

    asyncio.run(body())


# -- 4: a token replayed from a second address ---------------------------------------------


def test_a_token_replayed_from_a_second_address_is_refused_and_the_first_plays_on() -> None:
    async def body() -> None:
        tokens = TokenTable()
        token = tokens.issue("A")
        async with _serving(tokens) as (lobby, channel, presences):
            first = _call(channel)
            await first.write(_dial(token, name="first"))
            await presences.until(lambda: presences.streams("A") == 1)
            port = int(lobby.address.rpartition(":")[2])
            proxy = CuttingProxy(("127.0.0.1", port), source="127.0.0.2")  # "another host"
            try:
                async with grpc.aio.insecure_channel(await proxy.start()) as elsewhere:
                    replayed = _call(elsewhere)
                    await replayed.write(_dial(token, name="replayed"))
                    code, details = await _status(replayed)
            finally:
                await proxy.close()
            assert code is Code.FAILED_PRECONDITION, details
            assert "another address" in details
            presence = lobby.presence("A")
            assert presence is not None and presence.streams == 1
            assert presence.peer.startswith("ipv4:127.0.0.1:")

            taken = await _take_now(lobby, "A")
            assert taken is not None
            line, hello = taken
            assert hello.name == "first"
            await line.write(pb.RefereeMessage(start=pb.MatchStart(match_id="m")))
            assert (await first.read()).start.match_id == "m"
            await line.done_writing()
            assert (await _status(first))[0] is Code.OK

    asyncio.run(body())


# -- 6-8: a stream that says nothing, the wrong thing, or too much -------------------------


def test_a_silent_stream_ends_deadline_exceeded_while_other_bots_dial_and_play(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(lobby_module, "FIRST_MESSAGE_S", 1.0)

    async def body() -> None:
        tokens = TokenTable()
        tokens_of = {bot: tokens.issue(bot) for bot in ("A", "B")}
        async with _serving(tokens) as (lobby, channel, presences):
            loop = asyncio.get_running_loop()
            opened = loop.time()
            silent = _call(channel)
            await silent.wait_for_connection()
            for bot, token in tokens_of.items():  # on the silent stream's own connection
                await _plays(lobby, channel, token, bot, presences)
            assert not silent.done(), "the silent stream ended before the others had played"
            code, details = await _status(silent)
            assert code is Code.DEADLINE_EXCEEDED, details
            assert "no Dial message within 1 s" in details
            assert loop.time() - opened >= lobby_module.FIRST_MESSAGE_S
            assert lobby.connected() == {}

    asyncio.run(body())


@pytest.mark.parametrize(
    "first",
    [_reply(), b"\x0a\xff", None],
    ids=["a reply", "bytes that are no BotMessage", "nothing: the bot closed its side"],
)
def test_a_first_message_that_is_no_dial_is_invalid_argument(first: pb.BotMessage | bytes | None) -> None:
    async def body() -> None:
        tokens = TokenTable()
        token = tokens.issue("A")
        async with _serving(tokens) as (lobby, channel, presences):
            call = _call(channel)
            if first is None:
                await call.done_writing()
            else:
                await call.write(first)
            code, details = await _status(call)
            assert code is Code.INVALID_ARGUMENT, details
            assert "starts with a `dial` message" in details
            await _plays(lobby, channel, token, "A", presences)

    asyncio.run(body())


@pytest.mark.parametrize(
    "then",
    [_reply(), _dial("wq_again"), b"\x0a\xff"],
    ids=["a reply", "a second dial", "bytes that are no BotMessage"],
)
def test_a_waiting_stream_that_sends_anything_is_invalid_argument_and_withdrawn(then: pb.BotMessage | bytes) -> None:
    async def body() -> None:
        tokens = TokenTable()
        token = tokens.issue("A")
        async with _serving(tokens) as (lobby, channel, presences):
            call = _call(channel)
            await call.write(_dial(token))
            await presences.until(lambda: presences.streams("A") == 1)
            await call.write(then)
            code, details = await _status(call)
            assert code is Code.INVALID_ARGUMENT, details
            assert "sends nothing after its dial" in details
            await presences.until(lambda: lobby.presence("A") is None)
            assert await _take_now(lobby, "A") is None  # not offered to a match
            await _plays(lobby, channel, token, "A", presences)

    asyncio.run(body())


@pytest.mark.parametrize("waiting", [False, True], ids=["first message", "on a waiting stream"])
def test_a_message_over_64_kib_is_resource_exhausted(waiting: bool) -> None:
    async def body() -> None:
        tokens = TokenTable()
        token = tokens.issue("A")
        big = _dial(token, name="x" * REPLY_LIMIT)
        assert big.ByteSize() > REPLY_LIMIT
        async with _serving(tokens) as (lobby, channel, presences):
            call = _call(channel)
            if waiting:
                await call.write(_dial(token))
                await presences.until(lambda: presences.streams("A") == 1)
            await call.write(big)
            code, details = await _status(call)
            assert code is Code.RESOURCE_EXHAUSTED, details
            assert "larger than max" in details  # gRPC's own
            await presences.until(lambda: lobby.presence("A") is None)
            await _plays(lobby, channel, token, "A", presences)

    asyncio.run(body())


# -- 9: a seat to take back that was never this bot's --------------------------------------


def test_taking_back_a_seat_never_the_bots_is_not_found() -> None:
    async def body() -> None:
        tokens = TokenTable()
        a_token, b_token = tokens.issue("A"), tokens.issue("B")
        async with _serving(tokens) as (lobby, channel, presences):
            a_call = _call(channel)
            await a_call.write(_dial(a_token))
            await presences.until(lambda: presences.streams("A") == 1)
            taken = await _take_now(lobby, "A", "m1", 2)
            assert taken is not None
            line = taken[0]

            for token, match_id, seat in [(a_token, "never", 2), (a_token, "m1", 3), (b_token, "m1", 2)]:
                call = _call(channel)
                await call.write(_dial(token, match_id=match_id, seat=seat))
                code, details = await _status(call)
                assert code is Code.NOT_FOUND, (match_id, seat, details)
                assert f"no seat {seat} of match {match_id!r} is held for this bot" in details
            assert lobby.presence("B") is None

            # A's seat is where it was: on A's stream.
            await line.write(pb.RefereeMessage(start=pb.MatchStart(match_id="m1", seat=2)))
            assert (await a_call.read()).start.seat == 2
            await line.done_writing()
            assert (await _status(a_call))[0] is Code.OK

    asyncio.run(body())


def test_a_seat_taken_back_while_its_old_stream_stands_moves_to_the_newest_and_the_record_says_so() -> None:
    """A half-open connection (the bot's side gone, the referee's not yet told): the bot dials back
    for its seat; the old stream ends ABORTED, the new one gets the MatchStart and the pending request
    again, a reply sent twice counts once, and the record's lines say lost then back."""

    async def body() -> None:
        tokens = TokenTable()
        token = tokens.issue("A")
        async with _serving(tokens) as (lobby, channel, presences):
            old = _call(channel)
            await old.write(_dial(token))
            await presences.until(lambda: presences.streams("A") == 1)
            taken = await _take_now(lobby, "A", "m1", 0)
            assert taken is not None
            line, told = taken[0], []
            line.tell = told.append
            await line.write(pb.RefereeMessage(start=pb.MatchStart(match_id="m1", seat=0)))
            line.asking = 1
            await line.write(pb.RefereeMessage(decision=pb.DecisionRequest(seq=1)).SerializeToString())
            await old.write(_reply(1))
            assert (await line.read()).reply.seq == 1
            line.asking = 2
            await line.write(pb.RefereeMessage(decision=pb.DecisionRequest(seq=2)).SerializeToString())
            reading = asyncio.ensure_future(line.read())  # the seat waits on its reply, as a match does
            new = _call(channel)
            await new.write(_dial(token, match_id="m1", seat=0))
            assert (await new.read()).start.match_id == "m1"
            assert (await new.read()).decision.seq == 2  # the request waited on, sent again
            with contextlib.suppress(grpc.aio.AioRpcError):  # what the old stream was sent comes first
                while await old.read() is not grpc.aio.EOF:
                    pass
            assert await _status(old) == (Code.ABORTED, "this seat was taken back by a newer connection")
            await new.write(_reply(1))  # answered before, on the old stream: dropped unread
            await new.write(_reply(2))
            assert (await asyncio.wait_for(reading, 10)).reply.seq == 2  # read on the new stream
            assert [event["change"] for event in told] == ["lost", "back"]
            await line.done_writing()
            assert (await _status(new))[0] is Code.OK

    asyncio.run(body())


# -- 5: a thousand wrong tokens from one host, while a match is played ---------------------

FLOOD = 1000
FLOOD_CONNECTIONS = 16  # 63 streams a connection at most: under the lobby's 64
CLOCK = TimeControl(decision_ms=10_000, bank_ms=60_000, startup_ms=20_000)
LONG_HOKM = registry.load_rules("hokm", {"players": 4, "target_score": 100})  # about 8,000 decisions
KIT_SEATS = (0, 2)
GO_AFTER = 200  # decisions into the match when the flood starts
# Refusals that wait at once, above MOST_WAITING: a slot freed by one of the first, short waits
# (0.25 s, doubling) is taken by a later attempt of the same flood. Without the cap, all would wait.
REFILLS = 8
VOLATILE = ("ms", "bot_ms", "started")  # what differs between two plays of one match


class _Watched(RecordWriter):
    """A record file that counts the decisions written to it, and says when ``at`` of them are."""

    def __init__(self, path: Path, at: int) -> None:
        super().__init__(path)
        self.decisions = 0
        self._at = at
        self.reached = asyncio.Event()

    def write_now(self, events: list[dict[str, Any]]) -> None:
        super().write_now(events)
        self.decisions += sum(event["type"] == "decision" for event in events)
        if self.decisions >= self._at:
            self.reached.set()


async def _long_match(lobby: Lobby, record: RecordWriter) -> MatchOutcome:
    """Hokm to 100: the kit at seats 0 and 2, the random sample bot in process at 1 and 3. Always the
    same match (its id seeds both bots' plays): two plays of it differ only in what happened around them."""
    players = builtin_players()["random"]
    seats: list[Any] = [
        DialInSeat(lobby, "kit", "kit", "", wait_s=20)
        if seat in KIT_SEATS
        else InProcessSeat(lambda match, seat_: players(match, seat_, "hokm"), "random")
        for seat in range(LONG_HOKM.players)
    ]
    config = MatchConfig(LONG_HOKM, 11, "long", CLOCK, FaultPolicy.FORFEIT, deal_key="c7" * 32)
    with record:
        return await asyncio.wait_for(run_match(config, seats, record), 120)


def _same_play(path: Path) -> list[dict[str, Any]]:
    """The record's lines but for the times."""
    return [{key: value for key, value in event.items() if key not in VOLATILE} for event in read_record(path).events]


def _kit_ms(path: Path, after: int = 0) -> list[float]:
    """The times of the kit's decisions, from the ``after``-th decision of the match on."""
    decisions = [event for event in read_record(path).events if event["type"] == "decision"]
    return [event["ms"] for event in decisions[after:] if event["seat"] in KIT_SEATS]


async def _lines(stream: asyncio.StreamReader, into: list[dict[str, Any]]) -> None:
    """The flood's JSON lines, appended as they come, until its ``done``."""
    while (line := await stream.readline()) != b"done\n":
        assert line, f"the flood ended without its done line, {len(into)} attempts in"
        if line.startswith(b"{"):
            into.append(json.loads(line))


def _schedule(refusals: int) -> list[float]:
    """The least each of ``refusals`` refusals in a row waits: FREE at once, then doubling to MOST_S."""
    over = [n - throttle.FREE for n in range(1, refusals + 1)]
    return [0.0 if o <= 0 else min(throttle.MOST_S, throttle.FIRST_S * 2 ** (o - 1)) for o in over]


@pytest.mark.slow
def test_a_flood_of_wrong_tokens_is_refused_and_slowed_and_the_match_in_progress_is_not(
    python_kit: Path, tmp_path: Path
) -> None:
    async def body() -> tuple[Any, ...]:
        tokens = TokenTable()
        kit_token, late_token = tokens.issue("kit"), tokens.issue("late")
        presences = _Presences()
        lobby = Lobby(tokens, on_presence=presences)
        address = await lobby.listen("127.0.0.1:0")
        kit = await dial_kit(python_kit, address, kit_token)
        flood = await asyncio.create_subprocess_exec(
            sys.executable,
            *("-m", "tests.support.dial_flood", address, str(FLOOD), str(FLOOD_CONNECTIONS), str(throttle.FREE)),
            cwd=ROOT,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
        )
        assert flood.stdin is not None and flood.stdout is not None
        try:
            assert await lobby.wait_for("kit", 20), "the kit did not dial in"
            assert await asyncio.wait_for(flood.stdout.readline(), 30) == b"ready\n"
            quiet_path, flooded_path = tmp_path / "quiet.jsonl", tmp_path / "flooded.jsonl"
            quiet = await _long_match(lobby, RecordWriter(quiet_path))

            record = _Watched(flooded_path, GO_AFTER)
            match = asyncio.ensure_future(_long_match(lobby, record))
            reached = asyncio.ensure_future(record.reached.wait())
            await asyncio.wait([match, reached], return_when=asyncio.FIRST_COMPLETED)
            reached.cancel()
            assert reached.done() and not match.done(), "the match ended before the flood began"
            go_at = record.decisions
            flood.stdin.write(b"go\n")
            attempts: list[dict[str, Any]] = []
            reading = asyncio.ensure_future(_lines(flood.stdout, attempts))
            outcome = await match
            answered_in_match, flood_over_in_match = len(attempts), reading.done()
            await asyncio.wait_for(reading, 60)
            assert await asyncio.wait_for(flood.wait(), 30) == 0

            # The flood's host, a right token: seated as ever.
            async with grpc.aio.insecure_channel(address) as channel:
                await _plays(lobby, channel, late_token, "late", presences)
        finally:
            if flood.returncode is None:
                flood.kill()
                await flood.wait()
            output = await stop(kit)
            await lobby.close()
        return quiet, outcome, go_at, attempts, answered_in_match, flood_over_in_match, output

    quiet, outcome, go_at, attempts, answered_in_match, flood_over_in_match, output = asyncio.run(body())
    quiet_path, flooded_path = tmp_path / "quiet.jsonl", tmp_path / "flooded.jsonl"

    # Every attempt is refused, and says how.
    assert len(attempts) == FLOOD and {a["i"] for a in attempts} == set(range(FLOOD))
    codes = [a["code"] for a in attempts]
    assert set(codes) <= {"UNAUTHENTICATED", "RESOURCE_EXHAUSTED"}, set(codes)
    refused = sorted(a["wait_s"] for a in attempts if a["code"] == "UNAUTHENTICATED")
    # No more wait at once than the throttle holds: the rest are turned away, RESOURCE_EXHAUSTED.
    assert len(refused) <= throttle.FREE + throttle.MOST_WAITING + REFILLS, len(refused)
    # The first tokens (the throttle's free ones, sent first) are answered before any later one's
    # wait is over, and each later refusal waits at least as the schedule says (the count's decay
    # over the flood's second or so takes a little off: 10% allowed).
    first = sorted(a["wait_s"] for a in attempts if a["i"] < throttle.FREE)
    assert first == refused[: throttle.FREE] and max(first) < refused[throttle.FREE], refused
    for waited, least in zip(refused, _schedule(len(refused)), strict=True):
        assert waited >= 0.9 * least, (refused, _schedule(len(refused)))
    assert refused[-1] >= 0.9 * throttle.MOST_S

    # The match under the flood ends as the quiet one did, with no fault, the flood still on at its end.
    assert quiet.faults == [] and outcome.faults == [], output
    assert outcome.reason == quiet.reason == "score"
    assert _same_play(flooded_path) == _same_play(quiet_path)
    assert verify_record(flooded_path).ok, verify_record(flooded_path).problem
    assert not flood_over_in_match, "the match outlasted the flood"
    assert answered_in_match >= FLOOD // 2, f"only {answered_in_match} attempts were answered during the match"
    # And its decisions are no slower: the kit's from the flood's start on, against the quiet match's.
    flooded_ms, quiet_ms = _kit_ms(flooded_path, go_at), _kit_ms(quiet_path)
    assert len(flooded_ms) >= 1000
    flooded_median, quiet_median = statistics.median(flooded_ms), statistics.median(quiet_ms)
    assert flooded_median <= 3 * quiet_median + 1.0, (flooded_median, quiet_median)


# -- 10: the throttle, on a clock of the test's own ----------------------------------------


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


HOST = "ipv4:203.0.113.7"


def test_the_first_refusals_are_free_and_the_next_double_up_to_most_s() -> None:
    clock = _Clock()
    gate = Throttle(clock)
    delays = [gate.refusal_delay(HOST) for _ in range(12)]
    assert delays[: throttle.FREE] == [0.0] * throttle.FREE
    assert delays[throttle.FREE :] == [0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 8.0, 8.0, 8.0]
    assert throttle.FIRST_S == 0.25 and throttle.MOST_S == 8.0
    assert delays == _schedule(12)
    assert gate.refusal_delay("ipv4:198.51.100.1") == 0.0  # another host: its own count


def test_the_count_halves_every_half_life() -> None:
    clock = _Clock()
    gate = Throttle(clock)
    for _ in range(10):
        gate.refusal_delay(HOST)
    clock.now += throttle.HALF_LIFE_S
    # The count, 10, is 5 now; this refusal makes it 6, over FREE by 3: 0.25 s doubled twice (not MOST_S).
    assert gate.refusal_delay(HOST) == pytest.approx(1.0)
    clock.now += throttle.HALF_LIFE_S
    assert gate.refusal_delay(HOST) == pytest.approx(0.25)  # 6 / 2 + 1 = 4
    clock.now += 30 * throttle.HALF_LIFE_S  # calm for half an hour: as good as new, but for a trace
    assert [gate.refusal_delay(HOST) for _ in range(throttle.FREE - 1)] == [0.0] * (throttle.FREE - 1)


def test_a_host_with_most_waiting_refusals_waiting_is_crowded() -> None:
    gate = Throttle(_Clock())
    assert not gate.crowded(HOST)  # never seen
    gate.refusal_delay(HOST)
    for _ in range(throttle.MOST_WAITING - 1):
        gate.waiting(HOST, +1)
    assert not gate.crowded(HOST)
    gate.waiting(HOST, +1)
    assert gate.crowded(HOST)
    assert not gate.crowded("ipv4:198.51.100.1")
    gate.waiting(HOST, -1)
    assert not gate.crowded(HOST)


# -- the tokens ---------------------------------------------------------------------------


def test_a_digest_is_stable_and_a_token_is_new_each_time() -> None:
    assert digest("abc") == "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    assert digest("wq_x") == digest("wq_x") != digest("wq_y")
    made = [new_token() for _ in range(100)]
    assert len(set(made)) == 100
    assert all(token.startswith(PREFIX) and len(token) == len(PREFIX) + 43 for token in made)  # 32 bytes


def test_issuing_a_bots_token_again_replaces_it_and_no_other() -> None:
    table = TokenTable()
    a_old, b = table.issue("A"), table.issue("B")
    assert table.bot_of(a_old) == "A" and table.bot_of(b) == "B"
    a_new = table.issue("A")
    assert a_new != a_old
    assert table.bot_of(a_old) is None
    assert table.bot_of(a_new) == "A" and table.bot_of(b) == "B"
    assert table.bot_of("") is None and table.bot_of(a_new + "x") is None

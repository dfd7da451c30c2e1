"""The misbehaving bot's modes as ``check-bot``'s fixtures use them: each confined to the requests chosen.

The kind table drives the bot's servicer (tests/bots/misbehaving.py) in the
test's event loop with the very bytes the referee sends for a real engine
state of each decision kind (:func:`waraq.referee.wire.codec.decision_message`),
and reads the reply as the referee does: a value that spells no action is the
codec's ``ActionError`` (a ``bad_action`` fault), a well-formed one that the
state refuses is ``IllegalAction``. What is played over real gRPC is what
depends on it: time (a launched bot under the referee's clock), a stream left
open after the end, and fields of a later protocol sent by a remote seat.

Hand-worked expectations: ``garbage`` spells '11X' in the kind's own field
(the one a bool cannot be: REDEAL and BAM get an Action that sets nothing);
``illegal`` exists at PLAY, DISCARD and TURN only, since TRUMP may name any of
the four suits, DRAW keep or pass, REDEAL and BAM true or false, TAKE stock or
discard whenever they are asked.
"""

from __future__ import annotations

import asyncio
import random
import shlex
import sys
from collections.abc import AsyncIterator, Callable
from typing import Any

import grpc
import pytest

from tests.bots import misbehaving
from tests.support import TEST_BOTS
from waraq.bots.server import PlayerBot, builtin_players, start_server
from waraq.referee.conformance.future_fields import with_future_fields
from waraq.referee.games.hand import engine as hand
from waraq.referee.games.hand.rules import HandRules
from waraq.referee.games.hokm import engine as hokm
from waraq.referee.games.hokm.rules import HokmRules
from waraq.referee.launch import sandbox
from waraq.referee.launch.bots import BotSpec
from waraq.referee.match.faults import Fault, FaultCode
from waraq.referee.match.play import TimeControl
from waraq.referee.match.seats import Question, RemoteSeat, open_channel
from waraq.referee.records.record_file import read_record
from waraq.referee.run.runner import RunConfig, run
from waraq.referee.wire import codec as wire
from waraq.v1 import bot_pb2 as pb
from waraq.v1 import bot_pb2_grpc

MATCH_ID = "modes-1"
DEADLINE_MS, BANK_MS = 5_000.0, 30_000.0
# A field no waraq.v1 message has: number 100, a varint, 1 (tag (100 << 3) | 0 = 800 = a0 06).
UNKNOWN_FIELD = b"\xa0\x06\x01"
TWO = HokmRules(players=2, removed_cards=("2D",))

# Each decision kind: the rules that ask it, and which pending state to take (the first found).
GAMES: dict[str, tuple[Any, Any, Callable[[Any], bool]]] = {
    "TRUMP": (HokmRules(), hokm, lambda s: True),
    "PLAY": (HokmRules(), hokm, lambda s: bool(s.history)),  # a trick played: --how unheld has a card
    "DISCARD": (TWO, hokm, lambda s: True),
    "DRAW": (TWO, hokm, lambda s: True),
    "REDEAL": (HokmRules(max_redeals=2), hokm, lambda s: True),
    "BAM": (HokmRules(bam=True), hokm, lambda s: True),
    "TAKE": (HandRules(), hand, lambda s: True),
    "TURN": (HandRules(), hand, lambda s: True),
}
ILLEGAL_AT = ("PLAY", "DISCARD", "TURN")


def pending(kind: str) -> tuple[Any, Any]:
    """A real state with a ``kind`` decision pending (random play from seed 0 on), and its game's engine."""
    rules, engine, wanted = GAMES[kind]
    for seed in range(200):
        state, rng = engine.new_match(rules, seed), random.Random(seed)
        while state.result is None:
            if state.kind == kind and wanted(state):
                return state, engine
            state.apply(state.random_action(rng))
    raise AssertionError(f"no {kind} decision in 200 random matches")


def start_of(state: Any, engine: Any) -> pb.MatchStart:
    game = "hand" if engine is hand else "hokm"
    return pb.MatchStart(match_id=MATCH_ID, game=game, seat=state.to_act, players=state.players)


def request_bytes(state: Any) -> bytes:
    view = state.view(state.to_act)
    return wire.decision_message(1, view, match_id=MATCH_ID, deadline_ms=DEADLINE_MS, bank_ms=BANK_MS)


def replies(argv: list[str], messages: list[bytes]) -> list[pb.DecisionReply]:
    """What the bot of ``argv`` answers on one Play stream to ``messages`` (serialized RefereeMessages)."""
    bot = misbehaving.MisbehavingBot(misbehaving.parse_args([*argv, "--port", "0"]))

    async def stream() -> AsyncIterator[pb.RefereeMessage]:
        for message in messages:
            yield pb.RefereeMessage.FromString(message)

    async def go() -> list[pb.DecisionReply]:
        return [message.reply async for message in bot.Play(stream(), None)]

    return asyncio.run(go())


def answer(argv: list[str], kind: str, appended: bytes = b"") -> tuple[Any, Any, pb.DecisionReply]:
    """The pending state of ``kind``, its engine, and the bot's one reply to it."""
    state, engine = pending(kind)
    start = pb.RefereeMessage(start=start_of(state, engine)).SerializeToString()
    [reply] = replies(argv, [start, request_bytes(state) + appended])
    assert reply.seq == 1
    return state, engine, reply


def assert_legal(state: Any, engine: Any, reply: pb.DecisionReply) -> None:
    """The reply is an action the referee reads and the state takes."""
    state.apply(wire.message_to_action(state.kind, reply.action))  # raises if it is not


@pytest.mark.parametrize("kind", GAMES)
def test_garbage_at_a_kind_spells_no_action_of_it(kind):
    state, engine, reply = answer(["garbage", "--kinds", kind, "--at", "1"], kind)
    with pytest.raises(engine.ActionError) as error:
        wire.message_to_action(state.kind, reply.action)
    expected = "no action" if kind in ("REDEAL", "BAM") else "'11X'"
    assert expected in str(error.value)


@pytest.mark.parametrize("kind", GAMES)
def test_wrong_kind_at_a_kind_sets_another_field(kind):
    state, engine, reply = answer(["wrong_kind", "--kinds", kind, "--at", "1"], kind)
    assert reply.action.WhichOneof("action") == ("suit" if kind == "PLAY" else "card")
    with pytest.raises(engine.ActionError, match="needs Action"):
        wire.message_to_action(state.kind, reply.action)


@pytest.mark.parametrize("kind", GAMES)
def test_illegal_at_a_kind_is_well_formed_and_refused_where_the_kind_has_an_illegal_value(kind):
    state, engine, reply = answer(["illegal", "--kinds", kind, "--at", "1"], kind)
    action = wire.message_to_action(state.kind, reply.action)  # well-formed, always
    if kind not in ILLEGAL_AT:
        state.apply(action)  # none to give: it played as the random bot
        return
    with pytest.raises(engine.IllegalAction):
        state.apply(action)
    if kind == "DISCARD":  # two cards, neither of them in its hand
        assert len(action) == 2 and not set(action) & set(state.hands[state.to_act])


@pytest.mark.parametrize("kind", GAMES)
def test_a_mode_confined_to_other_kinds_plays_cleanly_at_this_one(kind):
    others = ",".join(k for k in GAMES if k != kind)
    for mode in ("garbage", "wrong_kind", "illegal", "bad_seq", "long_note"):
        state, engine, reply = answer([mode, "--kinds", others, "--at", "1"], kind)
        assert (reply.seq, reply.note) == (1, "")
        assert_legal(state, engine, reply)


def test_without_kinds_the_action_modes_wait_for_a_play():
    """As they always have: a TRUMP is answered cleanly, the first PLAY from --at on is spoilt."""
    for mode in ("garbage", "wrong_kind", "illegal"):
        state, engine, reply = answer([mode, "--at", "1"], "TRUMP")
        assert_legal(state, engine, reply)
        state, engine, reply = answer([mode, "--at", "1"], "PLAY")
        with pytest.raises(ValueError):  # ActionError or IllegalAction
            state.apply(wire.message_to_action(state.kind, reply.action))


def test_long_note_puts_2000_bytes_on_every_reply():
    state, engine = pending("TRUMP")
    start = pb.RefereeMessage(start=start_of(state, engine)).SerializeToString()
    one = request_bytes(state)
    got = replies(["long_note"], [start, one, one, one])
    assert [len(reply.note.encode()) for reply in got] == [2000, 2000, 2000]


@pytest.mark.parametrize("kind", ["TRUMP", "DISCARD", "REDEAL", "TURN"])
def test_future_strict_answers_garbage_to_a_request_carrying_an_unknown_field(kind):
    state, engine, reply = answer(["future_strict"], kind, appended=UNKNOWN_FIELD)
    with pytest.raises(engine.ActionError):
        wire.message_to_action(state.kind, reply.action)
    state, engine, reply = answer(["future_strict"], kind)  # the same request as this protocol has it
    assert_legal(state, engine, reply)


def test_future_strict_finds_an_unknown_field_in_the_view_and_in_the_match_start():
    state, engine = pending("TRUMP")
    start = pb.RefereeMessage(start=start_of(state, engine))
    request = pb.RefereeMessage.FromString(request_bytes(state))
    view = request.decision.hokm
    view.MergeFromString(UNKNOWN_FIELD)  # now the view holds it, one level down
    [in_view] = replies(["future_strict"], [start.SerializeToString(), request.SerializeToString()])
    start.start.MergeFromString(UNKNOWN_FIELD)
    clean = request_bytes(state)
    [after_start] = replies(["future_strict"], [start.SerializeToString(), clean])
    for reply in (in_view, after_start):
        assert reply.action == pb.Action(suit="11X")


# -- over real gRPC --------------------------------------------------------------------------------

TIMING_RULES = HokmRules(target_score=1)
BAD = 1


def play_one(flags: list[str], clock: TimeControl, tmp_path) -> tuple[Any, list[dict[str, Any]]]:
    """One 4-player Hokm match to 1 point: the launched misbehaving bot at seat 1, the random bot elsewhere."""

    async def go():
        server, port = await start_server(PlayerBot("random", builtin_players()["random"]), "127.0.0.1:0")
        bots = [BotSpec.parse(f"127.0.0.1:{port}")] * 4
        bots[BAD] = BotSpec.parse(
            shlex.join([sys.executable, str(TEST_BOTS / "misbehaving.py"), *flags]) + " --port {port}"
        )
        config = RunConfig(
            rules=TIMING_RULES,
            bots=bots,
            games=1,
            time_control=clock,
            record_dir=tmp_path / "records",
            confinement=sandbox.Config(mode=sandbox.Isolation.OFF),
        )
        try:
            return await run(config)
        finally:
            await server.stop(None)

    outcome = asyncio.run(go()).outcomes[0]
    return outcome, read_record(outcome.record).events


NEARLY_SPENT = TimeControl(decision_ms=300, bank_ms=1, startup_ms=30_000)
SHORT = TimeControl(decision_ms=100, bank_ms=1, startup_ms=30_000)
ROOMY = TimeControl(decision_ms=1_000, bank_ms=10_000, startup_ms=30_000)
TIMING = {
    # A greedy bot overruns on a nearly spent bank (1 ms), and on nothing else.
    "greedy, nearly spent": (["honest", "--bank-greedy"], NEARLY_SPENT, "no_reply"),
    "greedy, roomy": (["honest", "--bank-greedy"], ROOMY, None),
    # A slow thinker (150 ms) misses a 100 ms deadline with no bank, and keeps a 1 s one.
    "thinker, short": (["honest", "--think-ms", "150"], SHORT, "no_reply"),
    "thinker, roomy": (["honest", "--think-ms", "150"], ROOMY, None),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", TIMING)
def test_the_time_options_fault_only_under_the_clock_they_are_made_for(name, tmp_path):
    flags, clock, code = TIMING[name]
    outcome, events = play_one(flags, clock, tmp_path)
    faults = [e for e in events if e["type"] == "fault"]
    if code is None:
        assert (outcome.reason, faults) == ("score", [])
        return
    assert outcome.reason == "forfeit" and outcome.faulty == (BAD,)
    [fault] = faults
    assert (fault["seat"], fault["kind"], fault["code"]) == (BAD, "TIMEOUT", code)
    assert not [e for e in events if e["type"] == "decision" and e["seat"] == BAD]  # at its first question


def serve_misbehaving(mode: str) -> Callable[[], Any]:
    async def serve() -> tuple[grpc.aio.Server, int]:
        server = grpc.aio.server()
        bot_pb2_grpc.add_BotServicer_to_server(
            misbehaving.MisbehavingBot(misbehaving.parse_args([mode, "--port", "0"])), server
        )
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        return server, port

    return serve


@pytest.mark.slow
@pytest.mark.parametrize(("mode", "closes"), [("honest", True), ("linger", False)])
def test_linger_keeps_its_side_of_the_stream_open_after_the_end(mode, closes):
    state, engine = pending("TRUMP")

    async def go() -> float | None:
        server, port = await serve_misbehaving(mode)()
        channel = open_channel(f"127.0.0.1:{port}")
        try:
            seat = RemoteSeat(channel, "misbehaving", "test")
            seat.watch_close = True
            await seat.open(start_of(state, engine))
            await seat.finish(pb.MatchEnd(winners=[0, 2], reason="score", score=[1, 0]))
            return seat.closed_ms
        finally:
            await channel.close()
            await server.stop(None)

    closed_ms = asyncio.run(go())
    assert (closed_ms is not None) is closes, closed_ms


def test_future_strict_over_grpc_faults_on_a_later_protocols_field_and_not_without_it():
    state, engine = pending("PLAY")
    question = Question(1, state.view(state.to_act), MATCH_ID, DEADLINE_MS, BANK_MS)

    async def ask(rewrite: Callable[[bytes], bytes] | None) -> Any:
        server, port = await serve_misbehaving("future_strict")()
        channel = open_channel(f"127.0.0.1:{port}")
        try:
            seat = RemoteSeat(channel, "misbehaving", "test")
            seat.rewrite = rewrite
            await seat.open(start_of(state, engine))
            try:
                return await seat.ask(question)
            except Fault as fault:
                return fault
            finally:
                await seat.finish(None)
        finally:
            await channel.close()
            await server.stop(None)

    fault = asyncio.run(ask(with_future_fields))
    assert isinstance(fault, Fault) and fault.code is FaultCode.BAD_ACTION and "'11X'" in fault.detail
    answered = asyncio.run(ask(None))
    state.apply(answered.action)  # legal

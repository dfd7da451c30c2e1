"""The protocol boundary for Hokm: a view the referee sends is the view a bot reads, and bad replies are named."""

from __future__ import annotations

import random

import pytest

from waraq.bots import codec
from waraq.referee.games.hokm.engine import ActionError, new_match
from waraq.referee.games.hokm.rules import PRESETS
from waraq.referee.wire import codec as wire
from waraq.v1 import bot_pb2 as pb

VARIANTS = [
    PRESETS["classic"].replace(bam=True, max_redeals=2, void_rule="must_trump"),
    PRESETS["three"].replace(max_redeals=1),
    PRESETS["two"].replace(burn_visible=True, bam=True),
    PRESETS["two"],
]


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: f"{r.players}p")
def test_every_view_of_a_match_comes_back_from_its_message_unchanged(rules):
    rng = random.Random(3)
    kinds = set()
    for seed in range(4):
        state = new_match(rules, seed)
        while not state.is_over:
            seat = state.to_act
            view = state.view(seat)
            request = wire.decision_request(7, view, match_id="m", deadline_ms=1, bank_ms=2)
            # Through bytes, as a bot in another process receives it.
            received = pb.DecisionRequest.FromString(request.SerializeToString())
            assert codec.message_to_view(received) == view  # as the sample bots read it
            action = rng.choice(view.legal)
            assert wire.message_to_action(view.kind, wire.action_to_message(view.kind, action)) == action
            kinds.add(view.kind)
            state.apply(action)
    assert {"TRUMP", "PLAY"} <= kinds


@pytest.mark.parametrize(
    "kind, action, problem",
    [
        ("PLAY", pb.Action(suit="S"), "needs Action.card, the reply set 'suit'"),
        ("PLAY", pb.Action(), "needs Action.card, the reply set no action"),
        ("PLAY", pb.Action(card="11X"), "'11X' is not a card"),
        ("TRUMP", pb.Action(suit="X"), "'X' is not a suit"),
        ("DISCARD", pb.Action(discard=pb.Cards(cards=["2S"])), "not a list of two cards"),
        ("DRAW", pb.Action(draw="take"), "neither 'keep' nor 'pass'"),
        ("BAM", pb.Action(card="AS"), "needs Action.answer"),
    ],
)
def test_a_malformed_action_says_what_is_wrong(kind, action, problem):
    with pytest.raises(ActionError, match=problem):
        wire.message_to_action(kind, action)


@pytest.mark.parametrize("clip", [wire.clip_note, codec.clip_note], ids=["referee", "bot"])
@pytest.mark.parametrize("note", ["", "short reason", "x" * 5000, "حکم " * 400, "é" * 1023, "🂡" * 300])
def test_a_note_is_clipped_to_the_byte_limit_on_a_character_boundary(clip, note):
    clipped = clip(note)
    assert len(clipped.encode()) <= 1024  # docs/protocol.md: at most 1024 bytes of UTF-8
    assert note.startswith(clipped)
    assert len(clipped.encode()) > 1024 - 4 or clipped == note  # nothing cut that fitted


def test_both_sides_speak_the_protocol_version_and_note_limit_of_the_spec():
    # docs/protocol.md: "The protocol's version is 1", "1024 bytes of UTF-8".
    assert wire.PROTOCOL_VERSION == codec.PROTOCOL_VERSION == 1
    assert wire.NOTE_LIMIT == codec.NOTE_LIMIT == 1024


def test_the_sample_server_sends_a_long_note_the_referee_accepts():
    import asyncio

    from waraq.bots.server import PlayerBot

    class Talker:
        note = "دلیل " * 500  # 5 bytes a word: 2,500 bytes

        def __call__(self, view):
            return view.legal[0]

    state = new_match(PRESETS["classic"], 1)
    start = pb.MatchStart(match_id="m", game="hokm", seat=state.to_act, players=4)
    request = wire.decision_request(1, state.view(state.to_act), match_id="m", deadline_ms=1, bank_ms=1)

    async def messages():
        yield pb.RefereeMessage(start=start)
        yield pb.RefereeMessage(decision=request)

    async def replies():
        bot = PlayerBot("talker", lambda match_id, seat, game: Talker())
        return [reply async for reply in bot.Play(messages(), None)]

    (reply,) = asyncio.run(replies())
    assert 0 < len(reply.reply.note.encode()) <= wire.NOTE_LIMIT
    assert Talker.note.startswith(reply.reply.note)

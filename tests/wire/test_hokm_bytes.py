"""The referee's hand-joined decision bytes are protobuf's own serialization, byte for byte.

So every protobuf library reads them as it reads that library's output: the
JavaScript bot and the hiding tests over gRPC read what the referee sends.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.hokm_strategies import SEEDS, hokm_rules, random_matches
from waraq.referee.games.hand.engine import new_match as new_hand_match
from waraq.referee.games.hand.rules import PRESETS as HAND_PRESETS
from waraq.referee.games.hokm.engine import Trick, new_match
from waraq.referee.games.hokm.rules import PRESETS
from waraq.referee.wire import codec
from waraq.referee.wire import hokm as wire
from waraq.referee.wire import hokm_bytes as wire_bytes
from waraq.v1 import bot_pb2 as pb


def protobuf_bytes(seq: int, view, match_id: str, deadline_ms: float, bank_ms: float) -> bytes:
    message = pb.RefereeMessage()
    codec.decision_request(
        seq, view, match_id=match_id, deadline_ms=deadline_ms, bank_ms=bank_ms, into=message.decision
    )
    return message.SerializeToString()


def assert_same_bytes(
    seq: int, view, match_id: str = "m-0123456789abcdef", deadline_ms: float = 10_000.0, bank_ms: float = 60_000.0
) -> None:
    ours = wire_bytes.decision_message(seq, view, match_id=match_id, deadline_ms=deadline_ms, bank_ms=bank_ms)
    assert ours == protobuf_bytes(seq, view, match_id, deadline_ms, bank_ms), (
        f"{view.kind} request differs: {pb.RefereeMessage.FromString(ours)}"
    )


@pytest.mark.slow
@random_matches(300)
@given(data=st.data(), seed=SEEDS, players=st.sampled_from([2, 3, 4]))
def test_every_request_of_a_random_match_is_protobufs_own_bytes(data: st.DataObject, seed: int, players: int) -> None:
    rules = data.draw(hokm_rules(players), label="rules")
    state, rng = new_match(rules, seed), random.Random(seed)
    seq = [0] * rules.players
    while not state.is_over:
        seat = state.to_act
        seq[seat] += 1
        view = state.view(seat)
        # The bank runs down to 0 (a field protobuf then leaves out).
        assert_same_bytes(seq[seat], view, bank_ms=rng.choice([0.0, 0.5, 59_999.25]))
        state.apply(rng.choice(view.legal))


def test_every_decision_kind_was_compared():
    kinds = set()
    for rules in (PRESETS["classic"].replace(bam=True, max_redeals=2), PRESETS["two"].replace(bam=True, max_redeals=2)):
        for seed in range(12):
            state, rng = new_match(rules, seed), random.Random(seed)
            while not state.is_over:
                view = state.view(state.to_act)
                assert_same_bytes(1, view)
                kinds.add(view.kind)
                state.apply(rng.choice(view.legal))
    assert kinds == {"TRUMP", "PLAY", "DISCARD", "DRAW", "REDEAL", "BAM"}


def test_values_beyond_one_byte_and_below_zero_are_encoded_as_protobuf_does():
    state = new_match(PRESETS["classic"], 5)
    view = state.view(state.to_act)
    for seq in (0, 1, 127, 128, 16_383, 16_384, 2**40):
        assert_same_bytes(seq, view)
    for scores in ((-1, 0), (-(2**31), 2**31 - 1), (127, 128), (300, 0)):
        assert_same_bytes(1, view._replace(scores=scores))
    assert_same_bytes(1, view._replace(round=20_000, hakem=0, seat=0, to_act=0), match_id="", deadline_ms=0.25)


def test_the_referees_codec_joins_hokm_bytes_and_serializes_a_hand_view_by_protobuf():
    hokm_state = new_match(PRESETS["two"], 3)
    hokm_view = hokm_state.view(hokm_state.to_act)
    hand_state = new_hand_match(HAND_PRESETS["classic"], 3)
    hand_view = hand_state.view(hand_state.to_act)
    joined = wire_bytes.decision_message(4, hokm_view, match_id="m", deadline_ms=1, bank_ms=2)
    assert codec.decision_message(4, hokm_view, match_id="m", deadline_ms=1, bank_ms=2) == joined
    by_protobuf = protobuf_bytes(4, hand_view, "m", 1, 2)
    assert codec.decision_message(4, hand_view, match_id="m", deadline_ms=1, bank_ms=2) == by_protobuf
    assert pb.RefereeMessage.FromString(by_protobuf).decision.WhichOneof("view") == "hand"


def test_cached_tricks_are_told_apart_by_every_trick_not_only_the_last():
    last = Trick(0, (1, 2, 3, 4), 2)
    one, other = (Trick(1, (5, 6, 7, 8), 1), last), (Trick(3, (9, 10, 11, 12), 0), last)
    for tricks in (one, other, one):  # the second and third lookups find an entry under `last`
        expected = pb.HokmView(
            tricks=[
                pb.Trick(leader=t.leader, cards=[wire.CARD_NAMES[c] for c in t.cards], winner=t.winner) for t in tricks
            ]
        ).SerializeToString()
        assert wire.tricks_field(tricks) == expected

"""A decision kind read from a protobuf message is a plain ``str``: the wire must treat it as the member.

The referee asks with the engine's member; a bot, or the referee reading a reply for a kind it
parsed, holds the string protobuf gave back. Both must pick the same ``Action`` field and the
same engine value.
"""

from __future__ import annotations

import pytest

from waraq.referee.games.cards import parse_card, parse_suit
from waraq.referee.games.hand import engine as hand
from waraq.referee.games.hand.decisions import TAKE, TURN
from waraq.referee.games.hokm import engine as hokm
from waraq.referee.wire import hand as wire_hand
from waraq.referee.wire import hokm as wire_hokm
from waraq.v1 import bot_pb2 as pb

# Hand-worked: an engine action of each kind and the Action field that carries it (docs/protocol.md).
CASES = [
    (wire_hokm, hokm.TRUMP, parse_suit("D"), "suit"),
    (wire_hokm, hokm.PLAY, parse_card("QC"), "card"),
    (wire_hokm, hokm.DISCARD, tuple(sorted([parse_card("3S"), parse_card("JH")])), "discard"),
    (wire_hokm, hokm.DRAW, "keep", "draw"),
    (wire_hokm, hokm.REDEAL, True, "answer"),
    (wire_hokm, hokm.BAM, False, "answer"),
    (wire_hand, TAKE, "discard", "take"),
    (wire_hand, TURN, hand.action_from_json(TURN, {"steps": [], "discard": "5C#1"}), "turn"),
]


def through_the_wire(kind: str, action: pb.Action) -> tuple[str, pb.Action]:
    """A request's kind and an action as the other side reads them: parsed from bytes."""
    sent = pb.DecisionRequest(kind=kind, legal=[action])
    read = pb.DecisionRequest.FromString(sent.SerializeToString())
    return read.kind, read.legal[0]


@pytest.mark.parametrize(("wire", "kind", "action", "field"), CASES, ids=[str(c[1]) for c in CASES])
def test_a_kind_read_from_a_message_picks_the_members_field_and_value(wire, kind, action, field):
    message = wire.action_to_message(kind, action)
    assert message.WhichOneof("action") == field
    read_kind, read_action = through_the_wire(kind, message)
    assert type(read_kind) is str and read_kind == kind
    assert wire.action_to_message(read_kind, action) == message
    assert wire.message_to_action(read_kind, read_action) == action
    assert wire.message_to_action(kind, read_action) == action

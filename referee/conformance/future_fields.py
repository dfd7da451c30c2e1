"""A field of a later ``waraq.v1``, put inside every message a bot reads (check-bot's forward-compatibility case).

A bot built from this ``bot.proto`` must answer a request from a later one,
which may carry fields it does not know. A field numbered 900 (a string) goes
inside ``MatchStart``, ``DecisionRequest`` and its Hokm or Hand view. Each
message is encoded again whole, as a later referee would send it: appending a
second copy of a message field would do for most protobuf libraries, which
merge the copies, but protobuf.js keeps only the last one.
"""

from __future__ import annotations

from waraq.referee.wire.hokm_bytes import varint
from waraq.v1 import bot_pb2 as pb


def _unknown_field(number: int, payload: bytes) -> bytes:
    """A length-delimited field ``number`` holding ``payload``, in protobuf's wire format."""
    return varint(number << 3 | 2) + varint(len(payload)) + payload


FUTURE = _unknown_field(900, b"a field from a later version")


def with_future_fields(sent: bytes) -> bytes:
    """A serialized ``RefereeMessage`` with :data:`FUTURE` inside its start, or its decision and view."""
    message = pb.RefereeMessage.FromString(sent)
    body = message.WhichOneof("body")
    if body == "start":
        return _unknown_field(1, message.start.SerializeToString() + FUTURE)
    if body == "decision":
        request = message.decision
        view = request.WhichOneof("view")
        assert view is not None  # the referee's every request carries its view
        field = request.DESCRIPTOR.fields_by_name[view]
        if field.message_type is None:  # a plug-in game's view_json: text, with nothing inside to add to
            return _unknown_field(2, request.SerializeToString() + FUTURE)
        inner = getattr(request, view).SerializeToString() + FUTURE
        request.ClearField(view)
        return _unknown_field(2, request.SerializeToString() + FUTURE + _unknown_field(field.number, inner))
    return sent

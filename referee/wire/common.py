"""What every game's messages share: the protocol's version, a note's limit, a request's header.

:mod:`waraq.referee.wire.hokm` and :mod:`waraq.referee.wire.hand` write and read
their game's messages and import nothing of the wire but this module;
:mod:`waraq.referee.wire.codec` picks between them. Nothing here knows a game.
"""

from __future__ import annotations

from typing import Any

from google.protobuf import json_format

from waraq.v1 import bot_pb2 as pb

PROTOCOL_VERSION = 1
NOTE_LIMIT = 1024  # bytes of a reply's note; longer is MALFORMED


def clip_note(note: object) -> str:
    """``note`` as text of at most NOTE_LIMIT bytes in UTF-8, cut on a character's boundary."""
    text = str(note)
    if len(text) * 4 <= NOTE_LIMIT:  # no character is longer than 4 bytes
        return text
    return text.encode()[:NOTE_LIMIT].decode(errors="ignore")


def fill_header(
    request: pb.DecisionRequest, seq: int, view: Any, *, match_id: str, deadline_ms: float, bank_ms: float
) -> None:
    """The fields every game's request has, but its legal actions and its view."""
    assert view.kind is not None and view.seat == view.to_act
    request.seq = seq
    request.kind = view.kind
    request.deadline_ms = deadline_ms
    request.bank_ms = bank_ms
    request.match_id = match_id
    request.seat = view.seat


def request_json(request: Any) -> dict[str, Any]:
    """A message in protobuf's JSON mapping (``json_format.ParseDict`` reads it back), with
    every field, zeros too, in the order of the .proto."""
    loose = json_format.MessageToDict(
        request,
        preserving_proto_field_name=True,
        always_print_fields_with_no_presence=True,
        unquote_int64_if_possible=True,
    )
    return _in_proto_order(loose, request.DESCRIPTOR)


def _in_proto_order(loose: dict[str, Any], descriptor: Any) -> dict[str, Any]:
    ordered = {}
    for member in descriptor.fields:
        if member.name not in loose:
            continue
        value = loose[member.name]
        if member.message_type is not None:
            if isinstance(value, list):
                value = [_in_proto_order(v, member.message_type) for v in value]
            else:
                value = _in_proto_order(value, member.message_type)
        ordered[member.name] = value
    return ordered

"""What every game's messages share: the protocol's version, a note's limit, a request's header.

:mod:`waraq.referee.wire.hokm` and :mod:`waraq.referee.wire.hand` write and read
their game's messages and import nothing of the wire but this module;
:mod:`waraq.referee.wire.codec` picks between them. Nothing here knows a game.
"""

from __future__ import annotations

from typing import Any

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

"""The referee's messages for any game: each call handed to its game's wire part.

The referee writes questions and reads replies through this module alone.
Each game's messages are in its wire part (the registry's ``Part.WIRE``):
Hokm's in :mod:`waraq.referee.wire.hokm` (its hot path, and
:mod:`waraq.referee.wire.hokm_bytes`), Hand's in :mod:`waraq.referee.wire.hand`,
a plug-in game's in a :class:`~waraq.referee.wire.json_view.JsonWire`. A part
is imported only when its game's view or kind comes by, so a Hokm-only
process never loads Hand. Hokm is picked with one cheap test (the view's
type, or whether the kind is Hokm's); any other game through the registry,
once per view type or kind. No game's part imports this one, nor another's:
what they share is :mod:`waraq.referee.wire.common`.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from waraq.referee.games import registry
from waraq.referee.games.hokm.engine import KINDS as HOKM_KINDS
from waraq.referee.games.hokm.engine import HokmView
from waraq.referee.games.registry import Part
from waraq.referee.wire import hokm, hokm_bytes
from waraq.referee.wire.common import NOTE_LIMIT, PROTOCOL_VERSION, clip_note
from waraq.v1 import bot_pb2 as pb

__all__ = [
    "NOTE_LIMIT",
    "PROTOCOL_VERSION",
    "action_to_message",
    "clip_note",
    "decision_message",
    "decision_request",
    "message_to_action",
    "view_message",
]


_BY_VIEW: dict[type, Any] = {}  # a view type -> the wire part whose VIEW it is


def _part_of_view(view_type: type) -> Any:
    """The wire part whose ``VIEW`` is ``view_type``."""
    if view_type not in _BY_VIEW:
        parts = (registry.part(game, Part.WIRE) for game in registry.GAMES)
        found = next((wire for wire in parts if wire.VIEW is view_type), None)
        if found is None:
            raise TypeError(f"no game's wire part carries a {view_type.__name__}")
        _BY_VIEW[view_type] = found
    return _BY_VIEW[view_type]


@cache
def _part_of_kind(kind: str) -> Any:
    """The wire part of the game whose decision ``kind`` is (kinds are the registry's, one game each)."""
    return registry.part(registry.game_of_kind(kind), Part.WIRE)


def _of_view(view: Any) -> Any:
    return hokm if type(view) is HokmView else _part_of_view(type(view))


def _of_kind(kind: str) -> Any:
    return hokm if kind in HOKM_KINDS else _part_of_kind(kind)


def decision_request(
    seq: int,
    view: Any,
    *,
    match_id: str,
    deadline_ms: float,
    bank_ms: float,
    into: pb.DecisionRequest | None = None,
) -> pb.DecisionRequest:
    """The self-contained question put to the seat to act, with its view in its game's field,
    written into ``into`` when given (an empty request, e.g. ``RefereeMessage().decision``)."""
    return _of_view(view).decision_request(
        seq, view, match_id=match_id, deadline_ms=deadline_ms, bank_ms=bank_ms, into=into
    )


def view_message(view: Any) -> pb.DecisionRequest:
    """A request holding only ``view``'s message in its game's field (no header, no legal actions):
    what a seat knows at any moment, its turn or not, written as a request to it would carry it
    (the HTML replay shows every seat's view at every decision)."""
    request = pb.DecisionRequest()
    _of_view(view).view_into(request, view)
    return request


def decision_message(seq: int, view: Any, *, match_id: str, deadline_ms: float, bank_ms: float) -> bytes:
    """The serialized ``RefereeMessage`` asking ``view``'s seat its decision: a Hokm one joined
    from bytes made once (:mod:`waraq.referee.wire.hokm_bytes`), any other by protobuf."""
    if type(view) is HokmView:
        return hokm_bytes.decision_message(seq, view, match_id=match_id, deadline_ms=deadline_ms, bank_ms=bank_ms)
    message = pb.RefereeMessage()
    _of_view(view).decision_request(
        seq, view, match_id=match_id, deadline_ms=deadline_ms, bank_ms=bank_ms, into=message.decision
    )
    return message.SerializeToString()


def action_to_message(kind: str, action: Any) -> pb.Action:
    """An engine action of ``kind`` as the ``Action`` message (a request's legal actions)."""
    return _of_kind(kind).action_to_message(kind, action)


def message_to_action(kind: str, message: pb.Action) -> Any:
    """A reply's action -> the engine's value; the game's ``ActionError`` says what is wrong with it."""
    return _of_kind(kind).message_to_action(kind, message)

"""The referee's messages for any game: each call handed to its game's module.

The referee writes questions and reads replies through this module alone.
Hokm's messages are in :mod:`waraq.referee.wire.hokm` (its hot path, and
:mod:`waraq.referee.wire.hokm_bytes`); Hand's are in :mod:`waraq.referee.wire.hand`,
imported only when a Hand view or kind comes by, so a Hokm-only process never
loads Hand. Each function picks with one cheap test: the view's type, or
whether the kind is Hokm's. Neither game's module imports this one, nor the
other's: what they share is :mod:`waraq.referee.wire.common`.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from waraq.referee.games.hokm.engine import KINDS as HOKM_KINDS
from waraq.referee.games.hokm.engine import HokmView
from waraq.referee.wire import hokm, hokm_bytes
from waraq.referee.wire.common import NOTE_LIMIT, PROTOCOL_VERSION, clip_note
from waraq.v1 import bot_pb2 as pb

__all__ = [
    "NOTE_LIMIT", "PROTOCOL_VERSION", "action_to_message", "clip_note", "decision_message", "decision_request",
    "message_to_action", "view_message",
]


def _hand() -> ModuleType:
    """:mod:`waraq.referee.wire.hand`, imported on first use."""
    from waraq.referee.wire import hand

    return hand


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
    game = hokm if type(view) is HokmView else _hand()
    return game.decision_request(seq, view, match_id=match_id, deadline_ms=deadline_ms, bank_ms=bank_ms, into=into)


def view_message(view: Any) -> pb.DecisionRequest:
    """A request holding only ``view``'s message in its game's field (no header, no legal actions):
    what a seat knows at any moment, its turn or not, written as a request to it would carry it
    (the HTML replay shows every seat's view at every decision)."""
    request = pb.DecisionRequest()
    if type(view) is HokmView:
        hokm.fill_view(request.hokm, view)
    else:
        _hand().fill_view(request.hand, view)
    return request


def decision_message(seq: int, view: Any, *, match_id: str, deadline_ms: float, bank_ms: float) -> bytes:
    """The serialized ``RefereeMessage`` asking ``view``'s seat its decision: a Hokm one joined
    from bytes made once (:mod:`waraq.referee.wire.hokm_bytes`), a Hand one by protobuf."""
    if type(view) is HokmView:
        return hokm_bytes.decision_message(seq, view, match_id=match_id, deadline_ms=deadline_ms, bank_ms=bank_ms)
    message = pb.RefereeMessage()
    _hand().decision_request(
        seq, view, match_id=match_id, deadline_ms=deadline_ms, bank_ms=bank_ms, into=message.decision
    )
    return message.SerializeToString()


def action_to_message(kind: str, action: Any) -> pb.Action:
    """An engine action of ``kind`` as the ``Action`` message (a request's legal actions)."""
    return (hokm if kind in HOKM_KINDS else _hand()).action_to_message(kind, action)


def message_to_action(kind: str, message: pb.Action) -> Any:
    """A reply's action -> the engine's value; the game's ``ActionError`` says what is wrong with it."""
    return (hokm if kind in HOKM_KINDS else _hand()).message_to_action(kind, message)

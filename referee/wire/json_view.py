"""The messages of a game that has none of its own in bot.proto: its view and actions as JSON.

A game added by a plug-in (docs/new-game.md) need not change the protocol:
its view travels in ``DecisionRequest.view_json`` as the object its
``view.to_json()`` gives, and each action in ``Action.json`` as its engine
spells it in a record (``action_to_json``). So a record, a request and a reply
spell an action the same way, and one parser refuses a bad one. A game's wire
part is a :class:`JsonWire` of its engine and its view type.
"""

from __future__ import annotations

import json
from typing import Any

from waraq.referee.wire.common import fill_header
from waraq.v1 import bot_pb2 as pb


class JsonWire:
    """The wire part (:mod:`waraq.referee.wire.codec`'s contract) of one game, through JSON."""

    def __init__(self, engine: Any, view_type: type) -> None:
        self.engine = engine
        self.VIEW = view_type

    def action_to_message(self, kind: str, action: Any) -> pb.Action:
        return pb.Action(json=json.dumps(self.engine.action_to_json(kind, action), separators=(",", ":")))

    def message_to_action(self, kind: str, message: pb.Action) -> Any:
        if message.WhichOneof("action") != "json":
            raise self.engine.ActionError(f"a {kind} reply sets Action.json, not {message.WhichOneof('action')}")
        try:
            value = json.loads(message.json)
        except ValueError:
            raise self.engine.ActionError(f"Action.json is not JSON: {message.json[:80]!r}") from None
        except RecursionError:  # a reply of brackets alone: json reads them by recursion
            raise self.engine.ActionError("Action.json is nested too deeply to be an action") from None
        return self.engine.action_from_json(kind, value)

    def view_into(self, request: pb.DecisionRequest, view: Any) -> None:
        request.view_json = json.dumps(view.to_json(), separators=(",", ":"), sort_keys=True)

    def decision_request(
        self,
        seq: int,
        view: Any,
        *,
        match_id: str,
        deadline_ms: float,
        bank_ms: float,
        into: pb.DecisionRequest | None = None,
    ) -> pb.DecisionRequest:
        request = pb.DecisionRequest() if into is None else into
        fill_header(request, seq, view, match_id=match_id, deadline_ms=deadline_ms, bank_ms=bank_ms)
        request.legal.extend([self.action_to_message(view.kind, action) for action in view.legal])
        self.view_into(request, view)
        return request

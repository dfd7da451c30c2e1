"""Hand's side of the protocol boundary, for the referee: its views, TAKE and TURN actions, as messages.

:mod:`waraq.referee.wire.codec` hands everything of Hand over to this module (and
imports it only then). Cards cross the wire as their names ("7H#1",
"JK#0"); a run's ``joker_as`` as a face name ("7H"). A TURN's steps are read
through the record's own parser (:func:`waraq.referee.games.hand.engine.action_from_json`),
so a message and a record line spell the same turn the same way and are
refused with the same words.
"""

from __future__ import annotations

from typing import Any

from waraq.referee.games.hand import engine as hand
from waraq.referee.games.hand.decisions import TAKE, TURN, Turn
from waraq.referee.games.hand.engine import ActionError
from waraq.referee.games.hand.melds import CARD_NAMES, FACE_NAMES, Add, Meld
from waraq.referee.games.hand.view import HandView
from waraq.referee.wire.common import fill_header
from waraq.v1 import bot_pb2 as pb

# Which oneof field of Action carries each Hand decision kind.
ACTION_FIELD: dict[str, str] = {TAKE: "take", TURN: "turn"}


# -- actions -------------------------------------------------------------------------


def action_to_message(kind: str, action: Any) -> pb.Action:
    if kind == TURN:
        return pb.Action(turn=turn_to_message(action))
    return pb.Action(take=action)


def turn_to_message(turn: Turn) -> pb.Turn:
    message = pb.Turn(discard=CARD_NAMES[turn.discard])
    _add_steps(message.steps, turn.steps)
    return message


def _add_steps(into: Any, steps: Any) -> None:
    """Append ``steps`` to the repeated ``Step`` field ``into``."""
    for step in steps:
        m = into.add()
        if type(step) is Meld:
            m.meld.cards.extend([CARD_NAMES[c] for c in step.cards])
        elif type(step) is Add:
            m.add.meld = step.meld
            m.add.cards.extend([CARD_NAMES[c] for c in step.cards])
            m.add.at = step.at or ""
        else:
            m.swap.meld = step.meld
            m.swap.card = CARD_NAMES[step.card]


def message_to_action(kind: str, message: pb.Action) -> Any:
    """A reply's action -> the engine's value; Hand's ``ActionError`` says what is wrong with it."""
    field = message.WhichOneof("action")
    wanted = ACTION_FIELD[kind]
    if field != wanted:
        got = f"'{field}'" if field else "no action"
        raise ActionError(f"a {kind} decision needs Action.{wanted}, the reply set {got}")
    if kind == TAKE:
        return hand.action_from_json(TAKE, message.take)
    return hand.action_from_json(TURN, turn_json(message.turn))


def turn_json(turn: pb.Turn) -> dict[str, Any]:
    """A Turn message in the record's spelling (docs/records.md), for the one parser of both."""
    return {"steps": [_step_json(i, s) for i, s in enumerate(turn.steps, start=1)], "discard": turn.discard}


def _step_json(number: int, step: pb.Step) -> dict[str, Any]:
    which = step.WhichOneof("step")
    if which == "meld":
        return {"meld": list(step.meld.cards)}
    if which == "add":
        spelled: dict[str, Any] = {"add": step.add.meld, "cards": list(step.add.cards)}
        if step.add.at:  # a set's addition has none: "" on the wire, absent in the record
            spelled["at"] = step.add.at
        return spelled
    if which == "swap":
        return {"swap": step.swap.meld, "card": step.swap.card}
    raise ActionError(f"TURN: step {number} sets none of meld, add, swap")


# -- requests and views ----------------------------------------------------------------


def decision_request(
    seq: int,
    view: HandView,
    *,
    match_id: str,
    deadline_ms: float,
    bank_ms: float,
    into: pb.DecisionRequest | None = None,
) -> pb.DecisionRequest:
    """The question put to the seat to act, with its view in ``hand``, written into ``into``
    when given (see :func:`waraq.referee.wire.hokm.decision_request`).

    A TURN lists no legal actions: the turn is checked whole."""
    request = pb.DecisionRequest() if into is None else into
    kind = view.kind
    assert kind is not None  # asked of the seat to act
    fill_header(request, seq, view, match_id=match_id, deadline_ms=deadline_ms, bank_ms=bank_ms)
    request.legal.extend([action_to_message(kind, a) for a in view.legal])
    fill_view(request.hand, view)
    return request


VIEW = HandView  # the view type this module carries (waraq.referee.wire.codec picks by it)


def view_into(request: pb.DecisionRequest, view: HandView) -> None:
    fill_view(request.hand, view)


def fill_view(m: pb.HandView, view: HandView) -> None:
    """Write ``view`` into the empty message ``m`` (nested messages added in place, as wire.hokm does)."""
    m.seat = view.seat
    m.players = view.rules.players
    m.round = view.round
    m.first = view.first
    m.kind = view.kind or ""
    m.to_act = view.to_act or 0
    m.hand.extend([CARD_NAMES[c] for c in view.hand])
    m.hand_sizes.extend(view.hand_sizes)
    m.opened.extend(view.opened)
    for meld in view.melds:
        m.melds.add(
            owner=meld.owner,
            kind=meld.kind,
            cards=[CARD_NAMES[c] for c in meld.cards],
            joker_as="" if meld.joker_as is None else FACE_NAMES[meld.joker_as],
        )
    m.pile.extend([CARD_NAMES[c] for c in view.pile])
    for seat, card in view.taken:
        m.taken.add(seat=seat, card=CARD_NAMES[card])
    m.stock_size = view.stock_size
    m.drawn = "" if view.drawn is None else CARD_NAMES[view.drawn]
    m.took = "" if view.took is None else CARD_NAMES[view.took]
    for use in view.uses:
        _add_steps(m.uses.add().steps, use)
    m.scores.extend(view.scores)
    m.rules_json = view.rules.canonical_json()
    m.partnership = view.rules.partnership

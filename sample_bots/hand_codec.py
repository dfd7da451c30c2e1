"""Hand's side of the bot's codec: a request with a ``hand`` view back into a
:class:`~waraq.referee.games.hand.view.HandView`, a TAKE or TURN choice into an ``Action``.

:mod:`waraq.bots.codec` hands Hand's requests over to this module (and imports
it only then); it imports no other module of the bots. Cards cross the wire
as their names ("7H#1", "JK#0"), a run's ``joker_as`` as a face name ("7H").
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from waraq.referee.games.hand import engine as hand
from waraq.referee.games.hand.decisions import TAKE, TURN, HandKind, Turn
from waraq.referee.games.hand.engine import ActionError
from waraq.referee.games.hand.melds import (
    CARD_BY_NAME,
    CARD_NAMES,
    Add,
    Meld,
    Swap,
    TableMeld,
    parse_card,
    parse_face,
)
from waraq.referee.games.hand.rules import HandRules
from waraq.referee.games.hand.view import HandView
from waraq.v1 import bot_pb2 as pb


def kind_of(request: pb.DecisionRequest) -> HandKind:
    """The request's decision kind as its member."""
    if request.kind not in hand.KINDS:
        raise ActionError(f"{request.kind!r} is not a Hand decision kind: expected one of {', '.join(hand.KINDS)}")
    return HandKind(request.kind)


def message_to_view(request: pb.DecisionRequest) -> HandView:
    """The view the engine made for the seat asked. A TURN lists no legal actions."""
    m = request.hand
    kind = kind_of(request)
    return HandView(
        rules=_rules(m.rules_json),
        seat=m.seat,
        round=m.round,
        first=m.first,
        kind=kind,
        to_act=m.to_act,
        legal=tuple(hand.action_from_json(TAKE, a.take) for a in request.legal),
        hand=_cards(m.hand),
        hand_sizes=tuple(m.hand_sizes),
        opened=tuple(m.opened),
        melds=tuple(
            TableMeld(t.owner, t.kind, _cards(t.cards), parse_face(t.joker_as) if t.joker_as else None) for t in m.melds
        ),
        pile=_cards(m.pile),
        taken=tuple((t.seat, parse_card(t.card)) for t in m.taken),
        stock_size=m.stock_size,
        drawn=parse_card(m.drawn) if m.drawn else None,
        took=parse_card(m.took) if m.took else None,
        uses=tuple(tuple(_step(s) for s in use.steps) for use in m.uses),
        scores=tuple(m.scores),
        result=None,
    )


def action_to_message(kind: str, action: Any) -> pb.Action:
    """The bot's choice as the reply's ``Action``: TAKE's "stock" or "discard", or a whole turn."""
    if kind == TURN:
        return pb.Action(turn=turn_to_message(action))
    return pb.Action(take=action)


def turn_to_message(turn: Turn) -> pb.Turn:
    message = pb.Turn(discard=CARD_NAMES[turn.discard])
    for step in turn.steps:
        m = message.steps.add()
        if type(step) is Meld:
            m.meld.cards.extend([CARD_NAMES[c] for c in step.cards])
        elif type(step) is Add:
            m.add.meld = step.meld
            m.add.cards.extend([CARD_NAMES[c] for c in step.cards])
            m.add.at = step.at or ""  # a set's addition has no end: "" on the wire
        else:
            m.swap.meld = step.meld
            m.swap.card = CARD_NAMES[step.card]
    return message


def _step(step: pb.Step) -> Any:
    """One step of a way to lay the taken discard (``HandView.uses``)."""
    which = step.WhichOneof("step")
    if which == "meld":
        return Meld(_cards(step.meld.cards))
    if which == "add":
        return Add(step.add.meld, _cards(step.add.cards), step.add.at or None)
    if which == "swap":
        return Swap(step.swap.meld, parse_card(step.swap.card))
    raise ActionError("a step sets none of meld, add, swap")


def _cards(names: Any) -> tuple[int, ...]:
    """Hand's card names as the referee spells them -> its 106 cards, a dict look-up each;
    any other spelling through parse_card, which accepts it or says why not."""
    try:
        return tuple(map(CARD_BY_NAME.__getitem__, names))
    except KeyError:
        return tuple(parse_card(name) for name in names)


@lru_cache(maxsize=64)
def _rules(rules_json: str) -> HandRules:
    # Every request carries the rules; a bot sees the same few many times.
    return HandRules.from_dict(json.loads(rules_json))

"""The bot's side of the protocol: a ``DecisionRequest`` back into the engine's view, a choice into an ``Action``.

A Python bot decides from the view the referee's engine made for its seat
(:class:`~waraq.referee.games.hokm.engine.HokmView`, or Hand's
:class:`~waraq.referee.games.hand.view.HandView`), and the engines are a
library bots may use. The referee's own side of the wire
(:mod:`waraq.referee.wire`) writes questions and reads replies, with caches
made for its hot path; this module reads questions and writes replies, and
imports nothing of the referee but the engines. tests/sample_bots/test_codec.py
checks that the two sides agree over random positions of both games.

Hokm is read here. Hand's messages are in :mod:`waraq.bots.hand_codec`,
imported only when a request carries a Hand view (the request's ``view``
oneof says which game it is), so a Hokm-only bot never loads Hand.
"""

from __future__ import annotations

import json
from functools import lru_cache
from types import ModuleType
from typing import Any

from waraq.referee.games.cards import CARD_BY_NAME, CARD_NAMES, SUITS, parse_card, parse_suit
from waraq.referee.games.hokm import engine as hokm
from waraq.referee.games.hokm.engine import (
    BAM,
    DISCARD,
    DRAW,
    PLAY,
    REDEAL,
    TRUMP,
    ActionError,
    DrawStep,
    HokmKind,
    HokmView,
    Trick,
)
from waraq.referee.games.hokm.rules import HokmRules
from waraq.v1 import bot_pb2 as pb

# The protocol this bot speaks (its HelloReply.protocol_version), and the longest note a reply
# may carry: both are docs/protocol.md's, as every bot in any language has them.
PROTOCOL_VERSION = 1
NOTE_LIMIT = 1024  # bytes in UTF-8

# Which oneof field of Action carries each Hokm decision kind.
ACTION_FIELD: dict[str, str] = {
    TRUMP: "suit",
    PLAY: "card",
    DISCARD: "discard",
    DRAW: "draw",
    REDEAL: "answer",
    BAM: "answer",
}


def clip_note(note: object) -> str:
    """``note`` as text of at most NOTE_LIMIT bytes in UTF-8, cut on a character's boundary."""
    text = str(note)
    if len(text) * 4 <= NOTE_LIMIT:  # no character is longer than 4 bytes
        return text
    return text.encode()[:NOTE_LIMIT].decode(errors="ignore")


def _hand() -> ModuleType:
    """:mod:`waraq.bots.hand_codec`, imported on first use."""
    from waraq.bots import hand_codec

    return hand_codec


def is_hand(request: pb.DecisionRequest) -> bool:
    return request.WhichOneof("view") == "hand"


def kind_of(request: pb.DecisionRequest) -> str:
    """The request's decision kind as its game's member (a ``HokmKind`` or a ``HandKind``)."""
    if is_hand(request):
        return _hand().kind_of(request)
    return _hokm_kind(request)


def _hokm_kind(request: pb.DecisionRequest) -> HokmKind:
    if request.kind not in ACTION_FIELD:
        raise ActionError(f"{request.kind!r} is not a Hokm decision kind: expected one of {', '.join(hokm.KINDS)}")
    return HokmKind(request.kind)


def message_to_view(request: pb.DecisionRequest) -> Any:
    """The view the engine made for the seat asked: a :class:`HokmView`, or a Hand view
    when the request carries ``hand``."""
    if is_hand(request):
        return _hand().message_to_view(request)
    m = request.hokm
    kind = _hokm_kind(request)
    if kind == PLAY:  # the commonest question: its legal actions are cards
        legal: tuple[Any, ...] = _cards([a.card for a in request.legal])
    else:
        legal = tuple(_legal_action(kind, a) for a in request.legal)
    return HokmView(
        rules=_rules(m.rules_json),
        seat=m.seat,
        round=m.round,
        hakem=m.hakem,
        trump=parse_suit(m.trump) if m.trump else None,
        kind=kind,
        to_act=m.to_act,
        legal=legal,
        hand=_cards(m.hand),
        hand_sizes=tuple(m.hand_sizes),
        trick=tuple(zip([p.seat for p in m.trick], _cards([p.card for p in m.trick]), strict=True)),
        tricks=tuple(Trick(t.leader, _cards(t.cards), t.winner) for t in m.tricks),
        tricks_won=tuple(m.tricks_won),
        scores=tuple(m.scores),
        redeals=tuple((r.hakem, _cards(r.cards)) for r in m.redeals),
        discarded=_cards(m.discarded),
        draws=tuple(
            DrawStep(
                parse_card(d.offered),
                hokm.action_from_json(DRAW, d.choice),
                parse_card(d.second) if d.second else None,
            )
            for d in m.draws
        ),
        offered=parse_card(m.offered) if m.offered else None,
        bam=m.bam,
        result=None,
    )


def _legal_action(kind: str, message: pb.Action) -> Any:
    """One of a request's legal actions (an ``Action`` message) -> the engine's value."""
    field = message.WhichOneof("action")
    wanted = ACTION_FIELD[kind]
    if field != wanted:
        got = f"'{field}'" if field else "no action"
        raise ActionError(f"a {kind} decision needs Action.{wanted}, the request's action set {got}")
    value = getattr(message, field)
    # The message's fields spell actions as the record does: the engine's one parser reads both.
    return hokm.action_from_json(kind, list(value.cards) if kind == DISCARD else value)


def action_to_message(kind: str, action: Any) -> pb.Action:
    """The bot's choice, one of the view's legal actions of ``kind``, as the reply's ``Action``."""
    if kind == PLAY:
        return pb.Action(card=CARD_NAMES[action])
    if kind == TRUMP:
        return pb.Action(suit=SUITS[action])
    if kind == DISCARD:
        return pb.Action(discard=pb.Cards(cards=[CARD_NAMES[c] for c in action]))
    if kind == DRAW:
        return pb.Action(draw=action)
    if kind in ACTION_FIELD:  # REDEAL, BAM
        return pb.Action(answer=action)
    return _hand().action_to_message(kind, action)


def _cards(names: Any) -> tuple[int, ...]:
    """Card names as the referee spells them -> cards, a dict look-up each (hand_codec has
    Hand's own); any other spelling through parse_card, which accepts it or says why not."""
    try:
        return tuple(map(CARD_BY_NAME.__getitem__, names))
    except KeyError:
        return tuple(parse_card(name) for name in names)


@lru_cache(maxsize=64)
def _rules(rules_json: str) -> HokmRules:
    # Every request carries the rules; a bot sees the same few many times.
    return HokmRules.from_dict(json.loads(rules_json))

"""The thin boundary between the engine's values and the protocol's messages.

Both sides use it: the referee turns a seat's view into a ``DecisionRequest``
and a reply's ``Action`` back into an engine action; a Python bot turns the
request back into a :class:`~waraq.referee.games.hokm.engine.HokmView` (or a Hand view) and
its choice into an ``Action``. Nothing here knows about sockets or time.

Hokm is written here, on the referee's hot path (bench/transport.py); Hand's
messages are in :mod:`waraq.referee.wire.hand`, imported only when a Hand view,
kind or request comes by, so a Hokm-only process never loads Hand. Each
function below dispatches with one cheap test: the view's type, the kind's
name or the request's ``view`` oneof.
"""

from __future__ import annotations

import json
from collections.abc import Callable
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
    HokmView,
    Trick,
)
from waraq.referee.games.hokm.rules import HokmRules
from waraq.v1 import bot_pb2 as pb

PROTOCOL_VERSION = 1
NOTE_LIMIT = 1024  # bytes of a reply's note; longer is MALFORMED


def clip_note(note: object) -> str:
    """``note`` as text of at most NOTE_LIMIT bytes in UTF-8, cut on a character's boundary."""
    text = str(note)
    if len(text) * 4 <= NOTE_LIMIT:  # no character is longer than 4 bytes
        return text
    return text.encode()[:NOTE_LIMIT].decode(errors="ignore")

# Which oneof field of Action carries each decision kind: Hokm's, and Hand's (named here, so that
# telling the games apart needs no import of Hand; waraq.referee.wire.hand has the same with Hand's constants).
ACTION_FIELD: dict[str, str] = {TRUMP: "suit", PLAY: "card", DISCARD: "discard", DRAW: "draw", REDEAL: "answer", BAM: "answer"}
HAND_FIELD = {"TAKE": "take", "TURN": "turn"}


def _hand() -> ModuleType:
    """:mod:`waraq.referee.wire.hand`, imported on first use."""
    from waraq.referee.wire import hand as wire_hand

    return wire_hand


def action_to_message(kind: str, action: Any) -> pb.Action:
    if kind in HAND_FIELD:
        return _hand().action_to_message(kind, action)
    if kind == PLAY:
        return pb.Action(card=CARD_NAMES[action])
    if kind == TRUMP:
        return pb.Action(suit=SUITS[action])
    if kind == DISCARD:
        return pb.Action(discard=pb.Cards(cards=[CARD_NAMES[c] for c in action]))
    if kind == DRAW:
        return pb.Action(draw=action)
    return pb.Action(answer=action)


def message_to_action(kind: str, message: pb.Action) -> Any:
    """A reply's action -> the engine's value; the game's ``ActionError`` says what is wrong with it."""
    if kind == PLAY and message.WhichOneof("action") == "card":  # the commonest answer
        card = CARD_BY_NAME.get(message.card)
        if card is not None:
            return card
    if kind in HAND_FIELD:
        return _hand().message_to_action(kind, message)
    field = message.WhichOneof("action")
    wanted = ACTION_FIELD[kind]
    if field != wanted:
        got = f"'{field}'" if field else "no action"
        raise ActionError(f"a {kind} decision needs Action.{wanted}, the reply set {got}")
    value = getattr(message, field)
    # The message's fields spell actions as the record does: one parser for both.
    return hokm.action_from_json(kind, list(value.cards) if kind == DISCARD else value)


def _fill_view(m: pb.HokmView, view: HokmView) -> None:
    """Write ``view`` into the empty message ``m``.

    Nested messages are added in place rather than built apart and copied in:
    the referee builds one view per decision, and copies were a quarter of the
    cost of a request (bench/transport.py).
    """
    m.seat = view.seat
    m.players = view.rules.players
    m.round = view.round
    m.hakem = view.hakem
    m.trump = "" if view.trump is None else SUITS[view.trump]
    m.kind = view.kind or ""
    m.to_act = view.to_act or 0
    m.hand.extend([CARD_NAMES[c] for c in view.hand])
    m.hand_sizes.extend(view.hand_sizes)
    for seat, card in view.trick:
        m.trick.add(seat=seat, card=CARD_NAMES[card])
    if view.tricks:
        m.MergeFromString(tricks_field(view.tricks))
    m.tricks_won.extend(view.tricks_won)
    m.scores.extend(view.scores)
    for hakem, shown in view.redeals:
        m.redeals.add(hakem=hakem, cards=[CARD_NAMES[c] for c in shown])
    m.discarded.extend([CARD_NAMES[c] for c in view.discarded])
    for draw in view.draws:
        m.draws.add(
            offered=CARD_NAMES[draw.offered],
            choice=draw.choice,
            second="" if draw.second is None else CARD_NAMES[draw.second],
        )
    m.offered = "" if view.offered is None else CARD_NAMES[view.offered]
    m.bam = view.bam
    m.rules_json = view.rules.canonical_json()


def tricks_field(tricks: tuple[Trick, ...]) -> bytes:
    """A round's completed tricks as the serialized ``HokmView.tricks`` field.

    They are public and only grow, so every seat's every request in a round
    repeats them: merging cached bytes costs half of adding them anew
    (bench/transport.py). Concatenated serialized messages merge, and a repeated
    field's entries append, so the bytes stand for the field on their own,
    and a round's field is the field of its tricks but the last plus the last.

    Cached under the last trick's identity: hashing the whole tuple on every
    request cost as much as the rest of the request's view. The entry keeps
    its tuple, so the id cannot be reused while it is cached, and comparing
    tuples of the same trick objects stops at identity.
    """
    last = tricks[-1]
    entry = _tricks_cache.get(id(last))
    if entry is not None and entry[0] == tricks:
        return entry[1]
    holder = pb.HokmView()
    holder.tricks.add(leader=last.leader, cards=[CARD_NAMES[c] for c in last.cards], winner=last.winner)
    data = holder.SerializeToString()
    if len(tricks) > 1:
        data = tricks_field(tricks[:-1]) + data
    if len(_tricks_cache) >= 4096:  # a long run plays many rounds: keep the cache small
        _tricks_cache.clear()
    _tricks_cache[id(last)] = (tricks, data)
    return data


_tricks_cache: dict[int, tuple[tuple[Trick, ...], bytes]] = {}


def decision_request(
    seq: int,
    view: Any,
    *,
    match_id: str,
    deadline_ms: float,
    bank_ms: float,
    into: pb.DecisionRequest | None = None,
) -> pb.DecisionRequest:
    """The self-contained question put to the seat to act, with its view in the game's field.

    Written into ``into`` when given (an empty request, e.g. ``RefereeMessage().decision``):
    a message built apart and then wrapped would be copied whole, which cost as much as
    building it (bench/transport.py).
    """
    request = pb.DecisionRequest() if into is None else into
    if type(view) is not HokmView:
        _hand().fill_request(request, seq, view, match_id=match_id, deadline_ms=deadline_ms, bank_ms=bank_ms)
        return request
    kind = view.kind
    fill_header(request, seq, view, match_id=match_id, deadline_ms=deadline_ms, bank_ms=bank_ms)
    if kind == PLAY:  # the commonest question: its legal actions are cards
        add = request.legal.add
        for card in view.legal:
            add(card=CARD_NAMES[card])
    else:
        request.legal.extend([action_to_message(kind, a) for a in view.legal])
    _fill_view(request.hokm, view)
    return request


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


def kind_of(request: pb.DecisionRequest) -> str:
    """The request's decision kind as its engine's own constant (compared by identity)."""
    if request.kind in HAND_FIELD:
        return _hand().kind_of(request)
    if request.kind not in hokm.KINDS:
        raise ActionError(
            f"{request.kind!r} is not a decision kind: expected one of {', '.join([*hokm.KINDS, *HAND_FIELD])}"
        )
    return hokm.KINDS[hokm.KINDS.index(request.kind)]


@lru_cache(maxsize=64)
def _rules(rules_json: str) -> HokmRules:
    # Every request carries the rules; a bot sees the same few many times.
    return HokmRules.from_dict(json.loads(rules_json))


def card_reader(by_name: dict[str, int], parse: Callable[[str], int]) -> Callable[[Any], tuple[int, ...]]:
    """For one game's deck: card names as the referee spells them -> cards, and any other
    spelling through ``parse``, which accepts it or raises CardError naming it."""

    def cards(names: Any) -> tuple[int, ...]:
        try:
            return tuple(map(by_name.__getitem__, names))
        except KeyError:  # not the canonical spelling: let parse accept it or say why not
            return tuple(parse(name) for name in names)

    return cards


_cards = card_reader(CARD_BY_NAME, parse_card)


def message_to_view(request: pb.DecisionRequest) -> Any:
    """The bot's side: a request back to the view the engine made (for Python bots):
    a :class:`HokmView`, or a Hand view when the request carries ``hand``."""
    if request.WhichOneof("view") == "hand":
        return _hand().message_to_view(request)
    m = request.hokm
    kind = kind_of(request)
    if kind == PLAY:  # the commonest question: its legal actions are cards
        legal: tuple[Any, ...] = _cards([a.card for a in request.legal])
    else:
        legal = tuple(message_to_action(kind, a) for a in request.legal)
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
        trick=tuple(zip([p.seat for p in m.trick], _cards([p.card for p in m.trick]))),
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

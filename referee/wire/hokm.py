"""Hokm's side of the protocol boundary, for the referee: its views and actions as messages.

The referee turns a seat's :class:`~waraq.referee.games.hokm.engine.HokmView` into a
``DecisionRequest`` and a reply's ``Action`` back into an engine action.
Nothing here knows about sockets or time, or about Hand: the referee goes
through :mod:`waraq.referee.wire.codec`, which picks this module or
:mod:`waraq.referee.wire.hand` by the game. Bots read requests with their own
codec (:mod:`waraq.bots.codec`).

This is the referee's hot path (bench/transport.py): see :func:`tricks_field`
and :mod:`waraq.referee.wire.hokm_bytes`.
"""

from __future__ import annotations

from typing import Any

from waraq.referee.games.cards import CARD_BY_NAME, CARD_NAMES, SUITS
from waraq.referee.games.hokm import engine as hokm
from waraq.referee.games.hokm.engine import BAM, DISCARD, DRAW, PLAY, REDEAL, TRUMP, ActionError, HokmView, Trick
from waraq.referee.wire.common import fill_header
from waraq.v1 import bot_pb2 as pb

# Which oneof field of Action carries each decision kind.
ACTION_FIELD: dict[str, str] = {
    TRUMP: "suit",
    PLAY: "card",
    DISCARD: "discard",
    DRAW: "draw",
    REDEAL: "answer",
    BAM: "answer",
}


def action_to_message(kind: str, action: Any) -> pb.Action:
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
    field = message.WhichOneof("action")
    wanted = ACTION_FIELD[kind]
    if field != wanted:
        got = f"'{field}'" if field else "no action"
        raise ActionError(f"a {kind} decision needs Action.{wanted}, the reply set {got}")
    value = getattr(message, field)
    # The message's fields spell actions as the record does: one parser for both.
    return hokm.action_from_json(kind, list(value.cards) if kind == DISCARD else value)


VIEW = HokmView  # the view type this module carries (waraq.referee.wire.codec picks by it)


def view_into(request: pb.DecisionRequest, view: HokmView) -> None:
    fill_view(request.hokm, view)


def fill_view(m: pb.HokmView, view: HokmView) -> None:
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
    view: HokmView,
    *,
    match_id: str,
    deadline_ms: float,
    bank_ms: float,
    into: pb.DecisionRequest | None = None,
) -> pb.DecisionRequest:
    """The self-contained question put to the seat to act, with its view in ``hokm``.

    Written into ``into`` when given (an empty request, e.g. ``RefereeMessage().decision``):
    a message built apart and then wrapped would be copied whole, which cost as much as
    building it (bench/transport.py).
    """
    request = pb.DecisionRequest() if into is None else into
    kind = view.kind
    assert kind is not None  # asked of the seat to act
    fill_header(request, seq, view, match_id=match_id, deadline_ms=deadline_ms, bank_ms=bank_ms)
    if kind == PLAY:  # the commonest question: its legal actions are cards
        add = request.legal.add
        for card in view.legal:
            add(card=CARD_NAMES[card])
    else:
        request.legal.extend([action_to_message(kind, a) for a in view.legal])
    fill_view(request.hokm, view)
    return request

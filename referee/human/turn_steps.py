"""Hand's turn, built by clicks: what the turn rules allow next, asked of their one owner.

A Hand ``TURN`` is answered with a whole turn (steps, then a discard), which a
person builds one click at a time. The page knows no rule: it sends the steps
taken so far and the cards selected, and is told, by
:class:`~waraq.referee.games.hand.turn.PartialTurn` (the rules' one owner, the
one the referee checks the whole turn with), what the hand and table are now,
whether the turn could end here, and which steps the selection could make:
a new meld, an addition to which meld at which end, a swap for which joker.
The finished turn comes back as the protocol's ``Action``, which the page
sends as any bot's reply.
"""

from __future__ import annotations

from typing import Any

from waraq.referee.games.cards import CardError
from waraq.referee.games.hand.decisions import TURN, ActionError, action_from_json
from waraq.referee.games.hand.melds import (
    ACE,
    CARD_NAMES,
    FACES,
    HIGH,
    JOKER,
    LOW,
    SET,
    Add,
    Meld,
    Swap,
    check_meld,
    parse_card,
)
from waraq.referee.games.hand.turn import IllegalAction, PartialTurn
from waraq.referee.games.hand.view import HandView, meld_to_json
from waraq.referee.human.desk import Refused
from waraq.referee.wire import codec as wire
from waraq.referee.wire.common import request_json

ENDS = (None, LOW, HIGH)  # where an addition may go: a set's has no end, a run's the low or the high one


def options(view: HandView, steps: Any, selected: Any) -> dict[str, Any]:
    """Where the turn stands after ``steps`` (the record's spelling), and what ``selected`` could do next.

    A person selects cards in any order; a run must be laid ascending, its joker where it stands. So each
    step is tried with the selection as clicked and in each ascending order it could make (the ace low or
    high, the joker in each gap or at either end), and the legal orders are given with it (``meld_orders``,
    and each addition's ``cards``): a joker at the low or the high end of a run means two different melds."""
    turn = _taken(view, steps)
    cards = _cards(selected, "selected")
    orders = _orders(cards)
    laid = [order for order in orders if _ok(turn, Meld(order))]
    if laid and check_meld(laid[0])[0] == SET:
        laid = laid[:1]  # a set is one meld in any order
    return {
        "hand": [CARD_NAMES[c] for c in turn.hand],
        "melds": [meld_to_json(m) for m in turn.table],
        "opened": turn.opened,
        "problem": turn.problem(),
        "meld": True if laid else _allowed(turn, Meld(cards)) if cards else "select the cards of a meld",
        "meld_orders": [[CARD_NAMES[c] for c in order] for order in laid],
        "adds": [
            {"meld": i, "at": at, "cards": [CARD_NAMES[c] for c in order]}
            for i in range(len(turn.table))
            for at in ENDS
            for order in _first_legal(turn, orders, lambda order, i=i, at=at: Add(i, order, at))
        ],
        "swaps": [i for i in range(len(turn.table)) if len(cards) == 1 and _ok(turn, Swap(i, cards[0]))],
        "discard": len(cards) == 1 and turn.problem() is None and cards[0] in turn.hand,
    }


def _orders(cards: tuple[int, ...]) -> list[tuple[int, ...]]:
    """``cards`` as given, then each ascending order they could make as a run, each once."""
    if not cards:
        return []
    real = [c for c in cards if c % FACES != JOKER]
    jokers = [c for c in cards if c % FACES == JOKER]
    found = [cards]
    if len(jokers) <= 1:
        for ace in (0, 13):  # the ace before the 2, or after the king
            ascending = sorted(real, key=lambda card: _position(card, ace))
            for gap in range(len(ascending) + 1) if jokers else (0,):
                found.append((*ascending[:gap], *jokers, *ascending[gap:]))
    return list(dict.fromkeys(found))


def _position(card: int, ace: int) -> int:
    """Where ``card`` stands in a run of its suit: the 2 at 1, the king at 12, the ace at ``ace`` (0 or 13)."""
    rank = card % FACES % 13
    return ace if rank == ACE else rank + 1


def _first_legal(turn: PartialTurn, orders: list[tuple[int, ...]], step: Any) -> list[tuple[int, ...]]:
    """The first of ``orders`` with which ``step(order)`` may be taken (none: an empty list)."""
    return next(([order] for order in orders if _ok(turn, step(order))), [])


def finish(view: HandView, steps: Any, discard: Any) -> dict[str, Any]:
    """The whole turn, ended by discarding ``discard``, as the reply's ``Action`` in protobuf's JSON mapping."""
    turn = _taken(view, steps)
    (card,) = _cards([discard], "discard")
    try:
        whole = turn.finish(card)
    except IllegalAction as error:
        raise Refused(422, str(error)) from None
    return {"action": request_json(wire.action_to_message(TURN, whole))}


def _taken(view: HandView, steps: Any) -> PartialTurn:
    """The turn after ``steps``: each parsed as a record spells it, and taken as the referee would."""
    if not isinstance(steps, list):
        raise Refused(400, f"steps {steps!r}: expected a list of steps as records spell them")
    try:
        parsed = action_from_json(TURN, {"steps": steps, "discard": CARD_NAMES[view.hand[0]]}).steps
    except ActionError as error:
        raise Refused(400, str(error)) from None
    turn = PartialTurn.of_view(view)
    for step in parsed:
        try:
            turn.step(step)
        except IllegalAction as error:
            raise Refused(422, str(error)) from None
    return turn


def _cards(names: Any, what: str) -> tuple[int, ...]:
    if not isinstance(names, list):
        raise Refused(400, f'{what} {names!r}: expected a list of card names, e.g. ["7H#1", "JK#0"]')
    try:
        return tuple(parse_card(name) for name in names)
    except CardError as error:
        raise Refused(400, f"{what}: {error}") from None


def _allowed(turn: PartialTurn, step: Any) -> bool | str:
    """True when ``step`` may be taken now, else the referee's reason."""
    try:
        turn.copy().step(step)
    except IllegalAction as error:
        return str(error)
    return True


def _ok(turn: PartialTurn, step: Any) -> bool:
    return _allowed(turn, step) is True

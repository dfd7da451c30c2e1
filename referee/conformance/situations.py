"""What a question put to the bot was, read from its request's view alone.

A conformance case asks that the bot was put in a situation and answered it
well. Hokm's situations are plain facts of the view (a trick to lead, a led
suit the seat is void in, a must-trump restriction). Hand's TURN situations
("could open", "could add", "could swap a joker", "could go out") need a
player that finds such a turn: the house heuristic is asked from the same
view, through the built-in bots' table, and a situation holds when the turn
it would play does that. Finding one is a sufficient sign, not a necessary
one: a TURN in which the heuristic sees no addition may still have one.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Any

from waraq.referee.games.cards import suit_of
from waraq.referee.games.hand.melds import Add, Meld, Swap


class Situation(StrEnum):
    """A kind of question, narrowed by what the view shows; each case asks for one."""

    TRUMP = "TRUMP"
    LEAD = "PLAY, leading a trick"
    FOLLOW = "PLAY, following suit"
    VOID = "PLAY, void in the led suit"
    MUST_TRUMP = "PLAY, void and bound to trump"
    DISCARD = "DISCARD"
    DRAW_UNSEEN = "DRAW, the burned card unseen"
    DRAW_VISIBLE = "DRAW, the burned card shown"
    REDEAL = "REDEAL"
    BAM = "BAM"
    TAKE = "TAKE"
    TURN_FIRST = "TURN, first of the round (15 cards, no draw)"
    TURN_OPEN = "TURN, able to open"
    TURN_ADD = "TURN, able to add to a meld"
    TURN_SWAP = "TURN, able to take a joker"
    TURN_OUT = "TURN, able to go out"


Oracle = Callable[[Any], Any]  # a Hand view at TURN -> the Turn a capable player would play


def situations(view: Any, oracle: Oracle | None = None) -> set[Situation]:
    """The situations of the question ``view`` asks its seat (a Hokm or a Hand view)."""
    kind = view.kind
    if kind == "PLAY":
        return {_play(view)}
    if kind == "DRAW":
        return {Situation.DRAW_VISIBLE if view.rules.burn_visible else Situation.DRAW_UNSEEN}
    if kind == "TURN":
        return _turn(view, oracle)
    return {Situation(kind)}


def _play(view: Any) -> Situation:
    if not view.trick:
        return Situation.LEAD
    led = suit_of(view.trick[0][1])
    if any(suit_of(card) == led for card in view.hand):
        return Situation.FOLLOW
    trump = view.trump
    bound = len(view.legal) < len(view.hand) and all(suit_of(card) == trump for card in view.legal)
    return Situation.MUST_TRUMP if bound else Situation.VOID


def _turn(view: Any, oracle: Oracle | None) -> set[Situation]:
    found = set()
    if len(view.hand) == 15 and view.drawn is None and view.took is None:
        found.add(Situation.TURN_FIRST)
    if oracle is None:
        return found
    turn = oracle(view)
    kinds = {type(step) for step in turn.steps}
    if Meld in kinds and not view.opened[view.seat]:
        found.add(Situation.TURN_OPEN)
    if Add in kinds:
        found.add(Situation.TURN_ADD)
    if Swap in kinds:
        found.add(Situation.TURN_SWAP)
    laid = sum(len(step.cards) for step in turn.steps if type(step) is not Swap)  # a swap gives a card back
    if len(view.hand) - laid == 1:
        found.add(Situation.TURN_OUT)
    return found

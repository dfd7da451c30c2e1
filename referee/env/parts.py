"""Each game's parts as the environments need them, so one environment class serves both games.

A :class:`GameParts` names a game's engine, rules loader and encoding, and says how a
seat's steps make its decision: in Hokm one step is one decision; in Hand a ``TURN``
is built one move at a time (:mod:`waraq.referee.env.hand_steps`), and the steps so far
are the decision's *progress*, which the observation and the mask see and which hands
the finished action over with the last move. :mod:`waraq.referee.env.seat_env` (one
seat, Gymnasium) and :mod:`waraq.referee.env.table_aec` (every seat, PettingZoo) take
a game's parts and nothing else of it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from waraq.referee.env import hand_encoding, hokm_encoding
from waraq.referee.env.hand_encoding import Move, StepTurn
from waraq.referee.games.cards import CARD_NAMES as HOKM_CARDS
from waraq.referee.games.cards import SUITS
from waraq.referee.games.hand import engine as hand_engine
from waraq.referee.games.hand import rules as hand_rules
from waraq.referee.games.hand.decisions import KINDS as HAND_KINDS
from waraq.referee.games.hand.decisions import TAKE, TURN
from waraq.referee.games.hand.melds import CARD_NAMES as HAND_CARDS
from waraq.referee.games.hand.view import HandView
from waraq.referee.games.hokm import engine as hokm_engine
from waraq.referee.games.hokm import rules as hokm_rules
from waraq.referee.games.hokm.engine import HokmView

Row = tuple[np.ndarray, np.ndarray, int]  # a step's observation, its legal mask, the index taken


@dataclass(frozen=True)
class GameParts:
    """One game's parts, as an environment needs them."""

    name: str  # the registry's name: which built-in players to ask
    load_rules: Callable[[Any], Any]
    new_match: Callable[..., Any]  # (rules, seed, dealer) -> the engine's state
    actions: int
    observation_size: Callable[[int], int]  # by player count
    low: float  # the observation's least value
    # (view of the seat to act) -> its decision's progress before its first step (None: one step makes it).
    progress: Callable[[Any], Any]
    # (index, view, progress) -> the finished action, or None while the decision goes on; ValueError if not legal.
    decide: Callable[[Any, Any, Any], Any]
    encode: Callable[[Any, Any], np.ndarray]  # (view, progress)
    legal_mask: Callable[[Any, Any], np.ndarray]  # (view, progress)
    describe: Callable[[Any], str]  # one line of the table: what any seat's view shows
    # For training data (waraq.referee.env.dataset): the decision kinds in the order the ``kind`` column
    # numbers them, the observation's blocks by player count, and (view, kind, the engine's action) ->
    # the decision's rows: one, or one per step of a decision built in steps.
    kinds: tuple[str, ...]
    layout: Callable[[int], dict[str, tuple[int, int]]]
    rows: Callable[[Any, str, Any], list[Row]]


def describe_hokm(view: HokmView) -> str:
    """Round, hakem, trump, the trick, the tricks and the score, and who is to decide."""
    trump = "-" if view.trump is None else SUITS[view.trump]
    trick = " ".join(f"{seat}:{HOKM_CARDS[card]}" for seat, card in view.trick) or "-"
    tricks = "-".join(map(str, view.tricks_won))
    score = "-".join(map(str, view.scores))
    pending = "over" if view.kind is None else f"seat {view.to_act} {view.kind}"
    return f"round {view.round} hakem {view.hakem} trump {trump} trick {trick} tricks {tricks} score {score}: {pending}"


def describe_hand(view: HandView) -> str:
    """The round, the melds, the pile's top, the stock, who has opened, the score and who is to decide."""
    top = HAND_CARDS[view.pile[-1]] if view.pile else "-"
    opened = "".join("o" if o else "." for o in view.opened)
    score = "-".join(map(str, view.scores))
    pending = "over" if view.kind is None else f"seat {view.to_act} {view.kind}"
    return (
        f"round {view.round} first {view.first} melds {len(view.melds)} pile {top} stock {view.stock_size} "
        f"opened {opened} score {score}: {pending}"
    )


def _hand_progress(view: HandView) -> StepTurn | None:
    """The turn the seat is to build, when its decision is a TURN."""
    return StepTurn.of(view) if view.kind == TURN and view.to_act == view.seat else None


def _hand_decide(index: Any, view: HandView, turn: StepTurn | None) -> Any:
    """A TAKE's answer at once; a TURN's moves on ``turn``, the whole turn with its discard."""
    chosen = hand_encoding.action_of(index, view, turn)
    if not isinstance(chosen, Move):
        return chosen
    assert turn is not None  # a move is allowed only on a turn being built
    return turn.play(chosen)  # None while the turn goes on: nothing reaches the engine yet


def _hokm_rows(view: HokmView, kind: str, action: Any) -> list[Row]:
    return [(hokm_encoding.encode(view), hokm_encoding.legal_mask(view), hokm_encoding.action_index(kind, action))]


def _hand_rows(view: HandView, kind: str, action: Any) -> list[Row]:
    """A TAKE is one row; a TURN one row per move that builds it (hand_encoding's ``turn_step_states``),
    each with the observation and the mask of the turn as built up to that move."""
    if kind == TAKE:
        return [(hand_encoding.encode(view), hand_encoding.legal_mask(view), hand_encoding.take_index(action))]
    return [
        (hand_encoding.encode(view, built), hand_encoding.legal_mask(view, built), index)
        for built, index in hand_encoding.turn_step_states(view, action)
    ]


HOKM = GameParts(
    name="hokm",
    load_rules=hokm_rules.load_rules,
    new_match=hokm_engine.new_match,
    actions=hokm_encoding.ACTIONS,
    observation_size=hokm_encoding.observation_size,
    low=0.0,
    progress=lambda view: None,
    decide=lambda index, view, progress: hokm_encoding.action_of(index, view),
    encode=lambda view, progress: hokm_encoding.encode(view),
    legal_mask=lambda view, progress: hokm_encoding.legal_mask(view),
    describe=describe_hokm,
    kinds=tuple(str(kind) for kind in hokm_engine.KINDS),
    layout=hokm_encoding.layout,
    rows=_hokm_rows,
)

HAND = GameParts(
    name="hand",
    load_rules=hand_rules.load_rules,
    new_match=hand_engine.new_match,
    actions=hand_encoding.ACTIONS,
    observation_size=hand_encoding.observation_size,
    low=-1.0,  # the scores
    progress=_hand_progress,
    decide=_hand_decide,
    encode=hand_encoding.encode,
    legal_mask=hand_encoding.legal_mask,
    describe=describe_hand,
    kinds=tuple(str(kind) for kind in HAND_KINDS),
    layout=hand_encoding.layout,
    rows=_hand_rows,
)

BY_NAME = {parts.name: parts for parts in (HOKM, HAND)}

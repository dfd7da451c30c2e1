"""The decisions a Hand match asks for, and their answers as records and the protocol spell them.

A match asks two kinds of decision (:class:`HandKind`): ``TAKE``, answered
``"stock"`` or ``"discard"``, and ``TURN``, answered with a whole
:class:`Turn`: its steps (:class:`~waraq.referee.games.hand.melds.Meld`,
:class:`~waraq.referee.games.hand.melds.Add`,
:class:`~waraq.referee.games.hand.melds.Swap`) in order, then a card to
discard. :func:`action_to_json` and :func:`action_from_json` convert them to
the record's spelling (:mod:`~waraq.referee.games.hand.engine`'s docstring
shows it); a value that spells no action raises :class:`ActionError`.
Whether an action is legal is not decided here: that is
:mod:`~waraq.referee.games.hand.turn`'s call.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from waraq.referee.games.cards import CardError
from waraq.referee.games.hand.melds import CARD_NAMES, HIGH, LOW, Add, Meld, Step, Swap, parse_card

GAME = "hand"  # the game's name, as rules and records name it


class HandKind(StrEnum):
    """The decisions a Hand match asks for, spelled in records and messages by their values.

    As Hokm's kinds (:class:`~waraq.referee.games.hokm.engine.HokmKind`): a ``str``
    subclass compared with ``==``, so a kind parsed from a record or a request
    selects the same code as the member.
    """

    TAKE = "TAKE"
    TURN = "TURN"


TAKE, TURN = HandKind.TAKE, HandKind.TURN  # the members by their short names, as call sites read them
KINDS = tuple(HandKind)
STOCK, DISCARD_PILE = TAKES = ("stock", "discard")  # TAKE's actions


class ActionError(ValueError):
    """A value that does not spell an action of the kind asked for."""


@dataclass(frozen=True, slots=True)
class Turn:
    """A TURN decision: ``steps`` in order, then the card to discard."""

    steps: tuple[Step, ...]
    discard: int

    def __post_init__(self) -> None:
        if type(self.steps) is not tuple:
            object.__setattr__(self, "steps", tuple(self.steps))


def step_to_json(step: Step) -> dict[str, Any]:
    """A step as a record and the protocol spell it (see the engine's docstring)."""
    if type(step) is Meld:
        return {"meld": [CARD_NAMES[c] for c in step.cards]}
    if type(step) is Add:
        spelled: dict[str, Any] = {"add": step.meld, "cards": [CARD_NAMES[c] for c in step.cards]}
        if step.at is not None:  # a set's addition has no end: "at" is left out
            spelled["at"] = step.at
        return spelled
    return {"swap": step.meld, "card": CARD_NAMES[step.card]}


def action_to_json(kind: str, action: Any) -> Any:
    """An action as a record and the protocol spell it (see the engine's docstring)."""
    if kind == TAKE:
        return action
    return {"steps": [step_to_json(s) for s in action.steps], "discard": CARD_NAMES[action.discard]}


def action_from_json(kind: str, value: Any) -> Any:
    """The record's spelling of an action of ``kind`` -> the engine's value.

    Raises :class:`ActionError` quoting the value when it spells no action of
    that kind; whether the action is *legal* is
    :meth:`~waraq.referee.games.hand.engine.HandState.apply`'s call.
    """
    if kind not in KINDS:
        raise ActionError(f"{kind!r} is not a Hand decision kind: expected one of {', '.join(KINDS)}")
    if kind == TAKE:
        if isinstance(value, str) and value in TAKES:
            return TAKES[TAKES.index(value)]  # the engine's own constant
        raise ActionError(f"TAKE: {value!r} is neither 'stock' nor 'discard'")
    if not isinstance(value, dict):
        raise ActionError(f'TURN: {value!r} is not a turn: expected {{"steps": [...], "discard": card}}')
    unknown = sorted(set(value) - {"steps", "discard"})
    if unknown:
        raise ActionError(f"TURN: {value!r} has unknown keys {unknown}: expected 'steps' and 'discard'")
    steps = value.get("steps", [])
    if not isinstance(steps, list):
        raise ActionError(f"TURN: steps {steps!r} is not a list")
    try:
        return Turn(tuple(_step_from_json(s) for s in steps), parse_card(value.get("discard")))
    except CardError as error:
        raise ActionError(f"TURN: {error}") from None


def _step_from_json(value: Any) -> Step:
    if not isinstance(value, dict):
        raise ActionError(f"TURN: step {value!r} is not an object with 'meld', 'add' or 'swap'")
    keys = set(value)
    if keys == {"meld"}:
        return Meld(_cards_from_json(value, value["meld"]))
    if "add" in keys and keys <= {"add", "cards", "at"} and "cards" in keys:
        at = value.get("at")
        if at == "":
            at = None  # the protocol's spelling of "no end" (a set)
        if at not in (None, LOW, HIGH):
            raise ActionError(f"TURN: step {value!r}: 'at' must be 'low', 'high' or absent")
        return Add(_index_from_json(value, value["add"]), _cards_from_json(value, value["cards"]), at)
    if keys == {"swap", "card"}:
        return Swap(_index_from_json(value, value["swap"]), parse_card(value["card"]))
    raise ActionError(
        f"TURN: step {value!r} is none of {{'meld': cards}}, {{'add': n, 'cards': cards, 'at': end}}, "
        "{'swap': n, 'card': card}"
    )


def _cards_from_json(step: Any, value: Any) -> tuple[int, ...]:
    if not isinstance(value, list):
        raise ActionError(f"TURN: step {step!r}: {value!r} is not a list of cards")
    return tuple(parse_card(v) for v in value)


def _index_from_json(step: Any, value: Any) -> int:
    if type(value) is not int or value < 0:
        raise ActionError(f"TURN: step {step!r}: meld number {value!r} is not an integer >= 0")
    return value

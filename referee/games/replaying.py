"""Re-playing a record through a game's engine, checking every line: one driver for every game.

A record (docs/records.md) is the deal history plus the decisions. Re-playing it
means dealing the recorded decks, applying each recorded action through the
engine's checked door, and comparing every event the engine produces with
the record's, on the fields the engine writes (a record may add times and
notes). What differs between games is passed in: how to start a state from
the record's deals, how an action is spelled, which errors mean "illegal".
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from waraq.referee.games.contract import GameState, ReplayError
from waraq.referee.games.dealers import DealError, MissingDeal

__all__ = ["ReplayError", "iter_replay", "replay_to_end"]  # ReplayError is the contract's; the engines import it here

State = TypeVar("State", bound=GameState)


def iter_replay(
    events: Sequence[dict[str, Any]],
    *,
    start: Callable[[list[dict[str, Any]]], State],
    engine_events: tuple[str, ...],
    dealing_events: tuple[str, ...],
    action_from_json: Callable[[str, Any], Any],
    refused: tuple[type[Exception], ...],
) -> Iterator[State]:
    """Re-play a record's decisions, yielding the state after each one.

    ``start`` builds the state from the record's engine events (a dealer
    holding its decks); ``dealing_events`` are the kinds that bring new cards
    (a record cut short after a round may lack the next); ``refused`` are the
    engine's errors for an action that is not legal or not an action. A
    record cut short after a complete line simply stops early; anything else
    that does not follow from the rules raises :class:`ReplayError`.
    """
    recorded = [e for e in events if e.get("type") in engine_events]
    illegal: tuple[type[Exception], ...] = (*refused, DealError)
    try:
        state = start(recorded)
    except DealError as error:
        raise ReplayError(f"the record's deal cannot be played: {error}") from None
    except MissingDeal:
        raise ReplayError("the record stops before its first deal") from None
    compared = 0

    def compare() -> None:
        nonlocal compared
        produced = state.events
        while compared < min(len(produced), len(recorded)):
            _same_event(compared, produced[compared], recorded[compared])
            compared += 1

    compare()
    for index, event in enumerate(recorded):
        if event["type"] != "decision":
            continue
        if len(state.events) < index:
            _no_such_event(state, recorded)
        try:
            action = action_from_json(event.get("kind", ""), event.get("action"))
            # type(): 1.0 and True equal 1 in Python, and a seat indexes lists further on.
            if type(event.get("seat")) is not int or event["seat"] != state.to_act or event.get("kind") != state.kind:
                raise ReplayError(
                    f"event {index + 1} (round {event.get('round')}): the record has seat "
                    f"{event.get('seat')} deciding {event.get('kind')}, the rules ask seat "
                    f"{state.to_act} for {state.kind}"
                )
            state.apply(action)
        except MissingDeal:
            compare()
            if any(e["type"] in dealing_events for e in recorded[index + 1 :]):
                wanted = " or ".join(k for k in dealing_events if k != "decision")
                raise ReplayError(f"event {index + 1}: the record has no {wanted} for what follows") from None
            yield state  # cut short right after the last cards it holds were dealt
            return
        except illegal as error:
            raise ReplayError(f"event {index + 1} (round {event.get('round')}): {error}") from None
        compare()
        yield state
    if len(state.events) < len(recorded):
        _no_such_event(state, recorded)


def replay_to_end(states: Iterator[State], start: Callable[[], State]) -> State:
    """The last state of :func:`iter_replay`, or ``start()`` for a record with no decision yet."""
    last = deque(states, maxlen=1)
    return last[0] if last else start()


def _no_such_event(state: GameState, recorded: list[dict[str, Any]]) -> None:
    extra = recorded[len(state.events)]
    raise ReplayError(f"event {len(state.events) + 1} ({extra['type']}): the rules produce no such event here")


def _same_event(index: int, produced: dict[str, Any], recorded: dict[str, Any]) -> None:
    for key, value in produced.items():
        if recorded.get(key) != value:
            raise ReplayError(
                f"event {index + 1} ({produced['type']}, round {produced.get('round', '-')}): "
                f"record has {key} = {recorded.get(key)!r}, the rules give {value!r}"
            )

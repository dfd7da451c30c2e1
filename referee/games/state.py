"""What every game's state shares: its record events, kept compact and spelled when read, and its sides.

A state appends to ``_log`` as it plays: the frequent events (decisions,
deals) as compact tuples, the rest as the dicts the record will hold.
:attr:`LoggedState.events` spells the tuples out only when someone reads
them, once each, so a search bot that never reads the events never pays for
them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Self

from waraq.referee.games.results import Result

Event = dict[str, Any]  # a record line as docs/records.md spells it
Compact = tuple[Any, ...]  # a frequent event as logged: (round, seat, kind, action) for a decision


def decision_event(compact: Compact, action_to_json: Callable[[str, Any], Any]) -> Event:
    """A logged ``(round, seat, kind, action)`` as its ``decision`` event, the same in every game
    (docs/records.md); ``action_to_json(kind, action)`` is the game's spelling of the action."""
    round_, seat, kind, action = compact
    return {"type": "decision", "round": round_, "seat": seat, "kind": kind, "action": action_to_json(kind, action)}


class LoggedState:
    # The log and its spelled prefix, the same in every game; :meth:`_copy` copies them.
    __slots__: tuple[str, ...] = ("_log", "_spelled")
    _log: list[Compact | Event]
    _spelled: list[Event]

    # Set by every game's state: the result, the sides.
    result: Result | None
    players: int
    teams: int

    @staticmethod
    def _spell(compact: Compact) -> Event:
        """A compact log entry as its record event (each game spells its own)."""
        raise NotImplementedError

    def _copy(self) -> Self:
        """A new state sharing every field with this one but the event log, which it copies.

        Each game's ``clone`` then copies the lists its play mutates in place.
        """
        cls = type(self)
        new = object.__new__(cls)
        for name in cls.__slots__:
            setattr(new, name, getattr(self, name))
        new._log = self._log[:]
        new._spelled = self._spelled[:]
        return new

    @property
    def is_over(self) -> bool:
        return self.result is not None

    @property
    def events(self) -> list[Event]:
        """The record events so far (docs/records.md), oldest first. Read-only: do not modify."""
        spelled, log, spell = self._spelled, self._log, self._spell
        for i in range(len(spelled), len(log)):
            event = log[i]
            spelled.append(spell(event) if isinstance(event, tuple) else event)
        return spelled

    def team_of(self, seat: int) -> int:
        return seat % self.teams

    def team_seats(self, team: int) -> tuple[int, ...]:
        return tuple(range(team, self.players, self.teams))

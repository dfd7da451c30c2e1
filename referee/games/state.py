"""What every game's state shares: its record events, kept compact and spelled when read, and its sides.

A state appends to ``_log`` as it plays: the frequent events (decisions,
deals) as compact tuples, the rest as the dicts the record will hold.
:attr:`LoggedState.events` spells the tuples out only when someone reads
them, once each, so a search bot that never reads the events never pays for
them.
"""

from __future__ import annotations

from typing import Any


def decision_event(compact: tuple[Any, ...], action_to_json: Any) -> dict[str, Any]:
    """A logged ``(round, seat, kind, action)`` as its ``decision`` event, the same in every game
    (docs/records.md); ``action_to_json(kind, action)`` is the game's spelling of the action."""
    round_, seat, kind, action = compact
    return {"type": "decision", "round": round_, "seat": seat, "kind": kind, "action": action_to_json(kind, action)}


class LoggedState:
    __slots__ = ()

    # Set by every game's state: the log, its spelled prefix, the result, the sides.
    _log: list[Any]
    _spelled: list[dict[str, Any]]
    result: Any
    players: int
    teams: int

    @staticmethod
    def _spell(compact: tuple[Any, ...]) -> dict[str, Any]:
        """A compact log entry as its record event (each game spells its own)."""
        raise NotImplementedError

    def _copy(self) -> Any:
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
    def events(self) -> list[dict[str, Any]]:
        """The record events so far (docs/records.md), oldest first. Read-only: do not modify."""
        spelled, log, spell = self._spelled, self._log, self._spell
        for i in range(len(spelled), len(log)):
            event = log[i]
            if type(event) is tuple:
                event = spell(event)
            spelled.append(event)
        return spelled

    def team_of(self, seat: int) -> int:
        return seat % self.teams

    def team_seats(self, team: int) -> tuple[int, ...]:
        return tuple(range(team, self.players, self.teams))

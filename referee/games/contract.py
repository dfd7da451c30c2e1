"""What the rest of the referee may use of a game: its engine module, its states and its views.

The match runner, the records, the replay and the ladder know no game: they
ask :func:`waraq.referee.games.registry.engine` for one and use only what
:class:`GameEngine` names here. Each engine module is checked against it by
mypy (the assignments at the end of :mod:`~waraq.referee.games.registry`), so an
engine that drops or changes one of these is a type error, not a surprise
in a long run. Code that needs more of one game (its renderer, its wire
module, its bots) imports that game's engine and its concrete types.

Every member is read-only here: a protocol's plain attribute would ask
engines for a settable one, which a view (a named tuple or a frozen
dataclass) and a module's constants are not meant to be.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from random import Random
from typing import Any, Protocol, Self, TypeVar

from waraq.referee.games.options import GameRules
from waraq.referee.games.results import Result

Event = dict[str, Any]  # a record line as docs/records.md spells it


class ReplayError(ValueError):
    """A record that the rules do not reproduce; the message says where and how (every game's,
    raised by :mod:`waraq.referee.games.replaying`, which drives a replay through this contract)."""


class GameView(Protocol):
    """What one seat may know: the fields every game's view has (docs/rules.md, information hiding)."""

    @property
    def seat(self) -> int: ...
    @property
    def round(self) -> int: ...
    @property
    def kind(self) -> str | None:  # the pending decision, whoever makes it; None when over
        ...
    @property
    def to_act(self) -> int | None: ...
    @property
    def legal(self) -> tuple[Any, ...]:  # this seat's legal actions; empty when not its turn
        ...
    @property
    def scores(self) -> tuple[int, ...]: ...
    @property
    def result(self) -> Result | None: ...

    def cards_seen(self) -> set[int]: ...
    def to_json(self) -> dict[str, Any]: ...


class GameState(Protocol):
    """One match in progress, as the referee drives it: the checked door, the record, the sides."""

    @property
    def players(self) -> int: ...
    @property
    def teams(self) -> int: ...
    @property
    def round(self) -> int: ...
    @property
    def kind(self) -> str | None:  # the pending decision; None when over
        ...
    @property
    def to_act(self) -> int | None: ...
    @property
    def result(self) -> Result | None: ...
    @property
    def scores(self) -> list[int]:  # per side, so far
        ...
    @property
    def events(self) -> list[Event]:  # the record events so far; read-only
        ...
    @property
    def is_over(self) -> bool: ...

    def legal_actions(self) -> tuple[Any, ...]: ...
    def apply(self, action: Any) -> None:  # checked: raises the engine's IllegalAction
        ...
    def push(self, action: Any) -> None:  # trusted: the caller checked
        ...
    def random_action(self, rng: Random) -> Any:  # what the referee plays for a seat that faulted
        ...
    def view(self, seat: int) -> GameView: ...
    def clone(self) -> Self: ...
    def team_of(self, seat: int) -> int: ...
    def team_seats(self, team: int) -> tuple[int, ...]: ...


RulesT = TypeVar("RulesT", bound=GameRules, contravariant=True)
StateT = TypeVar("StateT", bound=GameState, covariant=True)


class GameEngine(Protocol[RulesT, StateT]):
    """A game's engine module: how a match starts, how a record replays, how actions are spelled.

    ``RulesT`` is the game's rules type, ``StateT`` its state type; the
    registry, which cannot say which game a name means, gives
    ``GameEngine[Any, GameState]``.
    """

    @property
    def GAME(self) -> str:  # the game's name, as rules and records name it
        ...
    @property
    def KINDS(self) -> tuple[str, ...]:  # the decision kinds, a StrEnum's members
        ...
    @property
    def ENGINE_EVENTS(self) -> tuple[str, ...]:  # the record event types the engine writes
        ...
    @property
    def IllegalAction(self) -> type[ValueError]:  # apply's refusal of an action that is not legal now
        ...
    @property
    def ActionError(self) -> type[ValueError]:  # action_from_json's refusal of a value that spells no action
        ...
    @property
    def ReplayError(self) -> type[ReplayError]:  # a record the rules do not reproduce (every game's)
        ...

    # dealer: the decks to deal instead of the seed's (check-bot's staged deals); the game's dealer type
    def new_match(self, rules: RulesT, seed: int | str, dealer: Any = None) -> StateT: ...
    def iter_replay(self, rules: RulesT, events: Sequence[Event]) -> Iterator[StateT]: ...
    def replay(self, rules: RulesT, events: Sequence[Event]) -> StateT: ...
    def action_to_json(self, kind: str, action: Any) -> Any: ...
    def action_from_json(self, kind: str, value: Any) -> Any: ...

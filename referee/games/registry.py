"""Every game the referee plays, by name: the one place that knows there is more than one.

The rest of the referee (match runner, records, replay, the ladder) asks the
registry for a game and then uses its engine through the same small surface
each engine module offers, :class:`~waraq.referee.games.contract.GameEngine`:
``new_match``, ``replay``/``iter_replay``, the action spellings, the kinds
and the errors; and its rules module's rules type with its presets. Engines
are imported on first use, so a Hokm-only run never loads Hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import import_module
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

from waraq.referee.games.contract import GameEngine, GameState
from waraq.referee.games.options import RulesError

DEFAULT_GAME = "hokm"


@dataclass(frozen=True)
class GameEntry:
    name: str
    engine_module: str  # a GameEngine (waraq.referee.games.contract)
    rules_module: str  # the rules type (whose GAME names the game), PRESETS and load_rules


GAMES: dict[str, GameEntry] = {
    "hokm": GameEntry("hokm", "waraq.referee.games.hokm.engine", "waraq.referee.games.hokm.rules"),
    "hand": GameEntry("hand", "waraq.referee.games.hand.engine", "waraq.referee.games.hand.rules"),
}


class UnknownGame(RulesError):
    pass


def _entry(name: str) -> GameEntry:
    try:
        return GAMES[name]
    except KeyError:
        raise UnknownGame(f"{name!r} is not a game of this referee: expected one of {', '.join(GAMES)}") from None


@cache
def engine(name: str) -> GameEngine[Any, GameState]:
    """The game's engine module (see :class:`GameEntry`)."""
    # import_module cannot say what it imports; each engine is checked against GameEngine below.
    return cast("GameEngine[Any, GameState]", import_module(_entry(name).engine_module))


@cache
def rules_module(name: str) -> ModuleType:
    return import_module(_entry(name).rules_module)


def presets(name: str) -> dict[str, Any]:
    return rules_module(name).PRESETS


def load_rules(name: str, spec: str | Path | dict[str, Any] | Any) -> Any:
    """A game's rules from a preset name, a TOML file, a dict or rules already built."""
    return rules_module(name).load_rules(spec)


def rules_from_dict(name: str, values: dict[str, Any]) -> Any:
    """The rules a record or a request carries (every key with its value)."""
    return load_rules(name, dict(values))


def game_of_rules(rules: Any) -> str:
    """The name of the game ``rules`` are for (each rules type names its game)."""
    return rules.GAME


if TYPE_CHECKING:
    # mypy checks every engine module against the contract, with its own rules and state types.
    from waraq.referee.games.hand import engine as _hand
    from waraq.referee.games.hand.rules import HandRules
    from waraq.referee.games.hokm import engine as _hokm
    from waraq.referee.games.hokm.rules import HokmRules

    _HOKM: GameEngine[HokmRules, _hokm.HokmState] = _hokm
    _HAND: GameEngine[HandRules, _hand.HandState] = _hand

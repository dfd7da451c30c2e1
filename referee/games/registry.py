"""Every game the referee plays, by name: the one place that knows there is more than one.

The rest of the referee (match runner, records, replay, the ladder) asks the
registry for a game and then uses its engine through the same small surface
each engine module offers, :class:`~waraq.referee.games.contract.GameEngine`:
``new_match``, ``replay``/``iter_replay``, the action spellings, the kinds
and the errors; and its rules module's rules type with its presets. Engines
are imported on first use, so a Hokm-only run never loads Hand.

A game is more than its engine: each :class:`GameEntry` also names the
modules of the game's other parts (:class:`Part`), each owned by the floor
that uses it: how its views and actions travel to a bot (``wire``), how a
replay says it in text (``text``), how ``waraq play`` shows a match of it
(``play``), and what ``waraq check-bot`` stages for it (``conformance``). A
floor asks :func:`part` for its part of a game and finds no game's name
anywhere else. Hokm and Hand are listed here; a game of another package
joins through the entry-point group ``waraq.games``, one entry naming its
:class:`GameEntry` (docs/new-game.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from functools import cache
from importlib import import_module
from importlib.metadata import entry_points
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

from waraq.referee.games.contract import GameEngine, GameState
from waraq.referee.games.options import RulesError

DEFAULT_GAME = "hokm"


class Part(StrEnum):
    """A game's parts beyond its engine, each a module that the floor using it imports."""

    WIRE = "wire"  # its views and actions as bot.proto carries them (waraq.referee.wire.codec's contract)
    TEXT = "text"  # a replay in the terminal (waraq.referee.replay.render's GameText)
    PLAY = "play"  # `waraq play`: a match between random players, shown (a module with play())
    CONFORMANCE = "conformance"  # what `waraq check-bot` stages (waraq.referee.conformance.stages)


@dataclass(frozen=True)
class GameEntry:
    name: str
    engine_module: str  # a GameEngine (waraq.referee.games.contract)
    rules_module: str  # the rules type (whose GAME names the game), PRESETS and load_rules
    parts: dict[Part, str] = field(default_factory=dict)  # a part missing: the game has none (yet)
    # Duplicate boards: the room's dealer deals each round to the same seats whoever starts
    # (referee/games/dealers.py SeatDealer), so a board's rooms share every round, not only the first.
    deals_by_seat: bool = False
    teams_need: str = ""  # what a ladder's config needs for the game to play in teams, said to a person


BUILT_IN: tuple[GameEntry, ...] = (
    GameEntry(
        "hokm",
        "waraq.referee.games.hokm.engine",
        "waraq.referee.games.hokm.rules",
        {
            Part.WIRE: "waraq.referee.wire.hokm",
            Part.TEXT: "waraq.referee.replay.render_hokm",
            Part.PLAY: "waraq.referee.cli.play_hokm",
            Part.CONFORMANCE: "waraq.referee.conformance.hokm_stages",
        },
        deals_by_seat=True,
        teams_need="4 players",
    ),
    GameEntry(
        "hand",
        "waraq.referee.games.hand.engine",
        "waraq.referee.games.hand.rules",
        {
            Part.WIRE: "waraq.referee.wire.hand",
            Part.TEXT: "waraq.referee.replay.render_hand",
            Part.PLAY: "waraq.referee.cli.play_hand",
            Part.CONFORMANCE: "waraq.referee.conformance.hand_stages",
        },
        teams_need="partnership = true",
    ),
)
PLUG_INS = "waraq.games"  # the entry-point group of games from other packages


def _games() -> dict[str, GameEntry]:
    games = {entry.name: entry for entry in BUILT_IN}
    for plug_in in entry_points(group=PLUG_INS):
        game = plug_in.load()
        if isinstance(game, GameEntry) and game.name not in games:
            games[game.name] = game
    return games


GAMES: dict[str, GameEntry] = _games()


class UnknownGame(RulesError):
    pass


def entry(name: str) -> GameEntry:
    """The game's entry; :class:`UnknownGame`, naming the games there are, if there is none."""
    try:
        return GAMES[name]
    except KeyError:
        raise UnknownGame(f"{name!r} is not a game of this referee: expected one of {', '.join(GAMES)}") from None


@cache
def engine(name: str) -> GameEngine[Any, GameState]:
    """The game's engine module (see :class:`GameEntry`)."""
    # import_module cannot say what it imports; each engine is checked against GameEngine below.
    return cast("GameEngine[Any, GameState]", import_module(entry(name).engine_module))


@cache
def rules_module(name: str) -> ModuleType:
    return import_module(entry(name).rules_module)


@cache
def part(name: str, which: Part) -> Any:
    """One of the game's parts: a module, or ``module:NAME`` a name in one; :class:`UnknownGame`
    if the game has none."""
    where = entry(name).parts.get(which)
    if where is None:
        raise UnknownGame(f"the game {name!r} has no {which} part")
    module, _, attribute = where.partition(":")
    found = import_module(module)
    return getattr(found, attribute) if attribute else found


@cache
def game_of_kind(kind: str) -> str:
    """The game whose decision ``kind`` is: a kind is one game's (a test holds every game to it)."""
    for name in GAMES:
        if kind in engine(name).KINDS:
            return name
    raise UnknownGame(f"{kind!r} is no game's decision kind")


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

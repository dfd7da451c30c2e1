"""The built-in bots: one table, in the package's metadata, read without importing a bot.

pyproject.toml lists them in the entry-point group ``waraq.bots``, one entry
per bot and game, ``"NAME.GAME" = "module:PlayerClass"``. Everything that
knows the built-in bots reads that table through this module: a bot spec
(``--bots random``, :class:`waraq.referee.launch.bots.BotSpec`), the bot
server (``python -m waraq.bots.server NAME``, the command a built-in bot is
launched by), ``waraq bot serve`` and ``waraq play``, and the ladder, which
hashes a built-in bot's modules as its version (:mod:`waraq.ladder.play.bot_code`).
So the referee names no bot and imports none: data flows referee -> bots,
never back, and adding a bot is one line per game in pyproject.toml
(then ``pip install -e .`` again, which rewrites the metadata).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib.metadata import EntryPoint, entry_points
from typing import Any

GROUP = "waraq.bots"
SERVER = "waraq.bots.server"  # the module serving a built-in bot: python -m waraq.bots.server NAME


@dataclass(frozen=True)
class BuiltIn:
    """One built-in bot: its player class for each game it plays, named but not imported."""

    name: str
    players: dict[str, EntryPoint]  # by game

    @property
    def games(self) -> tuple[str, ...]:
        return tuple(self.players)

    @property
    def modules(self) -> tuple[str, ...]:
        """The modules of its players, by game (what ``python -m waraq.bots.server`` imports for it)."""
        return tuple(dict.fromkeys(entry.module for entry in self.players.values()))

    def player_class(self, game: str) -> Any:
        """The class of its player for ``game``, imported now (so only the games played are loaded)."""
        if game not in self.players:
            raise ValueError(f"the {self.name} bot does not play {game!r}: it plays {', '.join(self.players)}")
        return self.players[game].load()


@cache
def table() -> dict[str, BuiltIn]:
    """The built-in bots by name, in the order pyproject.toml lists them."""
    players: dict[str, dict[str, EntryPoint]] = {}
    for entry in entry_points(group=GROUP):
        name, dot, game = entry.name.partition(".")
        if not dot or not game:
            raise ValueError(f"entry point {entry.name!r} of {GROUP}: expected NAME.GAME, as in 'random.hokm'")
        players.setdefault(name, {})[game] = entry
    return {name: BuiltIn(name, by_game) for name, by_game in players.items()}


def names() -> tuple[str, ...]:
    return tuple(table())


def get(name: str) -> BuiltIn:
    """The built-in bot ``name``; ValueError naming the built-in bots when there is none."""
    found = table().get(name)
    if found is None:
        raise ValueError(f"no built-in bot {name!r}; built-in bots: {', '.join(names()) or 'none installed'}")
    return found

"""What every command that plays a game offers: ``--game``, and ``--rules``'s help naming each game's presets.

Apart from :mod:`.arguments` because it reads every game's presets when it is
imported, and a bot's process (which imports the argument checks) must not
load a game it does not play.
"""

from __future__ import annotations

import argparse

from waraq.referee.games import registry

RULES_HELP = (
    "a preset of the game ("
    + "; ".join(f"{game}: {', '.join(registry.presets(game))}" for game in registry.GAMES)
    + ") or a TOML file (default classic)"
)


def game_option(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--game", choices=tuple(registry.GAMES), default=registry.DEFAULT_GAME, help="the game (default hokm)"
    )

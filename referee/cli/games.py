"""What the commands that play or show a game share: ``--game``, ``--rules``'s help, a match's sides.

Seats play in ``rules.teams`` sides, seat ``s`` on side ``s mod teams``
(partners sit opposite: seats 0 and 2 against 1 and 3); with as many sides as
seats, each seat is its own. Nothing here prints.
"""

from __future__ import annotations

import argparse
from typing import Any

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


def side_seats(rules: Any, side: int) -> list[int]:
    """The seats of ``side``, in order."""
    return list(range(side, rules.players, rules.teams))


def side_name(rules: Any, side: int) -> str:
    """A team as its seats ("0+2") when seats play in teams, else the seat."""
    return "+".join(map(str, side_seats(rules, side)))

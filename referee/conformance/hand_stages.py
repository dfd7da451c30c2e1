"""Hand's stages for `waraq check-bot`: the registry's ``Part.CONFORMANCE`` for Hand (see :mod:`.stages`)."""

from __future__ import annotations

from typing import Any

from waraq.referee.common import built_in
from waraq.referee.conformance.situations import Oracle, Situation
from waraq.referee.conformance.stages import Stage
from waraq.referee.games import registry

PLAYERS = (4, 3, 2)  # what the referee seats, in the order checked
PRESETS = {4: "classic", 3: "three", 2: "two"}


def short_rules(players: int) -> Any:
    return registry.load_rules("hand", PRESETS[players]).replace(rounds=1)


def oracle() -> Oracle:
    """The house heuristic, asked which turn it would play from a Hand view (situations's docstring)."""
    player = built_in.get("heuristic").player_class("hand")
    return lambda view: player("check-bot")(view)


def stand_in(name: str) -> tuple[Any, str] | None:
    return None  # the built-in bots stand in


def stages(players: int) -> list[Stage]:
    rules = registry.load_rules("hand", PRESETS[players]).replace(rounds=2)
    half = tuple(range((players + 1) // 2))
    situations = (
        Situation.TAKE,
        Situation.TURN_FIRST,
        Situation.TURN_OPEN,
        Situation.TURN_ADD,
        Situation.TURN_SWAP,
        Situation.TURN_OUT,
    )
    return [Stage(f"hand-{players}", "hand", rules, seeds=(1, 2), bot_seats=half, situations=situations)]

"""The toy game's rules: how many cards each of its two seats holds."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from waraq.referee.games.options import GameRules, Option, integer_between

OPTIONS = (Option("cards", integer_between(1, 26), "cards each seat holds, one shown a round"),)


@dataclass(frozen=True)
class ToyRules(GameRules):
    GAME: ClassVar[str] = "toy"
    OPTIONS: ClassVar[tuple[Option, ...]] = OPTIONS

    cards: int = 3
    players: ClassVar[int] = 2
    teams: ClassVar[int] = 2

    def describe(self) -> str:
        return f"Toy, 2 players, {self.cards} cards"

    @classmethod
    def presets(cls) -> dict[str, ToyRules]:
        return PRESETS


PRESETS: dict[str, ToyRules] = {"classic": ToyRules(), "long": ToyRules(cards=7)}


def load_rules(spec: str | Path | dict[str, Any] | ToyRules) -> ToyRules:
    return ToyRules.load(spec)

"""The rules config of a Hand match: every variant key of docs/rules.md, validated.

Build one with :meth:`HandRules.from_dict`, :meth:`HandRules.from_toml`,
:meth:`HandRules.preset` or :func:`load_rules` (a preset name or a TOML file).
A config may start from a preset and override keys: ``{"preset": "partners",
"rounds": 3}``. Every key is checked, and so is the one combination that
cannot be played (partners with fewer than 4 players).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from waraq.referee.games.options import GameRules, Option, RulesError, boolean, integer_between, one_of, validate

OPTIONS = (
    Option("players", one_of(4, 3, 2), "number of seats"),
    Option("partnership", boolean, "4 players in two teams, partners opposite: seats {0, 2} and {1, 3}"),
    Option("rounds", integer_between(1, 20), "rounds in a match; the lowest total after the last wins"),
    Option("opening_points", integer_between(1, 500), "what a seat's first melds must be worth together"),
)
KEYS = tuple(o.name for o in OPTIONS)

CARDS = 106  # two 52-card decks and two jokers: card = copy * 53 + face (waraq.referee.games.hand.melds)
HAND_SIZE = 14  # dealt to each seat; the round's first player gets one more


@dataclass(frozen=True)
class HandRules(GameRules):
    GAME: ClassVar[str] = "hand"
    OPTIONS: ClassVar[tuple[Option, ...]] = OPTIONS
    LOWER_SCORE_WINS: ClassVar[bool] = True  # points are penalties: the lowest total wins

    players: int = 4
    partnership: bool = False
    rounds: int = 5
    opening_points: int = 51

    def __post_init__(self) -> None:
        # Checked here, not only in from_dict, so no code path builds rules that cannot be played.
        validate("hand", OPTIONS, {k: getattr(self, k) for k in KEYS})
        if self.partnership and self.players != 4:
            raise RulesError(
                f"'partnership' = true needs 4 players, not {self.players}: "
                "two teams of two partners sit opposite, seats {0, 2} and {1, 3}"
            )

    @classmethod
    def presets(cls) -> dict[str, HandRules]:
        return PRESETS

    # -- derived facts the engine needs ---------------------------------

    @property
    def deck(self) -> tuple[int, ...]:
        """Every card, in card order: all 106 are always in play."""
        return DECK

    def describe(self) -> str:
        who = "in two partnerships" if self.teams < self.players else "each for himself"
        return f"Hand, {self.players} players {who}, {self.rounds} round{'s' * (self.rounds != 1)}"

    @property
    def teams(self) -> int:
        return 2 if self.partnership else self.players

    @property
    def hand_size(self) -> int:
        return HAND_SIZE


DECK = tuple(range(CARDS))

PRESETS: dict[str, HandRules] = {
    "classic": HandRules(),
    "partners": HandRules(partnership=True),
    "three": HandRules(players=3),
    "two": HandRules(players=2),
    "short": HandRules(rounds=1),
}


def load_rules(spec: str | Path | dict[str, Any] | HandRules) -> HandRules:
    """Rules from a preset name, a TOML file path, a dict or rules already built."""
    return HandRules.load(spec)


__all__ = ["HandRules", "RulesError", "PRESETS", "load_rules", "KEYS", "OPTIONS"]

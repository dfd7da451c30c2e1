"""The rules config of a Hand match: every variant key of RULES.md, validated.

Build one with :meth:`HandRules.from_dict`, :meth:`HandRules.from_toml`,
:meth:`HandRules.preset` or :func:`load_rules` (a preset name or a TOML file).
A config may start from a preset and override keys: ``{"preset": "partners",
"rounds": 3}``. Every key is checked, and so is the one combination that
cannot be played (partners with fewer than 4 players).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, ClassVar

from referee.games.options import (
    BadValue,
    Checker,
    Option,
    RulesError,
    boolean,
    canonical_json,
    one_of,
    read_toml,
    rules_hash,
    validate,
)


def integer_between(low: int, high: int) -> Checker:
    def check(value: Any) -> int:
        # bool is an int in Python: `true` must not pass for a count.
        if type(value) is int and low <= value <= high:
            return value
        raise BadValue(f"expected an integer from {low} to {high}")

    return check


OPTIONS = (
    Option("players", one_of(4, 3, 2), "number of seats"),
    Option("partnership", boolean, "4 players in two teams, partners opposite: seats {0, 2} and {1, 3}"),
    Option("rounds", integer_between(1, 20), "rounds in a match; the lowest total after the last wins"),
    Option("opening_points", integer_between(1, 500), "what a seat's first melds must be worth together"),
)
KEYS = tuple(o.name for o in OPTIONS)

CARDS = 106  # two 52-card decks and two jokers: card = copy * 53 + face (referee.games.hand_melds)
HAND_SIZE = 14  # dealt to each seat; the round's first player gets one more


@dataclass(frozen=True)
class HandRules:
    GAME: ClassVar[str] = "hand"

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

    # -- building -------------------------------------------------------

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> HandRules:
        raw = dict(raw)
        game = raw.pop("game", "hand")
        if game != "hand":
            raise RulesError(f"these are rules for game {game!r}, not 'hand'")
        base: dict[str, Any] = {}
        preset_name = raw.pop("preset", None)
        if preset_name is not None:
            base = cls.preset(preset_name).to_dict()
        checked = validate("hand", OPTIONS, raw)
        return cls(**{**base, **checked})

    @classmethod
    def from_toml(cls, path: str | Path) -> HandRules:
        raw = read_toml(path)
        try:
            return cls.from_dict(raw)
        except RulesError as error:
            raise RulesError(f"{path}: {error}") from None

    @classmethod
    def preset(cls, name: str) -> HandRules:
        try:
            return PRESETS[name]
        except (KeyError, TypeError):
            raise RulesError(
                f"unknown hand preset {name!r}; presets: {', '.join(PRESETS)}"
            ) from None

    # -- canonical form ---------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """Every key with its value, defaults included, JSON-ready (RECORDS.md ``rules``)."""
        return dict(self._as_dict)

    @cached_property
    def _as_dict(self) -> dict[str, Any]:
        # Views carry the rules at every decision: build the dict once per rules object.
        return asdict(self)

    def canonical_json(self) -> str:
        return self._canonical_json

    @cached_property
    def _canonical_json(self) -> str:
        return canonical_json(self.to_dict())

    @cached_property
    def rules_hash(self) -> str:
        return rules_hash(self.to_dict())

    def replace(self, **changes: Any) -> HandRules:
        """These rules with some keys changed, checked like any config."""
        return HandRules.from_dict({**self.to_dict(), **changes})

    # -- derived facts the engine needs ---------------------------------

    @property
    def deck(self) -> tuple[int, ...]:
        """Every card, in card order: all 106 are always in play."""
        return DECK

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
    if isinstance(spec, HandRules):
        return spec
    if isinstance(spec, dict):
        return HandRules.from_dict(spec)
    if isinstance(spec, str) and spec in PRESETS:
        return PRESETS[spec]
    path = Path(spec)
    if path.suffix == ".toml" or path.exists():
        return HandRules.from_toml(path)
    raise RulesError(
        f"{str(spec)!r} is neither a hand preset ({', '.join(PRESETS)}) nor a .toml rules file"
    )


__all__ = ["HandRules", "RulesError", "PRESETS", "load_rules", "KEYS", "OPTIONS"]

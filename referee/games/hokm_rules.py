"""The rules config of a Hokm match: every variant key of RULES.md, validated.

Build one with :meth:`HokmRules.from_dict`, :meth:`HokmRules.from_toml`,
:meth:`HokmRules.preset` or :func:`load_rules` (a preset name or a TOML file).
A config may start from a preset and override keys: ``{"preset": "three",
"target_score": 5}``. Every key is checked, and so is every combination that
cannot be played.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, ClassVar

from referee.cards import DECK, parse_card
from referee.games.options import (
    Option,
    RulesError,
    boolean,
    canonical_json,
    card_list,
    integer,
    one_of,
    read_toml,
    rules_hash,
    validate,
)

OPTIONS = (
    Option("players", one_of(4, 3, 2), "number of seats; 4 is two teams of partners"),
    Option("target_score", integer(1), "points that win the game (7; short games 3 or 5)"),
    Option("kot_points", integer(1), "points for a kot won by the hakem's side"),
    Option("hakem_kot_points", integer(1), "points for a kot against the hakem's side"),
    Option("void_rule", one_of("free", "must_trump"), "what a seat void in the led suit may play"),
    Option(
        "hakem_rotation",
        one_of("on_loss", "every_round", "on_loss_previous"),
        "who is the next hakem",
    ),
    Option("max_redeals", integer(0), "redeals a hakem without A/K/Q/J may ask for per round; 0 is off"),
    Option("bam", boolean, "a side at 7-0 in tricks may play on for all 13 and the game"),
    Option("removed_cards", card_list, "cards taken out of the deck (2 and 3 players)"),
    Option("burn_visible", boolean, "2 players: the drawer sees the card burned after a keep"),
)
KEYS = tuple(o.name for o in OPTIONS)

# Cards in hand after the deal, per player count (RULES.md).
HAND_SIZE = {4: 13, 3: 17, 2: 13}
# Tricks in a round when every card is played.
TRICKS = {4: 13, 3: 17, 2: 13}


@dataclass(frozen=True)
class HokmRules:
    GAME: ClassVar[str] = "hokm"

    players: int = 4
    target_score: int = 7
    kot_points: int = 2
    hakem_kot_points: int = 3
    void_rule: str = "free"
    hakem_rotation: str = "on_loss"
    max_redeals: int = 0
    bam: bool = False
    removed_cards: tuple[str, ...] = field(default=())
    burn_visible: bool = False

    def __post_init__(self) -> None:
        # Checked here, not only in from_dict, so no code path builds rules that cannot be played.
        checked = validate("hokm", OPTIONS, {k: getattr(self, k) for k in KEYS})
        object.__setattr__(self, "removed_cards", checked["removed_cards"])
        problem = _impossible(self)
        if problem:
            raise RulesError(problem)

    # -- building -------------------------------------------------------

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> HokmRules:
        raw = dict(raw)
        game = raw.pop("game", "hokm")
        if game != "hokm":
            raise RulesError(f"these are rules for game {game!r}, not 'hokm'")
        base: dict[str, Any] = {}
        preset_name = raw.pop("preset", None)
        if preset_name is not None:
            base = cls.preset(preset_name).to_dict()
        checked = validate("hokm", OPTIONS, raw)
        merged = {**base, **checked}
        if "removed_cards" not in checked and "players" in checked:
            # The default depends on the player count: a 51-card deck for 2 and 3.
            merged["removed_cards"] = () if checked["players"] == 4 else ("2D",)
        return cls(**merged)

    @classmethod
    def from_toml(cls, path: str | Path) -> HokmRules:
        raw = read_toml(path)
        try:
            return cls.from_dict(raw)
        except RulesError as error:
            raise RulesError(f"{path}: {error}") from None

    @classmethod
    def preset(cls, name: str) -> HokmRules:
        try:
            return PRESETS[name]
        except (KeyError, TypeError):
            raise RulesError(
                f"unknown hokm preset {name!r}; presets: {', '.join(PRESETS)}"
            ) from None

    # -- canonical form ---------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """Every key with its value, defaults included, JSON-ready (RECORDS.md ``rules``)."""
        return {**self._as_dict, "removed_cards": list(self.removed_cards)}

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

    def replace(self, **changes: Any) -> HokmRules:
        """These rules with some keys changed, checked like any config."""
        base = self.to_dict()
        if "players" in changes and "removed_cards" not in changes:
            del base["removed_cards"]  # let the new player count pick its default
        return HokmRules.from_dict({**base, **changes})

    # -- derived facts the engine needs ---------------------------------

    @cached_property
    def deck(self) -> tuple[int, ...]:
        """The cards in play, in card order."""
        removed = {parse_card(c) for c in self.removed_cards}
        return tuple(c for c in DECK if c not in removed)

    @property
    def teams(self) -> int:
        return 2 if self.players == 4 else self.players

    @property
    def hand_size(self) -> int:
        return HAND_SIZE[self.players]

    @property
    def tricks(self) -> int:
        return TRICKS[self.players]


def _impossible(rules: HokmRules) -> str | None:
    """Why a combination of individually valid keys cannot be played, or None."""
    n = rules.players
    if rules.bam and n == 3:
        return (
            "'bam' = true needs 2 or 4 players: with 3 players nobody plays on after "
            "7 tricks, a round is won when the leader cannot be caught"
        )
    if rules.burn_visible and n != 2:
        return f"'burn_visible' = true needs 2 players: only 2-player Hokm burns cards, not {n}"
    wanted = 0 if n == 4 else 1
    if len(rules.removed_cards) != wanted:
        why = (
            "4 players need all 52 cards (13 each)"
            if n == 4
            else f"{n} players need a deck of 51 cards"
            + (" (17 each)" if n == 3 else " (10 dealt, 40 drawn or burned, 1 unused)")
        )
        return (
            f"'removed_cards' = [{', '.join(repr(c) for c in rules.removed_cards)}] "
            f"does not fit {n} players: {why}, so exactly {wanted} card"
            f"{'' if wanted == 1 else 's'} must be removed"
        )
    return None


PRESETS: dict[str, HokmRules] = {
    "classic": HokmRules(),
    "short": HokmRules(target_score=3),
    "three": HokmRules(players=3, removed_cards=("2D",)),
    "two": HokmRules(players=2, removed_cards=("2D",)),
}


def load_rules(spec: str | Path | dict[str, Any] | HokmRules) -> HokmRules:
    """Rules from a preset name, a TOML file path, a dict or rules already built."""
    if isinstance(spec, HokmRules):
        return spec
    if isinstance(spec, dict):
        return HokmRules.from_dict(spec)
    if isinstance(spec, str) and spec in PRESETS:
        return PRESETS[spec]
    path = Path(spec)
    if path.suffix == ".toml" or path.exists():
        return HokmRules.from_toml(path)
    raise RulesError(
        f"{str(spec)!r} is neither a hokm preset ({', '.join(PRESETS)}) nor a .toml rules file"
    )


__all__ = ["HokmRules", "RulesError", "PRESETS", "load_rules", "KEYS", "OPTIONS"]

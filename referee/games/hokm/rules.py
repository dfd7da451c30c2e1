"""The rules config of a Hokm match: every variant key of docs/rules.md, validated.

Build one with :meth:`HokmRules.from_dict`, :meth:`HokmRules.from_toml`,
:meth:`HokmRules.preset` or :func:`load_rules` (a preset name or a TOML file).
A config may start from a preset and override keys: ``{"preset": "three",
"target_score": 5}``. Every key is checked, and so is every combination that
cannot be played.

Every number has a range, refused outside it with the range named: a rules
file is a stranger's input, and ``target_score = 10^20`` would make a match
that never ends (each round gives at most 3 points), a point value beyond
``int32`` one that no bot can be sent (``bot.proto``'s scores). The ranges
reach far past any table's custom (7; short games 3 or 5), and with them the
longest match has ``teams × (target_score − 1) + 1 ≤ 298`` rounds, every
round giving some side at least a point; the engine's own bound,
:data:`waraq.referee.games.hokm.engine.MAX_ROUNDS`, is a safety net above that.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, ClassVar

from waraq.referee.games.cards import DECK, parse_card
from waraq.referee.games.options import (
    GameRules,
    Option,
    RulesError,
    boolean,
    card_list,
    integer_between,
    one_of,
    validate,
)

MAX_POINTS = 100  # target_score, kot_points, hakem_kot_points: see the module's docstring
MAX_REDEALS = 100  # per round; each redeal shuffles again, and one in seven five-card hands is eligible

OPTIONS = (
    Option("players", one_of(4, 3, 2), "number of seats; 4 is two teams of partners"),
    Option("target_score", integer_between(1, MAX_POINTS), "points that win the game (7; short games 3 or 5)"),
    Option("kot_points", integer_between(1, MAX_POINTS), "points for a kot won by the hakem's side"),
    Option("hakem_kot_points", integer_between(1, MAX_POINTS), "points for a kot against the hakem's side"),
    Option("void_rule", one_of("free", "must_trump"), "what a seat void in the led suit may play"),
    Option(
        "hakem_rotation",
        one_of("on_loss", "every_round", "on_loss_previous"),
        "who is the next hakem",
    ),
    Option(
        "max_redeals",
        integer_between(0, MAX_REDEALS),
        "redeals a hakem without A/K/Q/J may ask for per round; 0 is off",
    ),
    Option("bam", boolean, "a side at 7-0 in tricks may play on for all 13 and the game"),
    Option("removed_cards", card_list, "cards taken out of the deck (2 and 3 players)"),
    Option("burn_visible", boolean, "2 players: the drawer sees the card burned after a keep"),
)
KEYS = tuple(o.name for o in OPTIONS)

# Cards in hand after the deal, per player count (docs/rules.md).
HAND_SIZE = {4: 13, 3: 17, 2: 13}
# Tricks in a round when every card is played.
TRICKS = {4: 13, 3: 17, 2: 13}


@dataclass(frozen=True)
class HokmRules(GameRules):
    GAME: ClassVar[str] = "hokm"
    OPTIONS: ClassVar[tuple[Option, ...]] = OPTIONS

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

    @classmethod
    def presets(cls) -> dict[str, HokmRules]:
        return PRESETS

    @classmethod
    def _merged(cls, base: dict[str, Any], checked: dict[str, Any]) -> dict[str, Any]:
        merged = {**base, **checked}
        if "removed_cards" not in checked and "players" in checked:
            # The default depends on the player count: a 51-card deck for 2 and 3.
            merged["removed_cards"] = () if checked["players"] == 4 else ("2D",)
        return merged

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

    def describe(self) -> str:
        return f"Hokm, {self.players} players, to {self.target_score}"

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
    return HokmRules.load(spec)


__all__ = ["HokmRules", "RulesError", "PRESETS", "load_rules", "KEYS", "OPTIONS"]

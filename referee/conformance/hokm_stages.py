"""Hokm's stages for `waraq check-bot`: the registry's ``Part.CONFORMANCE`` for Hokm (see :mod:`.stages`)."""

from __future__ import annotations

from typing import Any

from waraq.referee.conformance.situations import Situation
from waraq.referee.conformance.stages import Stage
from waraq.referee.games import registry
from waraq.referee.games.cards import CARD_BY_NAME, suit_of
from waraq.referee.games.dealers import FixedDealer, SeededDealer
from waraq.referee.games.hokm.dealing import stack_deck
from waraq.referee.games.hokm.engine import new_match as new_hokm_match
from waraq.referee.match.seats import Player

PLAYERS = (4, 3, 2)  # what the referee seats, in the order checked
PRESETS = {4: "classic", 3: "three", 2: "two"}


def short_rules(players: int) -> Any:
    return registry.load_rules("hokm", PRESETS[players]).replace(target_score=2)


def oracle() -> None:
    return None  # a Hokm view says every situation itself


def stand_in(name: str) -> tuple[Any, str] | None:
    """The BAM stage's stand-ins (:data:`LOW`) and their name in the record; None for any other name."""
    return (low_player, "check-bot stand-in (lowest card, never a trump)") if name == LOW else None


LOW = "low"  # the BAM stage's stand-ins: the lowest legal card, never a trump while another card is legal


def low_player(match_id: str, seat: int) -> Player:
    def play(view: Any) -> Any:
        legal = view.legal
        if view.kind != "PLAY":
            return legal[0]
        plain = [card for card in legal if suit_of(card) != view.trump]
        return min(plain or legal, key=lambda card: card % 13)

    return play


def stages(players: int) -> list[Stage]:
    """The Hokm stages for one player count."""
    base = short_rules(players)
    free: tuple[Situation, ...] = (Situation.TRUMP, Situation.LEAD, Situation.FOLLOW, Situation.VOID)
    must: tuple[Situation, ...] = (Situation.MUST_TRUMP,)
    if players == 2:
        free += (Situation.DISCARD, Situation.DRAW_UNSEEN)
        must += (Situation.DRAW_VISIBLE,)
    found = [
        Stage(f"hokm-{players}-free", "hokm", base, situations=free),
        Stage(
            f"hokm-{players}-must-trump",
            "hokm",
            base.replace(void_rule="must_trump", **({"burn_visible": True} if players == 2 else {})),
            situations=must,
        ),
        redeal_stage(base),
    ]
    if players == 4:
        found.append(bam_stage(base))
    return found


def redeal_stage(base: Any) -> Stage:
    rules = base.replace(max_redeals=3, target_score=1)
    seed = next(s for s in range(1, 10_000) if new_hokm_match(rules, s).kind == "REDEAL")
    return Stage(f"hokm-{rules.players}-redeal", "hokm", rules, seeds=(seed,), situations=(Situation.REDEAL,))


# The BAM deal: the bot (seat 0, hakem) holds the top of spades and hearts, so it leads every trick
# and none can beat it in the suit led; each other seat holds at most five cards of a suit, so in
# seven tricks it always has a card that is not a trump, and its stand-in never plays a trump while
# it has another card. So whatever the bot names and plays, it wins the first seven tricks and is
# asked BAM.
BAM_HANDS = (
    "AS KS QS JS 10S 9S 8S AH KH QH JH 10H 9H",
    "2S 3S 2H 3H AD KD QD JD 10D AC KC QC JC",
    "4S 5S 4H 5H 9D 8D 7D 6D 10C 9C 8C 7C 6C",
    "6S 7S 6H 7H 8H 5D 4D 3D 2D 5C 4C 3C 2C",
)


class StagedDealer(FixedDealer):
    """The staged decks first, then decks shuffled from a seed (the rounds after the staged one)."""

    __slots__ = ("_then",)

    def __init__(self, ace_draw: list[int], decks: list[list[int]], seed: int | str) -> None:
        super().__init__(ace_draw, decks)
        self._then = SeededDealer(seed)

    def deck(self, index: int, cards: Any) -> list[int]:
        if index < len(self._decks):
            return super().deck(index, cards)
        return self._then.deck(index, cards)


def bam_stage(base: Any) -> Stage:
    rules = base.replace(bam=True, target_score=1)
    hands = [[CARD_BY_NAME[name] for name in hand.split()] for hand in BAM_HANDS]
    deck = stack_deck(rules, 0, hands)
    ace_draw = [CARD_BY_NAME["AS"]]  # the first card turned is an ace: seat 0 is hakem
    return Stage(
        "hokm-4-bam",
        "hokm",
        rules,
        bot_seats=(0,),
        stand_in=LOW,
        dealer=lambda: StagedDealer(ace_draw, [deck], "check-bot/bam"),
        situations=(Situation.BAM,),
    )

"""The matches a conformance run plays, each chosen so that its situations occur.

A :class:`Stage` is one or more matches under one set of rules, seats and
clock, played against a fresh process of the bot (one process serving every
seat the bot holds: several streams at once is itself a case). Which rules
bring out which decision kind (docs/protocol.md "### Which rules ask what"):

* TRUMP and PLAY (leading, following, void) arise in every Hokm match;
  must-trump only under ``void_rule = "must_trump"``;
* DISCARD and DRAW only with 2 players; the DRAW's burned card is shown to
  the drawer only under ``burn_visible = true``: both are played;
* REDEAL only under ``max_redeals > 0``, when the hakem's first five cards
  hold no A, K, Q or J: the stage's seed is searched so that round 1 opens so;
* BAM only under ``bam = true``, when a side wins the first seven tricks:
  a staged deal (:func:`bam_deal`) gives the bot, as hakem, cards that win
  every trick it leads, against stand-ins that never trump;
* Hand's TAKE and TURN arise in every Hand match; the bot holds half the
  seats and the house heuristic the others, so that melds (and jokers) reach
  the table for the bot to add to or take.
"""

from __future__ import annotations

from collections.abc import Callable, Set
from dataclasses import dataclass
from typing import Any

from waraq.referee.conformance.situations import Situation
from waraq.referee.games import registry
from waraq.referee.games.cards import CARD_BY_NAME, suit_of
from waraq.referee.games.dealers import FixedDealer, SeededDealer
from waraq.referee.games.hokm.engine import new_match as new_hokm_match
from waraq.referee.games.hokm.engine import stack_deck
from waraq.referee.match.play import FaultPolicy, TimeControl
from waraq.referee.match.seats import Player

GENEROUS = TimeControl(decision_ms=5_000, bank_ms=30_000)  # a stage about answers, not time
SHORT_DEADLINE = TimeControl(decision_ms=200, bank_ms=2_000)  # the timing case: a ladder's usual clock is tighter
EMPTY_BANK = TimeControl(decision_ms=2_000, bank_ms=1)  # the bank nearly spent from the first question
HOKM_PRESETS = {4: "classic", 3: "three", 2: "two"}
HAND_PRESETS = {4: "classic", 3: "three", 2: "two"}


@dataclass(frozen=True)
class Stage:
    """Matches played against one fresh process of the bot; seats not the bot's are played in-process."""

    name: str  # also the records' file names
    game: str
    rules: Any
    seeds: tuple[int, ...] = (1,)
    bot_seats: tuple[int, ...] = ()  # empty: every seat
    stand_in: str = "heuristic"  # the built-in bot in the other seats, or LOW for the BAM stand-ins
    clock: TimeControl = GENEROUS
    # substitute: a wrong answer is recorded and the match goes on, so that later situations are
    # still asked; the timing stages forfeit at the first fault instead, since a slow bot would
    # be slow at every later question and its case is decided by the first.
    policy: FaultPolicy = FaultPolicy.SUBSTITUTE
    dealer: Callable[[], Any] | None = None  # a staged deal, made fresh for each match
    concurrent: bool = False  # the matches played at once (else one after another)
    unknown_fields: bool = False  # every MatchStart and DecisionRequest carries fields of a later waraq.v1
    watch_close: bool = False  # wait for the bot to close each stream after MatchEnd
    situations: tuple[Situation, ...] = ()  # what its matches are for (a case reads them)
    cases: Set[str] = frozenset()  # the ids of the other cases that read it

    def seats_of_bot(self) -> tuple[int, ...]:
        return self.bot_seats or tuple(range(self.rules.players))


LOW = "low"  # the BAM stage's stand-ins: the lowest legal card, never a trump while another card is legal


def low_player(match_id: str, seat: int) -> Player:
    def play(view: Any) -> Any:
        legal = view.legal
        if view.kind != "PLAY":
            return legal[0]
        plain = [card for card in legal if suit_of(card) != view.trump]
        return min(plain or legal, key=lambda card: card % 13)

    return play


def hokm_stages(players: int) -> list[Stage]:
    """The Hokm stages for one player count."""
    base = registry.load_rules("hokm", HOKM_PRESETS[players]).replace(target_score=2)
    free: tuple[Situation, ...] = (Situation.TRUMP, Situation.LEAD, Situation.FOLLOW, Situation.VOID)
    must: tuple[Situation, ...] = (Situation.MUST_TRUMP,)
    if players == 2:
        free += (Situation.DISCARD, Situation.DRAW_UNSEEN)
        must += (Situation.DRAW_VISIBLE,)
    stages = [
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
        stages.append(bam_stage(base))
    return stages


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


def hand_stages(players: int) -> list[Stage]:
    rules = registry.load_rules("hand", HAND_PRESETS[players]).replace(rounds=2)
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


def common_stages(game: str, players: int) -> list[Stage]:
    """The stages about the process and the stream, in the first game and player count the bot plays."""
    preset = (HOKM_PRESETS if game == "hokm" else HAND_PRESETS)[players]
    rules = registry.load_rules(game, preset)
    rules = rules.replace(target_score=2) if game == "hokm" else rules.replace(rounds=1)
    return [
        Stage(
            "streams",
            game,
            rules,
            seeds=(1, 2),
            concurrent=True,
            watch_close=True,
            stand_in="",
            cases={"streams.concurrent", "end.close"},
        ),
        *(
            Stage(f"timing-{what}", game, rules, seeds=(seed,), clock=clock, policy=FaultPolicy.FORFEIT, cases={case})
            for what, seed, clock, case in (
                ("deadline", 3, SHORT_DEADLINE, "timing.deadline"),
                ("bank", 4, EMPTY_BANK, "timing.bank"),
            )
        ),
        Stage("compat", game, rules, seeds=(5,), unknown_fields=True, cases={"compat.unknown-fields"}),
    ]

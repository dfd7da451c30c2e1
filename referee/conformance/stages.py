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

Each game's stages are its conformance part (the registry's
``Part.CONFORMANCE``: :mod:`.hokm_stages`, :mod:`.hand_stages`), a module with
``PLAYERS`` (what the referee seats, in the order checked), ``stages(players)``,
``short_rules(players)`` (the rules of the stages about the process and the
stream, :func:`common_stages`), ``oracle()`` (what :func:`situations.situations`
asks of a view, or None) and ``stand_in(name)`` (a stand-in of its own, or None).
"""

from __future__ import annotations

from collections.abc import Callable, Set
from dataclasses import dataclass
from typing import Any

from waraq.referee.conformance.situations import Situation
from waraq.referee.games import registry
from waraq.referee.games.registry import Part
from waraq.referee.match.play import FaultPolicy, TimeControl

GENEROUS = TimeControl(decision_ms=5_000, bank_ms=30_000)  # a stage about answers, not time
SHORT_DEADLINE = TimeControl(decision_ms=200, bank_ms=2_000)  # the timing case: a ladder's usual clock is tighter
EMPTY_BANK = TimeControl(decision_ms=2_000, bank_ms=1)  # the bank nearly spent from the first question


@dataclass(frozen=True)
class Stage:
    """Matches played against one fresh process of the bot; seats not the bot's are played in-process."""

    name: str  # also the records' file names
    game: str
    rules: Any
    seeds: tuple[int, ...] = (1,)
    bot_seats: tuple[int, ...] = ()  # empty: every seat
    stand_in: str = "heuristic"  # the built-in bot in the other seats, or one of the game's own (stand_in())
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


def common_stages(game: str, players: int) -> list[Stage]:
    """The stages about the process and the stream, in the first game and player count the bot plays."""
    rules = registry.part(game, Part.CONFORMANCE).short_rules(players)
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

"""Where a match's shuffled decks come from: a seed, or a record.

The engine asks a dealer for the ace draw and then for deck number ``k`` of
the match, in order. A seeded dealer shuffles deck ``k`` with a generator
keyed by ``(seed, k)``, so it holds no mutable state: copying a game state
never copies a random generator, and the same seed gives the same decks
whatever the players do. A fixed dealer hands out decks given up front
(hand-worked deals in tests, replaying a record) and checks each one. A chance
dealer has the ace draw only: each deck is handed to the engine from outside
when it waits for one (OpenSpiel's chance nodes deal it card by card).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from waraq.referee.games.cards import ACE, card_name, rank_of


class DealError(ValueError):
    """A given deck or ace draw that cannot come from the deck in play."""


class MissingDeal(LookupError):
    """A fixed dealer was asked for more decks than it was given (a record cut short)."""


def _first_ace(cards: Sequence[int]) -> int:
    for i, card in enumerate(cards):
        if rank_of(card) == ACE:
            return i
    raise DealError("the ace draw turned no ace")


class SeededDealer:
    __slots__ = ("seed",)

    # Whether the engine deals each deck so that every seat gets the same cards whoever deals
    # (see SeatDealer). A plain deck is dealt as it lies, from the dealer.
    by_seat = False

    # Re-seeding one generator gives the same stream as a new one from the same seed and
    # costs a quarter less; every use seeds it first, so nothing carries from one to the next.
    _generator = random.Random()

    def __init__(self, seed: int | str) -> None:
        self.seed = seed

    def _shuffled(self, key: str, cards: Sequence[int]) -> list[int]:
        deck = list(cards)
        generator = SeededDealer._generator
        generator.seed(key)
        generator.shuffle(deck)
        return deck

    def ace_draw(self, cards: Sequence[int]) -> list[int]:
        deck = self._shuffled(f"waraq/{self.seed}/ace-draw", cards)
        return deck[: _first_ace(deck) + 1]

    def deck(self, index: int, cards: Sequence[int]) -> list[int]:
        return self._shuffled(f"waraq/{self.seed}/deck/{index}", cards)


class SeatDealer(SeededDealer):
    """A seeded dealer whose deck ``k`` reaches the same seats whoever deals it: for boards.

    The matches of a board (ladder/stats/boards.py) share their seed, so their decks; but the
    hakem who deals a Hokm round depends on the rounds before, so the same deck dealt from
    another seat gives every hand to another player, and a board's rooms share almost no
    luck after the first round (measured: ρ ≈ 0 between rooms over a match to 7). With this
    dealer the engine lays each deck out so that each seat receives what it would if seat 0
    dealt (:func:`waraq.referee.games.hokm.dealing.by_seat`): round k's hands belong to the
    seats, in every room, whoever is hakem. Each deck is still a fair shuffle: a fixed
    rearrangement of a uniform one, chosen before any card of it is seen. The record holds
    every deck as dealt, so a replay deals it as it lies (a FixedDealer).
    """

    __slots__ = ()
    by_seat = True


class FixedDealer:
    __slots__ = ("_ace_draw", "_decks")
    by_seat = False

    def __init__(self, ace_draw: Sequence[int], decks: Sequence[Sequence[int]]) -> None:
        self._ace_draw = list(ace_draw)
        self._decks = [list(d) for d in decks]

    def ace_draw(self, cards: Sequence[int]) -> list[int]:
        turned = self._ace_draw
        allowed = set(cards)
        strangers = [c for c in turned if c not in allowed]
        if strangers or len(set(turned)) != len(turned):
            raise DealError(
                "the ace draw "
                + ", ".join(card_name(c) for c in turned)
                + " repeats a card or holds one not in the deck"
            )
        if _first_ace(turned) != len(turned) - 1:
            raise DealError("the ace draw must stop at its first ace, and only there")
        return list(turned)

    def deck(self, index: int, cards: Sequence[int]) -> list[int]:
        if index >= len(self._decks):
            raise MissingDeal(f"deck {index + 1} was not given")
        return checked_deck(index, self._decks[index], cards)


class ChanceDealer:
    """A dealer whose decks are dealt from outside, one at a time, as OpenSpiel's chance nodes deal
    them card by card (waraq.referee.env.hokm_openspiel). It holds the ace draw only, checked as a
    fixed dealer checks it; asked for a deck it has none (None), and the engine clears the table
    and waits for the deck to be handed to it (``HokmState.deal``)."""

    __slots__ = ("_ace_draw",)
    by_seat = False

    def __init__(self, ace_draw: Sequence[int]) -> None:
        self._ace_draw = FixedDealer(ace_draw, ())

    def ace_draw(self, cards: Sequence[int]) -> list[int]:
        return self._ace_draw.ace_draw(cards)

    def deck(self, index: int, cards: Sequence[int]) -> None:
        return None


def checked_deck(index: int, deck: Sequence[int], cards: Sequence[int]) -> list[int]:
    """``deck`` (the match's deck number ``index + 1``) as a new list, if it is a shuffle of ``cards``;
    else DealError naming the cards missing and those not in play or repeated."""
    if sorted(deck) != sorted(cards):
        missing = sorted(set(cards) - set(deck))
        extra = sorted(set(deck) - set(cards))
        raise DealError(
            f"deck {index + 1} is not a shuffle of the {len(cards)}-card deck in play"
            f" ({len(deck)} cards; missing: {', '.join(map(card_name, missing)) or 'none'};"
            f" not in play or repeated: {', '.join(map(card_name, extra)) or 'a repeat'})"
        )
    return list(deck)


def ace_draw_for(hakem: int, cards: Sequence[int]) -> list[int]:
    """An ace draw that makes ``hakem`` the first hakem: non-aces, then an ace."""
    plain = [c for c in cards if rank_of(c) != ACE]
    ace = next(c for c in cards if rank_of(c) == ACE)
    return plain[:hakem] + [ace]

"""The standard 52-card deck as small integers, and its names at the edges.

A card is ``suit * 13 + rank``: suits in the order ``S H D C`` and ranks from
``2`` (0) to ``A`` (12). So the cards of one suit form a contiguous range, a
sorted hand keeps each suit together, and within a suit a larger integer is a
higher card. Names such as ``10H`` exist only for records, messages and
people (docs/rules.md, notation).
"""

from __future__ import annotations

from collections.abc import Iterable

SUITS = "SHDC"
SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs")
RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")

DECK = tuple(range(52))
CARD_NAMES = tuple(rank + suit for suit in SUITS for rank in RANKS)
CARD_BY_NAME = {name: card for card, name in enumerate(CARD_NAMES)}

ACE = RANKS.index("A")
JACK = RANKS.index("J")


class CardError(ValueError):
    """A card or suit name that does not exist."""


def suit_of(card: int) -> int:
    return card // 13


def rank_of(card: int) -> int:
    return card % 13


def card_name(card: int) -> str:
    return CARD_NAMES[card]


def parse_card(name: object) -> int:
    """``'10H'`` -> card. Accepts lower case; rejects anything else with the value quoted."""
    if isinstance(name, str):
        card = CARD_BY_NAME.get(name.strip().upper())
        if card is not None:
            return card
    raise CardError(
        f"{name!r} is not a card: expected a rank {'/'.join(RANKS)} then a suit {'/'.join(SUITS)}, as in '10H' or 'AS'"
    )


def parse_suit(name: object) -> int:
    if isinstance(name, str) and len(name.strip()) == 1:
        suit = SUITS.find(name.strip().upper())
        if suit >= 0:
            return suit
    raise CardError(f"{name!r} is not a suit: expected one of {', '.join(SUITS)}")


def names(cards: Iterable[int]) -> str:
    """Cards as ``'7H, KH'`` for messages, in the order given."""
    return ", ".join(CARD_NAMES[c] for c in cards) or "nothing"

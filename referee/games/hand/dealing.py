"""Who deals Hand's decks, and where each card of a deck goes (docs/rules.md "## Hand").

A dealer hands a match its first player, its decks and its restocked stocks:
:class:`SeededHandDealer` draws them from the seed, :class:`FixedHandDealer`
takes them given (hand-worked deals, a record replayed) and checks each, and
:class:`ChanceHandDealer` has the first player only: each deck and each new
stock is handed to the engine from outside when it waits for one (OpenSpiel's
chance nodes deal them card by card).
:func:`deal_order` says which seat receives each card of a deck (the
engine's docstring, "Dealing"), and :func:`stack_deck` builds the deck that
deals given hands.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from waraq.referee.games.dealers import DealError, MissingDeal
from waraq.referee.games.hand.melds import CARD_NAMES, parse_card, shown
from waraq.referee.games.hand.rules import HAND_SIZE, HandRules


class SeededHandDealer:
    """Everything random in a match follows from the seed, each draw from its own key
    (as :class:`~waraq.referee.games.dealers.SeededDealer`): no state, so copying a game
    state never copies a generator."""

    __slots__ = ("seed",)

    def __init__(self, seed: int | str) -> None:
        self.seed = seed

    def first(self, players: int) -> int:
        return random.Random(f"waraq/{self.seed}/first").randrange(players)

    def deck(self, index: int, cards: Sequence[int]) -> list[int]:
        deck = list(cards)
        random.Random(f"waraq/{self.seed}/deck/{index}").shuffle(deck)
        return deck

    def restock(self, deck: int, number: int, nth: int, cards: Sequence[int]) -> list[int]:
        """The new stock, top first, from the pile's ``cards`` under its top (bottom to
        top): restock ``number`` of deck ``deck`` (``nth`` of the match)."""
        stock = list(cards)
        random.Random(f"waraq/{self.seed}/restock/{deck}/{number}").shuffle(stock)
        return stock


class FixedHandDealer:
    """Hands out a first player, decks and restocked stocks given up front (hand-worked
    deals, replaying a record), checking each; ``restocks`` in the order they happen."""

    __slots__ = ("_first", "_decks", "_restocks")

    def __init__(self, first: int, decks: Sequence[Sequence[int]], restocks: Sequence[Sequence[int]] = ()) -> None:
        self._first = first
        self._decks = [list(d) for d in decks]
        self._restocks = [list(s) for s in restocks]

    def first(self, players: int) -> int:
        if type(self._first) is not int or not 0 <= self._first < players:
            raise DealError(f"first player {self._first!r} is not a seat of {players} players")
        return self._first

    def deck(self, index: int, cards: Sequence[int]) -> list[int]:
        if index >= len(self._decks):
            raise MissingDeal(f"deck {index + 1} was not given")
        deck = self._decks[index]
        return same_cards(f"deck {index + 1}", deck, cards)

    def restock(self, deck: int, number: int, nth: int, cards: Sequence[int]) -> list[int]:
        if nth >= len(self._restocks):
            raise MissingDeal(f"restock {nth + 1} was not given")
        stock = self._restocks[nth]
        return same_cards(f"restock {nth + 1} (deal {deck + 1})", stock, cards)


class ChanceHandDealer:
    """A dealer whose decks and new stocks are dealt from outside, one at a time, as OpenSpiel's
    chance nodes deal them card by card (waraq.referee.env.hand_openspiel). It holds the first
    player only, checked as a fixed dealer checks it; asked for a deck or a stock it has none
    (None), and the engine waits for it to be handed in (``HandState.deal``, ``HandState.restock``)."""

    __slots__ = ("_first",)

    def __init__(self, first: int) -> None:
        self._first = FixedHandDealer(first, ())

    def first(self, players: int) -> int:
        return self._first.first(players)

    def deck(self, index: int, cards: Sequence[int]) -> None:
        return None

    def restock(self, deck: int, number: int, nth: int, cards: Sequence[int]) -> None:
        return None


def same_cards(what: str, given: Sequence[int], cards: Sequence[int]) -> list[int]:
    """``given`` as a new list if it is a shuffle of ``cards``; else DealError naming ``what``, the
    cards missing and those not in play or repeated."""
    if sorted(given) == sorted(cards):
        return list(given)
    missing = ", ".join(CARD_NAMES[c] for c in sorted(set(cards) - set(given))) or "none"
    extra = ", ".join(map(str, shown(sorted(set(given) - set(cards), key=str)))) or "a repeat"
    raise DealError(
        f"{what} is not a shuffle of the {len(cards)} cards in play ({len(given)} cards; "
        f"missing: {missing}; not in play or repeated: {extra})"
    )


def deal_order(rules: HandRules, first: int) -> list[int | None]:
    """Who receives each card of a deck, by position: a seat, or None for the stock.

    One card at a time in play order from ``first``, 14 each, then one more to
    ``first``; the stock is the rest, its top the card after that.
    """
    n = rules.players
    order: list[int | None] = [(first + i) % n for i in range(HAND_SIZE * n)]
    order.append(first)
    return order + [None] * (len(rules.deck) - len(order))


def stack_deck(
    rules: HandRules,
    first: int,
    hands: Sequence[Sequence[int | str]],
    stock: Sequence[int | str] = (),
) -> list[int]:
    """The deck that deals ``hands[seat]`` to each seat (``first`` gets 15 cards, the
    others 14) and then, optionally, the stock from its top; stock cards not given
    follow in card order. Cards as ints or names (``"7H#1"``)."""

    def card(c: int | str) -> int:
        return c if isinstance(c, int) else parse_card(c)

    wanted = [[card(c) for c in hand] for hand in hands]
    top = [card(c) for c in stock]
    order = deal_order(rules, first)
    if len(wanted) != rules.players:
        raise ValueError(f"{len(wanted)} hands given for {rules.players} players")
    for seat, hand in enumerate(wanted):
        if len(hand) != order.count(seat):
            raise ValueError(f"seat {seat} is dealt {order.count(seat)} cards, {len(hand)} given")
    given = [c for hand in wanted for c in hand] + top
    if len(set(given)) != len(given) or not set(given) <= set(rules.deck):
        raise ValueError("a card is given twice or is not in the deck")
    taken = set(given)
    rest = iter(top + [c for c in rules.deck if c not in taken])
    dealt = [iter(hand) for hand in wanted]
    return [next(dealt[seat]) if seat is not None else next(rest) for seat in order]

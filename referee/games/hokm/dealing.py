"""Where each card of a Hokm deck goes (docs/rules.md, the deal).

The hakem deals packets: five cards to each seat from the hakem, then
(3 and 4 players) packets of four until the deck is out; with 2 players
everything after the first two packets is the stock. :func:`deal_order` says
which seat receives each card of a deck, :func:`by_seat` lays a deck out so
that every seat gets the same cards whoever deals (duplicate boards), and
:func:`stack_deck` builds the deck that deals given hands. The engine deals
by these packet sizes; nothing here changes a state.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from waraq.referee.games.cards import parse_card
from waraq.referee.games.hokm.rules import HokmRules

PACKET_FIRST = 5  # the hakem names trump having seen this many cards
PACKET_REST = 4


def deal_order(rules: HokmRules, hakem: int) -> list[int | None]:
    """Who receives each card of a deck, by position: a seat, or None for the stock.

    The first five go to the hakem, the next five to the next seat, and so on;
    then packets of four from the hakem again (3 and 4 players). With 2
    players everything after the first two packets is the stock.
    """
    return _deal_order(rules.players, len(rules.deck), hakem)


def _deal_order(n: int, cards: int, hakem: int) -> list[int | None]:
    order: list[int | None] = [(hakem + j) % n for j in range(n) for _ in range(PACKET_FIRST)]
    if n == 2:
        return order + [None] * (cards - len(order))
    while len(order) < cards:
        order += [(hakem + j) % n for j in range(n) for _ in range(PACKET_REST)]
    return order


def by_seat(rules: HokmRules, deck: Sequence[int], hakem: int) -> list[int]:
    """``deck`` laid out so that dealt by ``hakem`` every seat gets the cards, in the order, that
    it gets when seat 0 deals ``deck`` (the stock, 2 players, stays as it lies)."""
    if hakem == 0:
        return list(deck)
    return [deck[i] for i in _by_seat_positions(rules.players, len(deck), hakem)]


@functools.cache
def _by_seat_positions(players: int, cards: int, hakem: int) -> tuple[int, ...]:
    """For each position of a deck dealt by ``hakem``, the position that seat 0's deal gives the same seat."""
    base, mine = _deal_order(players, cards, 0), _deal_order(players, cards, hakem)
    where: dict[int | None, list[int]] = {}
    for position, seat in enumerate(base):
        where.setdefault(seat, []).append(position)
    taken = {seat: iter(positions) for seat, positions in where.items()}
    return tuple(next(taken[seat]) for seat in mine)


def stack_deck(
    rules: HokmRules,
    hakem: int,
    hands: Sequence[Sequence[int | str]],
    stock: Sequence[int | str] = (),
) -> list[int]:
    """The deck that deals ``hands[seat]`` to each seat, in the order given.

    For hand-worked deals: a seat's first five cards are its first packet. With
    2 players give five cards a seat and, optionally, the stock from its top;
    stock cards not given follow in card order.
    """
    wanted = [[c if isinstance(c, int) else parse_card(c) for c in hand] for hand in hands]
    top = [c if isinstance(c, int) else parse_card(c) for c in stock]
    order = deal_order(rules, hakem)
    for seat, hand in enumerate(wanted):
        if len(hand) != order.count(seat):
            raise ValueError(f"seat {seat} is dealt {order.count(seat)} cards, {len(hand)} given")
    given = [c for hand in wanted for c in hand] + top
    if len(set(given)) != len(given) or not set(given) <= set(rules.deck):
        raise ValueError("a card is given twice or is not in the deck in play")
    rest = iter(top + [c for c in rules.deck if c not in set(given)])
    packets = [iter(hand) for hand in wanted]
    return [next(packets[seat]) if seat is not None else next(rest) for seat in order]

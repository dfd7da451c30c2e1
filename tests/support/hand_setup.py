"""Small helpers to set up hand-worked Hand positions in tests.

Cards are written as in records (``7H#1``, ``JK#0``); in these tests a name
without ``#`` is the first copy (``7H`` is ``7H#0``, ``JK`` is ``JK#0``), so a
hand reads ``"5H 6H 7H 7H#1 JK"``. The names are parsed here from docs/rules.md's
numbering (``copy * 53 + face``, face 52 the joker), not by the engine, so a
test cannot agree with an engine that numbers cards wrongly.

:func:`deal` stacks a deck that deals each seat its hand and starts a match
on it with a chosen first player; :func:`loose` gives hands in which no meld
can ever be made, so a seat holding one never opens and is never offered
the discard.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Any

from waraq.referee.games.cards import CARD_BY_NAME, CARD_NAMES
from waraq.referee.games.hand.dealing import FixedHandDealer, SeededHandDealer, stack_deck
from waraq.referee.games.hand.decisions import Turn
from waraq.referee.games.hand.engine import HandState
from waraq.referee.games.hand.melds import Add, Meld, Swap
from waraq.referee.games.hand.rules import HandRules

JOKER = 52
Cards = str | Sequence[int]


def rules(**keys: Any) -> HandRules:
    """Rules from keys as a config file would give them (``preset=...`` allowed)."""
    return HandRules.from_dict(keys)


# -- card names (docs/rules.md numbering, independent of the engine) -----------------------


def card(name: str) -> int:
    """``"7H#1"`` -> 71; ``"7H"`` is the first copy; ``"JK"``/``"JK#1"`` the jokers."""
    base, _, copy = name.strip().upper().partition("#")
    face = JOKER if base == "JK" else CARD_BY_NAME[base]
    return int(copy or 0) * 53 + face


def cards(text: Cards) -> list[int]:
    """``"AS 10H#1"`` -> cards; a list of cards is returned as a list."""
    if isinstance(text, str):
        return [card(n) for n in text.split()]
    return list(text)


def name(c: int) -> str:
    face = c % 53
    return ("JK" if face == JOKER else CARD_NAMES[face]) + f"#{c // 53}"


def names(cs: Iterable[int]) -> list[str]:
    return [name(c) for c in cs]


def hand(text: Cards) -> list[int]:
    """Cards sorted, for comparing with a hand in any order."""
    return sorted(cards(text))


def charge(c: int) -> int:
    """docs/rules.md, end of round: ace 11, pictures 10, joker 15, others their number."""
    face = c % 53
    if face == JOKER:
        return 15
    rank = face % 13  # 2..A are 0..12
    return 11 if rank == 12 else 10 if rank >= 8 else rank + 2


# Hands in which no meld can be made, even with one more card and a joker: in each
# suit the ranks are three apart (2 5 8 J, 3 6 9 Q, 4 7 10 K) and no rank is in more
# than two suits. Given as faces; ``loose(copy, pattern)`` names the copy.
LOOSE = (
    "2S 5S 8S JS 3H 6H 9H QH 4D 7D 10D KD 2C 5C",
    "3S 6S 9S QS 4H 7H 10H KH 2D 5D 8D JD 3C 6C",
)


def loose(copy: int, pattern: int = 0, count: int = 14) -> str:
    """A hand of ``count`` (at most 14) cards of LOOSE[pattern], all of copy ``copy``."""
    return " ".join(f"{n}#{copy}" for n in LOOSE[pattern].split()[:count])


# -- starting a match on stacked decks --------------------------------------------------


def deck(rules_: HandRules, first: int, hands: Sequence[Cards], stock: Cards = ()) -> list[int]:
    """The deck that deals ``hands`` with ``first`` to play first (see ``stack_deck``)."""
    return stack_deck(rules_, first, [cards(h) for h in hands], cards(stock))


def spare_decks(count: int = 8) -> list[list[int]]:
    """Shuffled decks for deals after the hand-worked ones; their play is not checked."""
    decks = []
    for k in range(count):
        shuffled = list(range(106))
        random.Random(f"spare/{k}").shuffle(shuffled)
        decks.append(shuffled)
    return decks


class StackedDealer(FixedHandDealer):
    """Given decks, and stocks rebuilt from the pile shuffled as a seeded match would
    (for tests that play long rounds on a stacked deck)."""

    def __init__(self, first: int, decks: Sequence[Sequence[int]], seed: str = "stacked") -> None:
        super().__init__(first, decks)
        self.seeded = SeededHandDealer(seed)

    def restock(self, deck: int, number: int, nth: int, cards: Sequence[int]) -> list[int]:
        return self.seeded.restock(deck, number, nth, cards)


def match_on(
    rules_: HandRules,
    first: int,
    decks: Sequence[Sequence[int]],
    restocks: Sequence[Sequence[int]] | None = None,
) -> HandState:
    """A match whose first player is ``first``, dealt ``decks`` in turn, then spare
    shuffles; ``restocks``, if given, are the stocks rebuilt from the pile, in order
    (else they are shuffled from a seed)."""
    decks = [*decks, *spare_decks()]
    if restocks is None:
        return HandState(rules_, StackedDealer(first, decks))
    return HandState(rules_, FixedHandDealer(first, decks, restocks))


def deal(
    rules_: HandRules,
    first: int,
    hands: Sequence[Cards],
    *,
    stock: Cards = (),
    later: Sequence[Sequence[int]] = (),
    restocks: Sequence[Sequence[int]] | None = None,
) -> HandState:
    """A match dealt ``hands`` (``later``: decks for later deals)."""
    return match_on(rules_, first, [deck(rules_, first, hands, stock), *later], restocks)


# -- turns --------------------------------------------------------------------------


def meld(text: Cards) -> Meld:
    return Meld(tuple(cards(text)))


def add(index: int, text: Cards, at: str | None = None) -> Add:
    return Add(index, tuple(cards(text)), at)


def swap(index: int, text: str) -> Swap:
    return Swap(index, card(text))


def turn(*steps: Any, discard: str) -> Turn:
    return Turn(tuple(steps), card(discard))


def pass_turn(state: HandState) -> None:
    """The seat to act draws from the stock (answering TAKE if asked) and discards
    what it drew (on the round's first turn: its highest card)."""
    if state.kind == "TAKE":
        state.apply("stock")
    seat = state.to_act
    drawn = state.drawn if state.drawn is not None else max(state.hands[seat])
    state.apply(Turn((), drawn))


# -- reading the record -------------------------------------------------------------


def events_of(state: HandState, kind: str) -> list[dict[str, Any]]:
    return [e for e in state.events if e["type"] == kind]


def last(state: HandState, kind: str) -> dict[str, Any]:
    return events_of(state, kind)[-1]


def decisions(state: HandState) -> list[tuple[int, str, Any]]:
    """(seat, kind, action) of every decision in the record, in order."""
    return [(e["seat"], e["kind"], e["action"]) for e in events_of(state, "decision")]


def assert_fields(event: dict[str, Any], **expected: Any) -> None:
    """The event has these fields with these values (a record may carry more)."""
    got = {key: event.get(key, "<missing>") for key in expected}
    assert got == expected


def snapshot(state: HandState) -> tuple[Any, ...]:
    """Everything a refused action must leave as it was."""
    return (
        state.kind,
        state.to_act,
        state.round,
        [sorted(h) for h in state.hands],
        [(m.owner, m.kind, m.cards, m.joker_as) for m in state.table],
        list(state.pile),
        list(state.stock),
        list(state.opened),
        list(state.scores),
        len(state.events),
        state.drawn,
        state.took,
        [state.view(s) for s in range(state.players)],
    )

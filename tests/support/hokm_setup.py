"""Small helpers to set up hand-worked Hokm deals in tests.

A hand is written as card names in one string, in dealing order: a seat's
first five cards are its first packet (the five the hakem sees before naming
trump), then its packets of four. :func:`deal` stacks a deck that gives each
seat its hand and starts a match on it with a chosen first hakem.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Any

from waraq.referee.games.cards import CARD_NAMES, RANKS, SUITS, parse_card
from waraq.referee.games.dealers import FixedDealer, ace_draw_for
from waraq.referee.games.hokm.dealing import stack_deck
from waraq.referee.games.hokm.engine import HokmState
from waraq.referee.games.hokm.rules import HokmRules

Cards = str | Sequence[int]


def rules(**keys: Any) -> HokmRules:
    """Rules from keys as a config file would give them (``preset=...`` allowed)."""
    return HokmRules.from_dict(keys)


def cards(text: Cards) -> list[int]:
    """``"AS 10H"`` -> cards; a list of cards is returned as a list."""
    if isinstance(text, str):
        return [parse_card(name) for name in text.split()]
    return list(text)


def hand(text: Cards) -> list[int]:
    """Cards sorted as the engine keeps a hand, for comparing with ``state.hands``."""
    return sorted(cards(text))


def spelled(cards_: Iterable[int]) -> list[str]:
    return [CARD_NAMES[c] for c in cards_]


def suit(letter: str) -> int:
    return SUITS.index(letter)


def whole_suit(letter: str, rules_: HokmRules | None = None) -> str:
    """Every card of a suit in play, low to high: ``"2S 3S ... AS"``."""
    in_play = set(rules_.deck) if rules_ else set(range(52))
    return " ".join(r + letter for r in RANKS if parse_card(r + letter) in in_play)


def deck(rules_: HokmRules, hakem: int, hands: Sequence[Cards], stock: Cards = ()) -> list[int]:
    """The deck that deals ``hands`` with ``hakem`` first (see ``stack_deck``)."""
    return stack_deck(rules_, hakem, [cards(h) for h in hands], cards(stock))


def spare_decks(rules_: HokmRules, count: int = 6) -> list[list[int]]:
    """Shuffled decks for rounds after the hand-worked ones; their play is not checked."""
    decks = []
    for k in range(count):
        shuffled = list(rules_.deck)
        random.Random(f"spare/{k}").shuffle(shuffled)
        decks.append(shuffled)
    return decks


def match_on(rules_: HokmRules, hakem: int, decks: Sequence[Sequence[int]]) -> HokmState:
    """A match whose first hakem is ``hakem``, dealt ``decks`` in turn, then spare shuffles."""
    dealer = FixedDealer(ace_draw_for(hakem, rules_.deck), [*decks, *spare_decks(rules_)])
    return HokmState(rules_, dealer)


def deal(
    rules_: HokmRules,
    hakem: int,
    hands: Sequence[Cards],
    *,
    stock: Cards = (),
    later: Sequence[Sequence[int]] = (),
    trump: str | None = None,
) -> HokmState:
    """A match dealt ``hands`` (``later``: decks for redeals or later rounds).

    With ``trump`` the hakem names it at once, so the state waits for the first
    play (3 and 4 players) or the hakem's discard (2 players).
    """
    state = match_on(rules_, hakem, [deck(rules_, hakem, hands, stock), *later])
    if trump is not None:
        assert state.kind == "TRUMP", state.kind
        state.apply(suit(trump))
    return state


def play(state: HokmState, text: str) -> None:
    """Play the named cards in order, each by the seat to act (checked)."""
    for name in text.split():
        state.apply(parse_card(name))


def play_tricks(state: HokmState, *tricks: str) -> list[int | None]:
    """Play whole tricks, each written from its leader in play order.

    Returns each trick's winner, or None for a trick after which a new round
    began (the round's ``round_end`` event tells how it ended).
    """
    winners: list[int | None] = []
    for trick in tricks:
        assert len(trick.split()) == state.rules.players, trick
        round_ = state.round
        play(state, trick)
        winners.append(state.view(0).tricks[-1].winner if state.round == round_ else None)
    return winners


def play_first_legal(state: HokmState, plays: int) -> None:
    """Each seat in turn plays its first legal card (the lowest), ``plays`` times."""
    for _ in range(plays):
        assert state.kind == "PLAY", state.kind
        state.apply(state.legal_actions()[0])


def play_round_out(state: HokmState) -> None:
    """Play the first legal card until the round ends or another decision (BAM) comes."""
    round_ = state.round
    while state.round == round_ and state.kind == "PLAY":
        state.apply(state.legal_actions()[0])


def events_of(state: HokmState, kind: str) -> list[dict[str, Any]]:
    return [e for e in state.events if e["type"] == kind]


def last_round_end(state: HokmState) -> dict[str, Any]:
    return events_of(state, "round_end")[-1]


def plays_in_round(state: HokmState, round_: int) -> int:
    return sum(1 for e in state.events if e["type"] == "decision" and e["kind"] == "PLAY" and e["round"] == round_)


def assert_fields(event: dict[str, Any], **expected: Any) -> None:
    """The event has these fields with these values (a record may carry more)."""
    got = {key: event.get(key, "<missing>") for key in expected}
    assert got == expected


def snapshot(state: HokmState) -> tuple[Any, ...]:
    """Everything an illegal action must leave as it was."""
    return (
        state.kind,
        state.to_act,
        state.round,
        state.trump,
        [h[:] for h in state.hands],
        list(state.tricks_won),
        list(state.scores),
        [state.view(s).trick for s in range(state.rules.players)],
        len(state.events),
        state.legal_actions(),
    )


def two_player_match(
    rules_: HokmRules,
    hakem: int,
    fives: Sequence[str],
    discards: Sequence[str],
    kept: Sequence[str],
    trump: str,
) -> HokmState:
    """2 players at the first play: ``fives`` dealt, ``trump`` named, ``discards``
    laid aside (the hakem first) and every one of the 20 draws a keep.

    Seat ``s`` then holds its five minus its discards plus ``kept[s]`` (ten
    cards). The stock is laid out for that: the hakem's draws turn stock pairs
    0, 2, 4, ...: (its next kept card, a burned card); the other seat's draws
    pairs 1, 3, 5, ...; burned cards are the cards left, in card order.
    """
    other = 1 - hakem
    wanted = {s: cards(kept[s]) for s in (0, 1)}
    assert all(len(w) == 10 for w in wanted.values())
    taken = set(cards(" ".join(fives))) | set(wanted[0]) | set(wanted[1])
    burned = iter(c for c in rules_.deck if c not in taken)
    stock: list[int] = []
    for i in range(10):
        for seat in (hakem, other):
            stock += [wanted[seat][i], next(burned)]
    state = deal(rules_, hakem, fives, stock=stock, trump=trump)
    for seat in (hakem, other):
        state.apply(tuple(sorted(cards(discards[seat]))))
    for _ in range(20):
        state.apply("keep")
    assert state.kind == "PLAY" and state.to_act == hakem
    return state

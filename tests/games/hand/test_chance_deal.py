"""Decks and new stocks handed in from outside (a ChanceHandDealer, ``HandState.deal`` and
``HandState.restock``): what OpenSpiel's chance nodes need. The match waits with a cleared table
wherever it would ask for a deck, and before a turn that must draw from an empty stock; with the
same decks and stocks handed in it plays exactly the match a fixed dealer deals."""

from __future__ import annotations

import random

import pytest

from waraq.referee.games.dealers import DealError
from waraq.referee.games.hand.dealing import ChanceHandDealer, FixedHandDealer
from waraq.referee.games.hand.engine import HandState, IllegalAction, action_from_json
from waraq.referee.games.hand.melds import CARD_NAMES
from waraq.referee.games.hand.rules import PRESETS, HandRules

VARIANTS = {
    "classic": PRESETS["classic"].replace(rounds=2),
    "partners": PRESETS["partners"].replace(rounds=2),
    "three": PRESETS["three"].replace(rounds=2),
    "two": PRESETS["two"].replace(rounds=2),
}


def chance_match(rules: HandRules, seed: int) -> tuple[HandState, list[list[int]], list[list[int]], int]:
    """A random match played with its decks and stocks handed in at each wait; them and its first player."""
    rng = random.Random(seed)
    first = rng.randrange(rules.players)
    state = HandState(rules, ChanceHandDealer(first))
    decks: list[list[int]] = []
    stocks: list[list[int]] = []
    while state.result is None:
        if state.awaiting_deck:
            deck = list(rules.deck)
            rng.shuffle(deck)
            decks.append(deck)
            state.deal(deck)
        elif state.awaiting_restock:
            stock = state.pile[:-1]
            rng.shuffle(stock)
            stocks.append(stock)
            state.restock(stock)
        else:
            state.apply(state.random_action(rng))
    return state, decks, stocks, first


@pytest.mark.parametrize("name", list(VARIANTS))
def test_decks_and_stocks_handed_in_play_the_match_a_fixed_dealer_deals(name):
    rules = VARIANTS[name]
    for seed in range(3):
        chance, decks, stocks, first = chance_match(rules, seed)
        fixed = HandState(rules, FixedHandDealer(first, decks, stocks))
        for event in chance.events:
            if event["type"] == "decision":
                assert (fixed.to_act, fixed.kind) == (event["seat"], event["kind"])
                fixed.apply(action_from_json(event["kind"], event["action"]))
        assert fixed.events == chance.events
        assert fixed.result == chance.result


def test_random_matches_wait_for_new_stocks():
    assert sum(len(chance_match(VARIANTS["classic"], seed)[2]) for seed in range(3)) >= 2


def test_the_match_waits_for_its_first_deck_with_nothing_on_the_table():
    rules = VARIANTS["classic"]
    state = HandState(rules, ChanceHandDealer(2))
    assert state.awaiting_deck and not state.awaiting_restock
    assert (state.kind, state.to_act, state.legal_actions()) == (None, None, ())
    for seat in range(4):
        view = state.view(seat)
        assert view.hand == () and view.hand_sizes == (0, 0, 0, 0) and view.cards_seen() == set()
        assert view.first == 2 and view.stock_size == 0
    assert state.clone().awaiting_deck
    state.deal(list(reversed(rules.deck)))
    assert not state.awaiting_deck
    assert (state.kind, state.to_act) == ("TURN", 2)
    assert len(state.hands[2]) == 15 and len(state.stock) == 106 - 57


def test_between_rounds_the_table_is_cleared_and_the_score_kept():
    rules = VARIANTS["three"]
    rng = random.Random(4)
    state = HandState(rules, ChanceHandDealer(0))
    state.deal(list(rules.deck))
    while not state.awaiting_deck:
        if state.awaiting_restock:
            state.restock(state.pile[:-1])
        else:
            state.apply(state.random_action(rng))
    assert state.round == 2 and any(state.scores) and state.first == 1
    for seat in range(rules.players):
        view = state.view(seat)
        assert view.cards_seen() == set()
        assert (view.melds, view.pile, view.taken, view.opened) == ((), (), (), (False,) * 3)


def test_a_turn_waits_for_its_stock_before_the_discard_is_offered_or_a_card_drawn():
    rules = VARIANTS["classic"]
    rng = random.Random(1)
    state = HandState(rules, ChanceHandDealer(0))
    state.deal(list(rules.deck))
    while not state.awaiting_restock:
        state.apply(state.random_action(rng))
    assert (state.kind, state.to_act, state.stock) == (None, None, [])
    assert not state.awaiting_deck
    seat = state.restock_for
    held = list(state.hands[seat])
    under = state.pile[:-1]
    with pytest.raises(IllegalAction, match="no deck is awaited: seat .* waits for a new stock"):
        state.deal(list(rules.deck))
    with pytest.raises(DealError, match=r"restock 1 \(deal 1\) is not a shuffle"):
        state.restock(under[1:])
    assert state.awaiting_restock  # nothing changed
    state.restock(list(reversed(under)))
    assert state.to_act == seat and state.pile == [state.pile[-1]] and len(state.pile) == 1
    if state.kind == "TURN":  # drawn at once: the top of the stock handed in
        assert state.drawn == under[-1] and sorted(held + [under[-1]]) == state.hands[seat]
    assert state.events[-1] == {"type": "restock", "round": 1, "stock": [CARD_NAMES[c] for c in reversed(under)]}


def test_deal_refuses_a_deck_not_awaited_and_one_that_is_no_shuffle_of_the_deck():
    rules = VARIANTS["classic"]
    state = HandState(rules, ChanceHandDealer(0))
    with pytest.raises(DealError, match="missing: 2S#0"):
        state.deal(list(rules.deck[1:]))
    assert state.awaiting_deck  # nothing dealt
    state.deal(list(rules.deck))
    with pytest.raises(IllegalAction, match="no deck is awaited: seat 0 is to decide TURN"):
        state.deal(list(rules.deck))
    with pytest.raises(IllegalAction, match="no stock is awaited: seat 0 is to decide TURN"):
        state.restock([])


def test_a_chance_dealer_checks_its_first_player_as_a_fixed_dealer_does():
    with pytest.raises(DealError, match="first player 4 is not a seat of 4 players"):
        HandState(VARIANTS["classic"], ChanceHandDealer(4))

"""Decks handed in from outside (a ChanceDealer and ``HokmState.deal``): what OpenSpiel's chance nodes
need. The match waits with a cleared table wherever it would ask for a deck, and with the same decks
handed in it plays exactly the match a fixed dealer deals."""

from __future__ import annotations

import random

import pytest

from tests.support.hokm_setup import rules
from waraq.referee.games.cards import ACE, rank_of
from waraq.referee.games.dealers import ChanceDealer, DealError, FixedDealer, SeededDealer
from waraq.referee.games.hokm.engine import HokmState, IllegalAction, action_from_json
from waraq.referee.games.hokm.rules import HokmRules

VARIANTS = {
    "classic": rules(),
    "three": rules(preset="three"),
    "two": rules(preset="two"),
    "redeal and bam": rules(max_redeals=2, bam=True, target_score=3),
    "two, burn seen": rules(preset="two", burn_visible=True, target_score=3),
}


def chance_match(rules_: HokmRules, seed: int) -> tuple[HokmState, list[list[int]], list[int]]:
    """A random match played with its decks handed in at each wait; its decks and ace draw."""
    rng = random.Random(seed)
    turned = SeededDealer(seed).ace_draw(rules_.deck)
    state = HokmState(rules_, ChanceDealer(turned))
    decks = []
    while state.result is None:
        if state.awaiting_deck:
            deck = list(rules_.deck)
            rng.shuffle(deck)
            decks.append(deck)
            state.deal(deck)
        else:
            state.apply(rng.choice(state.legal_actions()))
    return state, decks, turned


@pytest.mark.parametrize("name", list(VARIANTS))
def test_decks_handed_in_play_the_match_a_fixed_dealer_deals(name):
    rules_ = VARIANTS[name]
    for seed in range(6):
        chance, decks, turned = chance_match(rules_, seed)
        fixed = HokmState(rules_, FixedDealer(turned, decks))
        for event in chance.events:
            if event["type"] == "decision":
                assert (fixed.to_act, fixed.kind) == (event["seat"], event["kind"])
                fixed.apply(action_from_json(event["kind"], event["action"]))
        assert fixed.events == chance.events
        assert fixed.result == chance.result


def test_the_match_waits_for_its_first_deck_with_nothing_on_the_table():
    rules_ = VARIANTS["classic"]
    state = HokmState(rules_, ChanceDealer(SeededDealer(3).ace_draw(rules_.deck)))
    assert state.awaiting_deck
    assert (state.kind, state.to_act, state.legal_actions()) == (None, None, ())
    for seat in range(4):
        view = state.view(seat)
        assert view.hand == () and view.hand_sizes == (0, 0, 0, 0) and view.cards_seen() == set()
    state.deal(list(reversed(rules_.deck)))
    assert not state.awaiting_deck
    assert state.kind == "TRUMP" and state.to_act == state.hakem
    assert len(state.hands[state.hakem]) == 5


@pytest.mark.parametrize("name", ["classic", "two"])
def test_between_rounds_the_table_is_cleared_and_the_score_kept(name):
    rules_ = VARIANTS[name]
    rng = random.Random(5)
    state = HokmState(rules_, ChanceDealer(SeededDealer(5).ace_draw(rules_.deck)))
    state.deal(list(rules_.deck))
    while not state.awaiting_deck:
        state.apply(rng.choice(state.legal_actions()))
    assert state.round == 2 and sum(state.scores) > 0
    for seat in range(rules_.players):
        view = state.view(seat)
        assert view.cards_seen() == set()
        assert (view.trump, view.tricks, view.trick, view.draws, view.discarded) == (None, (), (), (), ())
        assert view.scores == tuple(state.scores)


def test_a_redeal_waits_for_the_next_deck_with_the_shown_hand_public():
    rules_ = VARIANTS["redeal and bam"]
    # A deck whose first five (the hakem's) hold no ace, king, queen or jack: 2S-6S.
    state = HokmState(rules_, ChanceDealer([next(c for c in rules_.deck if rank_of(c) == ACE)]))
    state.deal(list(rules_.deck))
    assert state.kind == "REDEAL"
    state.apply(True)
    assert state.awaiting_deck and state.redeals == 1
    assert state.view(1).redeals == ((0, (0, 1, 2, 3, 4)),)
    state.deal(list(reversed(rules_.deck)))
    assert state.kind == "TRUMP" and state.deals == 2


def test_deal_refuses_a_deck_not_awaited_and_one_that_is_no_shuffle_of_the_deck():
    rules_ = VARIANTS["three"]
    state = HokmState(rules_, ChanceDealer(SeededDealer(1).ace_draw(rules_.deck)))
    with pytest.raises(DealError, match="missing: 2S"):
        state.deal(list(rules_.deck[1:]))
    assert state.awaiting_deck  # nothing dealt
    state.deal(list(rules_.deck))
    with pytest.raises(IllegalAction, match="no deck is awaited: seat .* is to decide TRUMP"):
        state.deal(list(rules_.deck))


def test_a_chance_dealer_checks_its_ace_draw_as_a_fixed_dealer_does():
    with pytest.raises(DealError, match="first ace"):
        HokmState(VARIANTS["classic"], ChanceDealer([12, 0]))  # AS, then 2S after the ace

"""Where decks come from: the seeded dealer is reproducible, the fixed one refuses bad decks."""

from __future__ import annotations

import pytest

from waraq.referee.games.cards import ACE, DECK, parse_card, rank_of
from waraq.referee.games.dealers import DealError, FixedDealer, MissingDeal, SeededDealer, ace_draw_for


def test_seeded_decks_depend_only_on_seed_and_index():
    a, b = SeededDealer(7), SeededDealer(7)
    assert a.deck(3, DECK) == b.deck(3, DECK)
    assert a.deck(3, DECK) != a.deck(4, DECK)
    assert SeededDealer(8).deck(3, DECK) != a.deck(3, DECK)
    assert sorted(a.deck(0, DECK)) == list(DECK)


def test_seeded_ace_draw_stops_at_the_first_ace():
    for seed in range(50):
        turned = SeededDealer(seed).ace_draw(DECK)
        assert rank_of(turned[-1]) == ACE
        assert all(rank_of(c) != ACE for c in turned[:-1])


def test_ace_draw_for_makes_the_given_seat_hakem():
    for hakem in range(4):
        turned = ace_draw_for(hakem, DECK)
        assert len(turned) - 1 == hakem and rank_of(turned[-1]) == ACE


def test_fixed_dealer_rejects_a_deck_with_a_card_missing_and_names_it():
    deck = list(DECK)
    deck[0] = deck[1]  # 2S replaced by a second 3S
    with pytest.raises(DealError, match="missing: 2S"):
        FixedDealer([parse_card("AS")], [deck]).deck(0, DECK)


def test_fixed_dealer_rejects_an_ace_draw_that_goes_past_an_ace():
    with pytest.raises(DealError, match="first ace"):
        FixedDealer([parse_card("AS"), parse_card("2S"), parse_card("AH")], []).ace_draw(DECK)


def test_fixed_dealer_says_when_it_has_no_more_decks():
    dealer = FixedDealer([parse_card("AS")], [list(DECK)])
    assert dealer.deck(0, DECK) == list(DECK)
    with pytest.raises(MissingDeal):
        dealer.deck(1, DECK)

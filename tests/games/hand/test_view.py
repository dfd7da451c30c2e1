"""What a seat sees in Hand (issue 6, information hiding; hand_spec ``HandView``): its
own hand, the melds on the table, the discard pile and what was taken from it,
its own draw and taken card with the ways to lay it; never another hand, the
stock's cards or order, the deck or the seed. Worked on one hand-worked deal."""

from __future__ import annotations

import dataclasses
import json
import re

from tests.support.hand_setup import card, cards, deal, hand, meld, name, rules, turn
from waraq.referee.games.hand.decisions import DISCARD_PILE, STOCK, TAKE, TURN, Turn
from waraq.referee.games.hand.melds import Meld
from waraq.referee.games.hand.view import HandView

# Seat 0 opens with A 2 3 of hearts and 5-9 of clubs (51) and discards 10D. Seat 1
# has not opened; 10S 10H with the 10D (30) and 6-9 of spades (30) open it. Seat 2
# holds the rest of a three-player deal.
SEAT_0 = "AH 2H 3H 5C 6C 7C 8C 9C 10D 2S 4D 6D QH 9S JD"
SEAT_1 = "10S#1 10H#1 6S#1 7S#1 8S#1 9S#1 JC#1 QC#1 KC#1 2D#1 5D#1 3H#1 4C#1 AS#1"
SEAT_2 = "3S 6S 9C#1 QS 4H 7H 10H KH 2D 5D 8D JC 3C 6C#1"
STOCK_TOP = "9D 4H#1 KS"
NAME = re.compile(r'"((?:10|[2-9JQKA])[SHDC]#[01]|JK#[01])"')


def position():
    state = deal(rules(players=3, rounds=1), 0, [SEAT_0, SEAT_1, SEAT_2], stock=STOCK_TOP)
    state.apply(turn(meld("AH 2H 3H"), meld("5C 6C 7C 8C 9C"), discard="10D"))
    return state


def json_names(view: HandView) -> set[int]:
    return {card(n) for n in NAME.findall(json.dumps(view.to_json()))}


def test_at_the_start_each_seat_sees_its_own_hand_and_nothing_else():
    state = deal(rules(players=3, rounds=1), 0, [SEAT_0, SEAT_1, SEAT_2], stock=STOCK_TOP)
    for seat, held in enumerate([SEAT_0, SEAT_1, SEAT_2]):
        view = state.view(seat)
        assert (view.seat, view.round, view.first, view.kind, view.to_act) == (seat, 1, 0, TURN, 0)
        assert list(view.hand) == hand(held)  # sorted
        assert view.hand_sizes == (15, 14, 14)
        assert view.opened == (False, False, False)
        assert view.melds == () and view.pile == () and view.taken == ()
        assert view.stock_size == 106 - 43
        assert view.drawn is None and view.took is None and view.uses == ()
        assert view.legal == () and view.scores == (0, 0, 0) and view.result is None
        assert view.cards_seen() == set(cards(held)) == json_names(view)


def test_the_discard_offered_and_the_table_seen_by_every_seat():
    state = position()
    assert (state.kind, state.to_act) == (TAKE, 1)
    for seat in range(3):
        view = state.view(seat)
        assert view.kind == TAKE and view.to_act == 1
        assert view.legal == ((STOCK, DISCARD_PILE) if seat == 1 else ())
        assert view.hand_sizes == (6, 14, 14)
        assert view.opened == (True, False, False)
        assert [(m.owner, m.kind, m.cards, m.joker_as) for m in view.melds] == [
            (0, "run", tuple(cards("AH 2H 3H")), None),
            (0, "run", tuple(cards("5C 6C 7C 8C 9C")), None),
        ]
        assert view.pile == (card("10D"),)
        assert view.stock_size == 106 - 43  # nothing drawn yet
        assert view.drawn is None and view.took is None


def test_the_taken_card_and_its_uses_are_the_takers_own():
    state = position()
    state.apply(DISCARD_PILE)
    mine = state.view(1)
    assert (mine.kind, mine.took, mine.drawn) == (TURN, card("10D"), None)
    assert mine.taken == ((1, card("10D")),) and mine.pile == ()
    assert card("10D") in mine.hand
    # Each use is a legal way to lay the taken card: here an opening with the set
    # 10S 10H 10D (the only meld with the 10D).
    assert mine.uses
    for use in mine.uses:
        assert all(type(step) is Meld for step in use)
        assert any(card("10D") in step.cards for step in use)
        kept = [c for c in mine.hand if all(c not in step.cards for step in use)]
        trial = state.clone()
        trial.apply(Turn(use, kept[0]))
        assert trial.opened[1]
    for other in (0, 2):
        theirs = state.view(other)
        assert theirs.took is None and theirs.uses == () and theirs.drawn is None
        assert theirs.taken == ((1, card("10D")),)  # taking it is seen by all
        assert card("10D") not in theirs.hand


def test_a_draw_is_seen_only_by_the_drawer():
    state = position()
    state.apply(STOCK)
    assert state.view(1).drawn == card("9D")
    assert state.view(0).drawn is None and state.view(2).drawn is None
    for seat in (0, 2):
        assert card("9D") not in state.view(seat).cards_seen()
        assert card("9D") not in json_names(state.view(seat))
    assert state.view(0).stock_size == 106 - 44


def test_no_view_shows_another_hand_or_the_stock():
    state = position()
    state.apply(STOCK)
    state.apply(turn(discard="9D"))
    public = {c for m in state.table for c in m.cards} | set(state.pile)
    for seat in range(3):
        view = state.view(seat)
        allowed = set(state.hands[seat]) | public
        assert view.cards_seen() <= allowed
        assert json_names(view) == view.cards_seen()
        assert not set(state.stock) & json_names(view)
        for other in range(3):
            if other != seat:
                assert not set(state.hands[other]) & view.cards_seen()


def test_the_view_has_no_field_for_the_seed_the_deck_or_the_stock_cards():
    fields = {f.name for f in dataclasses.fields(HandView)}
    assert not {"seed", "deck", "stock", "dealer"} & fields
    keys = set(position().view(0).to_json())
    assert not {"seed", "deck", "stock", "dealer"} & keys
    assert "stock_size" in keys  # the stock's size is public, its cards are not


def test_the_json_view_spells_cards_and_melds():
    seat0 = "5H 6H JK 8H 9S 9H 9D 2C 4C KD QS 3D 7C 10C AS"
    state = deal(rules(players=2, rounds=1), 0, [seat0, SEAT_1], stock="KS")
    state.apply(turn(meld("5H 6H JK 8H"), meld("9S 9H 9D"), discard="QS"))
    document = state.view(1).to_json()
    assert document["melds"] == [
        {"owner": 0, "kind": "run", "cards": ["5H#0", "6H#0", "JK#0", "8H#0"], "joker_as": "7H"},
        {"owner": 0, "kind": "set", "cards": ["9S#0", "9H#0", "9D#0"], "joker_as": None},
    ]
    assert document["pile"] == ["QS#0"]
    assert document["hand"] == [name(c) for c in sorted(cards(SEAT_1 + " KS"))]  # KS drawn
    assert document["drawn"] == "KS#0" and document["took"] is None
    assert document["opened"] == [True, False] and document["hand_sizes"] == [7, 15]
    assert document["seat"] == 1 and document["kind"] == state.kind

"""The deal of Hokm (docs/rules.md 4 players, steps 1-4; 3 and 2 players; `max_redeals`):
the ace draw, packets from the top of the deck, trump, and the redeal."""

from __future__ import annotations

import pytest

from tests.support.hokm_setup import (
    cards,
    deck,
    events_of,
    hand,
    match_on,
    play_round_out,
    rules,
    spare_decks,
    spelled,
    suit,
    whole_suit,
)
from waraq.referee.games.cards import ACE, CARD_NAMES, rank_of
from waraq.referee.games.dealers import FixedDealer
from waraq.referee.games.hokm.engine import HokmState, IllegalAction, new_match

PLAYERS = {4: rules(), 3: rules(players=3), 2: rules(players=2)}

# Seat s holds the whole suit SUITS[s], low cards first: the hakem's first five
# are then its five lowest (2-6), which hold no ace, king, queen or jack.
SUIT_PER_SEAT = [whole_suit(s) for s in "SHDC"]


# -- the ace draw -------------------------------------------------------------


@pytest.mark.parametrize(
    "turned, players, hakem",
    [
        # The ace is the 4th card turned: seats 0,1,2,3 (4 players), 0,1,2,0 (3), 0,1,0,1 (2).
        ("2S KH 10D AC", 4, 3),
        ("2S KH 10D AC", 3, 0),
        ("2S KH 10D AC", 2, 1),
        # The 6th card: seat 5 mod 4 = 1, 5 mod 3 = 2, 5 mod 2 = 1.
        ("2S 3S 4S 5S 6S AH", 4, 1),
        ("2S 3S 4S 5S 6S AH", 3, 2),
        ("2S 3S 4S 5S 6S AH", 2, 1),
        # An ace at once: seat 0.
        ("AD", 4, 0),
        ("AD", 3, 0),
        ("AD", 2, 0),
    ],
)
def test_first_hakem_is_the_seat_the_first_ace_falls_to(turned, players, hakem):
    r = PLAYERS[players]
    state = HokmState(r, FixedDealer(cards(turned), spare_decks(r)))
    assert state.hakem == hakem
    assert state.events[0] == {"type": "ace_draw", "cards": turned.split(), "hakem": hakem}
    # The first deal starts with that hakem, who decides first.
    first_deal = events_of(state, "deal")[0]
    assert (first_deal["round"], first_deal["hakem"]) == (1, hakem)
    assert (state.kind, state.to_act) == ("TRUMP", hakem)


@pytest.mark.parametrize("players", [4, 3, 2])
def test_seeded_ace_draw_turns_cards_up_to_the_first_ace(players):
    for seed in range(20):
        event = new_match(PLAYERS[players], seed).events[0]
        turned = cards(" ".join(event["cards"]))
        assert rank_of(turned[-1]) == ACE
        assert all(rank_of(c) != ACE for c in turned[:-1])
        assert event["hakem"] == (len(turned) - 1) % players


# -- packets from the top of the deck -------------------------------------------


def test_four_players_deal_five_then_four_then_four_from_the_hakem():
    r = PLAYERS[4]
    state = match_on(r, 1, [list(range(52))])  # the deck in card order: 2S 3S ... AS 2H ... AC
    # Five each from the hakem (seat 1): deck[0:5] to 1, [5:10] to 2, [10:15] to 3, [15:20] to 0.
    fives = {1: "2S 3S 4S 5S 6S", 2: "7S 8S 9S 10S JS", 3: "QS KS AS 2H 3H", 0: "4H 5H 6H 7H 8H"}
    assert (state.kind, state.to_act) == ("TRUMP", 1)
    for seat, five in fives.items():
        assert state.hands[seat] == hand(five)
    # The hakem names trump having seen only its five; nobody holds more than five.
    view = state.view(1)
    assert view.hand == tuple(hand(fives[1]))
    assert view.cards_seen() == set(cards(fives[1]))
    assert view.hand_sizes == (5, 5, 5, 5)
    state.apply(suit("C"))
    # Then packets of four from the hakem, twice: [20:24] to 1, [24:28] to 2, ... [48:52] to 0.
    assert state.hands[1] == hand(fives[1] + " 9H 10H JH QH  QD KD AD 2C")
    assert state.hands[2] == hand(fives[2] + " KH AH 2D 3D  3C 4C 5C 6C")
    assert state.hands[3] == hand(fives[3] + " 4D 5D 6D 7D  7C 8C 9C 10C")
    assert state.hands[0] == hand(fives[0] + " 8D 9D 10D JD  JC QC KC AC")
    # The deal event holds the whole deck, deck[0] dealt first.
    (event,) = events_of(state, "deal")
    assert event == {"type": "deal", "round": 1, "hakem": 1, "deck": list(CARD_NAMES)}


def test_three_players_deal_five_then_three_packets_of_four():
    r = PLAYERS[3]
    state = match_on(r, 0, [list(r.deck)])  # card order without 2D: deck[26] is 3D, deck[38] 2C
    assert [len(h) for h in state.hands] == [5, 5, 5]
    assert state.view(0).hand == tuple(hand("2S 3S 4S 5S 6S"))
    state.apply(suit("H"))
    # Seat 0 gets deck[0:5], [15:19], [27:31], [39:43]; seat 1 [5:10], [19:23], [31:35], [43:47];
    # seat 2 [10:15], [23:27], [35:39], [47:51]. 5 + 4 + 4 + 4 = 17 each.
    assert state.hands[0] == hand("2S 3S 4S 5S 6S  4H 5H 6H 7H  4D 5D 6D 7D  3C 4C 5C 6C")
    assert state.hands[1] == hand("7S 8S 9S 10S JS  8H 9H 10H JH  8D 9D 10D JD  7C 8C 9C 10C")
    assert state.hands[2] == hand("QS KS AS 2H 3H  QH KH AH 3D  QD KD AD 2C  JC QC KC AC")
    (event,) = events_of(state, "deal")
    assert len(event["deck"]) == 51 and "2D" not in event["deck"]
    assert event["deck"] == spelled(r.deck)


@pytest.mark.parametrize("players", [4, 3])
def test_the_hakem_leads_the_first_trick(players):
    r = PLAYERS[players]
    for hakem in range(players):
        state = match_on(r, hakem, [list(r.deck)])
        state.apply(suit("D"))
        assert (state.kind, state.to_act) == ("PLAY", hakem)
        assert all(len(h) == r.hand_size for h in state.hands)


# -- trump --------------------------------------------------------------------


@pytest.mark.parametrize("players", [4, 3, 2])
@pytest.mark.parametrize("letter", list("SHDC"))
def test_the_hakem_may_name_any_of_the_four_suits(players, letter):
    r = PLAYERS[players]
    state = match_on(r, 1, [list(r.deck)])
    assert state.legal_actions() == (0, 1, 2, 3)
    state.apply(suit(letter))
    assert state.trump == suit(letter)
    assert all(state.view(s).trump == suit(letter) for s in range(players))
    decision = events_of(state, "decision")[-1]
    assert decision == {"type": "decision", "round": 1, "seat": 1, "kind": "TRUMP", "action": letter}


@pytest.mark.parametrize("bad", [4, -1, "S", True, None, 1.0])
def test_a_trump_that_is_not_a_suit_index_is_rejected(bad):
    state = match_on(PLAYERS[4], 0, [list(range(52))])
    with pytest.raises(IllegalAction, match="seat 0 named trump"):
        state.apply(bad)
    assert (state.kind, state.trump) == ("TRUMP", None)


# -- redeal (max_redeals) ---------------------------------------------------------

# Other seat orders of the suits, for decks that must differ from SUIT_PER_SEAT.
HEARTS_TO_SEAT_0 = [whole_suit(s) for s in "HDCS"]
CLUBS_TO_SEAT_0 = [whole_suit(s) for s in "CSHD"]


@pytest.mark.parametrize(
    "first_five, offered",
    [
        ("2S 3S 4S 5S 10S", True),  # no ace, king, queen or jack (a ten does not count)
        ("JS 2S 3S 4S 5S", False),
        ("QS 2S 3S 4S 5S", False),
        ("KS 2S 3S 4S 5S", False),
        ("AS 2S 3S 4S 5S", False),
    ],
)
def test_redeal_is_offered_only_when_the_hakems_five_hold_no_picture_or_ace(first_five, offered):
    r = rules(max_redeals=1)
    rest = [c for c in whole_suit("S").split() if c not in first_five.split()]
    hands = [first_five + " " + " ".join(rest), *SUIT_PER_SEAT[1:]]
    state = match_on(r, 0, [deck(r, 0, hands)])
    assert state.to_act == 0
    if offered:
        assert state.kind == "REDEAL" and state.legal_actions() == (False, True)
    else:
        assert state.kind == "TRUMP"


def test_no_redeal_when_max_redeals_is_zero():
    state = match_on(rules(max_redeals=0), 0, [deck(rules(), 0, SUIT_PER_SEAT)])
    assert state.hands[0] == hand("2S 3S 4S 5S 6S")  # eligible, but the variant is off
    assert state.kind == "TRUMP"


def test_redeal_shows_the_five_deals_a_new_deck_and_keeps_the_hakem():
    r = rules(max_redeals=1)
    first, second = deck(r, 0, SUIT_PER_SEAT), deck(r, 0, HEARTS_TO_SEAT_0)
    state = match_on(r, 0, [first, second])
    # While deciding, the hakem sees only its five, like everyone else.
    assert state.view(0).cards_seen() == set(cards("2S 3S 4S 5S 6S"))
    state.apply(True)
    # A new deal event, same round and hakem, with the second deck.
    deals = events_of(state, "deal")
    assert len(deals) == 2
    assert deals[1] == {"type": "deal", "round": 1, "hakem": 0, "deck": spelled(second)}
    assert state.hakem == 0 and state.round == 1
    assert state.hands[0] == hand("2H 3H 4H 5H 6H")
    # The shown five are public: in every seat's view.
    for seat in range(4):
        assert state.view(seat).redeals == ((0, tuple(hand("2S 3S 4S 5S 6S"))),)
        assert set(cards("2S 3S 4S 5S 6S")) <= state.view(seat).cards_seen()
    # 2H-6H are eligible too, but one redeal is the limit: trump now.
    assert (state.kind, state.to_act) == ("TRUMP", 0)


def test_max_redeals_two_allows_two_redeals_in_a_round():
    r = rules(max_redeals=2)
    decks = [deck(r, 0, d) for d in (SUIT_PER_SEAT, HEARTS_TO_SEAT_0, CLUBS_TO_SEAT_0)]
    state = match_on(r, 0, decks)
    state.apply(True)
    assert state.kind == "REDEAL"  # 2H-6H: eligible, 1 redeal of 2 so far
    state.apply(True)
    assert state.kind == "TRUMP"  # 2C-6C: eligible, but 2 redeals happened
    assert state.hands[0] == hand("2C 3C 4C 5C 6C")
    assert state.view(2).redeals == (
        (0, tuple(hand("2S 3S 4S 5S 6S"))),
        (0, tuple(hand("2H 3H 4H 5H 6H"))),
    )
    assert len(events_of(state, "deal")) == 3


def test_declining_a_redeal_goes_to_trump_with_the_same_cards():
    r = rules(max_redeals=1)
    state = match_on(r, 0, [deck(r, 0, SUIT_PER_SEAT)])
    state.apply(False)
    assert (state.kind, state.to_act) == ("TRUMP", 0)
    assert state.hands[0] == hand("2S 3S 4S 5S 6S")
    assert len(events_of(state, "deal")) == 1
    assert state.view(1).redeals == ()


def test_redeal_limit_counts_per_round():
    r = rules(max_redeals=1)
    # Round 1: eligible, redeal; the new deck gives seat 0 all spades (2S-6S first, still
    # eligible but the limit is reached). Seat 0 names spades and, holding every trump,
    # wins every trick: a kot, and the hakem stays. Round 2's five are eligible again.
    decks = [
        deck(r, 0, HEARTS_TO_SEAT_0),
        deck(r, 0, SUIT_PER_SEAT),
        deck(r, 0, CLUBS_TO_SEAT_0),
    ]
    state = match_on(r, 0, decks)
    state.apply(True)
    assert state.kind == "TRUMP"
    state.apply(suit("S"))
    play_round_out(state)
    assert (state.round, state.hakem) == (2, 0)
    assert (state.kind, state.to_act) == ("REDEAL", 0)
    assert state.view(0).redeals == ()  # shown cards of round 1 are not carried over


@pytest.mark.parametrize("bad", [1, 0, "yes", None])
def test_a_redeal_answer_must_be_a_bool(bad):
    r = rules(max_redeals=1)
    state = match_on(r, 0, [deck(r, 0, SUIT_PER_SEAT)])
    with pytest.raises(IllegalAction, match="REDEAL"):
        state.apply(bad)
    assert state.kind == "REDEAL"


# -- a board's dealer: the same hands to the same seats whoever deals --------------------------


@pytest.mark.parametrize("players", [4, 3, 2])
def test_a_deck_laid_out_by_seat_deals_each_seat_what_seat_0_dealing_would(players):
    from waraq.referee.games.dealers import SeededDealer
    from waraq.referee.games.hokm.dealing import by_seat, deal_order

    table = PLAYERS[players]

    def dealt(deck, hakem):  # seat -> its cards, in the order it receives them
        order = deal_order(table, hakem)
        return {s: [c for c, to in zip(deck, order, strict=True) if to == s] for s in range(players)}

    for seed in range(20):
        plain = SeededDealer(seed).deck(0, table.deck)
        for hakem in range(players):
            laid = by_seat(table, plain, hakem)
            assert sorted(laid) == sorted(plain)  # a rearrangement of the same deck
            assert dealt(laid, hakem) == dealt(plain, 0)
            if players == 2:  # the stock, after the two packets, stays as it lies
                assert laid[10:] == plain[10:]


def test_the_seat_dealer_gives_each_seat_its_hand_whoever_the_ace_draw_makes_hakem():
    from waraq.referee.games.dealers import SeatDealer, SeededDealer
    from waraq.referee.games.hokm.dealing import deal_order

    table = PLAYERS[4]
    hakems = set()
    for seed in range(12):
        state = new_match(table, seed, SeatDealer(seed))
        hakems.add(state.hakem)
        plain = SeededDealer(seed).deck(0, table.deck)
        assert deal_order(table, 0)[:20] == [s for s in range(4) for _ in range(5)]  # 5 a seat, from seat 0
        for seat in range(4):
            assert state.hands[seat] == sorted(plain[5 * seat : 5 * seat + 5])
        # The seeded dealer's own deal is unchanged: it deals from the hakem, as it always did.
        assert new_match(table, seed).hands == new_match(table, seed, SeededDealer(seed)).hands
    assert len(hakems) > 1  # the ace draw chose different hakems, and each seat kept its cards

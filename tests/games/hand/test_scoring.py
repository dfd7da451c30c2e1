"""How Hand rounds end and score, and how a match runs (docs/rules.md "## Hand": Deal,
Stock exhausted, End of round, Match; hand_spec "Deal", "Scoring", "Record
events"), on hand-worked deals: -30 for going out, the hand charged to a seat that
opened, 100 for never opening, the doubled "hand" finish, partnerships, five
rounds and ties, the first player moving on, the deal's order, the stock rebuilt
from the pile, the void round and the safety net.

Every expected score is worked out in a comment from the cards dealt.
"""

from __future__ import annotations

import json
import random

import pytest

from tests.support.hand_setup import (
    add,
    assert_fields,
    card,
    deal,
    decisions,
    events_of,
    last,
    loose,
    match_on,
    meld,
    names,
    pass_turn,
    rules,
    stack_deck,
    swap,
    turn,
)
from waraq.referee.games.hand.decisions import STOCK, TAKE, TURN
from waraq.referee.games.hand.engine import ReplayError, new_match, replay

# -- a round with every kind of charge ---------------------------------------------------
#
# Seat 0 (first) opens with 2S..9S (44) and QH QD QC (30), discards 9C and keeps
# 10S JS 4D. Seat 1 has no use for 9C, draws 4C, opens with 5H..10H (45) and
# 3H 3D 3C (9) and discards 7D: it keeps AC 2D KS#1 5C 4C, 11+2+10+5+4 = 32.
# Seat 2 (and seat 3) hold loose hands: they draw 6C (AD) and discard it. Seat 0
# has no use for it, draws QS, adds 10S JS QS to its run and goes out on 4D.

SCORER = [
    "2S 3S 4S 5S 6S 7S 8S 9S QH QD QC 10S JS 4D 9C",
    "5H 6H 7H 8H 9H 10H 3H 3D 3C AC 2D KS#1 5C 7D",
    loose(1, 0),
    loose(1, 1),
]


def play_scorer(**keys):
    rules_ = rules(rounds=1, **keys)
    n = rules_.players
    stock = "4C 6C QS" if n == 3 else "4C 6C AD QS"
    state = deal(rules_, 0, SCORER[:n], stock=stock)
    state.apply(turn(meld("2S 3S 4S 5S 6S 7S 8S 9S"), meld("QH QD QC"), discard="9C"))
    assert (state.kind, state.to_act, state.drawn) == (TURN, 1, card("4C"))
    state.apply(turn(meld("5H 6H 7H 8H 9H 10H"), meld("3H 3D 3C"), discard="7D"))
    for seat in range(2, n):
        assert (state.kind, state.to_act) == (TURN, seat)
        state.apply(turn(discard=names([state.drawn])[0]))
    assert (state.kind, state.to_act, state.drawn) == (TURN, 0, card("QS"))
    state.apply(turn(add(0, "10S JS QS", "high"), discard="4D"))
    return state


def test_out_opened_and_never_opened_three_players():
    state = play_scorer(players=3)
    assert_fields(
        last(state, "round_end"),
        round=1,
        out=0,
        hand=False,
        charges=[-30, 32, 100],
        points=[-30, 32, 100],
        score=[-30, 32, 100],
    )
    assert_fields(last(state, "result"), score=[-30, 32, 100], winners=[0], reason="score")
    assert state.is_over and state.kind is None and state.to_act is None
    assert state.legal_actions() == ()
    assert state.result.winners == (0,) and state.result.reason == "score"
    assert tuple(state.result.score) == (-30, 32, 100)


def test_four_players_each_for_himself():
    state = play_scorer(players=4)
    assert_fields(last(state, "round_end"), charges=[-30, 32, 100, 100], points=[-30, 32, 100, 100])


def test_partnership_scoring():
    # Team 0 (seats 0, 2) went out: -30, the partner charged 0. Team 1: seat 1's 32
    # and seat 3's 100 for never opening.
    state = play_scorer(players=4, partnership=True)
    assert_fields(
        last(state, "round_end"),
        out=0,
        hand=False,
        charges=[-30, 32, 0, 100],
        points=[-30, 132],
        score=[-30, 132],
    )
    assert_fields(last(state, "result"), score=[-30, 132], winners=[0, 2], reason="score")
    assert state.team_of(2) == 0 and state.team_of(3) == 1
    assert tuple(state.team_seats(1)) == (1, 3)


# -- the hand finish --------------------------------------------------------------------

# 15 cards that go out at once: A..7 of spades (38), three kings (30), 8-J of
# diamonds (37), and the QD to discard.
HAND15 = "AS 2S 3S 4S 5S 6S 7S KH KD KC 8D 9D 10D JD QD"


def hand_turn():
    return turn(meld("AS 2S 3S 4S 5S 6S 7S"), meld("KH KD KC"), meld("8D 9D 10D JD"), discard="QD")


def instant(rules_, first: int) -> list[int]:
    """A deck on which ``first`` goes out on the round's first turn (``hand_turn``);
    the other seats never act, so any cards do for them."""
    n = rules_.players
    hands: list[list[int]] = [[] for _ in range(n)]
    hands[first] = parse(HAND15)
    rest = [c for c in range(106) if c not in hands[first]]
    for k, seat in enumerate(s for s in range(n) if s != first):
        hands[seat] = rest[14 * k : 14 * k + 14]
    return stack_deck(rules_, first, hands)


def parse(text: str) -> list[int]:
    return [card(n) for n in text.split()]


def test_a_hand_finish_doubles_every_score():
    state = match_on(rules(players=2, rounds=1), 0, [instant(rules(players=2, rounds=1), 0)])
    state.apply(hand_turn())
    # Seat 0 went out having laid nothing before: -60; seat 1 never opened: 2 x 100.
    assert_fields(last(state, "round_end"), round=1, out=0, hand=True, charges=[-60, 200], points=[-60, 200])
    assert_fields(last(state, "result"), score=[-60, 200], winners=[0], reason="score")


def test_a_hand_finish_in_partnership():
    r = rules(partnership=True, rounds=1)
    state = match_on(r, 0, [instant(r, 0)])
    state.apply(hand_turn())
    assert_fields(last(state, "round_end"), hand=True, charges=[-60, 200, 0, 200], points=[-60, 400])


# Two players: seat 0 opens (2S..9S, QH QD QC), keeps 10S JS JK (10+10+15 = 35) and
# discards 9C; seat 1 has no use for it, draws 2D and lays everything at once:
# 5H..10H (45), 3S 3H 3D (9), KS KH KD (30), then adds two more cards and discards
# the 2D.
OPENED_0 = "2S 3S 4S 5S 6S 7S 8S 9S QH QD QC 10S JS JK 9C"


def out_in_one_turn(seat1: str, adds) -> dict:
    state = deal(rules(players=2, rounds=1), 0, [OPENED_0, seat1], stock="2D")
    state.apply(turn(meld("2S 3S 4S 5S 6S 7S 8S 9S"), meld("QH QD QC"), discard="9C"))
    assert (state.kind, state.to_act, state.drawn) == (TURN, 1, card("2D"))
    state.apply(turn(meld("5H 6H 7H 8H 9H 10H"), meld("3S#1 3H 3D"), meld("KS KH KD"), *adds, discard="2D"))
    assert state.is_over
    return last(state, "round_end")


def test_adding_to_another_seats_meld_is_not_a_hand():
    # AS#1 and 10S#1 go on seat 0's run: seat 1 goes out, -30; seat 0 pays its 35.
    ended = out_in_one_turn(
        "5H 6H 7H 8H 9H 10H 3S#1 3H 3D KS KH KD AS#1 10S#1",
        [add(0, "AS#1", "low"), add(0, "10S#1", "high")],
    )
    assert_fields(ended, out=1, hand=False, charges=[35, -30], points=[35, -30])


def test_adding_to_its_own_melds_of_the_turn_is_still_a_hand():
    # 4H and JH go on its own 5H..10H: a hand, -60, and seat 0's 35 doubled.
    ended = out_in_one_turn(
        "5H 6H 7H 8H 9H 10H 3S#1 3H 3D KS KH KD 4H JH",
        [add(2, "4H", "low"), add(2, "JH", "high")],
    )
    assert_fields(ended, out=1, hand=True, charges=[70, -60], points=[70, -60])


def test_a_joker_won_from_another_seats_meld_is_not_a_hand():
    # Seat 0 opens with 5H 6H JK 8H (26) and 9S 9H 9D (27), keeps 2C 4C 6C 8C QS 3H 10D
    # (2+4+6+8+10+3+10 = 43) and discards KD. Seat 1 draws 9C#1, opens with 10-K of
    # clubs (40), 2 3 4 of diamonds (9) and three aces (33), wins the joker with 7H#1,
    # lays it in JK 5S 6S 7S and discards the 9C#1: out in one turn, but having
    # touched seat 0's meld, so no hand.
    seat0 = "5H 6H JK 8H 9S 9H 9D 2C 4C 6C 8C QS 3H 10D KD"
    seat1 = "10C JC QC KC 2D 3D 4D AS#1 AH#1 AC#1 7H#1 5S 6S 7S"
    state = deal(rules(players=2, rounds=1), 0, [seat0, seat1], stock="9C#1")
    state.apply(turn(meld("5H 6H JK 8H"), meld("9S 9H 9D"), discard="KD"))
    # KD is offered (opened without it by 2 3 4 of diamonds, the aces and 5 6 7 of
    # spades, 60, 7H#1 wins the joker for KD KC JK: test_hand_discard_uses.py); seat 1
    # draws instead.
    state.apply(STOCK)
    assert (state.kind, state.to_act, state.drawn) == (TURN, 1, card("9C#1"))
    state.apply(
        turn(
            meld("10C JC QC KC"),
            meld("2D 3D 4D"),
            meld("AS#1 AH#1 AC#1"),
            swap(0, "7H#1"),
            meld("JK 5S 6S 7S"),
            discard="9C#1",
        )
    )
    assert_fields(last(state, "round_end"), out=1, hand=False, charges=[43, -30])


# -- rounds, the first player and the match's end -----------------------------------------


def play_instant_match(rules_, first: int) -> object:
    """A match in which every round's first player goes out at once."""
    n = rules_.players
    state = match_on(rules_, first, [instant(rules_, (first + r) % n) for r in range(rules_.rounds)])
    for r in range(rules_.rounds):
        assert (state.round, state.kind, state.to_act) == (r + 1, TURN, (first + r) % n)
        state.apply(hand_turn())
    assert state.is_over
    return state


def test_five_rounds_and_the_first_player_moves_on():
    # Seat 0 goes out in rounds 1, 3, 5 (-60, 200 to seat 1), seat 1 in rounds 2, 4.
    state = play_instant_match(rules(players=2), 0)
    assert [e["first"] for e in events_of(state, "deal")] == [0, 1, 0, 1, 0]
    assert [e["round"] for e in events_of(state, "deal")] == [1, 2, 3, 4, 5]
    assert [e["score"] for e in events_of(state, "round_end")] == [
        [-60, 200],
        [140, 140],
        [80, 340],
        [280, 280],
        [220, 480],
    ]
    assert_fields(last(state, "result"), score=[220, 480], winners=[0], reason="score")
    assert state.events[-1]["type"] == "result"


def test_the_first_player_rotates_from_the_first_of_the_match():
    state = play_instant_match(rules(players=3, rounds=4), 1)
    assert [e["first"] for e in events_of(state, "deal")] == [1, 2, 0, 1]


def test_a_tie_for_the_lowest_total_makes_every_tied_seat_a_winner():
    # 2 players, 4 rounds: 280 each.
    state = play_instant_match(rules(players=2, rounds=4), 0)
    assert_fields(last(state, "result"), score=[280, 280], winners=[0, 1], reason="score")
    # 3 players, 2 rounds: -60+200, 200-60, 200+200.
    state = play_instant_match(rules(players=3, rounds=2), 0)
    assert_fields(last(state, "result"), score=[140, 140, 400], winners=[0, 1], reason="score")


def test_a_tie_between_partnerships():
    # Round 1: team 0 goes out on a hand, -60 / 400; round 2 team 1: 340 each.
    state = play_instant_match(rules(partnership=True, rounds=2), 0)
    assert_fields(last(state, "result"), score=[340, 340], winners=[0, 1, 2, 3], reason="score")


# -- the deal -------------------------------------------------------------------------


@pytest.mark.parametrize("players, partnership", [(2, False), (3, False), (4, False), (4, True)])
@pytest.mark.parametrize("seed", [0, 7, "abc"])
def test_a_seeded_deal_follows_the_spec(players, partnership, seed):
    r = rules(players=players, partnership=partnership)
    state = new_match(r, seed)
    first = random.Random(f"waraq/{seed}/first").randrange(players)
    deck = list(range(106))
    random.Random(f"waraq/{seed}/deck/0").shuffle(deck)
    (dealt,) = events_of(state, "deal")
    assert dealt == {"type": "deal", "round": 1, "first": first, "deck": names(deck)}
    # One card at a time in play order from the first player, 14 each, then one more
    # to the first player; the rest is the stock, its top next.
    n = players
    for seat in range(n):
        mine = [deck[i] for i in range(14 * n) if (first + i) % n == seat]
        if seat == first:
            mine.append(deck[14 * n])
        assert sorted(state.hands[seat]) == sorted(mine)
    assert list(state.stock) == deck[14 * n + 1 :]
    assert state.pile == [] and state.table == []
    assert (state.round, state.first, state.kind, state.to_act) == (1, first, TURN, first)
    assert state.view(first).stock_size == 106 - 14 * n - 1


def test_stack_deck_deals_each_seat_its_hand_and_the_stock_from_its_top():
    r = rules(players=3)
    hands = [parse(loose(1, 0)), parse(HAND15), parse(loose(1, 1))]
    deck = stack_deck(r, 1, hands, parse("JK 7C"))
    assert sorted(deck) == list(range(106))
    # With seat 1 first: deck[0] to seat 1, deck[1] to seat 2, deck[2] to seat 0...
    # and deck[42] to seat 1 (15 cards); the stock starts at deck[43].
    assert deck[43:45] == parse("JK 7C")
    assert deck[42] in hands[1]
    for i in range(42):
        assert deck[i] in hands[(1 + i) % 3]
    state = match_on(r, 1, [deck])
    assert [sorted(h) for h in state.hands] == [sorted(h) for h in hands]


# -- the stock rebuilt from the pile -------------------------------------------------------


def test_the_stock_is_rebuilt_from_the_pile_keeping_its_top():
    # Nobody melds: each seat draws and discards what it drew. 2 players leave a
    # stock of 106 - 29 = 77 cards, so the 78th turn needs a draw from an empty stock.
    seed = 11
    state = new_match(rules(players=2), seed)
    turns = 0
    while not events_of(state, "restock"):
        pile_before = list(state.pile)
        pass_turn(state)
        turns += 1
    assert turns == 78
    (restock,) = events_of(state, "restock")
    # The pile as it was after the 78th discard: the one before plus that discard.
    pile = pile_before + [card(events_of(state, "decision")[-1]["action"]["discard"])]
    assert len(pile) == 78
    expected = pile[:-1]
    random.Random(f"waraq/{seed}/restock/0/0").shuffle(expected)
    assert restock == {"type": "restock", "round": 1, "stock": names(expected)}
    assert state.pile == [pile[-1]]
    if state.kind == TAKE:  # the kept top may have a use for the seat to act
        assert list(state.stock) == expected
    else:
        assert state.drawn == expected[0] and list(state.stock) == expected[1:]


def test_a_replay_takes_the_restock_from_the_record():
    state = new_match(rules(players=2), 11)
    while not events_of(state, "restock"):
        pass_turn(state)
    pass_turn(state)
    assert replay(state.rules, [dict(e) for e in state.events]).events == state.events
    # A record with another order replays that order: the replay never needs the generator.
    events = [dict(e) for e in state.events]
    i = next(i for i, e in enumerate(events) if e["type"] == "restock")
    events[i]["stock"] = list(reversed(events[i]["stock"]))
    changed = replay(state.rules, events[: i + 1])
    new_stock = ([] if changed.kind == TAKE else [changed.drawn]) + list(changed.stock)
    assert names(new_stock) == events[i]["stock"]


# -- the void round -------------------------------------------------------------------------
#
# In play the void round cannot happen: every turn but the round's first draws one
# card and discards one, so hands + table keep 14 n cards and pile + stock the other
# 106 - 14 n (50 or more; tests/games/hand/test_properties.py checks it at every decision).
# When the stock runs out, the pile holds all of them. So these tests build the
# position by hand: the stock is moved into a hand (every card still once somewhere).


def empty_the_stock(state) -> None:
    """Move the whole stock into the hand of the seat after the one to act."""
    other = (state.to_act + 1) % state.players
    state.hands[other] = sorted(state.hands[other] + state.stock)
    state.stock = []


def test_a_void_round_when_the_pile_has_nothing_under_its_top():
    r = rules(players=2, rounds=2)
    state = match_on(r, 0, [instant(r, 0), instant(r, 0), instant(r, 1)])
    empty_the_stock(state)
    state.apply(turn(discard="QD"))  # seat 1 needs a draw: no stock, one card in the pile
    void = events_of(state, "round_end")[-1]
    assert void == {
        "type": "round_end",
        "round": 1,
        "void": True,
        "out": None,
        "hand": False,
        "charges": [0, 0],
        "points": [0, 0],
        "score": [0, 0],
    }
    # Dealt again: the same round, the same first player, the next deck.
    redeal = events_of(state, "deal")[-1]
    assert (redeal["round"], redeal["first"]) == (1, 0)
    assert [card(n) for n in redeal["deck"]] == instant(r, 0)
    assert (state.round, state.to_act, state.kind, state.pile) == (1, 0, TURN, [])
    state.apply(hand_turn())
    assert_fields(last(state, "round_end"), round=1, out=0, hand=True, charges=[-60, 200])
    assert [e["round"] for e in events_of(state, "deal")] == [1, 1, 2]


def test_twenty_void_deals_in_a_row_abort_the_match():
    r = rules(players=2, rounds=2)
    state = match_on(r, 0, [instant(r, 0)] * 20)
    for _ in range(20):
        empty_the_stock(state)
        state.apply(turn(discard="QD"))
    assert len(events_of(state, "round_end")) == 20
    assert_fields(last(state, "result"), score=[0, 0], winners=[], reason="aborted")
    assert state.is_over


# -- the safety net -------------------------------------------------------------------------


def test_a_round_of_1000_turns_ends_the_match_aborted_with_the_scores_so_far():
    r = rules(players=2, rounds=3)
    state = match_on(r, 0, [instant(r, 0)])
    state.apply(hand_turn())  # round 1: -60 / 200
    assert state.round == 2
    while not state.is_over:
        pass_turn(state)
    turns = [d for d in events_of(state, "decision") if d["round"] == 2 and d["kind"] == "TURN"]
    assert len(turns) == 1000
    assert_fields(last(state, "result"), score=[-60, 200], winners=[], reason="aborted")
    assert state.result.reason == "aborted" and tuple(state.result.winners) == ()
    assert len(events_of(state, "restock")) >= 10


# -- the record -------------------------------------------------------------------------


def test_the_record_of_a_hand_worked_round():
    state = play_scorer(players=3)
    assert [e["type"] for e in state.events] == ["deal"] + ["decision"] * 4 + ["round_end", "result"]
    # No TAKE was asked (nobody had a use for the discard): the draws are not in the record.
    assert decisions(state) == [
        (
            0,
            "TURN",
            {
                "steps": [
                    {"meld": ["2S#0", "3S#0", "4S#0", "5S#0", "6S#0", "7S#0", "8S#0", "9S#0"]},
                    {"meld": ["QH#0", "QD#0", "QC#0"]},
                ],
                "discard": "9C#0",
            },
        ),
        (
            1,
            "TURN",
            {
                "steps": [
                    {"meld": ["5H#0", "6H#0", "7H#0", "8H#0", "9H#0", "10H#0"]},
                    {"meld": ["3H#0", "3D#0", "3C#0"]},
                ],
                "discard": "7D#0",
            },
        ),
        (2, "TURN", {"steps": [], "discard": "6C#0"}),
        (0, "TURN", {"steps": [{"add": 0, "cards": ["10S#0", "JS#0", "QS#0"], "at": "high"}], "discard": "4D#0"}),
    ]
    assert all(e["round"] == 1 for e in events_of(state, "decision"))
    assert state.events[-1] == {"type": "result", "score": [-30, 32, 100], "winners": [0], "reason": "score"}


def test_a_record_replays_and_a_tampered_one_is_refused():
    state = play_scorer(players=3)
    events = json.loads(json.dumps(state.events))
    again = replay(state.rules, events)
    assert again.events == state.events and again.result == state.result
    # A turn the rules refuse: seat 2 discards a card it does not hold (seat 1's AC).
    bad = json.loads(json.dumps(events))
    bad[3]["action"]["discard"] = "AC#0"
    with pytest.raises(ReplayError, match="AC#0"):
        replay(state.rules, bad)
    # Other charges than the rules give.
    bad = json.loads(json.dumps(events))
    bad[-2]["charges"] = [-30, 31, 100]
    with pytest.raises(ReplayError, match="charges"):
        replay(state.rules, bad)
    # Another deck: the recorded turns are no longer possible.
    bad = json.loads(json.dumps(events))
    bad[0]["deck"] = list(reversed(bad[0]["deck"]))
    with pytest.raises(ReplayError):
        replay(state.rules, bad)

"""The DDS binding (waraq.bots.double_dummy) against hand-worked positions and a brute-force solver.

The binding's risk is in its encodings (suits, seats, ranks, the cards on
the table, the ``equals`` bits of cards DDS lists once for several), so every
case here is checked card by card: against deals worked by hand, and against
a plain minimax written here from the rules (follow suit, a trump beats the
led suit, the winner leads) over random endings of real rounds.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import cache

from tests.support.hokm_setup import cards
from waraq.bots import double_dummy

SPADES, HEARTS = 0, 1


def test_a_ruff_and_a_lead_the_others_cannot_follow_leave_the_leader_no_trick() -> None:
    # Spades trump. North leads from AH KH; East, void in hearts, ruffs with 2S and leads 2D, the
    # only diamond, which nobody can beat: both tricks to East-West whichever heart North leads.
    hands = [cards("AH KH"), cards("2S 2D"), cards("3H 4H"), cards("5H 6H")]
    assert double_dummy.tricks_by_card(SPADES, 0, [], hands) == {c: 0 for c in cards("AH KH")}
    assert double_dummy.reaching(SPADES, 0, [], hands, 1) == frozenset()


def test_cards_on_the_table_count_and_equal_cards_are_each_listed() -> None:
    # Hearts trump. West led QS and North played 2S; East, to play, must follow with AS or KS (one
    # card to DDS, the other in its equals bits), and either takes the trick. East then cashes its
    # other spade (North, out of spades and trumps, throws a club) and leads 3C, which North's 7C
    # takes: 2 of the 3 tricks for East-West whichever spade East plays now.
    hands = [cards("6C 7C"), cards("AS KS 3C"), cards("4C 8S 9S"), cards("5C 7S")]
    trick = cards("QS 2S")
    spades = cards("AS KS")
    assert double_dummy.tricks_by_card(HEARTS, 3, trick, hands) == {c: 2 for c in spades}
    assert double_dummy.reaching(HEARTS, 3, trick, hands, 2) == frozenset(spades)
    assert double_dummy.reaching(HEARTS, 3, trick, hands, 3) == frozenset()
    assert brute_tricks(HEARTS, 3, trick, hands) == 2  # the minimax below agrees with the hand-worked count


def brute_tricks(trump: int | None, leader: int, trick: Sequence[int], hands: Sequence[Sequence[int]]) -> int:
    """The most tricks the side of the seat to play can take of those left, by plain minimax."""
    frozen = tuple(tuple(sorted(h)) for h in hands)
    return _best(trump, leader, tuple(trick), frozen)


@cache
def _best(trump: int | None, leader: int, trick: tuple[int, ...], hands: tuple[tuple[int, ...], ...]) -> int:
    seat = (leader + len(trick)) % 4
    if not hands[seat]:
        return 0
    values = [_after(trump, leader, trick, hands, seat, card) for card in _legal(hands[seat], trick)]
    return max(values)


def _after(
    trump: int | None, leader: int, trick: tuple[int, ...], hands: tuple[tuple[int, ...], ...], seat: int, card: int
) -> int:
    """Tricks for ``seat``'s side once it plays ``card``."""
    rest = tuple(tuple(c for c in h if c != card) if s == seat else h for s, h in enumerate(hands))
    played = (*trick, card)
    if len(played) < 4:  # the next seat is an opponent: what it leaves us
        left = sum(len(h) for h in rest) // 4 + 1
        return left - _best(trump, leader, played, rest)
    winner = (leader + _winner(played, trump)) % 4
    ours = 1 if winner % 2 == seat % 2 else 0
    later = _best(trump, winner, (), rest)
    return ours + (later if winner % 2 == seat % 2 else sum(len(h) for h in rest) // 4 - later)


def _legal(hand: tuple[int, ...], trick: tuple[int, ...]) -> list[int]:
    if trick:
        following = [c for c in hand if c // 13 == trick[0] // 13]
        if following:
            return following
    return list(hand)


def _winner(trick: Sequence[int], trump: int | None) -> int:
    def strength(card: int) -> int:
        if card // 13 == trump:
            return 200 + card % 13
        return 100 + card % 13 if card // 13 == trick[0] // 13 else card % 13

    return max(range(len(trick)), key=lambda i: strength(trick[i]))


def test_every_legal_card_of_random_endings_takes_what_brute_force_says() -> None:
    """Random endings: 2 or 3 cards a hand from a shuffled deck, any trump or none, any leader, and
    0 to 3 cards already on the table, each a legal card of the seat that played it."""
    rng = random.Random(16)
    checked = 0
    for _ in range(300):
        size = rng.choice((2, 3))
        deck = rng.sample(range(52), 4 * size)
        hands = [sorted(deck[size * s : size * (s + 1)]) for s in range(4)]
        trump = rng.choice((0, 1, 2, 3, None))
        leader = rng.randrange(4)
        trick: list[int] = []
        for k in range(rng.randrange(4)):
            hand = hands[(leader + k) % 4]
            card = rng.choice(_legal(tuple(hand), tuple(trick)))
            hand.remove(card)
            trick.append(card)
        seat = (leader + len(trick)) % 4
        values = double_dummy.tricks_by_card(trump, leader, trick, hands)
        assert set(values) == set(_legal(tuple(hands[seat]), tuple(trick)))
        before = tuple(tuple(h) for h in hands)
        for card, tricks in values.items():
            assert tricks == _after(trump, leader, tuple(trick), before, seat, card), (
                trump,
                leader,
                trick,
                hands,
                card,
            )
            need = rng.randint(1, size)
            assert (card in double_dummy.reaching(trump, leader, trick, hands, need)) == (tricks >= need)
            checked += 1
    assert checked > 400

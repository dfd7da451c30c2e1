"""Hand's melds (docs/rules.md "Melds", "Opening", "Joker swap"; hand_spec "Meld search"),
checked one function at a time on hand-worked cards: what a run and a set are, where
a joker stands, what melds are worth, what a card in hand is charged, adding to a
meld, the best opening (a real search, not a greedy guess) and the uses of a
discard. The searches are also compared with brute force over small random hands
(``tests/support/hand_melds_reference.py`` knows nothing of the engine)."""

from __future__ import annotations

import random
from itertools import combinations

import pytest

from tests.support import hand_melds_reference as ref
from tests.support.hand_setup import card, cards
from tests.support.hand_setup import charge as charge_by_rules
from waraq.referee.games.hand.discard import discard_uses, has_discard_use
from waraq.referee.games.hand.meld_search import best_opening
from waraq.referee.games.hand.melds import (
    Add,
    Meld,
    MeldError,
    Swap,
    TableMeld,
    charge,
    check_add,
    check_meld,
    meld_value,
)


def face(name: str) -> int:
    return card(name) % 53


def run(text: str, owner: int = 0) -> TableMeld:
    """A run on the table as the engine stores it (ascending, joker in place)."""
    kind, ordered, joker_as = check_meld(cards(text))
    assert kind == "run"
    return TableMeld(owner, kind, tuple(ordered), joker_as)


def a_set(text: str, owner: int = 0) -> TableMeld:
    kind, ordered, joker_as = check_meld(cards(text))
    assert kind == "set"
    return TableMeld(owner, kind, tuple(ordered), joker_as)


def refused(cards_text: str) -> str:
    with pytest.raises(MeldError) as error:
        check_meld(cards(cards_text))
    return str(error.value)


# -- runs ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "5H 6H 7H",
        "AH 2H 3H",  # ace low
        "QH KH AH",  # ace high
        "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS",  # 13 cards, ace low
        "2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS",  # 13 cards, ace high
        "5H#1 6H 7H#1",  # copies mix freely
    ],
)
def test_runs(text):
    kind, ordered, joker_as = check_meld(cards(text))
    assert (kind, tuple(ordered), joker_as) == ("run", tuple(cards(text)), None)


@pytest.mark.parametrize(
    "text, why",
    [
        ("KH AH 2H", "wrap"),  # docs/rules.md: K A 2 is not a run
        ("QH KH AH 2H", "wrap"),
        ("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS#1", ""),  # the ace low and high at once
        ("5H 6H", ""),  # a meld is 3 or more cards
        ("5H 6H 7S", ""),  # one suit
        ("5H 7H 8H", ""),  # consecutive
        ("5H 6H 6H#1 7H", ""),  # a rank twice
        ("7H 6H 5H", ""),  # a run is given ascending
    ],
)
def test_not_runs(text, why):
    message = refused(text)
    assert why in message.lower()


def test_a_second_joker_is_refused():
    # docs/rules.md: at most one joker per meld.
    assert "joker" in refused("5H JK JK#1").lower()
    assert "joker" in refused("5H JK 7H JK#1 9H").lower()
    assert "joker" in refused("9S 9H JK JK#1").lower()


@pytest.mark.parametrize(
    "text, stands_for",
    [
        ("5H JK 7H", "6H"),
        ("JK 2H 3H", "AH"),  # hand_spec: the joker at the position it stands for
        ("QH KH JK", "AH"),
        ("JK QH KH", "JH"),
        ("5H 6H 7H JK", "8H"),
        ("JK 5H 6H 7H", "4H"),
        ("AS JK 3S", "2S"),
    ],
)
def test_a_joker_stands_where_it_is_put_in_a_run(text, stands_for):
    kind, ordered, joker_as = check_meld(cards(text))
    assert (kind, tuple(ordered), joker_as) == ("run", tuple(cards(text)), face(stands_for))


@pytest.mark.parametrize("text", ["JK AH 2H", "KH AH JK", "JK#1 2S", "JK 5H 7H"])
def test_a_joker_cannot_stand_outside_a_run_or_in_the_wrong_place(text):
    refused(text)


# -- sets ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, stored",
    [
        ("7S 7H 7D", "7S 7H 7D"),
        ("7D 7C 7S 7H", "7S 7H 7D 7C"),  # stored by suit S H D C
        ("JK 7D 7S", "7S 7D JK"),  # the joker last
        ("7C#1 JK#1 7H 7S#1", "7S#1 7H 7C#1 JK#1"),
    ],
)
def test_sets(text, stored):
    kind, ordered, joker_as = check_meld(cards(text))
    assert (kind, tuple(ordered), joker_as) == ("set", tuple(cards(stored)), None)


@pytest.mark.parametrize(
    "text",
    [
        "7H 7H#1 7S",  # two copies of 7H: the same suit twice
        "7S 7H 7D 7C 7S#1",  # five cards
        "7S 7H 7D 7C JK",  # a joker would be a fifth card
        "7S 7H 8D",  # one rank
        "7S 7H",
    ],
)
def test_not_sets(text):
    refused(text)


# -- values and charges ---------------------------------------------------------------


@pytest.mark.parametrize(
    "text, value",
    [
        ("AH 2H 3H", 16),  # docs/rules.md: the ace 11 even in A 2 3
        ("QH KH AH", 31),
        ("JK 2H 3H", 16),  # the joker is the ace: 11
        ("2H 3H JK", 9),  # the joker is the 4: 4
        ("JK QH KH", 30),  # the joker is the jack: 10
        ("5H JK 7H", 18),
        ("10S JS QS KS", 40),
        ("7S 7H 7D", 21),
        ("KS KH JK", 30),  # in a set the joker is worth the set's rank
        ("AS AH AD AC", 44),
        ("2C 2D JK#1", 6),
    ],
)
def test_meld_values(text, value):
    assert meld_value(*check_meld(cards(text))) == value


@pytest.mark.parametrize(
    "name, value",
    [
        ("AS", 11),
        ("AH#1", 11),
        ("KD", 10),
        ("QC#1", 10),
        ("JS", 10),
        ("10H", 10),
        ("9D", 9),
        ("2C", 2),
        ("JK", 15),
        ("JK#1", 15),
    ],
)
def test_charges_in_hand(name, value):
    assert charge(card(name)) == value == charge_by_rules(card(name))


# -- adding to a meld -------------------------------------------------------------------


def cards_after(result) -> tuple[int, ...]:
    """check_add's answer, as the meld's cards (a TableMeld or its cards)."""
    got = result.cards if hasattr(result, "cards") else result[1] if isinstance(result[0], str) else result
    return tuple(got)


@pytest.mark.parametrize(
    "meld, text, at, after",
    [
        ("5H 6H 7H", "8H", "high", "5H 6H 7H 8H"),
        ("5H 6H 7H", "3H 4H", "low", "3H 4H 5H 6H 7H"),
        ("2H 3H 4H", "AH", "low", "AH 2H 3H 4H"),
        ("JH QH KH", "AH#1", "high", "JH QH KH AH#1"),
        ("5H 6H 7H", "JK", "high", "5H 6H 7H JK"),
        ("5H JK 7H", "8H 9H", "high", "5H JK 7H 8H 9H"),
    ],
)
def test_adding_to_a_run(meld, text, at, after):
    assert cards_after(check_add(run(meld), tuple(cards(text)), at)) == tuple(cards(after))


@pytest.mark.parametrize(
    "meld, text, at",
    [
        ("5H 6H 7H", "8H", "low"),  # the wrong end
        ("5H 6H 7H", "9H", "high"),  # a gap
        ("5H 6H 7H", "8S", "high"),  # another suit
        ("5H 6H 7H", "8H", None),  # a run needs an end
        ("5H 6H 7H", "8H", "middle"),
        ("QH KH AH", "2H", "high"),  # wrap
        ("2H 3H 4H", "KH AH", "low"),  # wrap
        ("5H JK 7H", "JK#1", "high"),  # a second joker
        ("5H 6H 7H", "4H 3H", "low"),  # the cards are given ascending
    ],
)
def test_refused_additions_to_a_run(meld, text, at):
    with pytest.raises(MeldError):
        check_add(run(meld), tuple(cards(text)), at)


def test_adding_to_a_set():
    assert sorted(cards_after(check_add(a_set("7S 7H 7D"), (card("7C#1"),), None))) == sorted(cards("7S 7H 7D 7C#1"))
    assert sorted(cards_after(check_add(a_set("7S 7H 7D"), (card("JK"),), None))) == sorted(cards("7S 7H 7D JK"))
    for text, at in [("7H#1", None), ("7C", "high"), ("8C", None), ("JK", None), ("7C 7C#1", None)]:
        with pytest.raises(MeldError):
            meld = a_set("7S 7H JK") if text == "JK" else a_set("7S 7H 7D")
            check_add(meld, tuple(cards(text)), at)


# -- the best opening ---------------------------------------------------------------


def check_opening(hand: list[int], value: int, melds, must=None, keep=1) -> None:
    """``melds`` are valid, disjoint, from ``hand``, worth ``value``, leave ``keep``."""
    used = [c for m in melds for c in m]
    assert len(used) == len(set(used)) and set(used) <= set(hand)
    assert len(hand) - len(used) >= keep
    faces = [tuple(c % 53 for c in m) for m in melds]
    for f in faces:  # each a meld as docs/rules.md reads it, the joker where it is put
        assert f in set(ref.readings(sorted(f))), f
    assert sum(ref.worth(f) for f in faces) == value
    if must is not None and melds:
        assert must in used


# Greedy (take the most valuable meld first) lays the four kings (40) and is left
# with nothing that melds; the best is the two runs Q K A of spades and hearts
# (31 + 31 = 62), the other kings left over. No other rank is in three suits.
KINGS = "QS KS AS QH KH AH KD KC 2C"


def test_best_opening_is_a_search_not_a_greedy_choice():
    hand = cards(KINGS)
    value, melds = best_opening(hand)
    assert value == 62
    assert sorted(sorted(m) for m in melds) == sorted(sorted(cards(t)) for t in ["QS KS AS", "QH KH AH"])
    check_opening(hand, value, melds)


def test_best_opening_with_a_card_that_must_be_in_it():
    # KC must be in: a set of three kings with KC (30) and the run of the suit whose
    # king is left (31), or the four kings alone (40): 61.
    hand = cards(KINGS)
    value, melds = best_opening(hand, must_include=card("KC"))
    assert value == 61
    check_opening(hand, value, melds, must=card("KC"))


def test_best_opening_keeps_a_card_to_discard():
    # Two runs and nothing else: laying both leaves nothing to discard.
    hand = cards("10S JS QS 10H JH QH")
    value, melds = best_opening(hand)
    assert value == 30 and len(melds) == 1
    value, melds = best_opening(hand, keep=0)
    assert value == 60 and len(melds) == 2
    value, melds = best_opening(cards("10S JS QS 10H JH QH 2C"))
    assert value == 60


def test_best_opening_places_a_joker_where_it_is_worth_most():
    # JK 2H 3H (the joker an ace, 11) is worth 16; 2H 3H JK only 9.
    value, melds = best_opening(cards("2H 3H JK 9C"))
    assert value == 16 and tuple(melds[0]) == tuple(cards("JK 2H 3H"))


def test_best_opening_of_a_hand_without_melds():
    assert best_opening(cards("2S 5S 8S 3H 6H 9H")) == (0, ())


def brute_best(hand: list[int], must: int | None = None, keep: int = 1) -> int:
    """The most valuable set of disjoint melds from ``hand`` by brute force over card
    subsets, each at its most valuable reading (tests/support/hand_melds_reference.py)."""
    worth: dict[frozenset[int], int] = {}
    for size in range(3, len(hand) + 1):
        for picked in combinations(hand, size):
            values = [ref.worth(r) for r in ref.readings([c % 53 for c in picked])]
            if values:
                worth[frozenset(picked)] = max(values)
    melds = list(worth.items())
    top = 0

    def walk(start: int, used: frozenset[int], value: int) -> None:
        nonlocal top
        if len(hand) - len(used) >= keep and (must is None or must in used):
            top = max(top, value)
        for i in range(start, len(melds)):
            m, v = melds[i]
            if not m & used:
                walk(i + 1, used | m, value + v)

    walk(0, frozenset(), 0)
    return top


def meldy_hand(rng: random.Random, size: int) -> list[int]:
    """Random cards from a few neighbouring ranks and a joker, so melds are common."""
    low = rng.randrange(0, 9)
    pool = [copy * 53 + s * 13 + r for copy in (0, 1) for s in range(4) for r in range(low, low + 5)]
    pool += [52, 105]
    return rng.sample(pool, size)


@pytest.mark.parametrize("seed", range(40))
def test_best_opening_agrees_with_brute_force(seed):
    rng = random.Random(f"best-opening/{seed}")
    hand = meldy_hand(rng, rng.randrange(6, 10))
    must = rng.choice(hand) if seed % 2 else None
    value, melds = best_opening(hand, must_include=must)
    assert value == brute_best(hand, must)
    check_opening(hand, value, melds, must)


# -- the uses of a discard -------------------------------------------------------------


def uses(hand_text, name, table=(), opened=True, points=51):
    return discard_uses(cards(hand_text), card(name), list(table), opened, points)


def test_an_opened_seat_can_meld_the_discard_with_cards_in_hand():
    assert set(uses("8H 9H 2C", "10H")) == {(Meld(tuple(cards("8H 9H 10H"))),)}
    assert has_discard_use(cards("8H 9H 2C"), card("10H"), [], True, 51)


def test_an_opened_seat_can_add_the_discard_to_any_meld_on_the_table():
    table = [run("5S 6S 7S", owner=1), a_set("9D 9H 9C", owner=0)]
    assert set(uses("2C", "8S", table)) == {(Add(0, (card("8S"),), "high"),)}
    assert set(uses("2C", "4S", table)) == {(Add(0, (card("4S"),), "low"),)}
    assert set(uses("2C", "9S#1", table)) == {(Add(1, (card("9S#1"),), None),)}


def test_an_opened_seat_can_swap_the_discard_for_a_joker():
    table = [run("5H 6H JK 8H", owner=1)]
    found = set(uses("2C", "7H#1", table))
    assert (Swap(0, card("7H#1")),) in found
    assert set(uses("2C", "7S", table)) == set()


def test_a_use_must_leave_a_card_to_discard():
    # Taking 10H to meld 8H 9H 10H would leave nothing to discard.
    assert uses("8H 9H", "10H") == ()
    assert not has_discard_use(cards("8H 9H"), card("10H"), [], True, 51)


# An unopened seat: 5C 6C 7C 8C is worth 26; with 10D, the set 10S 10H 10D (30) makes 56.
UNOPENED = "5C 6C 7C 8C 10S 10H 3D"


def test_an_unopened_seat_may_take_the_discard_only_into_an_opening():
    found = uses(UNOPENED, "10D", opened=False)
    assert len(found) == 1
    (steps,) = found
    laid = sorted(sorted(s.cards) for s in steps)
    assert all(isinstance(s, Meld) for s in steps)
    assert laid == sorted([sorted(cards("10S 10H 10D")), sorted(cards("5C 6C 7C 8C"))])
    assert has_discard_use(cards(UNOPENED), card("10D"), [], False, 51)


def test_an_unopened_seat_has_no_use_below_the_opening_points():
    assert uses(UNOPENED, "10D", opened=False, points=57) == ()
    assert uses(UNOPENED, "10D", opened=False, points=56) != ()
    assert not has_discard_use(cards(UNOPENED), card("10D"), [], False, 57)


def test_an_unopened_seat_cannot_add_to_the_table():
    table = [run("5S 6S 7S", owner=1)]
    assert uses(UNOPENED, "8S", table, opened=False) == ()
    assert uses(UNOPENED, "8S", table, opened=True) != ()


def test_an_unopened_opening_must_leave_a_card_too():
    # 10S 10H 10D (30) and JC QC KC (30) would lay every card; the set alone is 30.
    assert uses("JC QC KC 10S 10H", "10D", opened=False) == ()
    assert uses("JC QC KC 10S 10H 2C", "10D", opened=False) != ()


def test_an_unopened_seat_must_put_the_discard_itself_in_the_opening():
    # 56 without the 9S: an opening exists, but not one with 9S in it.
    assert uses("5C 6C 7C 8C 10S 10H 10D 2H", "9S", opened=False) == ()


def brute_has_use(hand: list[int], c: int, opened: bool, points: int) -> bool:
    """hand_spec: an unopened seat has a use when melds from hand + card, one with the
    card, are worth ``points`` and leave a card; an opened seat (empty table) when some
    meld with the card leaves a card."""
    if not opened:
        return brute_best(hand + [c], must=c, keep=1) >= points
    for size in range(2, len(hand)):
        for picked in combinations(hand, size):
            if any(True for _ in ref.readings([x % 53 for x in (*picked, c)])):
                return True
    return False


@pytest.mark.parametrize("seed", range(60))
def test_has_discard_use_agrees_with_brute_force(seed):
    rng = random.Random(f"discard-use/{seed}")
    dealt = meldy_hand(rng, rng.randrange(6, 10))
    hand, c = dealt[:-1], dealt[-1]
    opened = seed % 3 == 0
    points = rng.choice([20, 30, 51])
    expected = brute_has_use(hand, c, opened, points)
    assert has_discard_use(hand, c, [], opened, points) == expected
    assert bool(discard_uses(hand, c, [], opened, points)) == expected


def test_an_opened_seat_can_add_the_discard_with_cards_from_its_hand():
    table = [run("5H 6H 7H", owner=1)]
    # 9H goes on with the 8H in hand, or with the joker standing for the 8H.
    assert set(uses("8H 2C 3C", "9H", table)) == {(Add(0, tuple(cards("8H 9H")), "high"),)}
    assert set(uses("JK 2C 3C", "9H", table)) == {(Add(0, tuple(cards("JK 9H")), "high"),)}
    assert uses("2C 3C 4S", "9H", table) == ()


def brute_opened_use(hand: list[int], c: int, table: list[TableMeld]) -> bool:
    """hand_spec: an opened seat can meld the card with hand cards, add it (with hand
    cards) to an end of a table meld, or swap it for a table joker, keeping a card.
    Judged by tests/support/hand_melds_reference.py, by brute force over subsets of the hand."""
    if brute_has_use(hand, c, True, 0):
        return True
    for meld in table:
        m = tuple(x % 53 for x in meld.cards)
        for size in range(0, min(3, len(hand) - 1) + 1):
            for picked in combinations(hand, size):
                f = sorted([x % 53 for x in (*picked, c)])
                if meld.kind == "set":
                    if ref.set_reading(list(m) + f):
                        return True
                    continue
                for reading in ref.run_readings(list(m) + f):
                    if reading[: len(m)] == m or reading[-len(m) :] == m:
                        return True
        if meld.kind == "run" and meld.joker_as == c % 53:
            return True
        real = [x for x in m if x != 52]
        if meld.kind == "set" and len(m) == 4 and len(real) == 3 and ref.set_reading(real + [c % 53]):
            return True
    # A table joker won back first, for the card it stands for (a set: its missing suits,
    # the third added first), then the same question with the joker in hand.
    for i, meld in enumerate(table):
        joker = next((x for x in meld.cards if x % 53 == 52), None)
        if joker is None:
            continue
        real = [x for x in meld.cards if x != joker]
        for pay in combinations(hand, 1 if meld.kind == "run" else 4 - len(real)):
            faces = [x % 53 for x in pay]
            if meld.kind == "run":
                swapped = tuple(pay[0] if x == joker else x for x in meld.cards)
                readings = ref.run_readings(faces + [x % 53 for x in real])
                if tuple(x % 53 for x in swapped) not in set(readings):
                    continue
            elif ref.set_reading([x % 53 for x in real] + faces) is None:
                continue
            else:
                swapped = (*real, *pay)
            kind, ordered, joker_as = check_meld(swapped)
            after = [*table[:i], TableMeld(meld.owner, kind, tuple(ordered), joker_as), *table[i + 1 :]]
            if brute_opened_use([x for x in hand if x not in pay] + [joker], c, after):
                return True
    return False


@pytest.mark.parametrize("seed", range(60))
def test_an_opened_seats_uses_agree_with_brute_force(seed):
    rng = random.Random(f"opened-use/{seed}")
    dealt = meldy_hand(rng, rng.randrange(10, 15))
    table: list[TableMeld] = []
    rest = dealt[4:]
    for m in sorted(ref.all_melds(rest)):  # lay some melds of the other cards on the table
        pool, picked = list(rest), []
        for f in m:
            found = [c for c in pool if c % 53 == f]
            if not found:
                break
            picked.append(found[0])
            pool.remove(found[0])
        if len(picked) == len(m) and len(table) < 3 and rng.random() < 0.3:
            kind, ordered, joker_as = check_meld(picked)
            table.append(TableMeld(1, kind, tuple(ordered), joker_as))
            rest = [c for c in rest if c not in picked]
    hand, c = dealt[:3] + rest[: rng.randrange(0, 3)], dealt[3]
    expected = brute_opened_use(hand, c, table)
    assert has_discard_use(hand, c, table, True, 51) == expected
    assert bool(discard_uses(hand, c, table, True, 51)) == expected

"""Pinned counts of distinct legal Hand melds from fixed hands (STYLE.md: counts in
data files, like python-chess's perft).

``tests/data/hand_melds.json`` holds, for each of a few fixed hands of 6 to 15
cards (jokers, both copies of a card, aces low and high, a whole suit), the
number of distinct melds it can form, counted by the naive enumerator of
``tests/support/hand_melds_reference.py`` (every subset, every joker placement, deduped
by faces). The engine's ``melds_in`` must find exactly those melds. Two counts
are also worked out by hand below, so the reference itself is checked.

    python tests/support/hand_melds_reference.py    # rewrite the data file after a rules change
"""

from __future__ import annotations

import json

import pytest

from tests.support import hand_melds_reference as ref
from waraq.referee.games.hand.meld_search import melds_in

ROWS = json.loads(ref.DATA.read_text())


def hand_of(row) -> list[int]:
    return [ref.parse(n) for n in row["cards"].split()]


def test_the_data_file_has_the_hands_it_should():
    assert [row["hand"] for row in ROWS] == list(ref.pinned_hands())
    assert all(6 <= len(row["cards"].split()) <= 15 for row in ROWS)
    assert len(ROWS) >= 10


@pytest.mark.parametrize("row", ROWS, ids=[row["hand"] for row in ROWS])
def test_the_reference_gives_the_pinned_count(row):
    melds = ref.all_melds(hand_of(row))
    runs = sum(1 for m in melds if ref.is_run(m))
    assert (len(melds), runs, len(melds) - runs) == (row["melds"], row["runs"], row["sets"])


@pytest.mark.parametrize("row", ROWS, ids=[row["hand"] for row in ROWS])
def test_melds_in_finds_exactly_the_reference_melds(row):
    found = [tuple(m) for m in melds_in(hand_of(row))]
    assert len(found) == len(set(found)), "melds_in lists a meld twice"
    expected = ref.all_melds(hand_of(row))
    assert set(found) == expected, (
        f"missing {sorted(expected - set(found))[:5]}, extra {sorted(set(found) - expected)[:5]}"
    )
    assert len(found) == row["melds"]


def count(text: str) -> int:
    return len(ref.all_melds(ref.parse(n if "#" in n else n + "#0") for n in text.split()))


def test_a_small_count_worked_by_hand():
    # 5H 6H 7H JK 7S 7D. Runs: 5-6-7; with the joker 5-6 (JK low or high: 2), 6-7 (2),
    # 5-_-7 (1), 5-6-7 (JK low or high: 2): 8 runs. Sets of sevens: 7H 7S 7D, and with
    # the joker any two of them or all three: 1 + 3 + 1 = 5. 13 in all.
    assert count("5H 6H 7H JK 7S 7D") == 13
    # The second copy of a card adds no meld: two copies never share a meld and
    # each copy makes the same melds as the other.
    assert count("5H 6H 7H JK 7S 7D 7H#1 6H#1") == 13


def test_a_whole_suit_worked_by_hand():
    # Every diamond, a joker and a second 2D. Places A(low) 2 .. K A(high) are 14;
    # a run is a window of 3..13 of them (14 would be the ace twice). Without the
    # joker: sum over L = 3..13 of (15 - L) windows = 77. With it, at any one place
    # of any window: sum of (15 - L) * L = 506. 583 runs, and no set.
    assert count("2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD AD JK 2D#1") == 77 + 506

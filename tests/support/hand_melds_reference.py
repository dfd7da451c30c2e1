"""A naive reference for Hand's melds, written straight from docs/rules.md ("## Hand").

It knows nothing of ``waraq.referee.games.hand.melds``: it takes every subset of 3
or more cards of a hand and every way its joker (if any) can stand in, keeps
the valid melds and dedupes them by faces. Slow (a 15-card hand has some
32,000 subsets) and obviously right, which is the point: the engine's
``melds_in`` must find exactly these, and ``tests/data/hand_melds.json`` pins
their counts from fixed hands.

A card is ``copy * 53 + face``; face 0..51 is ``suit * 13 + rank`` (suits S H
D C, ranks 2..A) and face 52 the joker. A meld is a tuple of faces: a run
ascending with the joker where it stands, a set by suit with the joker last.

    python tests/support/hand_melds_reference.py    # rewrite tests/data/hand_melds.json
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Iterable, Iterator
from itertools import combinations

from tests.support import DATA

JOKER = 52
ACE = 12  # rank index of the ace
DATA = DATA / "hand_melds.json"


def face(card: int) -> int:
    return card % 53


def suit(face_: int) -> int:
    return face_ // 13


def rank(face_: int) -> int:
    return face_ % 13


def set_reading(faces: list[int]) -> tuple[int, ...] | None:
    """docs/rules.md: 3 or 4 cards of one rank, all of different suits; one joker at most."""
    real = sorted(f for f in faces if f != JOKER)
    if not 3 <= len(faces) <= 4 or len(real) < len(faces) - 1 or len({rank(f) for f in real}) != 1:
        return None
    if len({suit(f) for f in real}) != len(real):
        return None
    return (*real, *[JOKER] * (len(faces) - len(real)))


def run_readings(faces: list[int]) -> Iterator[tuple[int, ...]]:
    """docs/rules.md: consecutive ranks of one suit, the ace low (A 2 3) or high (Q K A) but
    never both; the joker stands for any one missing card, so each place it can fill
    is another run.

    Positions 0..13 are A(low) 2 3 ... K A(high); a run is a window of positions,
    every real card in one of them, the joker in the one left over (if any)."""
    real = [f for f in faces if f != JOKER]
    jokers = len(faces) - len(real)
    if jokers > 1 or len(faces) < 3:
        return
    if len({suit(f) for f in real}) != 1 or len({rank(f) for f in real}) != len(real):
        return
    s = suit(real[0])
    size = len(faces)
    if size > 13:  # 14 places would hold the ace low and high at once
        return
    for low in range(0, 14 - size + 1):
        window = range(low, low + size)
        places = set()
        for f in real:
            r = rank(f)
            if r == ACE:
                # The ace sits at the low end or the high end, whichever the window holds.
                place = 0 if 0 in window else 13
            else:
                place = r + 1
            places.add(place)
        if not places <= set(window) or len(places) != len(real):
            continue
        missing = [p for p in window if p not in places]
        if len(missing) != jokers:
            continue
        yield tuple(JOKER if p in missing else s * 13 + (ACE if p in (0, 13) else p - 1) for p in window)


def rank_value(r: int) -> int:
    """docs/rules.md, opening: ace 11, king/queen/jack 10, others their number."""
    return 11 if r == ACE else 10 if r >= 8 else r + 2


def worth(meld: tuple[int, ...]) -> int:
    """A meld's opening value; the joker is worth the card it stands for (docs/rules.md)."""
    real = [f for f in meld if f != JOKER]
    if set_reading(list(meld)) == meld:
        return len(meld) * rank_value(rank(real[0]))
    # A run: the place of the first real card fixes the rest. An ace in first place, or
    # in a run of one card more than from its place to K, is low.
    i, first = next((i, f) for i, f in enumerate(meld) if f != JOKER)
    start = rank(first) - i  # the rank index of the meld's first card (-1: an ace low)
    if rank(first) == ACE and i == 0:
        start = -1
    return sum(11 if r in (-1, ACE) else rank_value(r) for r in range(start, start + len(meld)))


def readings(faces: list[int]) -> Iterator[tuple[int, ...]]:
    """Every meld these faces form, in every joker placement (docs/rules.md: at most one joker)."""
    as_set = set_reading(faces)
    if as_set is not None:
        yield as_set
    yield from run_readings(faces)


def all_melds(hand: Iterable[int]) -> set[tuple[int, ...]]:
    """Every distinct legal meld (as faces) formable from the cards of ``hand``."""
    faces = [face(c) for c in hand]
    found: set[tuple[int, ...]] = set()
    seen_subsets: set[tuple[int, ...]] = set()
    for size in range(3, len(faces) + 1):
        for picked in combinations(range(len(faces)), size):
            key = tuple(sorted(faces[i] for i in picked))
            if key in seen_subsets:  # the other copy of a card gives the same faces
                continue
            seen_subsets.add(key)
            found.update(readings(list(key)))
    return found


def is_run(meld: tuple[int, ...]) -> bool:
    return set_reading(list(meld)) is None


# -- the pinned hands -------------------------------------------------------------

RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUITS = "SHDC"


def card_name(card: int) -> str:
    f = face(card)
    base = "JK" if f == JOKER else RANKS[rank(f)] + SUITS[suit(f)]
    return f"{base}#{card // 53}"


def parse(name: str) -> int:
    base, copy = name.split("#")
    f = JOKER if base == "JK" else SUITS.index(base[-1]) * 13 + RANKS.index(base[:-1])
    return int(copy) * 53 + f


# Hands chosen to exercise the rules: long runs, aces at both ends, both copies of a
# card, one and two jokers, four suits of a rank; and seeded random hands.
CHOSEN = {
    "one suit with a joker": "5H#0 6H#0 7H#0 JK#0 7S#0 7D#0",
    "aces low and high": "AS#0 2S#0 3S#0 QS#0 KS#0 JK#1 AH#0",
    "both copies": "7H#0 7H#1 8H#0 8H#1 9H#0 7S#0 7S#1 7D#0",
    "four kings and runs": "JS#0 QS#0 KS#0 JH#0 QH#0 KH#0 JD#0 QD#0 KD#0 KC#0 2C#0",
    "two jokers": "JK#0 JK#1 4C#0 5C#0 6C#0 9C#0 9D#0 9S#0 10C#1",
    "a whole suit": " ".join(f"{r}D#0" for r in RANKS) + " JK#0 2D#1",
    "gapped runs": "2S#0 4S#0 6S#0 8S#0 10S#0 QS#0 AS#1 3H#0 5H#0 7H#0 JK#1 3D#0 3C#0",
}
RANDOM_SIZES = (9, 12, 15, 15)


def pinned_hands() -> dict[str, list[str]]:
    hands = {label: text.split() for label, text in CHOSEN.items()}
    for k, size in enumerate(RANDOM_SIZES):
        cards = random.Random(f"hand-melds/{k}").sample(range(106), size)
        hands[f"random {k} ({size} cards)"] = [card_name(c) for c in cards]
    return hands


def main() -> int:
    data = []
    for label, names in pinned_hands().items():
        melds = all_melds(parse(n) for n in names)
        runs = sum(1 for m in melds if is_run(m))
        data.append(
            {"hand": label, "cards": " ".join(names), "melds": len(melds), "runs": runs, "sets": len(melds) - runs}
        )
    # One hand a line, so a diff of the file shows which count changed.
    DATA.write_text("[\n" + ",\n".join(" " + json.dumps(row) for row in data) + "\n]\n")
    for row in data:
        print(f"{row['melds']:5} melds ({row['runs']} runs, {row['sets']} sets)  {row['hand']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

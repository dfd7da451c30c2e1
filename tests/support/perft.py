"""Perft for Hokm: the number of legal action sequences from fixed deals.

Like chess perft (python-chess pins such counts in data files): from a fixed
position, ``perft_counts(state, d)[k - 1]`` is the number of distinct
sequences of ``k`` legal actions. Any change in what is legal changes a count.

The positions live in ``tests/data/hokm_perft.json``: explicit decks (card
names), the ace draw that makes the first hakem, the rules (every key), a
prefix of actions in the record's spelling (docs/records.md) that leads from the
deal to the counted position, and the counts for depth 1..d.
``tests/games/hokm/test_perft.py`` recomputes every count and compares.

Regenerate the counts (after a change in legality that you mean):

    python tests/support/perft.py              # recount; the decks in the file are kept
    python tests/support/perft.py --new-decks  # also rebuild the decks from SPECS below

The decks were built once with ``stack_deck`` from the hands chosen below (and
from ``random.Random`` shuffles with fixed string seeds where a hand did not
matter); from then on they are data and do not depend on any random generator.
"""

from __future__ import annotations

import json
import random
import sys
import time
from typing import Any

from tests.support import DATA
from waraq.referee.games.cards import CARD_NAMES, parse_card
from waraq.referee.games.dealers import FixedDealer, ace_draw_for
from waraq.referee.games.hokm.dealing import stack_deck
from waraq.referee.games.hokm.engine import HokmState, action_from_json
from waraq.referee.games.hokm.rules import HokmRules

DATA = DATA / "hokm_perft.json"


# -- counting ----------------------------------------------------------------


def perft_counts(state: HokmState, depth: int) -> list[int]:
    """``[n1, ..., n_depth]``: the number of legal action sequences of each length.

    One depth-first walk with ``clone`` + ``apply`` (the checked door); the last
    level is counted from ``legal_actions()`` without applying (bulk counting).
    A finished match has no legal action, so sequences stop there.
    """
    counts = [0] * depth

    def walk(node: HokmState, level: int) -> None:
        legal = node.legal_actions()
        counts[level] += len(legal)
        if level + 1 == depth:
            return
        for action in legal:
            child = node.clone()
            child.apply(action)
            walk(child, level + 1)

    if depth > 0:
        walk(state, 0)
    return counts


def perft(state: HokmState, depth: int) -> int:
    """The number of legal action sequences of exactly ``depth`` actions."""
    return perft_counts(state, depth)[-1] if depth > 0 else 1


# -- positions of the data file --------------------------------------------


def start_state(position: dict[str, Any]) -> HokmState:
    """The counted position: the file's deal, then its prefix of actions."""
    rules = HokmRules.from_dict(position["rules"])
    dealer = FixedDealer(
        [parse_card(c) for c in position["ace_draw"]],
        [[parse_card(c) for c in deck] for deck in position["decks"]],
    )
    state = HokmState(rules, dealer)
    if state.hakem != position["hakem"]:
        raise ValueError(f"{position['name']}: the ace draw makes seat {state.hakem} hakem")
    for spelled in position["prefix"]:
        state.apply(action_from_json(state.kind, spelled))
    return state


def load_positions() -> list[dict[str, Any]]:
    return json.loads(DATA.read_text())["positions"]


# -- how the decks were chosen (used only with --new-decks) ---------------

# 4 players, hakem 0. Short suits so that voids come early: seat 0 holds one
# diamond, seat 1 no heart, seat 2 no club, seat 3 one spade. A hand's first
# five cards are its first packet (what the hakem sees when naming trump).
HANDS_4P = [
    "AS KS AH 10H 2D QS 4S 9H 8H 7H KC QC 3C",  # seat 0: S A K Q 4, H A 10 9 8 7, D 2, C K Q 3
    "JS 10S 9S AD KD 8S 7S 6S 9D AC JC 10C 9C",  # seat 1: S J-6 (6), D A K 9, C A J 10 9
    "5S 3S KH QH JH 6H 5H QD JD 10D 8D 7D 3D",  # seat 2: S 5 3, H K Q J 6 5, D Q J 10 8 7 3
    "2S 4H 3H 2H 6D 5D 4D 8C 7C 6C 5C 4C 2C",  # seat 3: S 2, H 4 3 2, D 6 5 4, C 8 7 6 5 4 2
]
# Hearts trump; trick 1: seat 0 leads its only diamond, seat 1 wins it with 9D
# and leads trick 2. Seat 0 is then void in diamonds, seat 1 in hearts (trump),
# seat 2 in clubs.
PREFIX_4P = ["H", "2D", "9D", "3D", "4D"]

# 3 players (51 cards, no 2D), hakem 1. Seat 0 holds one heart, seat 1 no
# diamond, seat 2 no club.
HANDS_3P = [
    "AS JS 9S 6S 4S QH KD 10D 3S 8D 5D 3D QC 10C 7C 4C 2C",  # S 6, H 1, D 5, C 5
    "KS 2S AH KH AC 9H 7H 5H 3H 2H KC JC 9C 8C 6C 5C 3C",  # S 2, H 7, C 8
    "QS 10S 8S 7S 5S JH 10H 8H 6H 4H AD QD JD 9D 7D 6D 4D",  # S 5, H 5, D 7
]
# Clubs trump; trick 1: seat 1 leads KS, seat 2 5S, seat 0 3S: seat 1 wins and
# leads trick 2 holding one spade; seat 2 is void in trump.
PREFIX_3P = ["C", "KS", "5S", "3S"]

# 2 players, hakem 0: the first two packets; the stock is shuffled.
FIVES_2P = ["AS KH 7D 3C 9S", "QS 4H JD 8C 2C"]
DRAWS_2P = (
    "keep pass pass keep keep pass keep keep pass pass keep pass pass keep keep pass keep keep pass pass"
).split()
# Spades trump, each seat lays aside two cards, then twenty draws: the 2-player
# trick play starts.
PREFIX_2P_PLAY = ["S", ["3C", "7D"], ["2C", "4H"], *DRAWS_2P]

# Redeal: hakem 2's first five hold no ace, king, queen or jack, in both decks.
REDEAL_FIVES = ["10S 9H 8D 7C 2S", "10H 9D 8C 7S 3H"]

SPECS: list[dict[str, Any]] = [
    {
        "name": "4p-free-from-trump",
        "about": "4 players, void_rule free: trump, then the first trick",
        "rules": {"players": 4},
        "hakem": 0,
        "hands": HANDS_4P,
        "prefix": [],
        "depth": 4,
    },
    {
        "name": "4p-must-trump-from-trump",
        "about": "the same deal under must_trump: the second seat, void in hearts, must trump",
        "rules": {"players": 4, "void_rule": "must_trump"},
        "hakem": 0,
        "hands": HANDS_4P,
        "prefix": [],
        "depth": 4,
    },
    {
        "name": "4p-free-tricks-2-3",
        "about": "4 players, free: after trick 1, the whole of tricks 2 and 3 (voids early)",
        "rules": {"players": 4},
        "hakem": 0,
        "hands": HANDS_4P,
        "prefix": PREFIX_4P,
        "depth": 8,
    },
    {
        "name": "4p-must-trump-tricks-2-3",
        "about": "the same under must_trump: voids must trump unless the partner is winning",
        "rules": {"players": 4, "void_rule": "must_trump"},
        "hakem": 0,
        "hands": HANDS_4P,
        "prefix": PREFIX_4P,
        "depth": 8,
    },
    {
        "name": "3p-free-tricks-2-3",
        "about": "3 players (51 cards), hakem 1: after trick 1, tricks 2 and 3",
        "rules": {"players": 3},
        "hakem": 1,
        "hands": HANDS_3P,
        "prefix": PREFIX_3P,
        "depth": 6,
    },
    {
        "name": "3p-must-trump-tricks-2-3",
        "about": "the same under must_trump (no partner: void and holding trump means trump)",
        "rules": {"players": 3, "void_rule": "must_trump"},
        "hakem": 1,
        "hands": HANDS_3P,
        "prefix": PREFIX_3P,
        "depth": 6,
    },
    {
        "name": "3p-from-trump",
        "about": "3 players: trump, then the hakem's lead and the next seat's answer",
        "rules": {"players": 3},
        "hakem": 1,
        "hands": HANDS_3P,
        "prefix": [],
        "depth": 3,
    },
    {
        "name": "2p-trump-discard-draw",
        "about": "2 players: trump, both discards, the first three draws",
        "rules": {"players": 2},
        "hakem": 0,
        "fives": FIVES_2P,
        "prefix": [],
        "depth": 6,
    },
    {
        "name": "2p-tricks-1-3",
        "about": "2 players after trump, discards and 20 draws: tricks 1 to 3",
        "rules": {"players": 2},
        "hakem": 0,
        "fives": FIVES_2P,
        "prefix": PREFIX_2P_PLAY,
        "depth": 6,
    },
    {
        "name": "4p-redeal-once",
        "about": "max_redeals 1, hakem 2 without A/K/Q/J in both deals: REDEAL once, then TRUMP",
        "rules": {"players": 4, "max_redeals": 1, "void_rule": "must_trump"},
        "hakem": 2,
        "redeal_fives": REDEAL_FIVES,
        "prefix": [],
        "depth": 4,
    },
]


def _hands_around(rules: HokmRules, hakem: int, five: str, rng: random.Random) -> list[list[int]]:
    """Hands where ``hakem``'s first packet is ``five`` and the rest is shuffled."""
    first = [parse_card(c) for c in five.split()]
    rest = [c for c in rules.deck if c not in first]
    rng.shuffle(rest)
    size = rules.hand_size
    hands: list[list[int]] = []
    for seat in range(rules.players):
        if seat == hakem:
            hands.append(first + rest[: size - len(first)])
            rest = rest[size - len(first) :]
        else:
            hands.append(rest[:size])
            rest = rest[size:]
    return hands


def build_decks(spec: dict[str, Any], rules: HokmRules) -> list[list[int]]:
    hakem = spec["hakem"]
    if "hands" in spec:
        return [stack_deck(rules, hakem, [h.split() for h in spec["hands"]])]
    if "fives" in spec:
        given = {parse_card(c) for five in spec["fives"] for c in five.split()}
        stock = [c for c in rules.deck if c not in given]
        random.Random("waraq-perft/2p-stock").shuffle(stock)
        return [stack_deck(rules, hakem, [f.split() for f in spec["fives"]], stock)]
    rng = random.Random(f"waraq-perft/{spec['name']}")
    return [stack_deck(rules, hakem, _hands_around(rules, hakem, five, rng)) for five in spec["redeal_fives"]]


def position_from_spec(spec: dict[str, Any]) -> dict[str, Any]:
    rules = HokmRules.from_dict(spec["rules"])
    return {
        "name": spec["name"],
        "about": spec["about"],
        "rules": rules.to_dict(),
        "hakem": spec["hakem"],
        "ace_draw": [CARD_NAMES[c] for c in ace_draw_for(spec["hakem"], rules.deck)],
        "decks": [[CARD_NAMES[c] for c in deck] for deck in build_decks(spec, rules)],
        "prefix": spec["prefix"],
        "counts": [0] * spec["depth"],
    }


# -- writing the data file ---------------------------------------------------

ABOUT = (
    "Pinned perft counts for Hokm: counts[k-1] is the number of legal action sequences of "
    "length k from the position (the deck(s) dealt after the ace draw, then the prefix of "
    "actions in record spelling). Checked by tests/games/hokm/test_perft.py. Regenerate with "
    "`python tests/support/perft.py` (recounts, keeps the decks; `--new-decks` rebuilds them from "
    "SPECS in tests/support/perft.py). Do not edit the counts by hand."
)


def _dump(value: Any, indent: str = "") -> str:
    """JSON with short lists on one line (a prefix, the counts) and a deck per line."""
    if isinstance(value, dict):
        inner = indent + "  "
        items = [f"{inner}{json.dumps(k)}: {_dump(v, inner)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + indent + "}"
    nested = isinstance(value, list) and any(isinstance(v, (list, dict)) for v in value)
    if nested and len(json.dumps(value)) > 240:
        inner = indent + "  "
        return "[\n" + ",\n".join(inner + _dump(v, inner) for v in value) + "\n" + indent + "]"
    return json.dumps(value)


def main(argv: list[str]) -> int:
    if "--new-decks" in argv or not DATA.exists():
        positions = [position_from_spec(spec) for spec in SPECS]
    else:
        positions = load_positions()
    for position in positions:
        started = time.perf_counter()
        position["counts"] = perft_counts(start_state(position), len(position["counts"]))
        took = time.perf_counter() - started
        print(f"{position['name']:28} {position['counts']}  ({took:.2f} s)")
    DATA.parent.mkdir(parents=True, exist_ok=True)
    DATA.write_text(_dump({"about": ABOUT, "positions": positions}) + "\n")
    print(f"wrote {DATA}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""`waraq replay` on Hand records: the whole match, one seat's view, one round, one step, in 80 columns.

The hand-worked record is a 2-player match of two rounds on stacked decks,
small enough to write every line of its text by hand:

Round 1, s0 first. s0 holds 9S 10S JS QS, KH KD KC, 8H and 9H AD 8S KS 2C 3C
4D; s1 holds 5H JK 7H, AS AH AC, 7D and 9C 10C JD 4S 6S QC 2D; the stock's
top is 6H.

1. s0 lays the run 9S-QS (9+10+10+10 = 39) and the set of kings (30): it
   opens with 69, and discards 8H.
2. s1 is offered 8H (5H JK 7H 8H is worth 5+6+7+8 = 26, with the aces' 33 an
   opening of 59), takes it, lays both melds and discards 7D.
3. s0 cannot use 7D (no meld takes it, it makes none with s0's hand), so the
   referee draws 6H for it. s0 puts 6H in place of s1's joker, adds 9H to
   that run, AD to the aces, 8S and KS to its spades, lays JK 2C 3C (the
   joker is the ace of clubs) and discards 4D, its last card: it goes out,
   -30; s1 opened and keeps 9C 10C JD 4S 6S QC 2D: 9+10+10+4+6+10+2 = 51.

Round 2, s1 first (the first player moves on a seat). s1 holds A-5 of
clubs, 10-A of diamonds, the four sevens and 9S: it lays them all in its
first turn (25 + 51 = 76 opens it, then 28) and discards 9S: a hand. Every
charge is doubled: s1 -60, s0 never opened: 200. Score 170, -9; s1 wins.
"""

from __future__ import annotations

import random

import pytest

from tests.support.replay_records import render, waraq, write_played
from waraq.referee.games.hand.dealing import FixedHandDealer, SeededHandDealer, stack_deck
from waraq.referee.games.hand.decisions import DISCARD_PILE, Turn
from waraq.referee.games.hand.engine import HandState
from waraq.referee.games.hand.melds import Add, Meld, Swap, parse_card
from waraq.referee.games.hand.rules import HandRules
from waraq.referee.records.record_file import FORMAT, RecordWriter
from waraq.referee.replay.render_hand import HandMatchText, HandStepScreen
from waraq.referee.replay.walk import load

RULES = HandRules(players=2, rounds=2)
HASH = RULES.rules_hash[:19]

ROUND_1 = (
    "9S 10S JS QS KH KD KC 8H 9H AD 8S KS 2C 3C 4D".split(),
    "5H JK 7H AS AH AC 7D 9C 10C JD 4S 6S QC 2D".split(),
)
ROUND_2 = (
    "2S 3S 4H 6D 8C 9C KS QH JH 5S 10S 2D 3H 6C".split(),
    "AC 2C 3C 4C 5C 10D JD QD KD AD 7S 7H 7D 7C 9S".split(),
)
NOTES = {2: "8H makes my hearts run", 3: "an opening of 59"}  # by decision number


def c(name: str) -> int:
    return parse_card(name + "#0")


def cards(text: str) -> tuple[int, ...]:
    return tuple(c(n) for n in text.split())


def names(hand: tuple[str, ...] | list[str]) -> list[str]:
    return [n + "#0" for n in hand]


def hand_worked(path):
    decks = [
        stack_deck(RULES, 0, [names(h) for h in ROUND_1], stock=["6H#0"]),
        stack_deck(RULES, 1, [names(h) for h in ROUND_2]),
    ]
    state = HandState(RULES, FixedHandDealer(0, decks))
    for action in (
        Turn((Meld(cards("9S 10S JS QS")), Meld(cards("KH KD KC"))), c("8H")),
        DISCARD_PILE,
        Turn((Meld(cards("5H JK 7H 8H")), Meld(cards("AS AH AC"))), c("7D")),
        Turn(
            (
                Swap(2, c("6H")),
                Add(2, cards("9H"), "high"),
                Add(3, cards("AD"), None),
                Add(0, cards("8S"), "low"),
                Add(0, cards("KS"), "high"),
                Meld(cards("JK 2C 3C")),
            ),
            c("4D"),
        ),
        Turn((Meld(cards("AC 2C 3C 4C 5C")), Meld(cards("10D JD QD KD AD")), Meld(cards("7S 7H 7D 7C"))), c("9S")),
    ):
        state.apply(action)
    assert state.is_over
    header = {
        "type": "match",
        "format": FORMAT,
        "game": "hand",
        "match_id": "h-1",
        "rules": RULES.to_dict(),
        "rules_hash": RULES.rules_hash,
        "seed": 7,
        "seats": [{"seat": 0, "bot": "alma", "version": "1.0"}, {"seat": 1, "bot": "bert", "version": "2.0"}],
        "time_control": {"decision_ms": 10000, "bank_ms": 60000, "startup_ms": 30000},
        "policy": "forfeit",
        "started": "2025-01-01T00:00:00.000Z",
    }
    return write_played(path, header, state.events, lambda number, event: NOTES.get(number))


@pytest.fixture(scope="module")
def record(tmp_path_factory):
    return hand_worked(tmp_path_factory.mktemp("hand") / "h-1.jsonl")


@pytest.fixture(scope="module")
def replay(record):
    replay = load(record)
    assert replay.ok, replay.problem
    return replay


# The rules (77 columns with the hash) do not fit beside the 5-column labels: they wrap.
HEADER = f"""\
Match h-1, hand, seed 7, started 2025-01-01T00:00:00.000Z
Seats s0 alma 1.0, s1 bert 2.0
Rules players=2 partnership=false rounds=2 opening_points=51
      ({HASH}…)
Clock 10000 ms a decision, 60000 ms bank; policy forfeit"""

# 2 players: 29 cards dealt, 106 - 29 = 77 in the stock. Hands by suit, ranks low to high, the
# ace last, lined up (the widest: spades 8 9 10 J Q K, clubs 9 10 Q A).
ROUND_1_TEXT = """
=== Round 1: s0 first ===
Deal: each seat's hand, sorted (s0 holds 15 and starts; the stock has 77):
  s0  S: 8 9 10 J Q K  H: 8 9 K  D: 4 K A  C: 2 3 K
  s1  S: 4 6 A         H: 5 7 A  D: 2 7 J  C: 9 10 Q A  JK
Turns (the draw; melds laid, added to, jokers swapped; the discard):
   1  s0 starts with 15 cards
        lays #0: 9S 10S JS QS (run, 39)
        lays #1: KH KD KC (set, 30); opens with 69
        discards 8H
   2  s1 takes 8H from the pile
        lays #2: 5H JK=6H 7H 8H (run, 26)
        lays #3: AS AH AC (set, 33); opens with 59
        discards 7D
      s1: 8H makes my hearts run
      s1: an opening of 59
   3  s0 draws 6H
        swaps 6H for the joker of s1's #2: 5H 6H 7H 8H
        adds 9H to s1's #2: 5H 6H 7H 8H 9H
        adds AD to s1's #3: AS AH AD AC
        adds 8S to #0: 8S 9S 10S JS QS
        adds KS to #0: 8S 9S 10S JS QS KS
        lays #4: JK=AC 2C 3C (run, 16)
        discards 4D and goes out
Round 1 ends: s0 goes out
  s0  -30
  s1   51  S: 4 6  H: -  D: 2 J  C: 9 10 Q
Score: s0 -30, s1 51"""

ROUND_2_TEXT = """
=== Round 2: s1 first ===
Deal: each seat's hand, sorted (s1 holds 15 and starts; the stock has 77):
  s0  S: 2 3 5 10 K  H: 3 4 J Q  D: 2 6           C: 6 8 9
  s1  S: 7 9         H: 7        D: 7 10 J Q K A  C: 2 3 4 5 7 A
Turns (the draw; melds laid, added to, jokers swapped; the discard):
   1  s1 starts with 15 cards
        lays #0: AC 2C 3C 4C 5C (run, 25)
        lays #1: 10D JD QD KD AD (run, 51); opens with 76
        lays #2: 7S 7H 7D 7C (set, 28)
        discards 9S and goes out
Round 2 ends: s1 goes out, a hand: every charge doubled
  s0  200  S: 2 3 5 10 K  H: 3 4 J Q  D: 2 6  C: 6 8 9  (never opened)
  s1  -60
Score: s0 170, s1 -9"""

RESULT = "Result: s1 wins with the lowest total; score s0 170, s1 -9"


def test_the_whole_match_shows_every_hand_turn_step_note_round_end_and_the_result(replay):
    assert render(HandMatchText(replay)) == HEADER + "\n" + ROUND_1_TEXT + "\n" + ROUND_2_TEXT + "\n" + RESULT


def test_as_seat_0_saw_it_its_own_hand_and_what_is_public(replay):
    # s1's hand, its notes and the choice it was offered stay hidden; what it took from the pile,
    # its melds and discards are public. After each of its turns s0 sees the hand it keeps:
    # after turn 1, 9H AD 8S KS 2C 3C 4D.
    header = (
        HEADER.replace("Match h-1", "Match   h-1")
        .replace("Seats s0", "Seats   s0")
        .replace("Rules players", "Rules   players")
        .replace("      (sha", "        (sha")
        .replace("Clock 10000", "Clock   10000")
    )
    expected = (
        header
        + "\nSeen by s0 (alma): its own cards and what is public\n"
        + """
=== Round 1: s0 first ===
Deal: s0's hand, sorted (s0 holds 15 and starts; the stock has 77):
  s0  S: 8 9 10 J Q K  H: 8 9 K  D: 4 K A  C: 2 3 K
Turns (the draw; melds laid, added to, jokers swapped; the discard):
   1  s0 starts with 15 cards
        lays #0: 9S 10S JS QS (run, 39)
        lays #1: KH KD KC (set, 30); opens with 69
        discards 8H
        holds S: 8 K  H: 9  D: 4 A  C: 2 3
   2  s1 takes 8H from the pile
        lays #2: 5H JK=6H 7H 8H (run, 26)
        lays #3: AS AH AC (set, 33); opens with 59
        discards 7D
   3  s0 draws 6H
        swaps 6H for the joker of s1's #2: 5H 6H 7H 8H
        adds 9H to s1's #2: 5H 6H 7H 8H 9H
        adds AD to s1's #3: AS AH AD AC
        adds 8S to #0: 8S 9S 10S JS QS
        adds KS to #0: 8S 9S 10S JS QS KS
        lays #4: JK=AC 2C 3C (run, 16)
        discards 4D and goes out
Round 1 ends: s0 goes out
  s0  -30
  s1   51
Score: s0 -30, s1 51

=== Round 2: s1 first ===
Deal: s0's hand, sorted (s1 holds 15 and starts; the stock has 77):
  s0  S: 2 3 5 10 K  H: 3 4 J Q  D: 2 6  C: 6 8 9
Turns (the draw; melds laid, added to, jokers swapped; the discard):
   1  s1 starts with 15 cards
        lays #0: AC 2C 3C 4C 5C (run, 25)
        lays #1: 10D JD QD KD AD (run, 51); opens with 76
        lays #2: 7S 7H 7D 7C (set, 28)
        discards 9S and goes out
Round 2 ends: s1 goes out, a hand: every charge doubled
  s0  200  S: 2 3 5 10 K  H: 3 4 J Q  D: 2 6  C: 6 8 9  (never opened)
  s1  -60
Score: s0 170, s1 -9
"""
        + RESULT
    )
    assert render(HandMatchText(replay, seat=0)) == expected


def test_seat_1_sees_its_own_draws_notes_and_what_it_kept(replay):
    text = render(HandMatchText(replay, seat=1, round=1))
    # s1 took 8H: after melding seven cards and discarding 7D it keeps 9C 10C JD 4S 6S QC 2D.
    assert "        holds S: 4 6  H: -  D: 2 J  C: 9 10 Q\n      s1: 8H makes my hearts run" in text
    assert "  s1  S: 4 6 A  H: 5 7 A  D: 2 7 J  C: 9 10 Q A  JK" in text
    assert "  s0  S:" not in text and "s0 draws 6H" not in text and "   3  s0 draws from the stock" in text


def test_one_round_shows_only_that_round_and_no_result(replay):
    assert render(HandMatchText(replay, round=2)) == HEADER + "\n" + ROUND_2_TEXT


def test_a_step_shows_the_table_the_pile_and_the_turn_played(replay):
    # Decision 4 (line 6: header, deal, then decisions 1-3): s0's third turn, its 2nd request.
    # Before it: s0 holds 9H AD 8S KS 2C 3C 4D and the 6H it drew; the pile is s1's 7D alone;
    # the stock lost the 6H: 76.
    step = replay.steps[3]
    expected = """\
Decision 4 of 5, line 6: round 1; s0 (alma) to TURN
First s0; score s0 0, s1 0; opened: s0, s1
  s0  S: 8 K  H: 6 9  D: 4 A  C: 2 3
  s1  S: 4 6  H: -    D: 2 J  C: 9 10 Q
Table:
  #0 s0  9S 10S JS QS
  #1 s0  KH KD KC
  #2 s1  5H JK=6H 7H 8H
  #3 s1  AS AH AC
Pile: 7D; stock 76
Drew 6H
Played:   (0.5 ms, seq 2, bank 60000 ms)
  swap 6H for the joker of #2
  add 9H to #2 at the high end
  add AD to #3
  add 8S to #0 at the low end
  add KS to #0 at the high end
  meld JK 2C 3C
  discard 4D"""
    assert render(HandStepScreen(replay, step)) == expected
    # Decision 2: s1 is offered s0's 8H; as s1 saw it: its own 14 cards, s0 holds 7.
    take = render(HandStepScreen(replay, replay.steps[1], seat=1)).splitlines()
    assert take[1:] == [
        "First s0; score s0 0, s1 0; opened: s0",
        "  s1  S: 4 6 A  H: 5 7 A  D: 2 7 J  C: 9 10 Q A  JK",
        "  cards held by the others: s0 7",
        "Table:",
        "  #0 s0  9S 10S JS QS",
        "  #1 s0  KH KD KC",
        "Pile: 8H; stock 77",
        "Legal: stock, or the discard 8H",
        "Played: discard   (0.5 ms, seq 1, bank 60000 ms)",
        "Note: 8H makes my hearts run",
    ]


def test_waraq_replay_picks_the_hand_renderer_by_the_records_game(record):
    shown = waraq("replay", str(record), "--plain")
    assert shown.returncode == 0, shown.stderr
    assert [line.rstrip() for line in shown.stdout.splitlines()][-len(ROUND_2_TEXT.splitlines()) :] == [
        *ROUND_2_TEXT.splitlines()[1:],
        RESULT,
    ]
    tricks = waraq("replay", str(record), "--round", "1", "--trick", "2")
    assert tricks.returncode == 2 and "--trick is for Hokm" in tricks.stderr
    walked = waraq("replay", str(record), "--step", stdin="q\n")
    assert walked.returncode == 0, walked.stderr
    # A Hand record has no tricks to jump to: the prompt offers what applies.
    assert "[r R] round R  [q] quit >" in walked.stdout and "trick" not in walked.stdout.split("[Enter/n]")[-1]


@pytest.mark.parametrize(
    ("rules", "seed"),
    [(HandRules(players=3, rounds=2), 5), (HandRules(partnership=True, rounds=2), 11), (HandRules(rounds=2), 3)],
)
def test_random_matches_render_every_turn_in_80_columns(tmp_path, rules, seed):
    state = HandState(rules, SeededHandDealer(seed))
    rng = random.Random(seed)
    while not state.is_over:
        state.apply(state.random_action(rng))
    path = tmp_path / "m.jsonl"
    with RecordWriter(path) as writer:
        writer.write(
            {
                "type": "match",
                "format": FORMAT,
                "game": "hand",
                "match_id": "m",
                "rules": rules.to_dict(),
                "rules_hash": rules.rules_hash,
                "seed": seed,
                "seats": [{"seat": s, "bot": "random"} for s in range(rules.players)],
                "time_control": {"decision_ms": 10000, "bank_ms": 60000, "startup_ms": 30000},
            }
        )
        for event in state.events:
            writer.write(event)
    replay = load(path)
    assert replay.ok, replay.problem
    turns = sum(1 for e in state.events if e["type"] == "decision" and e["kind"] == "TURN")
    restocks = sum(1 for e in state.events if e["type"] == "restock")
    for seat in (None, 1):
        text = render(HandMatchText(replay, seat=seat))
        lines = text.splitlines()
        assert max(map(len, lines)) <= 80
        # One numbered line a turn, one line a restock, one heading a round.
        assert sum(1 for line in lines if line[:4].strip().isdigit() and line[4:6] == "  ") == turns
        assert sum(1 for line in lines if "shuffled into a new stock" in line) == restocks
        assert sum(1 for line in lines if line.startswith("=== Round")) == rules.rounds

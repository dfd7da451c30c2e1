"""The Hokm heuristic's notes (sample_bots/hokm_heuristic.py): each decision says why, in a line.

Hand-worked positions of every decision kind, each note worked out from the
position and the strategy (not read off the bot); then every note of thousands
of decisions is short, names the action taken and, for a play, what the card
does to the trick; last, a real match over gRPC between launched heuristic bots
is recorded, and ``waraq replay`` shows every note of it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.hokm_setup import cards, deal, play_first_legal, rules
from tests.support.hokm_views import all_trumps_at_bam, draw_view, play_view, trump_view
from waraq.bots.hokm_heuristic import HeuristicPlayer
from waraq.bots.hokm_random import RandomPlayer
from waraq.referee.games.cards import CARD_NAMES, SUITS
from waraq.referee.games.hokm.engine import HokmView, winning_index
from waraq.referee.match.inprocess import play_match
from waraq.referee.records.record_file import read_record
from waraq.referee.wire.common import NOTE_LIMIT

WARAQ = str(Path(sys.executable).with_name("waraq"))


def decide(view: HokmView, seed: int = 0) -> tuple[object, str]:
    """The bot's action and its note."""
    bot = HeuristicPlayer(seed)
    action = bot(view)
    assert action in view.legal
    return action, bot.note


def note_of(view: HokmView, seed: int = 0) -> str:
    return decide(view, seed)[1]


# -- TRUMP -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "five, note",
    [
        ("2D 3D 4D 5D AS", "trump D: 4 diamonds, no honours"),  # length above a lone ace
        ("AS KS 4S 2H 3D", "trump S: 3 spades, AK"),  # honours named high to low
        ("QH JH 2H AS KS", "trump H: 3 hearts, QJ"),  # three with QJ (33) above AK bare (27)
    ],
)
def test_trump_says_the_length_and_honours_of_the_suit_named(five, note):
    assert note_of(trump_view(five)) == note


def test_trump_chosen_between_equal_suits_says_the_seed_chose():
    # Hearts K+5 and clubs K+4 weigh the same (2 cards and a king each): the seed picks one.
    suit_, note = decide(trump_view("KH 5H KC 4C 9D"))
    expected = {
        "H": "trump H: 2 hearts, K; as strong as C, the seed chose",
        "C": "trump C: 2 clubs, K; as strong as H, the seed chose",
    }
    assert note == expected[SUITS[suit_]]


# -- PLAY: leading ------------------------------------------------------------------------


def test_leading_long_trumps_says_it_draws_them():
    # Six spades held, seven unseen. AS KS QS are ours and nothing unseen lies between:
    # the QS does the work of the ace.
    view = play_view(0, "AS KS QS 5S 4S 3S 7H 8H 9D 10D 5C 6C 7C")
    assert decide(view) == (
        cards("QS")[0],
        "lead QS: drawing trumps, 6 held and 7 unseen, as good as the top trump AS",
    )


def test_leading_with_only_trumps_left_says_so():
    # 9S is not the top trump (10S..AS are unseen): the lowest goes.
    view = play_view(0, "2S 9S")
    assert note_of(view) == "lead 2S: only trumps left, the lowest, a higher trump is unseen"


# All thirteen spades (trump) have been played, seat 0 winning each trick.
TRUMPS_GONE = (
    (0, "AS 2S 3S 4S"),
    (0, "KS 5S 6S 7S"),
    (0, "QS 8S 9S 10S"),
    (0, "JS 2C 3C 4C"),
)


def test_leading_a_top_card_once_trumps_are_drawn():
    # The AD beats every unseen diamond and no seat has a trump left; hearts and clubs
    # have unseen aces.
    view = play_view(0, "AD 2D 5H 6H 7H 8H 9H 5C 6C", tricks=TRUMPS_GONE)
    assert note_of(view) == "lead AD: top diamond, trumps drawn"


def test_leading_a_top_card_no_opponent_can_ruff():
    # 3 players: seat 1 showed out of diamonds under must_trump without trumping, so it
    # holds no trump; seat 2 followed. The AD, the top diamond, is safe though spades are unseen.
    view = play_view(0, "AD 5H 6H 7C 8C 3S", tricks=((0, "KD 2C 3D"),), players=3, void_rule="must_trump")
    assert note_of(view) == "lead AD: top diamond, no opponent can ruff it"


def test_leading_low_from_the_shortest_safe_suit():
    # No trump, no top card (every ace unseen), nobody has shown out: the single club goes.
    view = play_view(0, "5H 6H 7H 2D 3D 9C")
    assert note_of(view) == "lead 9C: no sure winner; low from clubs, the shortest suit no opponent can ruff"


def test_leading_low_to_a_partner_who_can_ruff():
    # Partner seat 2 showed out of hearts (4C on 4H) and may hold spades: a heart for it to ruff.
    view = play_view(0, "7H 8H 9H 2D 3D 9C", tricks=((1, "4H 4C 5H 6H"),))
    assert note_of(view) == "lead 7H: no sure winner; low heart, partner can ruff hearts"


def test_leading_when_opponents_can_ruff_every_suit_says_so():
    # 3 players: seat 1 showed out of hearts and of diamonds and may hold spades. The
    # shortest suit, diamonds, goes anyway.
    view = play_view(0, "5H 6H 9D", tricks=((0, "4H 2C 3H"), (0, "4D 3C 3D")), players=3)
    assert note_of(view) == (
        "lead 9D: no sure winner; opponents can ruff every side suit; low from diamonds, the shortest side suit"
    )


# -- PLAY: following ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "seat, hand, trick, players, note",
    [
        # Seat 1 second: KH not sure (AH unseen, seat 2 after), the 3H does not beat the 5H.
        (1, "KH 3H 7D 9C 2S", "5H", 4, "duck 3H: second hand low"),
        # Seat 2 third: KH, the best heart, makes seat 3 spend the AH.
        (2, "KH 10H 3H 7D 2S", "4H 6H", 4, "follow KH: third hand high"),
        (2, "KH QH 3H 7D", "4H 6H", 4, "follow QH: third hand high, as good as KH"),
        # Seat 3 last: KH is the cheapest heart above the QH.
        (3, "2H KH AH 5D", "9H 3H QH", 4, "follow KH: the cheapest winner, no opponent plays after"),
        # 3 players, seat 1: the AH is the top heart and seat 2 has not shown out of hearts.
        (1, "AH 4H 7D", "KH", 3, "follow AH: the cheapest winner no opponent after can beat"),
        # Partner seat 0's KH is sure (the AH is ours): the lowest heart.
        (2, "AH 2H 7D 2S", "KH 5H", 4, "duck 2H: partner's KH wins, the lowest heart"),
        # Nothing beats the AH: the lowest heart.
        (3, "4H 9H KH 5D", "AH 2H 3H", 4, "duck 4H: cannot beat AH, the lowest heart"),
        # Void in hearts, no trump: empty clubs (two cards), not the lowest card 3D.
        (
            3,
            "3D 4D 5D 6C 7C",
            "AH 4H 5H",
            4,
            "throw 6C: cannot beat AH, void in hearts, low from clubs, the shortest side suit",
        ),
        # Void, the AD kept: its suit is all winners; clubs are not.
        (
            3,
            "AD 7C 8C",
            "AH 4H 5H",
            4,
            "throw 7C: cannot beat AH, void in hearts, low from clubs, the shortest side suit not all winners",
        ),
        # Void, only trumps, below the AS that holds the trick.
        (3, "3S 7S", "9H 3H AS", 4, "throw 3S: cannot beat AS, void in hearts with only trumps, the lowest"),
        # Last, void in hearts: 7S is the cheapest trump over the 5S.
        (3, "3S 7S QS 5D", "9H 3H 5S", 4, "ruff 7S: void in hearts, the cheapest trump no opponent after can beat"),
    ],
)
def test_following_says_what_the_card_does_and_why(seat, hand, trick, players, note):
    assert note_of(play_view(seat, hand, trick=trick, players=players)) == note


def test_throwing_off_under_a_partner_sure_to_win():
    # Partner's AH is the top heart (the KH fell earlier); void in hearts, seat 2 keeps its
    # trumps and empties clubs.
    view = play_view(2, "2S 5S 4D 9D JD 6C", trick="AH 3H", tricks=((0, "KH 4H 5H 6H"),))
    assert note_of(view) == "throw 6C: partner's AH wins, void in hearts, low from clubs, the shortest side suit"


def test_ruffing_when_an_opponent_after_may_overruff():
    # Seat 2 showed out of hearts earlier and may hold a higher spade: the 3S wins only for now.
    view = play_view(1, "3S 5D 6D", trick="9H", tricks=((0, "2H 3H 4C 4H"),))
    assert note_of(view) == "ruff 3S: void in hearts, the cheapest trump that wins for now"


# -- 2 players: DISCARD and DRAW -------------------------------------------------------------


@pytest.mark.parametrize(
    "five, note",
    [
        ("2H 3H 4H AS KC", "discard AS KC: the only side cards, every trump kept"),
        ("2H 3H 4H 5H KC", "discard 2H KC: the one side card, then the lowest trump"),
        ("2H 3H 4H 5H 6H", "discard 2H 3H: only trumps, the two lowest"),
    ],
)
def test_discard_says_which_cards_go_and_why(five, note):
    state = deal(rules(players=2), 0, [five, "5S 6S 7S 8S 9S"], trump="H")
    assert note_of(state.view(0)) == note


def test_discard_of_side_cards_by_worth():
    # Four side cards: the lone 2C is worth least; 7S and 9D tie for the second (the seed picks).
    state = deal(rules(players=2), 0, ["2H 3H 4H AS KC", "AH 7S 8S 2C 9D"], trump="H")
    state.apply(tuple(sorted(cards("AS KC"))))
    pair, note = decide(state.view(1))
    spelled = " ".join(CARD_NAMES[c] for c in pair)
    assert "2C" in spelled and note == f"discard {spelled}: the side cards least worth keeping, low and of short suits"


@pytest.mark.parametrize(
    "offered, note",
    [
        ("2H", "draw keep 2H: a trump"),
        ("QD", "draw keep QD: a high diamond"),
    ],
)
def test_draw_keeps_and_says_what_the_card_is(offered, note):
    assert note_of(draw_view(offered)) == note


def test_draw_keeps_a_card_that_makes_its_suit_long():
    # After discarding 3S 9H the hakem holds AH 5C 6C: a third club is 3 of 4 cards.
    state = deal(rules(players=2), 0, ["AH 9H 3S 5C 6C", "2S 6S 7D 8D 9D"], stock="7C", trump="H")
    state.apply(tuple(sorted(cards("3S 9H"))))
    state.apply(tuple(sorted(cards("2S 6S"))))
    assert note_of(state.view(0)) == "draw keep 7C: makes clubs long, 3 of 4 cards"


def test_draw_passes_a_low_card_worth_less_than_the_next():
    # 7S: no trump, no honour, no long suit; worth its rank, 5/13 = 0.38, below the unseen
    # average (trumps and honours among them are worth 2 and more).
    note = note_of(draw_view("7S"))
    found = re.fullmatch(r"draw pass 7S: a low card, worse than the unseen next card \((\S+) < (\S+)\)", note)
    assert found, note
    assert found[1] == "0.38" and float(found[2]) > 1


# -- REDEAL and BAM -----------------------------------------------------------------------------


def test_redeal_says_the_five_hold_no_honour():
    hakem = cards("2S 3H 4D 5C 6S 7S 8S 9S 10S 2H 4H 5H 6H")
    rest = [c for c in rules().deck if c not in hakem]
    state = deal(rules(max_redeals=1), 0, [hakem, rest[:13], rest[13:26], rest[26:]])
    assert decide(state.view(0)) == (True, "redeal: no A, K, Q or J in my first five")


def test_bam_says_every_card_wins():
    state = all_trumps_at_bam()
    assert decide(state.view(0)) == (True, "bam: play on, each of my 6 cards wins, no trump unseen")


def test_no_bam_names_the_card_that_can_lose():
    # Seat 0 won seven tricks with 8S..AS; every spade is gone (seats 1-3 each gave two, then
    # seat 1 threw 8H..QH). Seat 0 holds 2H..7H, and the AH is still unseen.
    hands = [
        "8S 9S 10S JS QS KS AS 2H 3H 4H 5H 6H 7H",
        "2S 3S 8H 9H 10H JH QH KH AH 2D 3D 4D 5D",
        "4S 5S 6D 7D 8D 9D 10D JD QD KD AD 2C 3C",
        "6S 7S 4C 5C 6C 7C 8C 9C 10C JC QC KC AC",
    ]
    state = deal(rules(bam=True), 0, hands, trump="S")
    play_first_legal(state, 28)
    assert decide(state.view(0)) == (False, "no bam: take the kot, my 2H can lose to the unseen AH")


# -- every note of many decisions ---------------------------------------------------------------

# Between them every decision kind is asked, with partners, alone and head to head.
MANY_CONFIGS = [
    {"players": 4, "void_rule": "must_trump", "max_redeals": 2, "bam": True},
    {"players": 3, "max_redeals": 2},
    {"players": 2, "void_rule": "must_trump", "bam": True, "burn_visible": True, "max_redeals": 2},
]
PLAY_VERBS = {"lead", "follow", "ruff", "duck", "throw"}
SHORT = 160  # bytes: one line of the replay; the protocol's limit is NOTE_LIMIT


class Noting:
    """The heuristic, asserting each note it gives names the action taken (and for a play,
    what the card does to the trick); the notes are kept."""

    def __init__(self, seed: str, notes: list[tuple[str, str]]) -> None:
        self.bot = HeuristicPlayer(seed)
        self.notes = notes

    def __call__(self, view: HokmView) -> object:
        action = self.bot(view)
        note = self.bot.note
        assert note.startswith(f"{said(view, action)}: "), (view.kind, action, note)
        self.notes.append((str(view.kind), note))
        return action


def said(view: HokmView, action) -> str:
    """How a note must begin: the action, as docs/records.md spells it, with its verb."""
    if view.kind == "TRUMP":
        return f"trump {SUITS[action]}"
    if view.kind == "DISCARD":
        return "discard " + " ".join(CARD_NAMES[c] for c in action)
    if view.kind == "DRAW":
        return f"draw {action} {CARD_NAMES[view.offered]}"
    if view.kind in ("REDEAL", "BAM"):
        word = view.kind.lower()
        return word if action else f"no {word}"
    return f"{verb(view, action)} {CARD_NAMES[action]}"


def verb(view: HokmView, card: int) -> str:
    """``lead`` on an empty trick; else by whether the card takes the trick so far."""
    if not view.trick:
        return "lead"
    played = [c for _, c in view.trick]
    led = played[0] // 13
    takes = winning_index([*played, card], view.trump) == len(played)
    if takes:
        return "follow" if card // 13 == led else "ruff"
    return "duck" if card // 13 == led else "throw"


def test_every_note_is_short_and_names_the_action_over_thousands_of_decisions():
    notes: list[tuple[str, str]] = []
    for keys in MANY_CONFIGS:
        rules_ = rules(**keys, target_score=3)
        n = rules_.players
        for k in range(24):
            # The heuristic on every seat in even matches, on seat k % n against random in odd ones.
            players = [
                Noting(f"{k}/{s}", notes) if k % 2 == 0 or s == k % n else RandomPlayer(f"r{k}/{s}") for s in range(n)
            ]
            play_match(rules_, f"notes/{n}/{k}", players)
    kinds = {kind for kind, _ in notes}
    assert kinds == {"TRUMP", "PLAY", "DISCARD", "DRAW", "REDEAL", "BAM"}
    assert len(notes) > 5000
    longest = max(len(note.encode()) for _, note in notes)
    assert longest <= SHORT < NOTE_LIMIT, longest
    plays = {note.split()[0] for kind, note in notes if kind == "PLAY"}
    assert plays == PLAY_VERBS  # every verb occurs, and no other


def test_the_same_decision_gets_the_same_note_asked_again_out_of_order():
    asked: list[tuple[HokmView, str]] = []
    first = HeuristicPlayer(5)

    def recording(view):
        action = first(view)
        asked.append((view, first.note))
        return action

    play_match(rules(preset="two", bam=True, max_redeals=1), "notes-again", [recording, recording])
    fresh = HeuristicPlayer(5)
    again = []
    for view, _ in reversed(asked):
        fresh(view)
        again.append(fresh.note)
    assert again == [note for _, note in reversed(asked)] and all(again)


# -- a recorded match over gRPC, replayed ---------------------------------------------------------


@pytest.mark.slow
def test_the_replay_of_a_grpc_match_between_heuristic_bots_shows_every_note(tmp_path):
    rules_file = tmp_path / "two.toml"
    rules_file.write_text("players = 2\ntarget_score = 2\nbam = true\nmax_redeals = 2\nburn_visible = true\n")
    env = {**os.environ, "COLUMNS": "100", "WARAQ_DEAL_KEY": "5" * 64}
    played = subprocess.run(
        [
            WARAQ,
            "match",
            "--bots",
            "heuristic",
            "heuristic",
            "--rules",
            str(rules_file),
            "--games",
            "1",
            "--seed",
            "3",
            "--record",
            str(tmp_path / "records"),
            "--sandbox",
            "off",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert played.returncode == 0, played.stdout + played.stderr
    [path] = (tmp_path / "records").glob("hokm-*.jsonl")
    decisions = [e for e in read_record(path).events if e["type"] == "decision"]
    assert {"TRUMP", "DISCARD", "DRAW", "PLAY"} <= {e["kind"] for e in decisions}
    assert all(e.get("note") for e in decisions), "a launched heuristic sends a note with every reply"

    shown = subprocess.run([WARAQ, "replay", str(path), "--plain"], capture_output=True, text=True, timeout=60, env=env)
    assert shown.returncode == 0, shown.stderr
    text = " ".join(shown.stdout.split())  # a long note wraps: compare words
    for e in decisions:
        # A play's note follows its seat and card, under the trick; any other under its decision.
        line = f"s{e['seat']} {e['action']}: {e['note']}" if e["kind"] == "PLAY" else f"s{e['seat']}: {e['note']}"
        assert " ".join(line.split()) in text, line

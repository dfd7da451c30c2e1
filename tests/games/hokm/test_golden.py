"""Golden playthroughs (tests/golden/hokm_{4,3,2}p.txt): whole matches as readable text.

The matches are played again and rendered in memory; any difference from the
files fails with a unified diff. If the change is intended, run
``python tests/golden/regenerate.py`` and review the diff of the files.

The files are also read back as a reviewer would read them, with docs/rules.md in
hand: every card played was in the seat's hand and followed suit when it
could, and every trick went to the highest trump, else the highest card of
the led suit.
"""

from __future__ import annotations

import difflib
import re

import pytest

from tests.golden.regenerate import MATCHES, path_for, render

PLAYER_COUNTS = sorted(MATCHES, reverse=True)


def golden(players: int) -> str:
    return path_for(players).read_text()


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_playthrough_matches_its_golden_file(players):
    expected, actual = golden(players), render(players)
    if actual != expected:
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(keepends=True),
                actual.splitlines(keepends=True),
                fromfile=str(path_for(players)),
                tofile="rendered now",
            )
        )
        pytest.fail(
            f"the {players}-player golden playthrough changed. If the change is intended, run "
            f"`python tests/golden/regenerate.py` and review the diff of the files.\n{diff}",
            pytrace=False,
        )


# -- reading a file back, as a reviewer would --------------------------------------

RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
HAND = re.compile(r"^  s(\d)[h ] (S: .*)$")
TRICK = re.compile(r"^ +(\d+)  ((?:s\d \S+ +)+)led ([SHDC])  won by s(\d)  ([\d-]+)$")
TRUMP = re.compile(r"^Trump: seat \d names ([SHDC])")


def parse_hand(text: str) -> set[str]:
    """``S: A 10  H: -  D: 9  C: 2`` -> {'AS', '10S', '9D', '2C'}."""
    cards = set()
    for suit, ranks in re.findall(r"([SHDC]): ((?:[0-9JQKA]+ ?)+|-)", text):
        cards.update(r + suit for r in ranks.split() if r != "-")
    return cards


def check_against_rules(text: str) -> int:
    """Replay the tricks of a golden file by docs/rules.md; returns the number of tricks checked."""
    players = int(re.search(r"Hokm, (\d) players", text).group(1))
    assert 'void_rule = "free"' in text  # the check below knows only the default void rule
    hands: dict[int, set[str]] = {}
    trump = None
    won = [0] * players
    checked = 0
    for line in text.splitlines():
        if line.startswith("=== Round"):
            hands, trump, won = {}, None, [0] * players
        elif m := TRUMP.match(line):
            trump = m.group(1)
        elif m := HAND.match(line):
            hands[int(m.group(1))] = parse_hand(m.group(2))  # the last listing is the full hand
        elif m := TRICK.match(line):
            plays = re.findall(r"s(\d) (\S+)", m.group(2))
            led = plays[0][1][-1]
            assert m.group(3) == led, line
            for seat, card in plays:
                hand = hands[int(seat)]
                assert card in hand, f"{line}: s{seat} does not hold {card}"
                if card[-1] != led:
                    assert not any(c[-1] == led for c in hand), f"{line}: s{seat} must follow {led}"
                hand.remove(card)
            trumps = [(s, c) for s, c in plays if c[-1] == trump]
            pool = trumps or [(s, c) for s, c in plays if c[-1] == led]
            winner = int(max(pool, key=lambda sc: RANKS.index(sc[1][:-1]))[0])
            assert int(m.group(4)) == winner, f"{line}: the trick goes to s{winner}"
            won[winner] += 1
            sides = [won[0] + won[2], won[1] + won[3]] if players == 4 else won
            assert m.group(5) == "-".join(map(str, sides)), line
            checked += 1
    return checked


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_golden_tricks_follow_suit_and_go_to_the_right_seat(players):
    # At least two rounds' worth of tricks, so the parser cannot silently skip them all.
    assert check_against_rules(golden(players)) >= 14


def test_the_three_player_file_shows_a_kot_an_early_decision_and_a_tie():
    # The seed was chosen for these (regenerate.py --search); a change in the
    # engine or the bots that loses them needs a new seed.
    text = golden(3)
    assert "won each of the first 7 tricks: kot" in text
    early = re.findall(r"ends after (\d+) tricks: seat \d has \d+ and cannot be caught", text)
    assert any(int(n) < 17 for n in early)
    assert "all 17 tricks played; seats" in text


def test_the_four_player_file_shows_a_redeal_and_a_bam():
    text = golden(4)
    assert "asks for a redeal" in text
    assert "calls bam" in text


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_golden_files_stay_readable(players):
    text = golden(players)
    assert len(text.splitlines()) < 400
    assert "=== Result:" in text.splitlines()[-1]

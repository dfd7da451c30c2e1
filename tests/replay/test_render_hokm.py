"""`waraq replay` as text: whole matches, one seat's view, one round, one step, on an 80-column console.

The hand-worked record (tests/support/replay_records.py, ``hand_worked``) is simple
enough to write its every line by hand: seat s holds all of suit s, seat 0
is the hakem and names spades, every seat plays its highest legal card, so
seat 0 takes tricks 1-7 with AS, KS, ... 8S while the others throw A, K, ...
8 of their own suits; a kot by the hakem's team: 2 points, 2-0. Records
played by the real referee are checked against the golden playthroughs
(tests/golden/), which were written apart from this renderer and checked by
hand against docs/rules.md.
"""

from __future__ import annotations

import json
import re

import pytest

from tests.golden.regenerate import MATCHES, path_for
from tests.support.replay_records import HAND_RULES, hand_worked, played, render, waraq, write_events
from waraq.bots.hokm_random import RandomPlayer
from waraq.referee.games.cards import CARD_NAMES
from waraq.referee.games.hokm.rules import HokmRules
from waraq.referee.match.inprocess import play_match
from waraq.referee.replay.render_hokm import MatchText, StepScreen, Walker, start_index
from waraq.referee.replay.walk import load

HASH = HAND_RULES.rules_hash[:19]


@pytest.fixture(scope="module")
def hand(tmp_path_factory):
    return load(hand_worked(tmp_path_factory.mktemp("hand") / "hand-1.jsonl"))


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    return played(tmp_path_factory)


# The label column is as wide as "Ace draw" (8) plus a space, leaving 71 columns for the
# values: the rules wrap where a key would pass column 80.
HEADER = f"""\
Match    hand-1, hokm, seed 7, started 2025-01-01T00:00:00.000Z
Seats    s0 high 1.0, s1 high 1.0, s2 high 1.0, s3 high 1.0
Rules    players=4 target_score=1 kot_points=2 hakem_kot_points=3
         void_rule="free" hakem_rotation="on_loss" max_redeals=0 bam=false
         removed_cards=[] burn_visible=false ({HASH}…)
Teams    s0+s2 and s1+s3
Clock    10000 ms a decision, 60000 ms bank; policy forfeit
Ace draw AS (face up, one card a seat from s0): s0 is the first hakem"""

# The first packets: AKQJ10 of each seat's suit, lined up by suit (65 columns fit in 80).
# After the rest of the deal each hand is a whole suit: too wide to line up.
WHOLE_MATCH = (
    HEADER
    + """

=== Round 1: hakem s0 ===
Deal: first five cards to each seat, from the hakem:
  s0h  S: A K Q J 10  H: -           D: -           C: -
  s1   S: -           H: A K Q J 10  D: -           C: -
  s2   S: -           H: -           D: A K Q J 10  C: -
  s3   S: -           H: -           D: -           C: A K Q J 10
Trump: s0 names S (spades)
      s0: all spades
Hands after the rest of the deal:
  s0h  S: A K Q J 10 9 8 7 6 5 4 3 2  H: -  D: -  C: -
  s1   S: -  H: A K Q J 10 9 8 7 6 5 4 3 2  D: -  C: -
  s2   S: -  H: -  D: A K Q J 10 9 8 7 6 5 4 3 2  C: -
  s3   S: -  H: -  D: -  C: A K Q J 10 9 8 7 6 5 4 3 2
Tricks (leader first; tricks won so far s0+s2-s1+s3):
   1  s0 AS   s1 AH   s2 AD   s3 AC     won by s0  1-0
      s0 AS: cash the ace
      s1 AH: void in spades: my best heart
   2  s0 KS   s1 KH   s2 KD   s3 KC     won by s0  2-0
   3  s0 QS   s1 QH   s2 QD   s3 QC     won by s0  3-0
   4  s0 JS   s1 JH   s2 JD   s3 JC     won by s0  4-0
   5  s0 10S  s1 10H  s2 10D  s3 10C    won by s0  5-0
   6  s0 9S   s1 9H   s2 9D   s3 9C     won by s0  6-0
   7  s0 8S   s1 8H   s2 8D   s3 8C     won by s0  7-0
Round 1 ends, tricks 7-0: s0+s2 win +2 (kot); score 2-0
Result: s0+s2 win the match on score, 2-0"""
)


def test_the_whole_match_shows_every_hand_trick_note_and_the_result(hand):
    assert render(MatchText(hand)) == WHOLE_MATCH


def test_as_seat_1_saw_it_only_its_own_hand_and_notes_show(hand):
    expected = (
        HEADER.replace("\nAce draw", "\nSeen by  s1 (high): its own cards and what is public\nAce draw")
        + """

=== Round 1: hakem s0 ===
Deal: first five cards to s1, from the hakem:
  s1   S: -  H: A K Q J 10  D: -  C: -
Trump: s0 names S (spades)
Its hand after the rest of the deal:
  s1   S: -  H: A K Q J 10 9 8 7 6 5 4 3 2  D: -  C: -
Tricks (leader first; tricks won so far s0+s2-s1+s3):
   1  s0 AS   s1 AH   s2 AD   s3 AC     won by s0  1-0
      s1 held S: -  H: A K Q J 10 9 8 7 6 5 4 3 2  D: -  C: -
      s1 AH: void in spades: my best heart
   2  s0 KS   s1 KH   s2 KD   s3 KC     won by s0  2-0
      s1 held S: -  H: K Q J 10 9 8 7 6 5 4 3 2  D: -  C: -
   3  s0 QS   s1 QH   s2 QD   s3 QC     won by s0  3-0
      s1 held S: -  H: Q J 10 9 8 7 6 5 4 3 2  D: -  C: -
   4  s0 JS   s1 JH   s2 JD   s3 JC     won by s0  4-0
      s1 held S: -  H: J 10 9 8 7 6 5 4 3 2  D: -  C: -
   5  s0 10S  s1 10H  s2 10D  s3 10C    won by s0  5-0
      s1 held S: -  H: 10 9 8 7 6 5 4 3 2  D: -  C: -
   6  s0 9S   s1 9H   s2 9D   s3 9C     won by s0  6-0
      s1 held S: -  H: 9 8 7 6 5 4 3 2  D: -  C: -
   7  s0 8S   s1 8H   s2 8D   s3 8C     won by s0  7-0
      s1 held S: -  H: 8 7 6 5 4 3 2  D: -  C: -
Round 1 ends, tricks 7-0: s0+s2 win +2 (kot); score 2-0
Result: s0+s2 win the match on score, 2-0"""
    )
    assert render(MatchText(hand, seat=1)) == expected


def test_jumping_to_a_trick_shows_the_hands_before_it_and_the_rest_of_the_round(hand):
    # Before trick 6 seat s holds 9 down to 2 of its suit (A-10 went in tricks 1-5).
    # Lined up, s3's line would be 7 + 3 * (3 + 15 + 2) + 3 + 15 = 85 columns: too wide.
    expected = (
        HEADER
        + """

=== Round 1, from trick 6: hakem s0, trump S ===
Hands before trick 6:
  s0h  S: 9 8 7 6 5 4 3 2  H: -  D: -  C: -
  s1   S: -  H: 9 8 7 6 5 4 3 2  D: -  C: -
  s2   S: -  H: -  D: 9 8 7 6 5 4 3 2  C: -
  s3   S: -  H: -  D: -  C: 9 8 7 6 5 4 3 2
Tricks (leader first; tricks won so far s0+s2-s1+s3):
   6  s0 9S   s1 9H   s2 9D   s3 9C     won by s0  6-0
   7  s0 8S   s1 8H   s2 8D   s3 8C     won by s0  7-0
Round 1 ends, tricks 7-0: s0+s2 win +2 (kot); score 2-0"""
    )
    assert render(MatchText(hand, round=1, trick=6)) == expected


def test_a_step_shows_the_table_the_legal_actions_and_the_answer(hand):
    # Decision 7: trick 2, seat 1 after seat 0's KS (decision 1 is TRUMP, 4 plays a
    # trick; line 1 header, 2 ace draw, 3 deal, so decision k is on line k + 3).
    # Seat 1 is void in spades: every heart is legal; it is its 2nd request.
    step = hand.steps[6]
    expected = """\
Decision 7 of 29, line 10: round 1, trick 2; s1 (high) to PLAY
Hakem s0, trump S; score 0-0, tricks 1-0 (s0+s2-s1+s3)
  s0h  S: Q J 10 9 8 7 6 5 4 3 2  H: -  D: -  C: -
  s1   S: -  H: K Q J 10 9 8 7 6 5 4 3 2  D: -  C: -
  s2   S: -  H: -  D: K Q J 10 9 8 7 6 5 4 3 2  C: -
  s3   S: -  H: -  D: -  C: K Q J 10 9 8 7 6 5 4 3 2
Tricks this round:
   1  s0 AS   s1 AH   s2 AD   s3 AC     won by s0
Trick 2 so far: s0 KS
Legal: 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH
Played: KH   (0.5 ms, seq 2, bank 60000 ms)"""
    assert render(StepScreen(hand, step)) == expected
    seen = render(StepScreen(hand, step, seat=1)).splitlines()
    assert seen[2:4] == [
        "  s1   S: -  H: K Q J 10 9 8 7 6 5 4 3 2  D: -  C: -",
        "  cards held by the others: s0 11, s2 12, s3 12",
    ]


def test_every_rendered_line_fits_in_80_columns(records):
    for path in [p for name in ("clean", "two", "faults", "timeout", "lost_before") for p in records.records(name)]:
        replay = load(path)
        step = replay.steps[min(40, len(replay.steps) - 1)]
        for text in (render(MatchText(replay)), render(MatchText(replay, seat=1)), render(StepScreen(replay, step))):
            assert max(map(len, text.splitlines())) <= 80


# -- against the golden playthroughs -------------------------------------------------

KINDS_OF_LINES = re.compile(
    r"^(\d+ s\d \S+ .* won by s\d [-\d]+|\d+ s\d is offered .*|s\dh? S: .*|Trump: .*|"
    r"s\d (holds no|could ask|calls bam|does not call bam|discards).*)$"
)


def comparable(text: str) -> list[str]:
    """Deals, trumps, redeals, discards, draws, tricks (with running counts) and bams, in order,
    spelled alike: whitespace collapsed, "Seat 2" as "s2", the golden's "led X" left out."""
    lines = []
    raw = text.splitlines()
    for i, line in enumerate(raw):
        line = re.sub(r"\b[Ss]eat (\d)", r"s\1", " ".join(line.split()))
        line = re.sub(r" led [SHDC] ", " ", line)
        if line.endswith("keeps:"):  # the golden puts the kept hand on the next line
            line += " " + " ".join(raw[i + 1].split()[1:])
        elif i and " ".join(raw[i - 1].split()).endswith("keeps:"):
            continue
        if KINDS_OF_LINES.match(line):
            lines.append(line)
    return lines


@pytest.mark.parametrize("players", sorted(MATCHES))
def test_the_render_agrees_with_the_golden_playthrough(players, tmp_path):
    match = MATCHES[players]
    rules = HokmRules.from_dict(match["rules"])
    seed = match["seed"]
    state = play_match(rules, seed, [RandomPlayer(f"golden/{seed}/{s}") for s in range(players)])
    header = {
        "type": "match",
        "format": "waraq.record.v1",
        "game": "hokm",
        "match_id": f"golden-{seed}",
        "rules": rules.to_dict(),
        "rules_hash": rules.rules_hash,
        "seed": seed,
        "seats": [{"seat": s, "bot": "random"} for s in range(players)],
        "time_control": {"decision_ms": 1000, "bank_ms": 1000},
    }
    replay = load(write_events(tmp_path / "golden.jsonl", [header, *state.events]))
    assert replay.ok, replay.problem
    ours = comparable(render(MatchText(replay), width=100))
    golden = comparable(path_for(players).read_text())
    assert len(ours) > 30 and ours == golden


def test_the_golden_4_player_match_shows_its_redeal_and_its_bam(tmp_path):
    # From the golden file: "Seat 2 holds no A, K, Q or J and asks for a redeal, showing 3S 2H 6H 10H 2D"
    # and "Seat 3 calls bam: its side plays on for all 13 tricks".
    match = MATCHES[4]
    rules = HokmRules.from_dict(match["rules"])
    state = play_match(rules, match["seed"], [RandomPlayer(f"golden/{match['seed']}/{s}") for s in range(4)])
    header = {
        "type": "match",
        "format": "waraq.record.v1",
        "game": "hokm",
        "rules": rules.to_dict(),
        "rules_hash": rules.rules_hash,
        "seed": 0,
        "seats": [{"seat": s, "bot": "r"} for s in range(4)],
        "time_control": {"decision_ms": 1, "bank_ms": 1},
    }
    text = render(MatchText(load(write_events(tmp_path / "g.jsonl", [header, *state.events]))))
    assert "s2 holds no A, K, Q or J and asks for a redeal, showing 3S 2H 6H 10H 2D" in text
    assert "s3 calls bam: its side plays on for all 13 tricks" in text
    assert "Deal 2 of round 2, after a redeal:" in text


# -- what one seat sees ----------------------------------------------------------------


def test_two_players_as_seat_0_saw_it_hides_the_other_discards_draws_and_hand(records):
    replay = load(records.records("two")[0])
    text = render(MatchText(replay, seat=0))
    hand_lines = [line for line in text.splitlines() if re.match(r"^\s+s\dh?\s+S: ", line)]
    assert hand_lines and all(line.split()[0].startswith("s0") for line in hand_lines)
    discards = [line for line in text.splitlines() if " discards " in line]
    assert "s1 discards two cards" in discards and any(d.startswith("s0 discards ") for d in discards)
    assert not any(line.startswith("s1 discards ") and line != "s1 discards two cards" for line in discards)
    draws = [line for line in text.splitlines() if " is offered " in line]
    assert draws and all(line.split()[1] == "s0" for line in draws)
    # burn_visible is false: after a keep, the burned card stays unseen by the drawer.
    assert all("burns a card unseen" in line for line in draws if " keep: " in line)
    # The whole view (every seat's hands and draws) shows the other seat too.
    everyone = render(MatchText(replay))
    assert any(line.split()[1] == "s1" for line in everyone.splitlines() if " is offered " in line)


def test_as_a_seat_saw_it_no_card_it_could_not_know_is_shown(records):
    """Every card named in seat 1's render is one it saw in one of its views, or one played to
    a trick, or public from the start (the face-up ace draw; the card taken out of the deck).
    The "faults" record has seat 2's ILLEGAL fault, whose detail quotes seat 2's hand."""
    for name in ("clean", "two", "three", "faults", "forfeit"):
        replay = load(records.records(name)[0])
        known = {CARD_NAMES[c] for step in replay.steps_of(1) for c in step.view.cards_seen()}
        known |= {step.action_json for step in replay.steps if step.kind == "PLAY"}
        known |= set(replay.events[1]["cards"]) | set(replay.rules.removed_cards)
        named = set(re.findall(r"\b(?:10|[2-9JQKA])[SHDC]\b", render(MatchText(replay, seat=1))))
        assert named and named <= known


# -- records that stop early -------------------------------------------------------------


def test_a_record_cut_short_is_shown_up_to_its_last_whole_line(records, tmp_path):
    lines = records.records("clean")[0].read_text().splitlines(keepends=True)
    # Keep the header, ace draw, deal, TRUMP and the first 6 plays, then half a line.
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(lines[:10]) + lines[10][:15])
    text = render(MatchText(load(cut)))
    tricks = [line for line in text.splitlines() if re.match(r"^\s+\d+\s+s\d ", line)]
    assert len(tricks) == 2
    assert "won by" in tricks[0] and "won by" not in tricks[1]  # trick 2 has 2 of its 4 cards
    assert len(tricks[1].split()) == 1 + 2 * 2
    assert text.splitlines()[-1] == "Cut short: line 11 is cut short; readable up to line 10 (round 1, trick 2)"


def test_a_forfeit_shows_the_fault_and_who_won_by_it(records):
    # Seat 3 answered its 2nd request with a card it does not hold: policy forfeit,
    # so s3's side loses: s0+s2 win, 0-0 (no round was finished).
    text = render(MatchText(load(records.records("forfeit")[0])))
    lines = text.splitlines()
    fault = next(line for line in lines if "fault:" in line)
    assert fault.startswith("  fault: s3 ILLEGAL: seat 3 played")
    assert lines[-1] == "Result: s0+s2 win by the forfeit of s3, score 0-0"


def test_substituted_decisions_show_the_fault_and_what_was_played_instead(records):
    replay = load(records.records("faults")[0])
    text = render(MatchText(replay))
    substituted = [s for s in replay.steps if s.fault]
    assert len(substituted) == 2
    for step in substituted:
        assert f"fault: s{step.seat} {step.fault['kind']}:" in text
        assert f"played for it: {step.action_json}" in text


# -- walking step by step -----------------------------------------------------------------


def test_the_walker_moves_next_back_to_a_decision_a_round_and_a_trick(hand):
    walker = Walker(hand.steps, start_index(hand.steps, 1, 3))
    assert walker.step.number == 10  # trick 3's first play: decisions 2-5, 6-9 are tricks 1-2
    assert walker.command("b") is None and walker.step.number == 9
    assert walker.command("") is None and walker.step.number == 10
    assert walker.command("j 29") is None and walker.step.number == 29
    assert walker.command("n") == "this is the last decision" and walker.step.number == 29
    assert walker.command("t 1") is None and walker.step.number == 2
    assert walker.command("r 1") is None and walker.step.number == 1
    assert walker.command("b") == "this is the first decision"
    assert walker.command("r 4").startswith("no such round")
    assert walker.command("x").startswith("not understood: 'x'")
    assert walker.command("q") == "quit"


def test_step_mode_reads_commands_from_stdin(hand):
    # As seat 1: its decisions are 3, 7, 11, ... (the 2nd play of each trick).
    run = waraq("replay", str(hand.path), "--step", "--seat", "1", stdin="n\nb\nj 11\nr 1\nhuh\nq\n")
    assert run.returncode == 0, run.stderr
    shown = re.findall(r"^Decision (\d+) of 29", run.stdout, flags=re.MULTILINE)
    assert shown == ["3", "7", "3", "11", "3"]
    assert "not understood: 'huh'" in run.stdout


def test_step_mode_ends_at_the_end_of_input(hand):
    run = waraq("replay", str(hand.path), "--step", "--round", "1", "--trick", "7", stdin="n\n")
    assert run.returncode == 0
    assert re.findall(r"^Decision (\d+) ", run.stdout, flags=re.MULTILINE) == ["26", "27"]


def test_the_command_prints_the_match_plain_when_piped(hand):
    run = waraq("replay", str(hand.path))
    assert run.returncode == 0, run.stderr
    assert "\x1b[" not in run.stdout
    assert [line.rstrip() for line in run.stdout.splitlines()] == WHOLE_MATCH.splitlines()


def test_the_command_refuses_a_round_that_is_not_there(hand):
    run = waraq("replay", str(hand.path), "--round", "3")
    assert run.returncode == 2 and "no round 3 in this record: it has round 1" in run.stderr
    assert "Traceback" not in run.stderr


@pytest.mark.slow
def test_brackets_in_bot_names_and_notes_are_shown_as_they_are_not_read_as_markup(tmp_path):
    # A bot names itself in Hello and writes its own notes: "[/]" used to stop rich with a
    # MarkupError, and "[bold]" vanished.
    path = hand_worked(tmp_path / "h.jsonl")
    events = [json.loads(line) for line in path.read_text().splitlines()]
    events[0]["seats"][1]["bot"] = "[/]"
    events[0]["seats"][2]["bot"] = "[bold]b[/bold]"
    first = next(e for e in events if e["type"] == "decision")
    first["note"] = "[red]why[/red] [/x]"
    write_events(path, events)
    whole = waraq("replay", str(path))
    assert whole.returncode == 0 and "Traceback" not in whole.stderr, whole.stderr
    assert "s1 [/] 1.0, s2 [bold]b[/bold] 1.0" in whole.stdout and "[red]why[/red] [/x]" in whole.stdout
    step = waraq("replay", str(path), "--step", stdin="q\n")  # the first decision, with its note
    assert step.returncode == 0 and "Note: [red]why[/red] [/x]" in step.stdout, step.stderr

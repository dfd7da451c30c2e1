"""`waraq replay` shows how each seat was reached and every seat away and back: text and HTML, Hokm and Hand.

The records are real matches' lines with ``connection`` lines put in by hand
where a dial-in seat could lose its stream (docs/records.md, "`connection`: a
dial-in seat away and back"): in the middle of a trick, between a fault and
the decision played for it, between a Hand TAKE and its TURN, after a round's
last decision. The header's seats say how each was reached (``via``). The
Hokm match is the deal worked by hand (tests/support/replay_records.py: seat s
holds all of suit s, every seat plays its highest card); the Hand match is a
seeded 2-player round of random legal play.

The browser tests open the page in Chromium (tests/support/browser.py) and
read the notes through its DOM: text, never markup, even when a record's
``via`` or ``at`` holds a script.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.browser import Browser, session_browser
from tests.support.replay_records import (
    hand_worked,
    read_events,
    record_header,
    render,
    waraq,
    write_events,
    write_played,
)
from waraq.referee.games.hand.dealing import SeededHandDealer
from waraq.referee.games.hand.engine import HandState
from waraq.referee.games.hand.rules import HandRules
from waraq.referee.replay.html.page import page_data
from waraq.referee.replay.html.write import write_page
from waraq.referee.replay.render_hand import HandMatchText, HandStepScreen
from waraq.referee.replay.render_hokm import MatchText, StepScreen
from waraq.referee.replay.verify import verify_record
from waraq.referee.replay.walk import Change, load

HOSTILE_VIA = "</title><script>window.ran = 'via'</script>"
HOSTILE_AT = "<img src=x onerror=\"window.ran = 'at'\">"
HAND_RULES = HandRules(players=2, rounds=1)


def connection(seat: int, change: str, at: str, away_ms: float | None = None) -> dict[str, Any]:
    line: dict[str, Any] = {"type": "connection", "seat": seat, "change": change, "at": at}
    if away_ms is not None:
        line["away_ms"] = away_ms
    return line


def with_via(events: list[dict[str, Any]], via: list[str | None]) -> list[dict[str, Any]]:
    for entry, how in zip(events[0]["seats"], via, strict=True):
        if how is not None:
            entry["via"] = how
    return events


def at_index(events: list[dict[str, Any]], number: int) -> int:
    """The index in ``events`` of the ``number``-th decision (1-based)."""
    return [i for i, e in enumerate(events) if e["type"] == "decision"][number - 1]


# -- the records --------------------------------------------------------------------------------


def hokm_record(folder: Path) -> Path:
    """The worked deal, seat 2 ``kit`` dialled in: away and back between s1's and s2's cards of trick 1
    (decisions 3 and 4); s3's KC of trick 2 (decision 9) is substituted for an illegal reply, and s3's
    connection lost between that fault and its decision; s0's, after the last decision, the next day."""
    events = read_events(hand_worked(folder / "plain.jsonl"))
    events[0]["seats"][2]["bot"] = "kit"
    with_via(events, ["launched", "address", "dial-in", "dial-in"])
    ninth = at_index(events, 9)
    assert events[ninth]["seat"] == 3 and events[ninth]["action"] == "KC"
    fault = {
        "type": "fault",
        "round": 1,
        "seat": 3,
        "kind": "ILLEGAL",
        "code": "illegal_action",
        "detail": "seat 3 played 'AS' but does not hold it",
        "substituted": "KC",
    }
    events[ninth:ninth] = [fault, connection(3, "lost", "2025-01-01T00:00:09.001Z")]
    last = max(i for i, e in enumerate(events) if e["type"] == "decision")
    events.insert(last + 1, connection(0, "lost", "2025-01-02T00:00:01.500Z"))
    fourth = at_index(events, 4)
    events[fourth:fourth] = [
        connection(2, "lost", "2025-01-01T00:00:03.123Z"),
        connection(2, "back", "2025-01-01T00:00:04.357Z", 1234.5),
    ]
    return write_events(folder / "hokm.jsonl", events)


def hand_record(folder: Path) -> Path:
    """A 2-player Hand round, s1 ``kit`` dialled in: away before the first turn, back (after 340 ms)
    between its first TAKE and that turn's TURN; s0 away between the round's end and the result."""
    state = HandState(HAND_RULES, SeededHandDealer(3))
    rng = random.Random(3)
    while not state.is_over:
        state.apply(state.random_action(rng))
    header = record_header(HAND_RULES, 3, match_id="hand-c", bot="kit")
    header["seats"][0]["bot"] = "alma"
    events = read_events(write_played(folder / "plain-hand.jsonl", header, state.events, lambda n, e: None))
    with_via(events, ["in-process", "dial-in"])
    take = next(i for i, e in enumerate(events) if e.get("kind") == "TAKE")
    assert events[take]["seat"] == 1 and events[take + 1]["kind"] == "TURN"
    events.insert(take + 1, connection(1, "back", "2025-01-01T00:00:02.040Z", 340.25))
    events.insert(at_index(events, 1), connection(1, "lost", "2025-01-01T00:00:01.700Z"))
    events.insert(len(events) - 1, connection(0, "lost", "2025-01-01T00:05:00.000Z"))
    return write_events(folder / "hand.jsonl", events)


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("connections")


@pytest.fixture(scope="module")
def hokm(folder) -> Path:
    return hokm_record(folder)


@pytest.fixture(scope="module")
def hand(folder) -> Path:
    return hand_record(folder)


def lines_of(text: str) -> list[str]:
    return text.splitlines()


def followed_by(lines: list[str], line: str) -> str:
    """The line after ``line`` (which must be there once)."""
    assert lines.count(line) == 1, line
    return lines[lines.index(line) + 1]


# -- the walk -----------------------------------------------------------------------------------


def test_the_walk_keeps_each_connection_line_with_the_decisions_before_it_and_replays_the_rest(hokm):
    replay = load(hokm)
    assert replay.ok, replay.problem
    assert [(c.seat, c.change, c.after, c.away_ms) for c in replay.connections] == [
        (2, Change.LOST, 3, None),
        (2, Change.BACK, 3, 1234.5),
        (3, Change.LOST, 8, None),
        (0, Change.LOST, 29, None),
    ]
    # Each is shown with the first question asked after it, else the last: s2's card, s3's KC, the last card.
    assert [replay.step_of(c).number for c in replay.connections] == [4, 4, 9, 29]
    assert replay.steps[8].fault is not None and replay.steps[8].action is not None  # the fault, then its decision
    assert replay.connected_via == ["launched", "address", "dial-in", "dial-in"]
    # In a walk over one seat's steps, each goes with that seat's next question.
    assert [replay.step_of(c, replay.steps_of(3)).number for c in replay.connections] == [5, 5, 9, 29]
    assert replay.step_of(replay.connections[3], replay.steps_of(1)).number == 27  # s1's last, before it


def test_lines_that_name_no_seat_or_an_unknown_change_are_passed_over(hokm, tmp_path):
    events = read_events(hokm)
    events.insert(5, connection(7, "lost", "2025-01-01T00:00:01.000Z"))
    events.insert(5, connection(1, "moved", "2025-01-01T00:00:01.000Z"))
    replay = load(write_events(tmp_path / "odd.jsonl", events))
    assert replay.ok and len(replay.connections) == 4


def test_records_with_connection_lines_verify(hokm, hand):
    for record in (hokm, hand):
        verdict = verify_record(record)
        assert verdict.ok, verdict
    done = waraq("replay", "--verify", str(hokm), str(hand))
    assert done.returncode == 0, done.stdout + done.stderr


# -- the text: Hokm -----------------------------------------------------------------------------

MID_TRICK = """\
Tricks (leader first; tricks won so far s0+s2-s1+s3):
  seat 2 (kit): connection lost at 00:00:03.123 (trick 1, before s2 played)
  seat 2 (kit): back at 00:00:04.357 after 1.2 s (trick 1, before s2 played)
   1  s0 AS   s1 AH   s2 AD   s3 AC     won by s0  1-0"""
# The fault on s3's KC, then s3's connection lost before the KC played for it: the record's order.
WITH_THE_FAULT = """\
  fault: s3 ILLEGAL: seat 3 played 'AS' but does not hold it; played for it: KC
  seat 3 (high): connection lost at 00:00:09.001 (trick 2, before s3 played)
   2  s0 KS   s1 KH   s2 KD   s3 KC     won by s0  2-0"""
# After the last card, on another day than the match started: with its date.
AFTER_THE_LAST = """\
   7  s0 8S   s1 8H   s2 8D   s3 8C     won by s0  7-0
  seat 0 (high): connection lost at 2025-01-02 00:00:01.500
Round 1 ends, tricks 7-0: s0+s2 win +2 (kot); score 2-0"""


def test_the_whole_hokm_match_says_how_each_seat_was_reached_and_each_seat_away_and_back(hokm):
    text = render(MatchText(load(hokm)))
    seats = "s0 high 1.0 (launched), s1 high 1.0 (address), s2 kit 1.0 (dial-in), s3\n         high 1.0 (dial-in)"
    assert f"\nSeats    {seats}\n" in text  # wrapped in 80 columns
    for chunk in (MID_TRICK, WITH_THE_FAULT, AFTER_THE_LAST):
        assert chunk in text


def test_each_seats_view_shows_the_connection_lines_they_are_public(hokm):
    replay = load(hokm)
    for seat in range(4):
        text = render(MatchText(replay, seat=seat))
        assert MID_TRICK in text and AFTER_THE_LAST.splitlines()[1] in text
        # Another seat's fault keeps its detail, and the connection line stays where it was.
        lines = lines_of(text)
        assert followed_by(lines, WITH_THE_FAULT.splitlines()[1]) == WITH_THE_FAULT.splitlines()[2]


def test_one_round_and_one_trick_show_the_lines_of_their_questions(hokm):
    replay = load(hokm)
    from_trick_1 = render(MatchText(replay, round=1, trick=1))
    assert "=== Round 1, from trick 1: hakem s0, trump S ===" in from_trick_1
    assert MID_TRICK in from_trick_1
    from_trick_2 = render(MatchText(replay, round=1, trick=2))
    assert "seat 2 (kit)" not in from_trick_2 and WITH_THE_FAULT in from_trick_2 and AFTER_THE_LAST in from_trick_2
    head = lines_of(from_trick_2).index("=== Round 1, from trick 2: hakem s0, trump S ===")
    assert lines_of(from_trick_2).index(WITH_THE_FAULT.splitlines()[1]) > head  # under the heading
    from_trick_3 = render(MatchText(replay, round=1, trick=3))
    assert "seat 3 (high)" not in from_trick_3 and AFTER_THE_LAST in from_trick_3


def test_a_step_screen_says_the_lines_before_its_decision_and_after_the_last(hokm):
    replay = load(hokm)
    fourth = lines_of(render(StepScreen(replay, replay.steps[3])))
    assert fourth[:3] == [
        "Decision 4 of 29, line 9: round 1, trick 1; s2 (kit) to PLAY",
        "Before this decision: seat 2 (kit): connection lost at 00:00:03.123",
        "Before this decision: seat 2 (kit): back at 00:00:04.357 after 1.2 s",
    ]
    assert not any("seat" in line and "connection" in line for line in render(StepScreen(replay, replay.steps[2])))
    last = lines_of(render(StepScreen(replay, replay.steps[-1])))
    assert last[-1] == "After this decision: seat 0 (high): connection lost at 2025-01-02 00:00:01.500"
    # Walking s3's decisions: trick 1's lines come with its card of trick 1, decision 5.
    own = lines_of(render(StepScreen(replay, replay.steps[4], seat=3)))
    assert own[1:3] == fourth[1:3]


def test_the_command_shows_them_in_every_view(hokm):
    whole = waraq("replay", str(hokm), "--plain")
    assert whole.returncode == 0, whole.stderr
    assert MID_TRICK in "\n".join(line.rstrip() for line in whole.stdout.splitlines())
    seat = waraq("replay", str(hokm), "--seat", "1")
    assert seat.returncode == 0 and WITH_THE_FAULT.splitlines()[1] in seat.stdout
    walked = waraq("replay", str(hokm), "--step", "--seat", "2", stdin="n\nq\n")
    assert walked.returncode == 0, walked.stderr
    assert "Before this decision: seat 2 (kit): back at 00:00:04.357 after 1.2 s" in walked.stdout


# -- the text: Hand -----------------------------------------------------------------------------


def test_the_whole_hand_match_says_each_seat_away_and_back_where_it_falls(hand):
    replay = load(hand)
    assert replay.ok, replay.problem
    for seat in (None, 0, 1):
        lines = lines_of(render(HandMatchText(replay, seat=seat)))
        (seats,) = [line.split(None, 1)[1] for line in lines if line.startswith("Seats ")]
        assert seats == "s0 alma 1 (in-process), s1 kit 1 (dial-in)"
        heading = "Turns (the draw; melds laid, added to, jokers swapped; the discard):"
        assert followed_by(lines, heading) == "  seat 1 (kit): connection lost at 00:00:01.700"
        assert followed_by(lines, "  seat 1 (kit): connection lost at 00:00:01.700").startswith("   1  s0 ")
        # Back between its TAKE and its TURN: before the line of that turn (turn 2, s1's first).
        assert followed_by(lines, "  seat 1 (kit): back at 00:00:02.040 after 340 ms").startswith("   2  s1 ")
        end = next(i for i, line in enumerate(lines) if line.startswith("Score: "))
        assert lines[end + 1 :] == ["  seat 0 (alma): connection lost at 00:05:00.000", lines[-1]]
        assert lines[-1].startswith("Result: ")


def test_a_hand_round_and_step_screen_show_their_lines(hand):
    replay = load(hand)
    assert "  seat 1 (kit): back at 00:00:02.040 after 340 ms" in lines_of(render(HandMatchText(replay, round=1)))
    take = next(s for s in replay.steps if s.kind == "TAKE")
    assert "this decision" not in render(HandStepScreen(replay, take))  # the lines go with the turns about it
    turn = replay.steps[take.number]  # the TURN after it: the line came between them
    assert lines_of(render(HandStepScreen(replay, turn)))[1] == (
        "Before this decision: seat 1 (kit): back at 00:00:02.040 after 340 ms"
    )
    assert lines_of(render(HandStepScreen(replay, replay.steps[0])))[1] == (
        "Before this decision: seat 1 (kit): connection lost at 00:00:01.700"
    )
    assert lines_of(render(HandStepScreen(replay, replay.steps[-1])))[-1] == (
        "After this decision: seat 0 (alma): connection lost at 00:05:00.000"
    )


# -- older records ------------------------------------------------------------------------------


def test_a_record_without_via_or_connection_lines_shows_as_before(folder):
    plain = folder / "plain.jsonl"  # the worked deal, as hand_worked writes it
    replay = load(plain)
    text = render(MatchText(replay))
    assert "Seats    s0 high 1.0, s1 high 1.0, s2 high 1.0, s3 high 1.0\n" in text
    assert "(launched)" not in text and "connection" not in text and "Before this decision" not in text
    assert replay.connected_via == [None] * 4 and replay.connections == []
    data = page_data(replay)
    assert data["connections"] == [] and all("via" not in seat for seat in data["match"]["seats"])


def test_connection_lines_change_nothing_else_in_the_text(hokm, hand, folder):
    """A record with its lines and ``via``, and the same record without them: the same text but for those."""
    for record, text in ((hokm, MatchText), (hand, HandMatchText)):
        events = [e for e in read_events(record) if e["type"] != "connection"]
        for seat in events[0]["seats"]:
            seat.pop("via")
        without = write_events(folder / f"without-{record.name}", events)
        said = render(text(load(record)), width=200)
        for via in ("launched", "address", "dial-in", "in-process"):
            said = said.replace(f" ({via})", "")
        kept = [line for line in lines_of(said) if not line.startswith("  seat ")]
        assert kept == lines_of(render(text(load(without)), width=200))


# -- the page's data ----------------------------------------------------------------------------


def test_the_page_data_has_each_line_with_its_decision_and_the_texts_words(hokm, hand):
    data = page_data(load(hokm))
    assert [s.get("via") for s in data["match"]["seats"]] == ["launched", "address", "dial-in", "dial-in"]
    assert [(c["seat"], c["change"], c["n"], c["after"]) for c in data["connections"]] == [
        (2, "lost", 4, 3),
        (2, "back", 4, 3),
        (3, "lost", 9, 8),
        (0, "lost", 29, 29),
    ]
    assert data["connections"][1]["text"] == "seat 2 (kit): back at 00:00:04.357 after 1.2 s"
    assert data["connections"][1]["at"] == "2025-01-01T00:00:04.357Z" and data["connections"][1]["away_ms"] == 1234.5
    hand_data = page_data(load(hand))
    assert [c["text"] for c in hand_data["connections"]] == [
        "seat 1 (kit): connection lost at 00:00:01.700",
        "seat 1 (kit): back at 00:00:02.040 after 340 ms",
        "seat 0 (alma): connection lost at 00:05:00.000",
    ]


def hostile_record(folder: Path) -> Path:
    """The Hokm record with a ``via`` and an ``at`` that try to run a script in the page."""
    events = read_events(hokm_record(folder))
    events[0]["seats"][1]["via"] = HOSTILE_VIA
    next(e for e in events if e["type"] == "connection")["at"] = HOSTILE_AT
    return write_events(folder / "hostile.jsonl", events)


def test_a_via_or_at_that_is_not_a_records_is_quoted_as_text(tmp_path):
    replay = load(hostile_record(tmp_path))
    text = render(MatchText(replay), width=200)
    assert f"s1 high 1.0 ({HOSTILE_VIA})" in text
    assert f"  seat 2 (kit): connection lost at {HOSTILE_AT!r} (trick 1, before s2 played)" in text


# -- the page in a browser (last in this module: Playwright's loop holds this thread while open) ----------


@pytest.fixture(scope="module")
def chromium() -> Iterator[Browser]:
    yield from session_browser()


@pytest.fixture
def pages(chromium: Browser) -> Iterator[Browser]:
    yield chromium
    chromium.close_pages()


def open_page(browser: Browser, page: Path, fragment: str = "") -> Any:
    opened = browser.open(page, fragment=fragment)
    opened.page.wait_for_selector("#waraq[data-ready=yes]")
    return opened


NOTES = """() => [...document.querySelectorAll(".connection")].map((n) => ({
  text: n.textContent, seat: Number(n.dataset.seat), change: n.dataset.change,
  where: n.parentElement.id }))"""


@pytest.mark.system("chromium")
def test_the_page_shows_each_line_as_a_note_at_its_decision(pages, hokm, tmp_path):
    out = tmp_path / "hokm.html"
    write_page(hokm, out)
    opened = open_page(pages, out, "d4")
    header = opened.page.text_content("header .meta")
    assert header == "s0 high 1.0 (launched), s1 high 1.0 (address), s2 kit 1.0 (dial-in), s3 high 1.0 (dial-in)"
    assert opened.page.evaluate(NOTES) == [
        {
            "text": "Before this decision: seat 2 (kit): connection lost at 00:00:03.123",
            "seat": 2,
            "change": "lost",
            "where": "connections-before",
        },
        {
            "text": "Before this decision: seat 2 (kit): back at 00:00:04.357 after 1.2 s",
            "seat": 2,
            "change": "back",
            "where": "connections-before",
        },
    ]
    strip = opened.page.eval_on_selector_all("#connections button", "bs => bs.map((b) => b.textContent)")
    assert strip == ["d4 s2 lost", "d4 s2 back", "d9 s3 lost", "d29 s0 lost"]
    # Public: a seat's view shows them too; the decision before has none.
    opened.page.evaluate("() => { location.hash = '#d4/s1'; }")
    opened.page.wait_for_selector("#waraq[data-seat='1']")
    assert [n["text"] for n in opened.page.evaluate(NOTES)][1].endswith("back at 00:00:04.357 after 1.2 s")
    opened.page.keyboard.press("ArrowLeft")
    assert opened.page.evaluate(NOTES) == []
    # The button goes to the decision; the last shows the line after it, above the result.
    opened.page.click("#connections button[data-line]:last-child")
    assert opened.page.get_attribute("#decision", "data-n") == "29"
    assert opened.page.evaluate(NOTES) == [
        {
            "text": "After this decision: seat 0 (high): connection lost at 2025-01-02 00:00:01.500",
            "seat": 0,
            "change": "lost",
            "where": "connections-after",
        }
    ]
    assert opened.errors == [] and opened.console_errors == [] and opened.foreign_requests(out) == []


@pytest.mark.system("chromium")
def test_the_hand_page_shows_its_lines(pages, hand, tmp_path):
    out = tmp_path / "hand.html"
    write_page(hand, out)
    replay = load(hand)
    turn = next(s for s in replay.steps if s.kind == "TAKE").number + 1
    opened = open_page(pages, out, f"d{turn}")
    assert [n["text"] for n in opened.page.evaluate(NOTES)] == [
        "Before this decision: seat 1 (kit): back at 00:00:02.040 after 340 ms"
    ]
    assert opened.page.text_content("header .meta") == "s0 alma 1 (in-process), s1 kit 1 (dial-in)"
    assert opened.errors == [] and opened.console_errors == []


@pytest.mark.system("chromium")
def test_a_via_or_at_holding_a_script_is_shown_as_text_and_never_run(pages, tmp_path):
    out = tmp_path / "hostile.html"
    write_page(hostile_record(tmp_path), out)
    opened = open_page(pages, out, "d4")
    assert opened.page.evaluate("() => window.ran") is None
    assert HOSTILE_VIA in opened.page.text_content("header .meta")
    notes = opened.page.evaluate(NOTES)
    assert notes[0]["text"] == f"Before this decision: seat 2 (kit): connection lost at {HOSTILE_AT!r}"
    assert opened.page.evaluate("() => document.querySelectorAll('img, #waraq script').length") == 0
    assert opened.page.title().endswith("high v kit")
    assert opened.errors == [] and opened.console_errors == [] and opened.foreign_requests(out) == []

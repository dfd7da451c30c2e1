"""`waraq replay --html` pages in a real Chromium, opened from disk: what they show, checked through the page itself.

The records are real: matches played by the referee over gRPC
(tests/support/replay_records.py), the deal worked by hand, and a Hand match
played by ``waraq match``. What each page must show comes from ``load()``
of the same record: ``Step.before.view(seat)`` and ``Step.before.hands``.

The page's DOM contract (referee/replay/html/table.js and viewer.js), which these tests read:

* ``#waraq``: ``data-ready="yes"`` once drawn; ``data-mode`` ``all`` or
  ``seat``, with ``data-seat`` in a seat's view; ``data-playing`` while playing.
* ``#decision``: the text ``n / N``, ``data-n`` and ``data-total``.
* every card shown is an element with ``data-card`` (``AS``, ``10H``; Hand
  ``7H#1``, ``JK#0``); a card whose face is not shown is ``.card.back`` and
  has none.
* ``.hand[data-seat=S]``: seat S's hand (``data-size``: its number of cards).
* Hokm: ``#trick`` (the trick in play, ``.play[data-seat]``), ``#last-trick``,
  ``#trump[data-trump]``, ``#hakem[data-hakem]``.
* Hand: ``.meld[data-owner][data-meld]``, ``#pile-top``, ``#stock[data-size]``.
* the decision: ``#actor[data-seat][data-kind]``, ``#legal``, ``#action``,
  ``#note``, ``#time``, ``#fault[data-kind][data-code]``; ``#result[data-reason]``
  and ``#status[data-status]`` (a record that does not replay whole).
* controls: ``#scrubber``, ``#play``, ``#speed``, ``#jump-round``, ``#jump-trick``, ``#view``.
* the fragment ``#dN`` opens decision N with every hand, ``#dN/sS`` in seat S's view.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.support.browser import Browser, Opened
from tests.support.replay_records import hand_worked, played, read_events, write_events
from waraq.referee.games.cards import CARD_NAMES
from waraq.referee.games.hand.melds import CARD_NAMES as HAND_CARD_NAMES
from waraq.referee.match.play import referee_error_result
from waraq.referee.replay.html.page import seat_views
from waraq.referee.replay.html.write import write_page
from waraq.referee.replay.walk import Replay, Step, load

pytestmark = pytest.mark.system("chromium")  # Debian's Chromium opens the pages

HOSTILE_NOTE = '</script><script>alert(1)</script> <!-- & "quoted"'
# What the page shows now, read through its DOM (see the contract above).
SNAPSHOT = """() => ({
  n: Number(document.getElementById("decision").dataset.n),
  mode: document.getElementById("waraq").dataset.mode,
  seat: document.getElementById("waraq").dataset.seat,
  hands: Object.fromEntries([...document.querySelectorAll(".hand[data-seat]")].map(
    (h) => [h.dataset.seat, [...h.querySelectorAll("[data-card]")].map((c) => c.dataset.card)])),
  backs: Object.fromEntries([...document.querySelectorAll(".hand[data-seat]")].map(
    (h) => [h.dataset.seat, h.querySelectorAll(".card.back").length])),
  cards: [...document.querySelectorAll("[data-card]")].map((c) => c.dataset.card),
  trick: [...document.querySelectorAll("#trick .play")].map(
    (p) => [Number(p.dataset.seat), p.querySelector("[data-card]").dataset.card]),
  actor: Number(document.getElementById("actor").dataset.seat),
  note: document.getElementById("note") ? document.getElementById("note").textContent : null,
})"""
# The same snapshot at every decision from the first, stepping on with the page's own key handler.
WALK = (
    "(total) => { const snap = ("
    + SNAPSHOT
    + """); const out = [snap()];
  for (let i = 1; i < total; i++) {
    document.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowRight", bubbles: true }));
    out.push(snap());
  }
  return out; }"""
)
# One seat's table drawn by table.js alone, from a row holding only that seat's view (as a page where a
# person plays a seat has it): every card drawn, and each hand's.
DRAW_ONE_SEAT = """([match, step, seen, view]) => {
  const row = new Array(match.players);
  row[seen] = view;
  const box = document.createElement("div");
  box.append(...window.WaraqTable.drawing(match).table(step, row, seen));
  const faces = (node) => [...node.querySelectorAll("[data-card]")].map((c) => c.dataset.card);
  return { cards: faces(box),
    hands: Object.fromEntries([...box.querySelectorAll(".hand[data-seat]")].map((h) => [h.dataset.seat, faces(h)])) };
}"""


def js_number(value: float) -> str:
    """As the page writes a time: grouped thousands, at most three decimals, no trailing zeros."""
    return f"{round(value, 3):,.3f}".rstrip("0").rstrip(".")


def names(cards: Any) -> list[str]:
    return [CARD_NAMES[c] for c in cards]


def hand_names(cards: Any) -> list[str]:
    return [HAND_CARD_NAMES[c] for c in cards]


class Page:
    """A record, its replay, and its page written to disk."""

    def __init__(self, record: Path, out: Path) -> None:
        self.record, self.path = record, out
        self.replay: Replay = load(record)
        self.size = write_page(record, out)

    @property
    def steps(self) -> list[Step]:
        return self.replay.steps


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, Page]:
    # In a thread of its own: the matches run an event loop, and Playwright's runs in this thread.
    with ThreadPoolExecutor(1) as pool:
        records = pool.submit(played, tmp_path_factory).result()
    root = tmp_path_factory.mktemp("replay-pages")
    worked = read_events(hand_worked(root / "worked.jsonl"))
    [e for e in worked if e["type"] == "decision"][1]["note"] = HOSTILE_NOTE
    hand = subprocess.run(
        [
            sys.executable,
            "-m",
            "waraq.referee.cli.main",
            "match",
            "--game",
            "hand",
            "--rules",
            "short",
            "--bots",
            "heuristic",
            "random",
            "--seed",
            "4",
            "--deal-key",
            "b7" * 32,
            "--sandbox",
            "off",
            "--record",
            str(root / "hand"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert hand.returncode == 0, hand.stderr
    sources = {
        "hokm": records.records("clean")[0],
        "forfeit": records.records("forfeit")[0],
        "faults": records.records("faults")[0],  # substitutes: an illegal and a malformed reply, slow ones
        "hostile": write_events(root / "hostile.jsonl", worked),
        "hand": next((root / "hand").glob("*.jsonl")),
    }
    return {name: Page(record, root / f"{name}.html") for name, record in sources.items()}


def open_page(browser: Browser, page: Page, fragment: str = "") -> Opened:
    opened = browser.open(page.path, fragment=fragment)
    opened.page.wait_for_selector("#waraq[data-ready=yes]")
    return opened


def assert_offline_and_clean(opened: Opened, page: Page) -> None:
    assert opened.foreign_requests(page.path) == []
    assert opened.errors == [] and opened.console_errors == []


def embedded_data(page: Page) -> dict[str, Any]:
    """The data the page holds, read from its file (its JSON has no "<": write.py escapes it)."""
    found = re.search(r'<script type="application/json" id="waraq-data">(.*?)</script>', page.path.read_text())
    assert found is not None
    return json.loads(found.group(1))


def snapshot(opened: Opened) -> dict[str, Any]:
    return opened.page.evaluate(SNAPSHOT)


def mid_trick(page: Page, played_before: int) -> Step:
    return next(s for s in page.steps if s.kind == "PLAY" and len(s.before.trick) == played_before and s.round > 1)


# -- what a seat saw -------------------------------------------------------------------------


def test_a_seat_view_shows_exactly_that_seats_rebuilt_view(browser, pages):
    page = pages["hokm"]
    step = mid_trick(page, 2)
    seat = (step.seat + 1) % 4  # a seat that is not asked: it has played to this trick already... or will
    opened = open_page(browser, page, f"d{step.number}/s{seat}")
    shown = snapshot(opened)
    view = step.before.view(seat)
    assert (shown["n"], shown["mode"], shown["seat"]) == (step.number, "seat", str(seat))
    assert shown["hands"][str(seat)] == names(view.hand)
    for other in range(4):
        if other != seat:
            assert shown["hands"][str(other)] == [] and shown["backs"][str(other)] == view.hand_sizes[other]
    assert shown["trick"] == [[s, CARD_NAMES[c]] for s, c in view.trick] and len(view.trick) == 2
    assert opened.page.get_attribute("#trump", "data-trump") == "SHDC"[view.trump]
    assert opened.page.get_attribute("#hakem", "data-hakem") == str(view.hakem)
    assert shown["note"] is None  # the seat asked is another: its note is its own
    opened.screenshot("replay-hokm-4p-seat")
    assert_offline_and_clean(opened, page)


def test_the_all_hands_view_shows_every_seats_rebuilt_hand_and_the_decision(browser, pages):
    page = pages["hokm"]
    step = mid_trick(page, 1)
    opened = open_page(browser, page, f"d{step.number}")
    shown = snapshot(opened)
    assert (shown["n"], shown["mode"], shown["seat"]) == (step.number, "all", None)
    for seat in range(4):
        assert shown["hands"][str(seat)] == names(step.before.view(seat).hand) == names(step.before.hands[seat])
    assert shown["actor"] == step.seat
    legal = opened.page.eval_on_selector_all("#legal [data-card]", "cs => cs.map((c) => c.dataset.card)")
    assert legal == names(step.view.legal)
    assert opened.page.eval_on_selector_all("#action [data-card]", "cs => cs.map((c) => c.dataset.card)") == [
        CARD_NAMES[step.action]
    ]
    assert opened.page.text_content("#time") == (
        f"Time: {js_number(step.ms)} ms of a 10,000 ms deadline; bank {js_number(step.bank_ms)} ms of 60,000 ms "
        f"left when asked; seq {step.seq}"
    )
    opened.screenshot("replay-hokm-4p-all")
    assert_offline_and_clean(opened, page)


@pytest.mark.parametrize(("match", "seat"), [("hokm", 0), ("hokm", 1), ("hokm", 2), ("hokm", 3), ("faults", 1)])
def test_a_seat_view_shows_no_card_of_another_hand_at_any_decision_of_the_match(browser, pages, match, seat):
    page = pages[match]
    assert page.replay.ok and page.replay.result is not None  # a whole match
    opened = open_page(browser, page, f"d1/s{seat}")
    walked = opened.page.evaluate(WALK, len(page.steps))
    assert [w["n"] for w in walked] == [s.number for s in page.steps]
    for step, shown in zip(page.steps, walked, strict=True):
        view = step.before.view(seat)
        others = {CARD_NAMES[c] for other in range(4) if other != seat for c in step.before.hands[other]}
        assert set(shown["cards"]) & others == set(), step.where
        assert shown["hands"][str(seat)] == names(view.hand)
        assert set(shown["cards"]) <= set(names(view.cards_seen())), step.where
        assert (shown["note"] is None) == (step.seat != seat or not step.note)
    assert_offline_and_clean(opened, page)


@pytest.mark.parametrize("match", ["hokm", "hand"])
def test_table_js_draws_a_seat_from_its_own_view_alone(browser, pages, match):
    page = pages[match]
    step = mid_trick(page, 2) if match == "hokm" else next(s for s in page.steps if s.kind == "TURN" and s.before.table)
    opened = open_page(browser, page)
    assert opened.page.evaluate("typeof window.WaraqTable.drawing") == "function"
    data = embedded_data(page)
    row = seat_views(data["views"])[step.number - 1]
    asked = {key: data["steps"][step.number - 1][key] for key in ("seat", "kind", "trick", "round")} | {"action": None}
    named = names if match == "hokm" else hand_names
    for seat in range(page.replay.players):
        drawn = opened.page.evaluate(DRAW_ONE_SEAT, [data["match"], asked, seat, row[seat]])
        view = step.before.view(seat)
        assert sorted(drawn["hands"].pop(str(seat))) == sorted(named(view.hand))
        assert all(hand == [] for hand in drawn["hands"].values())
        assert set(drawn["cards"]) <= set(named(view.cards_seen())), (seat, drawn["cards"])
    assert_offline_and_clean(opened, page)


# -- moving ----------------------------------------------------------------------------------


def test_arrows_move_one_decision_and_home_and_end_go_to_the_ends(browser, pages):
    page = pages["hokm"]
    total = len(page.steps)
    opened = open_page(browser, page, "d10/s2")
    keys = opened.page.keyboard

    def at() -> tuple[int, int, str]:
        shown = snapshot(opened)
        return shown["n"], shown["actor"], opened.page.evaluate("location.hash")

    assert at() == (10, page.steps[9].seat, "#d10/s2")
    keys.press("ArrowRight")
    assert at() == (11, page.steps[10].seat, "#d11/s2")
    keys.press("ArrowLeft")
    keys.press("ArrowLeft")
    assert at() == (9, page.steps[8].seat, "#d9/s2")
    keys.press("End")
    assert at() == (total, page.steps[-1].seat, f"#d{total}/s2")
    keys.press("ArrowRight")  # no further
    assert at()[0] == total
    keys.press("Home")
    assert at() == (1, page.steps[0].seat, "#d1/s2")
    keys.press("ArrowLeft")  # no further back
    assert at()[0] == 1
    assert opened.page.text_content("#decision") == f"1 / {total}"
    assert_offline_and_clean(opened, page)


def test_space_plays_and_pauses(browser, pages):
    page = pages["hokm"]
    opened = open_page(browser, page, "d3")
    opened.page.select_option("#speed", "16")
    opened.page.keyboard.press(" ")
    assert opened.page.get_attribute("#waraq", "data-playing") == "yes"
    opened.page.wait_for_function("() => Number(document.getElementById('decision').dataset.n) >= 5")
    opened.page.keyboard.press(" ")
    assert opened.page.get_attribute("#waraq", "data-playing") == "no"
    n = snapshot(opened)["n"]
    assert opened.page.evaluate("location.hash") == f"#d{n}"
    assert_offline_and_clean(opened, page)


def test_a_fragment_opens_its_decision_and_the_jumps_go_to_a_round_and_a_trick(browser, pages):
    page = pages["hokm"]
    opened = open_page(browser, page, "d42/s1")
    shown = snapshot(opened)
    assert (shown["n"], shown["mode"], shown["seat"], shown["actor"]) == (42, "seat", "1", page.steps[41].seat)
    assert opened.page.input_value("#view") == "s1"
    second = next(s for s in page.steps if s.round == 2)
    opened.page.select_option("#jump-round", "2")
    assert snapshot(opened)["n"] == second.number
    third = next(s for s in page.steps if s.round == 2 and s.trick == 3)
    opened.page.select_option("#jump-trick", "2.3")
    assert snapshot(opened)["n"] == third.number and opened.page.evaluate("location.hash") == f"#d{third.number}/s1"
    opened.page.select_option("#view", "all")
    assert snapshot(opened)["mode"] == "all" and opened.page.evaluate("location.hash") == f"#d{third.number}"
    assert_offline_and_clean(opened, page)
    far = open_page(browser, page, "d99999")
    assert snapshot(far)["n"] == len(page.steps)


# -- forfeits, Hand, hostile text --------------------------------------------------------------


def test_a_forfeit_says_forfeit_with_the_fault(browser, pages):
    page = pages["forfeit"]
    result = page.replay.result
    assert result["reason"] == "forfeit"
    last = page.steps[-1]
    assert last.action is None and last.fault is not None
    opened = open_page(browser, page, "d1")
    opened.page.click(f"#faults button[data-n='{last.number}']")  # the list of faults leads to it
    assert snapshot(opened)["n"] == last.number
    banner = opened.page.text_content("#result")
    assert opened.page.get_attribute("#result", "data-reason") == "forfeit"
    assert banner.startswith("Forfeit.") and f"by the forfeit of s{last.seat}" in banner
    assert f"s{last.seat} (scripted) ILLEGAL illegal_action: {last.fault['detail']}" in banner
    assert opened.page.get_attribute("#fault", "data-kind") == "ILLEGAL"
    assert opened.page.get_attribute("#fault", "data-code") == "illegal_action"
    assert "nothing: the match ended on this question's fault" in opened.page.text_content("#action")
    opened.screenshot("replay-forfeit")
    assert_offline_and_clean(opened, page)
    # Another seat's view: the fault, not its detail (it lists the faulty seat's hand).
    other = open_page(browser, page, f"d{last.number}/s{(last.seat + 1) % 4}")
    said = other.page.inner_text("body")
    assert f"s{last.seat} (scripted) ILLEGAL illegal_action" in said and last.fault["detail"] not in said
    assert "holds" in last.fault["detail"] and "holds" not in said


def test_a_match_aborted_by_the_referee_says_so_plainly(browser, pages, tmp_path):
    events = read_events(pages["hokm"].record)[:30]
    events.append(referee_error_result(RuntimeError("the table fell over")))
    page = Page(write_events(tmp_path / "aborted.jsonl", events), tmp_path / "aborted.html")
    opened = open_page(browser, page, "d99999")
    assert opened.page.get_attribute("#result", "data-reason") == "aborted"
    error = "by the referee: referee error: RuntimeError: the table fell over"
    assert opened.page.text_content("#result") == f"Aborted {error}"
    assert opened.page.text_content("#end") == f"Then: aborted {error}"
    assert_offline_and_clean(opened, page)


def test_a_hand_match_shows_hands_melds_by_owner_the_pile_top_and_the_stock(browser, pages):
    page = pages["hand"]
    step = next(
        s
        for s in page.steps
        if len({m.owner for m in s.before.table}) >= 2 and len(s.before.pile) > 1 and s.kind == "TURN"
    )
    opened = open_page(browser, page, f"d{step.number}")
    shown = snapshot(opened)
    for seat in range(page.replay.players):
        assert sorted(shown["hands"][str(seat)]) == sorted(hand_names(step.before.view(seat).hand))
    melds = opened.page.eval_on_selector_all(
        ".meld",
        "ms => ms.map((m) => [Number(m.dataset.owner), [...m.querySelectorAll('[data-card]')]"
        ".map((c) => c.dataset.card)])",
    )
    view = step.before.view(step.seat)
    assert melds == sorted([[m.owner, hand_names(m.cards)] for m in view.melds], key=lambda m: m[0])
    assert opened.page.get_attribute("#pile-top [data-card]", "data-card") == HAND_CARD_NAMES[view.pile[-1]]
    assert opened.page.get_attribute("#stock", "data-size") == str(view.stock_size)
    assert opened.page.text_content("#stock") == f"Stock: {view.stock_size} cards"
    opened.screenshot("replay-hand")
    assert_offline_and_clean(opened, page)
    # As one seat saw it: no card of another hand anywhere on the page.
    seat = (step.seat + 1) % page.replay.players
    mine = open_page(browser, page, f"d{step.number}/s{seat}")
    others = {HAND_CARD_NAMES[c] for s in range(page.replay.players) if s != seat for c in step.before.hands[s]}
    assert set(snapshot(mine)["cards"]) & others == set()
    assert sorted(snapshot(mine)["hands"][str(seat)]) == sorted(hand_names(step.before.hands[seat]))


def test_a_note_that_closes_the_script_is_shown_as_text_and_runs_nothing(browser, pages):
    page = pages["hostile"]
    dialogs: list[str] = []
    opened = open_page(browser, page, "d2")
    opened.page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    assert snapshot(opened)["note"] == f"Note: {HOSTILE_NOTE}"
    assert opened.page.evaluate("document.scripts.length") == 2  # the data and the viewer, no more
    assert dialogs == []
    assert_offline_and_clean(opened, page)


def test_a_record_cut_short_says_so_and_shows_what_replays(browser, pages, tmp_path):
    lines = pages["hokm"].record.read_text().splitlines(keepends=True)
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(lines[:40]))
    page = Page(cut, tmp_path / "cut.html")
    opened = open_page(browser, page, "d99999")
    assert opened.page.get_attribute("#status", "data-status") == "cut short"
    said = opened.page.text_content("#status")
    assert re.match(r"This record is cut short: no result line; readable up to line 40 \(round \d+, trick \d+\)", said)
    assert snapshot(opened)["n"] == len(page.steps) > 0
    assert_offline_and_clean(opened, page)

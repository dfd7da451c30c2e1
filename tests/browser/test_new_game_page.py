"""A plug-in game's HTML replay in a real Chromium: each seat's view drawn as its fields, its own only.

The viewer has no drawing of the toy game (tests/toy_game/): it shows each
seat's view as the fields its request held, and a seat's view shows no
other seat's.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support import new_game
from tests.support.browser import Browser
from waraq.referee.records.record_file import read_record

pytestmark = pytest.mark.system("chromium")

BOXES = """() => Object.fromEntries([...document.querySelectorAll("[data-seat-box]")].map(
  (box) => [box.dataset.seatBox, box.querySelector(".view").textContent]))"""


def test_a_seat_sees_its_own_view_and_the_all_view_sees_both(browser: Browser, tmp_path: Path):
    site = new_game.site(tmp_path / "site")
    (tmp_path / "run").mkdir()
    record = sorted(new_game.play(site, tmp_path / "run", 1).glob("toy-*.jsonl"))[0]
    page = tmp_path / "toy.html"
    assert new_game.waraq(site, tmp_path, "replay", "--html", str(page), str(record)).returncode == 0
    deck = read_record(record).events[1]["deck"]
    hands = [deck[:3], deck[3:6]]

    opened = browser.open(page, fragment="d1/s0")
    opened.page.wait_for_selector("#waraq[data-ready=yes]")
    boxes = opened.page.evaluate(BOXES)
    assert all(json.dumps(card) in boxes["0"] for card in hands[0])
    assert boxes["1"] == "(not shown)"
    assert not any(card in "".join(boxes.values()) for card in hands[1])

    opened = browser.open(page, fragment="d1")
    opened.page.wait_for_selector("#waraq[data-ready=yes]")
    boxes = opened.page.evaluate(BOXES)
    assert all(json.dumps(card) in boxes[str(seat)] for seat in (0, 1) for card in hands[seat])
    assert opened.errors == [] and opened.foreign_requests(page) == []

"""An exhibition match in ``waraq serve``, in real Chromium: a signed-in person sits down at /play against a
ladder bot, plays every decision by clicking on the same page ``waraq match`` serves (mounted in the arena),
sees the result, and finds the match's replay on /play. Screenshots: artifacts/browser/serve-exhibition-*.png."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.support import ladders
from tests.support.browser import Browser
from tests.support.web import PASSWORD, serve

pytestmark = [pytest.mark.slow, pytest.mark.system("sandbox", "chromium")]

WAIT_MS = 60_000


@pytest.fixture
def arena(tmp_path):
    folder = ladders.make(tmp_path / "arena", {"rnd": "random", "heur": "heuristic"})
    waraq = [sys.executable, "-m", "waraq.referee.cli.main"]
    subprocess.run([*waraq, "ladder", "run", "-C", str(folder), "--matches", "2", "--quiet"], check=True)
    running = serve(folder, "--matches", "2")  # played already: the arena plans nothing more
    yield running
    running.stop()


def test_a_signed_in_person_plays_an_exhibition_by_clicks_and_replays_it(browser: Browser, arena):
    person = browser.visit(arena.invite)
    page = person.page
    page.fill("input[name=name]", "olga")
    page.fill("input[name=password]", PASSWORD)
    page.click("#join button[type=submit]")
    page.wait_for_url(re.compile(r"/me$"))
    page.click("#nav-play")
    page.select_option("#opponent", "heur")
    page.select_option("#partner", "rnd")
    page.click("#play-button")
    page.wait_for_url(re.compile(r"/play/p/[A-Za-z0-9_-]+$"))
    decisions = 0
    while True:
        page.wait_for_function(
            "() => ['asked', 'over', 'lost'].includes(document.getElementById('waraq').getAttribute('data-state'))",
            timeout=WAIT_MS,
        )
        root = page.locator("#waraq")
        state = root.get_attribute("data-state")
        if state != "asked":
            break
        seq = root.get_attribute("data-seq")
        if decisions == 3:
            person.screenshot("serve-exhibition-decision")
        page.click("#legal button.legal >> nth=0")
        page.wait_for_function(
            "(seq) => document.getElementById('waraq').getAttribute('data-seq') !== seq", arg=seq, timeout=WAIT_MS
        )
        decisions += 1
    assert state == "over" and decisions > 5
    result = page.inner_text("#result")
    assert result.startswith("Match over.") and ("You win" in result or "You lose" in result)
    person.screenshot("serve-exhibition-end")
    page.goto(f"{arena.url}/play")
    row = page.locator("#exhibitions tr[data-exhibition]")
    assert row.count() == 1 and ("you win" in row.inner_text() or "you lose" in row.inner_text())
    page.click("#exhibitions a.replay-link")  # a link of the arena's own: the same tab
    page.wait_for_load_state("load")
    assert re.search(r"/play/[0-9a-f]{16}/replay(#d\d+)?$", page.url)
    page.wait_for_selector("#waraq[data-ready=yes]", timeout=WAIT_MS)  # the replay's viewer drew it
    person.screenshot("serve-exhibition-replay")
    assert person.errors == []
    assert person.requests_elsewhere(arena.url) == []

"""``waraq serve`` as people use it, in real Chromium: an organiser invites two authors, each uploads a starter
kit (Python, JavaScript), sees it built and checked, sees it play and rank, opens a replay, reads its own bot's
log; one is refused the other's log and upload by URL; the organiser suspends a bot and it stops being
scheduled. Screenshots of each page go to artifacts/browser/serve-*.png."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from tests.support import ladders
from tests.support.browser import Browser
from tests.support.web import PASSWORD, Served, serve, starter_archive

pytestmark = [pytest.mark.slow, pytest.mark.system("sandbox", "chromium", "node")]

TIMEOUT_MS = 180_000


def shot(opened, name: str) -> None:
    opened.screenshot(f"serve-{name}")


def join(browser: Browser, link: str, name: str):
    person = browser.visit(link)
    page = person.page
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", PASSWORD)
    page.click("#join button[type=submit]")
    page.wait_for_url(re.compile(r"/me$"))
    return person


def invite(organiser, url: str) -> str:
    page = organiser.page
    page.goto(f"{url}/admin")
    page.click("#invite-button")
    return page.inner_text("#secret").strip()


def upload(author, url: str, archive: Path, name: str) -> str:
    """Upload from the author's page, and wait (reloading, as a person would) until it is built and checked."""
    page = author.page
    page.goto(f"{url}/me")
    page.set_input_files("input[name=archive]", str(archive))
    page.click("#upload-button")
    page.wait_for_url(re.compile(r"/me/uploads/\d+$"))
    deadline = time.monotonic() + TIMEOUT_MS / 1000
    while page.get_attribute("#stage", "data-stage") in ("received", "building"):
        assert time.monotonic() < deadline, f"{name} was not built and checked in time"
        page.wait_for_timeout(500)  # a person looking again; the page says so
        page.reload()
    stage = page.get_attribute("#stage", "data-stage")
    assert stage == "ready", page.inner_text("main")
    return page.url


@pytest.fixture
def arena(tmp_path):
    folder = ladders.make(tmp_path / "arena", {"random": "random", "heuristic": "heuristic"})
    running = serve(folder, "--keep-playing", "--per-hour", "100000", "--concurrency", "2")
    yield running
    running.stop()


def test_two_authors_upload_play_and_read_only_their_own(browser: Browser, arena: Served, tmp_path):
    url = arena.url
    organiser = join(browser, arena.invite, "olga")
    shot(organiser, "me-organiser")
    ann = join(browser, invite(organiser, url), "ann")
    ben = join(browser, invite(organiser, url), "ben")
    shot(organiser, "admin")
    python_zip, js_zip = tmp_path / "pystarter.zip", tmp_path / "jsstarter.zip"
    python_zip.write_bytes(starter_archive("python", "pystarter"))
    js_zip.write_bytes(starter_archive("js", "jsstarter"))
    ann_upload = upload(ann, url, python_zip, "pystarter")
    shot(ann, "upload-python")
    assert "check-bot" in ann.page.inner_text("main")
    upload(ben, url, js_zip, "jsstarter")
    shot(ben, "upload-js")

    # Both play and rank: the standings page follows the matches without a reload.
    public = browser.visit(url)
    public.page.wait_for_selector('#standings tr[data-bot^="pystarter"]', timeout=TIMEOUT_MS)
    public.page.wait_for_selector('#standings tr[data-bot^="jsstarter"]', timeout=TIMEOUT_MS)
    every_row_played = "[...document.querySelectorAll('#standings tbody tr')].every(r => +r.cells[10].textContent)"
    public.page.wait_for_function(f"() => {every_row_played}", timeout=TIMEOUT_MS)
    shot(public, "standings")
    assert public.errors == [] and public.console_errors == []

    # Ann opens a replay of a match of her bot, and reads her bot's own log of it.
    ann.page.goto(f"{url}/bots/pystarter")
    shot(ann, "bot")
    ann.page.click("#matches a.replay")
    ann.page.wait_for_selector("#waraq-data", state="attached")
    shot(ann, "replay")
    ann.page.goto(f"{url}/me")
    log_link = ann.page.get_attribute("section[data-bot=pystarter] a[href*='/seats/']", "href")
    ann.page.goto(f"{url}{log_link}")
    assert ann.page.inner_text("h1").startswith("Match")
    ann.page.wait_for_selector("#log, #log-empty")
    shot(ann, "seat-log")

    # Ben is refused Ann's log and her upload by URL, as if they did not exist.
    ben.page.goto(f"{url}{log_link}")
    assert "you have no bot in that seat" in ben.page.inner_text("#problem")
    ben.page.goto(ann_upload)
    assert "you have no such upload" in ben.page.inner_text("#problem")
    shot(ben, "refused")

    # The organiser suspends Ann's bot: it is not scheduled from then on.
    organiser.page.goto(f"{url}/admin")
    organiser.page.click("tr[data-bot=pystarter] button.suspend")
    organiser.page.wait_for_url(re.compile(r"/admin$"))
    boundary = ladders.last_planned(arena.folder)
    deadline = time.monotonic() + 120
    while ladders.last_planned(arena.folder) < boundary + 8:
        assert time.monotonic() < deadline, "nothing was planned after the suspension"
        organiser.page.wait_for_timeout(200)
    assert [m for m in ladders.matches_seating(arena.folder, "pystarter") if m > boundary] == []
    public.page.reload()
    public.page.wait_for_selector('#standings tr[data-bot^="pystarter"].inactive', timeout=30_000)
    shot(public, "standings-suspended")
    for person in (organiser, ann, ben, public):
        assert person.errors == [], person.errors
        assert all(r.startswith(url) or r.startswith("data:") for r in person.requests), person.requests

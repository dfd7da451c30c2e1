"""A real ``waraq serve`` playing: public pages follow the matches, a match's replay only once it ended, the
organiser's suspension and pause act on the scheduler, and ``kill -9`` loses nothing."""

from __future__ import annotations

import re
import sqlite3
import sys
import time
from collections.abc import Callable

import httpx
import pytest

from tests.support import TEST_BOTS, ladders
from tests.support.dial_in import Kit, python_kit
from tests.support.web import PASSWORD, Served, csrf_of, invite_link, join, post_form, serve, shown_secret

pytestmark = pytest.mark.slow
__all__ = ["python_kit"]  # a fixture, used by name

BOTS = {"rnd": "random", "heur": "heuristic", "grd": "greedy"}


def wait_for(check: Callable[[], object], timeout: float = 120.0, what: str = "") -> object:
    """Until ``check()`` gives something true (asked at most every 0.2 s); its value."""
    deadline = time.monotonic() + timeout
    while True:
        found = check()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout:.0f} s for {what or check}")
        time.sleep(0.2)


def played(client: httpx.Client) -> int:
    return client.get("/api/standings").json()["played"]


def suspended_row(client: httpx.Client, base: str) -> dict | None:
    rows = client.get("/api/standings").json()["standings"]
    return next((r for r in rows if r["base"] == base and r["status"] == "suspended"), None)


@pytest.fixture
def arena(tmp_path):
    folder = ladders.make(tmp_path / "arena", BOTS)
    running = serve(folder, "--keep-playing", "--concurrency", "2", "--per-hour", "100000")
    yield running
    running.stop()


def test_the_standings_follow_the_matches_and_ended_matches_replay(arena: Served):
    public = arena.client()
    wait_for(lambda: played(public) >= 4, what="4 matches")
    page = public.get("/")
    assert page.status_code == 200
    for name in BOTS:
        assert f'data-bot="{name}"' in page.text
    standings = public.get("/api/standings").json()
    assert {row["base"] for row in standings["standings"]} == set(BOTS)
    ended = public.get("/api/matches?limit=3").json()["matches"]
    assert ended and all(m["status"] in ("rated", "unrated", "done") for m in ended)
    for limit in ("0", "1001", "x", "%C2%B2"):  # the last is '²', a digit to str.isdigit() and not to int()
        refused = public.get(f"/api/matches?limit={limit}")
        assert refused.status_code == 400 and "limit is a whole number" in refused.json()["error"]
    replay = public.get(ended[0]["replay"])
    assert replay.status_code == 200 and 'id="waraq-data"' in replay.text
    assert replay.headers["content-security-policy"].startswith("sandbox allow-scripts")
    bot = public.get("/bots/heur")
    assert bot.status_code == 200 and 'id="versions"' in bot.text and "<svg" in bot.text
    assert public.get("/api/bots/heur").json()["matches"]
    assert public.get("/matches/999999/replay").status_code == 404


def in_flight_with_record(folder) -> int | None:
    """A match in play whose record is on disk already (it is written as the match goes)."""
    db = sqlite3.connect(folder / "ladder.sqlite")
    rows = db.execute("SELECT id, record FROM matches WHERE status = 'planned' ORDER BY id").fetchall()
    db.close()
    return next((match for match, record in rows if (folder / record).is_file()), None)


def test_a_match_in_play_is_no_page_until_it_ends(tmp_path):
    slow = f"{sys.executable} {TEST_BOTS / 'misbehaving.py'} honest --think-ms 150 --unix {{socket}}"
    folder = ladders.make(tmp_path / "arena", {"rnd": "random", "slow": slow})
    served = serve(folder, "--keep-playing", "--concurrency", "1", "--per-hour", "100000")
    try:
        public = served.client()
        match = wait_for(lambda: in_flight_with_record(folder), what="a match in play")
        for path in (f"/matches/{match}/replay", f"/matches/{match}", f"/api/matches/{match}"):
            refused = public.get(path)
            assert refused.status_code == 404 and "waraq-data" not in refused.text, path
        wait_for(lambda: public.get(f"/matches/{match}/replay").status_code == 200, what=f"match {match} ended")
    finally:
        served.stop()


def test_a_suspended_bot_is_no_longer_scheduled_and_comes_back_reinstated(arena: Served):
    organiser = join(arena, arena.invite, "olga")
    public = arena.client()
    wait_for(lambda: played(public) >= 2, what="2 matches")
    assert post_form(organiser, "/admin", "/admin/bots/grd/suspend").status_code == 303
    boundary = ladders.last_planned(arena.folder)
    wait_for(lambda: ladders.last_planned(arena.folder) >= boundary + 6, what="6 matches planned after the suspension")
    assert [m for m in ladders.matches_seating(arena.folder, "grd") if m > boundary] == []
    # The public snapshot follows within a second or so.
    row = wait_for(lambda: suspended_row(public, "grd"), what="the table to show the suspension")
    assert "organiser" in row["reason"]
    assert post_form(organiser, "/admin", "/admin/bots/grd/reinstate").status_code == 303
    again = ladders.last_planned(arena.folder)
    wait_for(lambda: [m for m in ladders.matches_seating(arena.folder, "grd") if m > again], what="grd seated again")


def test_a_pause_starts_no_match_until_resumed(arena: Served):
    organiser = join(arena, arena.invite, "olga")
    public = arena.client()
    wait_for(lambda: played(public) >= 1, what="a match")
    assert post_form(organiser, "/admin", "/admin/pause").status_code == 303
    assert 'id="paused"' in public.get("/").text
    # The matches in flight finish: then nothing is in flight, and nothing more is stored.
    wait_for(lambda: re.search(r" 0 in flight", organiser.get("/admin").text), what="nothing in flight")
    settled = played(public)
    assert played(public) == settled
    assert post_form(organiser, "/admin", "/admin/resume").status_code == 303
    wait_for(lambda: played(public) > settled, what="a match after the resume")


def test_kill_9_loses_nothing_and_a_restart_goes_on(tmp_path):
    folder = ladders.make(tmp_path / "arena", BOTS)
    first = serve(folder, "--keep-playing", "--concurrency", "2", "--per-hour", "100000")
    join(first, first.invite, "olga")
    wait_for(lambda: played(first.client()) >= 3, what="3 matches")
    first.kill()
    ladders.check_invariants(folder / "ladder.sqlite")
    db = sqlite3.connect(folder / "ladder.sqlite")
    stored = db.execute("SELECT COUNT(*) FROM matches WHERE status IN ('rated', 'unrated')").fetchone()[0]
    db.close()
    second = serve(folder, "--keep-playing", "--concurrency", "2", "--per-hour", "100000")
    try:
        again = second.client()
        # The organiser made before the kill signs in to the new process: people outlive it too.
        page = again.get("/login")
        signed = again.post("/login", data={"csrf": csrf_of(page.text), "name": "olga", "password": PASSWORD})
        assert signed.status_code == 303
        assert played(again) >= stored
        wait_for(lambda: played(again) > stored, what="a match after the restart")
    finally:
        second.stop()
    ladders.check_invariants(folder / "ladder.sqlite")


def planned_per_bot(folder) -> dict[str, int]:
    db = sqlite3.connect(folder / "ladder.sqlite")
    rows = db.execute(
        "SELECT b.base, COUNT(DISTINCT s.match_id) FROM seats s JOIN bots b ON b.id = s.bot_id "
        "JOIN matches m ON m.id = s.match_id WHERE m.status != 'cancelled' GROUP BY b.base"
    ).fetchall()
    db.close()
    return dict(rows)


def test_a_bot_at_its_hourly_bound_is_planned_no_more(tmp_path):
    folder = ladders.make(tmp_path / "arena", BOTS)
    served = serve(folder, "--keep-playing", "--concurrency", "2", "--per-hour", "20")
    try:
        organiser = join(served, served.invite, "olga")
        wait_for(lambda: played(served.client()) >= 20, what="20 matches")
        # Planning stops once every bot is at its bound: then nothing is in flight or planned.
        wait_for(
            lambda: (
                re.search(r" 0 in flight", organiser.get("/admin").text)
                and not ladders.count_planned(folder / "ladder.sqlite")
            ),
            what="planning to stop",
        )
        counts = planned_per_bot(folder)
        # The bound is checked as each batch is planned: a bot may end a batch past it, never start one.
        batch = max(counts.values()) - 20
        assert set(counts) == set(BOTS) and all(count >= 20 for count in counts.values())
        assert 0 <= batch <= 16, counts
    finally:
        served.stop()


def test_an_authors_dial_in_bot_registered_on_the_web_dials_and_plays(tmp_path, python_kit):
    folder = ladders.make(tmp_path / "arena", {"rnd": "random", "heur": "heuristic"})
    served = serve(folder, "--keep-playing", "--concurrency", "2", "--per-hour", "100000")
    kit = None
    try:
        address = served.line("dial-in bots dial ").removeprefix("dial-in bots dial ")
        organiser = join(served, served.invite, "olga")
        author = join(served, invite_link(organiser), "ann")
        made = post_form(author, "/me", "/me/dial-ins", name="dialler")
        assert address in made.text  # the page says where to dial
        kit = Kit(python_kit, address, shown_secret(made.text))
        public = served.client()
        # A match of it ended (played, whether its board is rated yet or not).
        wait_for(lambda: public.get("/api/matches?bot=dialler").json()["matches"], what="the dial-in bot to play")
        assert "dialler" in str(author.get("/api/me").json()["bots"])
    finally:
        served.stop()  # first: its matches in flight end with the bot there, not held a grace for it
        if kit is not None:
            kit.stop()

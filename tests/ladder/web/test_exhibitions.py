"""Exhibition matches in a real ``waraq serve``: a signed-in person plays the ladder's bots, nobody else sees it,
and the ratings never hear of it."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys

import pytest

from tests.support import ladders
from tests.support.human import first_legal, play, replay_offered
from tests.support.web import PASSWORD, csrf_of, serve, sign_in
from waraq.ladder.play import folder as ladder_folder
from waraq.ladder.web import credentials, people
from waraq.ladder.web.people import Role

pytestmark = pytest.mark.slow  # a real ladder run, a real server and a whole match: some 20 s


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    folder = ladders.make(tmp_path_factory.mktemp("exhibit") / "arena", {"rnd": "random", "heur": "heuristic"})
    waraq = [sys.executable, "-m", "waraq.referee.cli.main"]
    subprocess.run([*waraq, "ladder", "run", "-C", str(folder), "--matches", "2", "--quiet"], check=True)
    hashed = credentials.hash_password(PASSWORD)
    with ladder_folder.open_ladder(folder) as ladder:
        people.prepare(ladder.store)
        for name, role in (("olga", Role.ORGANISER), ("ann", Role.AUTHOR)):
            people.accept(ladder.store, people.invite(ladder.store, role, None), name, hashed)
    running = serve(folder, "--matches", "2")  # played already: the scheduler plans nothing more
    yield running
    running.stop()


def _rated(folder) -> int:
    db = sqlite3.connect(folder / "ladder.sqlite")
    try:
        return db.execute("SELECT COUNT(*) FROM matches WHERE status = 'played'").fetchone()[0]
    finally:
        db.close()


def test_a_person_plays_a_ladder_bot_sees_the_result_and_replay_and_nothing_is_rated(served):
    rated = _rated(served.folder)
    olga, ann = sign_in(served, "olga"), sign_in(served, "ann")
    offer = olga.get("/play")
    assert offer.status_code == 200 and 'value="rnd"' in offer.text and 'value="heur"' in offer.text
    sat = olga.post("/play", data={"csrf": csrf_of(offer.text), "opponent": "heur", "partner": "rnd"})
    assert sat.status_code == 303
    seat = sat.headers["location"]
    assert seat.startswith("/play/p/")
    # Someone else signed in, and nobody signed in, find no seat there, and cannot play it.
    assert ann.get(seat).status_code == 404 and ann.get(seat + "/events").status_code == 404
    assert served.client().get(seat + "/events").status_code == 404
    assert ann.post(seat + "/reply", json={"match_id": "x", "seat": 0, "message": {}}).status_code == 404
    shell = olga.get(seat)
    assert shell.status_code == 200 and "script-src 'self'" in shell.headers["content-security-policy"]

    events = play(served.url + seat, first_legal, until=replay_offered, client=olga)
    assert {e["seat"] for e in events} == {0}
    start = next(e["message"]["start"] for e in events if "start" in e.get("message", {}))
    assert start["seat"] == 0 and start["partners"] == [2]

    mine = olga.get("/play").text
    found = re.findall(r'data-exhibition="([0-9a-f]+)"', mine)
    assert len(found) == 1, mine
    (ident,) = found
    replay = olga.get(f"/play/{ident}/replay")
    assert replay.status_code == 200 and "sandbox allow-scripts" in replay.headers["content-security-policy"]
    assert ann.get(f"/play/{ident}/replay").status_code == 404
    (record,) = (served.folder / "exhibitions").glob("*.jsonl")
    header = json.loads(record.read_text().splitlines()[0])
    assert [(s["bot"], s["via"]) for s in header["seats"]][0] == ("olga", "human")
    assert [s["via"] for s in header["seats"]][1:] == ["launched"] * 3
    assert header["deal_key"] is True
    assert _rated(served.folder) == rated  # never rated: the ladder's matches are as they were

    # A second match: the arena keeps only the latest seat's page; the first is replayed from its record.
    again = olga.post("/play", data={"csrf": csrf_of(olga.get("/play").text), "opponent": "rnd"})
    assert again.status_code == 303
    assert olga.get(seat + "/events").status_code == 404 and olga.get(f"/play/{ident}/replay").status_code == 200
    play(served.url + again.headers["location"], first_legal, until=replay_offered, client=olga)
    assert len(re.findall(r'class="replay-link"', olga.get("/play").text)) == 2


def test_a_match_against_no_bot_of_the_ladder_or_a_second_one_at_once_is_refused_in_words(served):
    ann = sign_in(served, "ann")
    offer = ann.get("/play")
    csrf = csrf_of(offer.text)
    unknown = ann.post("/play", data={"csrf": csrf, "opponent": "<b>nobody</b>"})
    assert unknown.status_code == 409 and "is no bot you may play here" in unknown.text
    assert "<b>nobody</b>" not in unknown.text  # what the visitor typed is text on the page
    assert ann.post("/play", data={"csrf": "forged", "opponent": "rnd"}).status_code in (400, 403)
    assert served.client().post("/play", data={"csrf": csrf, "opponent": "rnd"}).status_code in (401, 403)
    first = ann.post("/play", data={"csrf": csrf, "opponent": "rnd"})
    assert first.status_code == 303
    second = ann.post("/play", data={"csrf": csrf, "opponent": "rnd"})
    assert second.status_code == 409 and "in an exhibition match already" in second.text
    # The first is on their page, playing, with a way back to its seat.
    assert first.headers["location"] in ann.get("/play").text
    play(served.url + first.headers["location"], first_legal, until=replay_offered, client=ann)

"""Every route of a real ``waraq serve``, tried as each kind of visitor: anonymous, author A, author B, organiser.

A owns ``rnd``, B owns ``heur``; both played matches before the server
started (a real ``waraq ladder run``), so each has seats with faults and
logs to be read or refused. A never reads B's logs, uploads or tokens and
cannot act on B's bots, and the other way round; the organiser may do all;
the public reads the public pages only. Strings a bot chose (its Hello name
and version, with markup in them) are text on every page.
"""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys

import httpx
import pytest

from tests.support import TEST_BOTS, ladders
from tests.support.web import PASSWORD, Served, csrf_of, serve, sign_in
from waraq.ladder.play import folder as ladder_folder
from waraq.ladder.web import credentials, people
from waraq.ladder.web.people import Role

pytestmark = pytest.mark.slow  # a real ladder run and a real server: some 12 s

HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)>'
ROLES = ("anonymous", "A", "B", "organiser")


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    bad = f"{sys.executable} {TEST_BOTS / 'misbehaving.py'} illegal --at 3 --unix {{socket}}"
    folder = ladders.make(
        tmp_path_factory.mktemp("matrix") / "arena", {"rnd": "random", "heur": "heuristic", "bad": bad}
    )
    waraq = [sys.executable, "-m", "waraq.referee.cli.main"]
    subprocess.run([*waraq, "ladder", "run", "-C", str(folder), "--matches", "4", "--quiet"], check=True)
    hashed = credentials.hash_password(PASSWORD)
    with ladder_folder.open_ladder(folder) as ladder:
        store = ladder.store
        people.prepare(store)
        made = {
            name: people.accept(store, people.invite(store, role, None), name, hashed)
            for name, role in (("olga", Role.ORGANISER), ("ann", Role.AUTHOR), ("bob", Role.AUTHOR))
        }
        with store.transaction():
            people.set_owner(store, "rnd", made["ann"].id)
            people.set_owner(store, "heur", made["bob"].id)
            people.set_owner(store, "bad", made["ann"].id)
            entry = store.current_entry("rnd")
            store.set_identity(entry.id, entry.spec, (HOSTILE, HOSTILE, entry.files_hash))
    running = serve(folder, "--matches", "4")  # the 4 are played: nothing more is planned
    yield running
    running.stop()


def seat_of(served: Served, base: str) -> tuple[int, int]:
    db = sqlite3.connect(served.folder / "ladder.sqlite")
    row = db.execute(
        "SELECT s.match_id, s.seat FROM seats s JOIN bots b ON b.id = s.bot_id JOIN match_logs l "
        "ON l.match_id = s.match_id AND l.seat = s.seat WHERE b.base = ? ORDER BY s.match_id LIMIT 1",
        (base,),
    ).fetchone()
    db.close()
    assert row is not None, base
    return row


@pytest.fixture(scope="module")
def clients(served) -> dict[str, httpx.Client]:
    return {
        "anonymous": served.client(),
        "A": sign_in(served, "ann"),
        "B": sign_in(served, "bob"),
        "organiser": sign_in(served, "olga"),
    }


def test_the_public_pages_are_everyones(served, clients):
    match, _ = seat_of(served, "rnd")
    paths = ["/", "/?all=1", "/bots/rnd", "/bots/heur", f"/matches/{match}", f"/matches/{match}/replay", "/report"]
    paths += ["/api/standings", "/api/bots", "/api/bots/rnd", "/api/matches", f"/api/matches/{match}"]
    for role in ROLES:
        for path in paths:
            assert clients[role].get(path).status_code == 200, (role, path)


def expected(table: dict[str, int], role: str) -> int:
    return table[role]


SIGNED_IN = {"anonymous": 401, "A": 200, "B": 200, "organiser": 200}
A_ONLY = {"anonymous": 401, "A": 200, "B": 404, "organiser": 200}
B_ONLY = {"anonymous": 401, "A": 404, "B": 200, "organiser": 200}
ORGANISER = {"anonymous": 401, "A": 403, "B": 403, "organiser": 200}


def test_each_author_reads_only_their_own_bots_faults_and_logs(served, clients):
    a_match, a_seat = seat_of(served, "rnd")
    b_match, b_seat = seat_of(served, "heur")
    cases = [
        ("/me", SIGNED_IN),
        ("/api/me", SIGNED_IN),
        (f"/me/matches/{a_match}/seats/{a_seat}", A_ONLY),
        (f"/api/me/matches/{a_match}/seats/{a_seat}", A_ONLY),
        (f"/me/matches/{b_match}/seats/{b_seat}", B_ONLY),
        (f"/api/me/matches/{b_match}/seats/{b_seat}", B_ONLY),
        ("/me/matches/999999/seats/0", {"anonymous": 401, "A": 404, "B": 404, "organiser": 404}),
        ("/admin", ORGANISER),
        ("/admin/export.json", ORGANISER),
        ("/api/admin", ORGANISER),
        ("/admin/export.csv?table=matches", ORGANISER),
    ]
    for path, table in cases:
        for role in ROLES:
            answer = clients[role].get(path)
            assert answer.status_code == expected(table, role), (role, path, answer.text[:300])
    a_log = clients["A"].get(f"/api/me/matches/{a_match}/seats/{a_seat}").json()
    assert a_log["entry"].startswith("rnd") and a_log["log"] is not None
    # B's page names none of A's bots, and the other way round.
    assert "rnd" not in str(clients["B"].get("/api/me").json()["bots"])
    assert "heur" not in str(clients["A"].get("/api/me").json()["bots"])


def post(client: httpx.Client, path: str, **fields: str) -> httpx.Response:
    """A post with the CSRF value this client's own pages carry."""
    return client.post(path, data={"csrf": csrf_of(client.get("/login").text), **fields})


def test_only_the_organiser_acts_on_the_ladder(served, clients):
    actions = [
        ("/admin/invites", {"role": "author"}),
        ("/admin/bots/heur/suspend", {}),
        ("/admin/bots/heur/reinstate", {}),
        ("/admin/pause", {}),
        ("/admin/resume", {}),
    ]
    for role in ("anonymous", "A", "B"):
        for path, fields in actions:
            answer = post(clients[role], path, **fields)
            assert answer.status_code == ORGANISER[role], (role, path)
    db = sqlite3.connect(served.folder / "ladder.sqlite")
    assert db.execute("SELECT COUNT(*) FROM invites WHERE made_by IS NOT NULL").fetchone()[0] == 0
    assert db.execute("SELECT status FROM bots WHERE base = 'heur' ORDER BY id DESC").fetchone()[0] == "active"
    db.close()
    assert post(clients["organiser"], "/admin/bots/heur/suspend").status_code == 303
    assert post(clients["organiser"], "/admin/bots/heur/reinstate").status_code == 303


def test_an_author_cannot_take_anothers_bot_name_or_token(served, clients):
    # A dial-in bot of A's, and B asking for its token, or for a bot of that name.
    made = post(clients["A"], "/me/dial-ins", name="adial")
    assert made.status_code == 200 and 'id="secret"' in made.text
    assert post(clients["B"], "/me/bots/adial/token").status_code == 404
    assert post(clients["B"], "/me/dial-ins", name="adial").status_code == 400
    assert post(clients["B"], "/me/dial-ins", name="rnd").status_code == 400
    assert post(clients["anonymous"], "/me/bots/adial/token").status_code == 401
    rotated = post(clients["A"], "/me/bots/adial/token")
    assert rotated.status_code == 200 and 'id="secret"' in rotated.text


def test_nobody_reads_uploaded_code_or_the_ladders_files(served, clients):
    for role in ROLES:
        for path in ("/uploads/1/archive", "/ladder.sqlite", "/serve.key", "/static/../serve.key", "/records/"):
            assert clients[role].get(path).status_code == 404, (role, path)


def test_strings_a_bot_chose_are_text_on_every_page(served, clients):
    match, _ = seat_of(served, "rnd")
    for path in ("/", "/?all=1", "/bots/rnd", f"/matches/{match}", "/report", "/admin", "/me"):
        page = clients["organiser"].get(path).text
        assert "<script>alert" not in page and "<img src=x" not in page, path
    shown = clients["anonymous"].get("/bots/rnd").text
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in shown
    assert clients["anonymous"].get("/api/bots/rnd").json()["versions"][0]["hello_name"] == HOSTILE


def test_a_seat_page_holds_that_matchs_faults_and_the_bots_output_during_it(served, clients):
    match, seat = seat_of(served, "bad")
    shown = clients["A"].get(f"/api/me/matches/{match}/seats/{seat}").json()
    assert [f["code"] for f in shown["faults"]] == ["illegal_action"]
    db = sqlite3.connect(served.folder / "ladder.sqlite")
    record = db.execute("SELECT record FROM matches WHERE id = ?", (match,)).fetchone()[0]
    db.close()
    header = json.loads((served.folder / record).read_text().splitlines()[0])
    # The bot says which match it misbehaved in: its output during this match names this match only.
    told = re.findall(r"misbehaving \(illegal\) at seq \d+ of (\S+)", shown["log"])
    assert told == [header["match_id"]], shown["log"]


def test_every_form_that_changes_something_needs_its_csrf_value(served, clients):
    # Every POST route of the application, as the organiser (who may do everything): without the CSRF value
    # of their session, each is refused before it acts.
    from waraq.ladder.web.admin import Admin
    from waraq.ladder.web.author import Author
    from waraq.ladder.web.signin import SignIn

    values = {"{base}": "heur", "{upload_id:id}": "1", "{match_id:id}": "1", "{seat:id}": "0", "{short}": "x",
              "{person_id:id}": "2"}  # fmt: skip
    posts = [r.path for kind in (SignIn, Author, Admin) for r in kind(None).routes() if "POST" in (r.methods or ())]
    assert len(posts) >= 15
    for path in posts:
        for placeholder, value in values.items():
            path = path.replace(placeholder, value)
        answer = clients["organiser"].post(path, data={"role": "author", "name": "x", "label": "x"})
        assert answer.status_code == 403, (path, answer.status_code, answer.text[:200])
    assert clients["organiser"].get("/admin").status_code == 200  # still signed in: nothing was done


def test_the_organisers_json_names_people_and_bots_and_no_secret(served, clients):
    found = clients["organiser"].get("/api/admin").json()
    assert {p["name"] for p in found["people"]} >= {"olga", "ann", "bob"}
    assert {b["base"]: b["author"] for b in found["bots"]}["heur"] == "bob"
    assert "digest" not in str(found) and "password" not in str(found)


def test_the_organisers_forms_take_an_api_token_instead_of_a_session(served, clients):
    page = clients["organiser"].get("/me").text
    made = clients["organiser"].post("/me/api-tokens", data={"csrf": csrf_of(page), "label": "ops"})
    token = re.search(r'id="secret">([^<]+)<', made.text).group(1)
    script = served.client()
    bearer = {"Authorization": f"Bearer {token}"}
    assert script.post("/admin/bots/heur/suspend", headers=bearer).status_code == 303
    assert {b["base"]: b["status"] for b in script.get("/api/admin", headers=bearer).json()["bots"]}[
        "heur"
    ] == "suspended"
    assert script.post("/admin/bots/heur/reinstate", headers=bearer).status_code == 303
    assert script.post("/admin/bots/heur/suspend").status_code == 401  # no token, no cookie

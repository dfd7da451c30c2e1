"""People on a real ``waraq serve``: invites, passwords, sessions, CSRF, sign-in limits, API tokens, secrets kept
hashed. The ladder has no bot: nothing plays, only the doors are tried."""

from __future__ import annotations

import re
import sqlite3
import subprocess
import sys

import pytest

from tests.support import ladders
from tests.support.web import (
    PASSWORD,
    Served,
    csrf_of,
    invite_link,
    join,
    path_of,
    post_form,
    serve,
    shown_secret,
    sign_in,
)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    folder = ladders.make(tmp_path_factory.mktemp("people") / "arena", {})
    running = serve(folder)
    yield running
    running.stop()


@pytest.fixture(scope="module")
def organiser(served):
    return join(served, served.invite, "olga")


def test_an_invite_serves_once_and_its_person_is_signed_in(served: Served, organiser):
    assert organiser.get("/admin").status_code == 200
    again = served.client().get(path_of(served.invite))
    assert again.status_code == 404
    assert "used, expired or unknown" in again.text


def test_an_author_joins_by_link_and_is_no_organiser(served: Served, organiser):
    author = join(served, invite_link(organiser), "ann")
    me = author.get("/me")
    assert me.status_code == 200 and "ann" in me.text
    assert author.get("/admin").status_code == 403
    assert author.post("/admin/invites", data={"csrf": csrf_of(me.text), "role": "organiser"}).status_code == 403


def test_a_short_password_and_a_bad_name_are_refused_and_the_invite_stays(served: Served, organiser):
    link = invite_link(organiser)
    client = served.client()
    page = client.get(path_of(link))
    invite = re.search(r'name="invite" value="([^"]*)"', page.text).group(1)
    short = client.post("/join", data={"csrf": csrf_of(page.text), "invite": invite, "name": "bo", "password": "short"})
    assert short.status_code == 400 and "at least 10 characters" in short.text
    bad = client.post(
        "/join", data={"csrf": csrf_of(page.text), "invite": invite, "name": "<b>x</b>", "password": PASSWORD}
    )
    assert bad.status_code == 400 and "a name is 1 to 40 letters" in bad.text
    assert "<b>x</b>" not in bad.text and "&lt;b&gt;x&lt;/b&gt;" in bad.text  # shown back as text
    assert join(served, link, "bo").get("/me").status_code == 200


def test_cookies_are_httponly_samesite_and_a_new_session_each_sign_in(served: Served, organiser):
    join(served, invite_link(organiser), "cat")
    client = served.client()
    page = client.get("/login")
    visitor = page.headers["set-cookie"]
    assert "HttpOnly" in visitor and "samesite=lax" in visitor.lower()
    planted = "a" * 43 + ".forged"  # a session cookie set before sign-in (fixation) is never taken up
    client.cookies.set("waraq_session", planted, domain=served.url.split("//")[1].split(":")[0])
    answer = client.post("/login", data={"csrf": csrf_of(page.text), "name": "cat", "password": PASSWORD})
    assert answer.status_code == 303
    cookie = answer.headers["set-cookie"]
    assert "waraq_session=" in cookie and "HttpOnly" in cookie and "samesite=lax" in cookie.lower()
    first = client.cookies.get("waraq_session")
    assert first != planted and first.split(".")[0] != planted.split(".")[0]
    second = sign_in(served, "cat").cookies.get("waraq_session")
    assert first != second


def test_signing_out_ends_the_session_for_good(served: Served, organiser):
    join(served, invite_link(organiser), "dan")
    client = sign_in(served, "dan")
    cookie = client.cookies.get("waraq_session")
    assert post_form(client, "/me", "/logout").status_code == 303
    replayed = served.client()
    replayed.cookies.set("waraq_session", cookie)
    assert replayed.get("/me").status_code == 401


def test_a_form_without_its_csrf_value_or_with_another_visitors_is_refused(served: Served, organiser):
    page = organiser.get("/admin")
    assert organiser.post("/admin/invites", data={"role": "author"}).status_code == 403
    other = served.client()
    other_value = csrf_of(other.get("/login").text)
    assert other_value != csrf_of(page.text)
    refused = organiser.post("/admin/invites", data={"role": "author", "csrf": other_value})
    assert refused.status_code == 403 and "did not come from this site" in refused.text
    stranger = served.client()  # the sign-in form is protected too (login CSRF)
    assert stranger.post("/login", data={"name": "olga", "password": PASSWORD}).status_code == 403


def test_failed_sign_ins_are_limited_by_name(served: Served, organiser):
    join(served, invite_link(organiser), "eve")
    client = served.client()
    for _ in range(5):
        page = client.get("/login")
        wrong = client.post("/login", data={"csrf": csrf_of(page.text), "name": "eve", "password": "not it at all"})
        assert wrong.status_code == 401
    page = client.get("/login")
    held = client.post("/login", data={"csrf": csrf_of(page.text), "name": "eve", "password": PASSWORD})
    assert held.status_code == 429 and "too many failed sign-ins" in held.text
    assert "waraq_session" not in held.headers.get("set-cookie", "")


def test_an_api_token_opens_the_api_until_it_is_revoked(served: Served, organiser):
    author = join(served, invite_link(organiser), "fay")
    made = post_form(author, "/me", "/me/api-tokens", label="ci")
    token = shown_secret(made.text)
    api = served.client()
    me = api.get("/api/me", headers={"Authorization": f"Bearer {token}"})
    assert me.status_code == 200 and me.json()["name"] == "fay"
    assert api.get("/api/me").status_code == 401
    short = re.search(r"<code>([0-9a-f]{12})…</code>", author.get("/me").text).group(1)
    assert post_form(author, "/me", f"/me/api-tokens/{short}/revoke").status_code == 303
    gone = api.get("/api/me", headers={"Authorization": f"Bearer {token}"})
    assert gone.status_code == 401 and gone.json() == {"error": "this API token is unknown or revoked"}


def test_no_secret_is_kept_in_the_clear(served: Served, organiser):
    author = join(served, invite_link(organiser), "gil")
    token = shown_secret(post_form(author, "/me", "/me/api-tokens", label="x").text)
    link = invite_link(organiser)
    session = author.cookies.get("waraq_session").rpartition(".")[0]
    db = sqlite3.connect(served.folder / "ladder.sqlite")
    stored = db.execute("SELECT password FROM people WHERE name = 'gil'").fetchone()[0]
    db.close()
    assert stored.startswith("scrypt$32768$8$1$")
    every_byte = b"".join(p.read_bytes() for p in served.folder.rglob("*") if p.is_file())
    for secret in (PASSWORD, token, link.rpartition("=")[2], session):
        assert secret.encode() not in every_byte, secret


def test_every_page_carries_a_content_security_policy(served: Served, organiser):
    for path in ("/", "/login", "/me", "/admin", "/no/such/page", "/static/style.css"):
        answer = organiser.get(path)
        policy = answer.headers["content-security-policy"]
        assert "default-src 'none'" in policy and "script-src 'self'" in policy, path
        assert answer.headers["x-content-type-options"] == "nosniff"
        assert answer.headers["referrer-policy"] == "no-referrer"


def test_an_author_has_at_most_three_bots_and_no_name_of_anothers(served: Served, organiser):
    author = join(served, invite_link(organiser), "hal")
    for name in ("h1", "h2", "h3"):
        made = post_form(author, "/me", "/me/dial-ins", name=name)
        assert made.status_code == 200 and 'id="secret"' in made.text, made.text
    fourth = post_form(author, "/me", "/me/dial-ins", name="h4")
    assert fourth.status_code == 400 and "at most 3 bots" in fourth.text
    other = join(served, invite_link(organiser), "ivy")
    taken = post_form(other, "/me", "/me/dial-ins", name="h1")
    assert taken.status_code == 400 and "there is a bot &#39;h1&#39; here already" in taken.text
    assert post_form(other, "/me", "/me/bots/h1/token").status_code == 404


@pytest.mark.slow  # three whole commands
def test_a_busy_port_or_an_open_address_is_refused_in_one_line(served: Served, tmp_path):
    port = served.url.rsplit(":", 1)[1]
    folder = ladders.make(tmp_path / "other", {})
    for http, expected in (
        (f"127.0.0.1:{port}", f"--http '127.0.0.1:{port}': cannot listen there"),
        ("0.0.0.0:0", "--http '0.0.0.0:0' is not loopback"),
        ("nowhere", "--http 'nowhere': expected HOST:PORT"),
    ):
        done = subprocess.run(
            [sys.executable, "-m", "waraq.referee.cli.main", "serve", str(folder), "--http", http],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 2, done
        assert expected in done.stderr and "Traceback" not in done.stderr, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr

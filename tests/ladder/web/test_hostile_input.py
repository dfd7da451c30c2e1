"""Every route of a real ``waraq serve``, sent what a hostile visitor types: never a server error.

Each GET route with each hostile value in its path and in every query parameter
any page reads, as a visitor and as the organiser; each POST route as the
organiser, with the CSRF value of their session (so the form is read, not
refused at the door) and each hostile value in every field a form has. Every
answer is a page or a refusal (below 500), the server's output holds no
traceback, and the arena still answers and still knows its organiser.
"""

from __future__ import annotations

from urllib.parse import quote

import pytest

from tests.support import ladders
from tests.support.web import csrf_of, join, serve

pytestmark = pytest.mark.slow  # a real ladder and a real server, some 700 requests

HOSTILE = (
    "",
    "²",  # a digit to str.isdigit(), not to int()
    "٣",
    "-1",
    "1e999",
    "9" * 20,  # past SQLite's integers
    "9" * 5000,  # past int()'s 4300 digits
    "\x00",
    "a\x00b",
    "../../etc/passwd",
    '<script>alert("x")</script>',
    "\u202e\ufeff",
    "😀" * 300,
)
# Every query parameter a page reads, and every field of every form.
QUERY_KEYS = ("all", "limit", "bot", "done", "table", "invite", "after")
FIELDS = ("name", "password", "role", "label", "invite", "base", "bot", "partner", "version", "seat", "upload")
SKIPPED_POSTS = ("/logout",)  # it would end the session the other forms are posted in
STREAMS = ("/api/events",)  # server-sent events: an answer that never ends (its query is read below)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    folder = ladders.make(tmp_path_factory.mktemp("hostile") / "arena", {"rnd": "random", "heur": "heuristic"})
    running = serve(folder, "--matches", "2")
    yield running
    running.stop()


def routes() -> tuple[list[str], list[str]]:
    """(GET paths, POST paths) of the application, placeholders left in."""
    from waraq.ladder.web.admin import Admin
    from waraq.ladder.web.author import Author
    from waraq.ladder.web.public import Public
    from waraq.ladder.web.signin import SignIn

    # Exhibitions' routes need a running arena to be made: theirs, but for the seat page (tests/human).
    gets, posts = ["/play", "/play/assets/{name}", "/play/{ident}/replay"], ["/play"]
    for kind in (Public, SignIn, Author, Admin):
        for route in kind(None).routes():
            if route.path not in STREAMS:
                (posts if "POST" in (route.methods or ()) else gets).append(route.path)
    return gets, posts


def filled(path: str, value: str) -> str:
    """``path`` with every placeholder given ``value``, URL-quoted as a browser sends it."""
    while "{" in path:
        start = path.index("{")
        path = path[:start] + quote(value, safe="") + path[path.index("}", start) + 1 :]
    return path


def test_no_route_answers_any_hostile_value_with_a_server_error(served):
    organiser = join(served, served.invite, "olga")
    visitor = served.client()
    gets, posts = routes()
    assert len(gets) >= 15 and len(posts) >= 15
    answered = 0
    for value in HOSTILE:
        query = "&".join(f"{key}={quote(value, safe='')}" for key in QUERY_KEYS)
        for path in gets:
            for client in (visitor, organiser):
                answer = client.get(f"{filled(path, value)}?{query}")
                assert answer.status_code < 500, (path, value, answer.status_code, answer.text[:300])
                answered += 1
        csrf = csrf_of(organiser.get("/me").text)
        for path in posts:
            if path in SKIPPED_POSTS:
                continue
            answer = organiser.post(filled(path, value), data={"csrf": csrf, **dict.fromkeys(FIELDS, value)})
            assert answer.status_code < 500, (path, value, answer.status_code, answer.text[:300])
            answered += 1
    assert answered > 500
    assert organiser.get("/admin").status_code == 200 and visitor.get("/api/standings").status_code == 200
    output = served.stop()
    assert "Traceback" not in output and "Exception in ASGI application" not in output, output[-3000:]

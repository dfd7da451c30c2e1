"""Every route of a real ``waraq serve``, sent what a hostile visitor types: never a server error.

Each GET route with each hostile value in its path and in every query parameter
any page reads, as a visitor and as the organiser; each POST route as the
organiser, with the CSRF value of their session (so the form is read, not
refused at the door) and each hostile value in every field a form has. Every
answer is a page or a refusal (below 500), the server's output holds no
traceback, and the arena still answers and still knows its organiser.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from urllib.parse import quote

import httpx
import pytest

from tests.support import ladders
from tests.support.web import csrf_of, join, serve
from waraq.ladder.web.public import STREAMS_AT_ONCE

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
    # Whatever this module's visitors sent, the server printed no traceback.
    output = running.stop()
    assert "Traceback" not in output and "Exception in ASGI application" not in output, output[-3000:]


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


def test_live_readers_past_their_bound_are_refused_and_their_places_come_back(served):
    async def hold() -> None:
        limits = httpx.Limits(max_connections=STREAMS_AT_ONCE + 10)
        async with httpx.AsyncClient(base_url=served.url, limits=limits, timeout=30) as client:
            async with contextlib.AsyncExitStack() as held:
                streams, readers = [], []
                for _ in range(STREAMS_AT_ONCE):
                    stream = await held.enter_async_context(client.stream("GET", "/api/events"))
                    assert stream.status_code == 200
                    reader = stream.aiter_bytes()  # kept: a reader dropped closes its stream
                    await reader.__anext__()  # its first event: the server counts it
                    streams.append(stream)
                    readers.append(reader)
                refused = await client.get("/api/events")
                assert refused.status_code == 503 and "live readers" in refused.json()["error"]
                assert (await client.get("/api/standings")).status_code == 200  # the pages still answer
                for stream in streams[:5]:
                    await stream.aclose()
                deadline = time.monotonic() + 30
                while True:  # the server sees them gone at its next look (each second)
                    async with client.stream("GET", "/api/events") as again:
                        if again.status_code == 200:
                            break
                    assert time.monotonic() < deadline, "no place came back"
                    await asyncio.sleep(0.2)

    asyncio.run(hold())

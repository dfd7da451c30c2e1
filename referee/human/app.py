"""The human seat's page and its small JSON API, as ASGI routes (Starlette).

    GET  /p/TOKEN                 the page (a static shell; human.js draws it)
    GET  /p/TOKEN/events?after=N  the person's messages from number N on (waits up to 20 s for one)
    POST /p/TOKEN/reply           {"match_id", "seat", "message": BotMessage}: the answer to a question out
    POST /p/TOKEN/turn            {"match_id", "seat", "steps", "selected" | "discard"}: Hand's turn builder
    GET  /p/TOKEN/replay/MATCH    the HTML replay of a match of this person's, once it is over
    GET  /assets/NAME             the page's script and style

TOKEN is the person's secret (:class:`~waraq.referee.human.desk.Person`): the
page's address is all a person needs, and all anybody else lacks. The routes
take no cookie, so a page of another site cannot act in the person's name:
it cannot read the token, and its requests with a JSON body are refused
without CORS. A request whose ``Host`` is not the address served is refused
too (DNS rebinding). Every answer says ``no-store`` and ``no-referrer``: the
token is in the address.

:func:`routes` gives the routes under any prefix, for ``waraq serve``'s
exhibitions, which check who is signed in before (:mod:`waraq.ladder.web`).
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from waraq.referee.human import turn_steps
from waraq.referee.human.desk import Desk, Person, Refused

WAIT_S = 20.0  # how long a request for events waits for one before answering with none
BODY_LIMIT = 64 * 1024  # a reply or a turn is a few hundred bytes: a request bigger than this is no honest one

PAGE_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
# A replay page is the record's self-contained page, scripts inline; sandboxed, it gets an origin of its own.
REPLAY_POLICY = (
    "sandbox allow-scripts; default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:"
)
ASSETS = {  # what /assets/ serves: these files and nothing else
    "human.js": ("waraq.referee.human", "human.js", "text/javascript"),
    "human.css": ("waraq.referee.human", "human.css", "text/css"),
    "table.js": ("waraq.referee.replay.html", "table.js", "text/javascript"),
    "viewer.css": ("waraq.referee.replay.html", "viewer.css", "text/css"),
}

People = Callable[[Request], Person | None]  # who the request's person is (None: nobody: 404)
# A record's file -> its HTML replay page: the replay's own (waraq.referee.replay.html), given by whoever serves
# the page, which sits above both (the human seat is reached from the launch floor, which replay stands on).
Replays = Callable[[Path], str]


def _text(package: str, name: str) -> str:
    return resources.files(package).joinpath(name).read_text(encoding="utf-8")


def page_html(prefix: str, person: Person) -> str:
    """The page's shell: its addresses are relative to ``prefix``; everything else is drawn by its script."""
    shell = _text("waraq.referee.human", "human.html")
    return shell.replace("{{name}}", html.escape(person.name)).replace("{{assets}}", html.escape(prefix))


def routes(find: People, assets: str, replay_page: Replays) -> list[Route]:
    """The page's routes, each finding its person with ``find``; ``assets``: where /assets/ is served;
    ``replay_page`` draws a match's replay."""

    async def page(request: Request) -> Response:
        person = _person(request, find)
        return HTMLResponse(page_html(assets, person), headers={"Content-Security-Policy": PAGE_POLICY})

    async def events(request: Request) -> Response:
        person = _person(request, find)
        try:
            after = max(0, int(request.query_params.get("after", "0")))
        except ValueError:
            raise Refused(400, "after: expected a whole number") from None
        return JSONResponse({"events": await person.after(after, WAIT_S)})

    async def reply(request: Request) -> Response:
        person = _person(request, find)
        body = await _json(request)
        person.answer(_match(body), _seat(body), body.get("message"))
        return JSONResponse({"ok": True})

    async def turn(request: Request) -> Response:
        person = _person(request, find)
        body = await _json(request)
        view = person.asked(_match(body), _seat(body)).view
        if getattr(view, "kind", None) != "TURN":
            raise Refused(409, "the question out is no Hand turn")
        if "discard" in body:
            return JSONResponse(turn_steps.finish(view, body.get("steps"), body["discard"]))
        return JSONResponse(turn_steps.options(view, body.get("steps"), body.get("selected", [])))

    async def replay(request: Request) -> Response:
        person = _person(request, find)
        record = person.records.get(request.path_params["match"])
        if record is None:
            raise Refused(404, "no match of yours by that id is over")
        return HTMLResponse(replay_page(record), headers={"Content-Security-Policy": REPLAY_POLICY})

    return [
        Route("/p/{token}", page),
        Route("/p/{token}/events", events),
        Route("/p/{token}/reply", reply, methods=["POST"]),
        Route("/p/{token}/turn", turn, methods=["POST"]),
        Route("/p/{token}/replay/{match}", replay),
    ]


async def asset(request: Request) -> Response:
    found = ASSETS.get(request.path_params["name"])
    if found is None:
        return Response("no such file", status_code=404, media_type="text/plain")
    package, name, media = found
    return Response(_text(package, name), media_type=f"{media}; charset=utf-8")


def _person(request: Request, find: People) -> Person:
    person = find(request)
    if person is None:
        raise Refused(404, "no seat's page at this address: check the address the match printed")
    return person


async def _json(request: Request) -> dict[str, Any]:
    """The request's JSON object; only ``application/json``, which no other site may send without asking."""
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        raise Refused(415, "expected Content-Type: application/json")
    body = await request.body()
    if len(body) > BODY_LIMIT:
        raise Refused(413, f"a request of {len(body)} bytes: at most {BODY_LIMIT}")
    try:
        value = json.loads(body)
    except ValueError:
        raise Refused(400, "the body is not JSON") from None
    except RecursionError:  # json reads arrays and objects by recursion: a body of brackets alone
        raise Refused(400, "the body's JSON is nested too deeply") from None
    if not isinstance(value, dict):
        raise Refused(400, "expected a JSON object")
    return value


def _match(body: dict[str, Any]) -> str:
    match = body.get("match_id")
    if not isinstance(match, str):
        raise Refused(400, "match_id: expected the match's id, a string")
    return match


def _seat(body: dict[str, Any]) -> int:
    seat = body.get("seat")
    if type(seat) is not int:
        raise Refused(400, "seat: expected a whole number")
    return seat


async def refused(request: Request, error: Exception) -> Response:
    assert isinstance(error, Refused)
    return JSONResponse({"error": str(error)}, status_code=error.status)


class Guard:
    """Refuse a request for another host (DNS rebinding), and give every answer the page's headers."""

    def __init__(self, app: ASGIApp, hosts: set[str]) -> None:
        self.app = app
        self.hosts = hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        host = dict(scope["headers"]).get(b"host", b"").decode("latin-1").lower()
        if host not in self.hosts:
            response = Response("wrong host", status_code=421, media_type="text/plain")
            await response(scope, receive, send)
            return

        async def with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                headers = message.setdefault("headers", [])
                names = {name.lower() for name, _ in headers}
                for name, value in HEADERS:
                    if name not in names:
                        headers.append((name, value))
            await send(message)

        await self.app(scope, receive, with_headers)


HEADERS = (
    (b"cache-control", b"no-store"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-content-type-options", b"nosniff"),
    (b"content-security-policy", PAGE_POLICY.encode()),
)


def build(desk: Desk, hosts: set[str], replay_page: Replays) -> ASGIApp:
    """The page's whole application for one run's desk (``waraq match``), served to ``hosts`` only."""

    def find(request: Request) -> Person | None:
        return desk.by_token(request.path_params["token"])

    async def index(request: Request) -> Response:
        return Response(
            "Waraq: each person's seat has a page of its own, at the address the match printed.",
            media_type="text/plain",
        )

    app = Starlette(
        routes=[Route("/", index), Route("/assets/{name}", asset), *routes(find, "/assets", replay_page)],
        exception_handlers={Refused: refused},
    )
    return Guard(app, hosts)

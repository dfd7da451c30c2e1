"""The web application: every route, its refusals, and the headers every response carries.

Routes are grouped by who they are for: :mod:`.public` (anyone),
:mod:`.signin`, :mod:`.author` (a signed-in author), :mod:`.admin` (the
organiser). A :class:`~.access.Refused` anywhere becomes a page saying why
(or ``{"error": ...}`` under ``/api``), with its status; so do Starlette's
own refusals (no such page, a malformed form). No traceback reaches a
visitor: an unexpected error is a 500 page, and its traceback goes to the
server's log.
"""

from __future__ import annotations

import logging

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from waraq.ladder.web.access import Refused
from waraq.ladder.web.admin import Admin
from waraq.ladder.web.author import Author
from waraq.ladder.web.exhibitions import Exhibitions
from waraq.ladder.web.public import Public
from waraq.ladder.web.signin import SignIn
from waraq.ladder.web.site import HERE, PAGE_POLICY, SECURITY_HEADERS, Site

log = logging.getLogger("waraq.serve")


def build(site: Site) -> Starlette:
    routes = [
        *Public(site).routes(),
        *SignIn(site).routes(),
        *Author(site).routes(),
        *Admin(site).routes(),
        *Exhibitions(site).routes(),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]

    async def refused(request: Request, error: Exception) -> Response:
        assert isinstance(error, Refused)
        return _refusal(site, request, error)

    async def http_error(request: Request, error: Exception) -> Response:
        assert isinstance(error, HTTPException)
        message = {404: "there is no such page here", 405: "that page does not take this kind of request"}.get(
            error.status_code, str(error.detail)
        )
        return _refusal(site, request, Refused(error.status_code, message))

    async def server_error(request: Request, error: Exception) -> Response:
        log.exception("%s %s failed", request.method, request.url.path)
        return _refusal(site, request, Refused(500, "something went wrong on the server: the organiser can see what"))

    app = Starlette(
        routes=routes,
        exception_handlers={Refused: refused, HTTPException: http_error, Exception: server_error},
    )
    return app


def _refusal(site: Site, request: Request, refusal: Refused) -> Response:
    api = request.url.path.startswith("/api/")
    try:
        viewer = None if api else site.viewer(request)
    except Refused:
        viewer = None
    return site.refused(request, refusal, viewer, api=api)


class SecurityHeaders:
    """Every response's headers (:data:`~.site.SECURITY_HEADERS`, the page policy unless the route set its
    own), also on the files, the events stream and the refusals."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                for name, value in {**SECURITY_HEADERS, "Content-Security-Policy": PAGE_POLICY}.items():
                    if name.lower().encode() not in present:
                        headers.append((name.lower().encode(), value.encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)

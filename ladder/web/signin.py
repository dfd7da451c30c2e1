"""Signing in, joining by invite, signing out.

A sign-in always opens a new session (a session token planted in a browser
before it is worth nothing after: no fixation). Failed sign-ins are counted
by address and by name (:class:`~.access.Attempts`); past the limit the form
says how long to wait, and the password is not even checked. The password is
hashed off the loop (scrypt takes some 100 ms and 32 MiB on purpose).
"""

from __future__ import annotations

import asyncio
import re

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from waraq.ladder.web import access, credentials, people
from waraq.ladder.web.access import Refused
from waraq.ladder.web.site import Site, redirect, text_of
from waraq.referee.common.networks import network_of

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}")
NAME_RULE = "a name is 1 to 40 letters, digits, '_', '.' or '-', from a letter or digit"


class SignIn:
    def __init__(self, site: Site) -> None:
        self.site = site

    def routes(self) -> list[Route]:
        return [
            Route("/login", self.login_form, methods=["GET"]),
            Route("/login", self.login, methods=["POST"]),
            Route("/logout", self.logout, methods=["POST"]),
            Route("/join", self.join_form, methods=["GET"]),
            Route("/join", self.join, methods=["POST"]),
        ]

    async def login_form(self, request: Request) -> Response:
        return self.site.page(request, "login.html", self.site.viewer(request), title="Sign in", problem="", name="")

    async def login(self, request: Request) -> Response:
        site = self.site
        viewer = site.viewer(request)
        form = await site.form(request, viewer)
        name, password = text_of(form, "name", limit=40), form.get("password")
        address = f"address:{network_of(request.client.host) if request.client else '?'}"  # an IPv6 host's /64
        keys = (address, f"name:{name.lower()}")
        wait = site.attempts.wait_s(*keys)
        if wait > 0:
            problem = f"too many failed sign-ins: try again in {int(wait // 60) + 1} minutes"
            return site.page(request, "login.html", viewer, status=429, title="Sign in", problem=problem, name=name)
        found = people.person_named(site.store, name) if name else None
        stored = people.password_of(site.store, found.id) if found else None
        given = password if isinstance(password, str) else ""
        right = await asyncio.to_thread(credentials.verify_password, given[: credentials.MAX_PASSWORD], stored)
        if found is None or found.disabled or not right:
            site.attempts.failed(*keys)
            problem = "that name and password do not match a person here"
            return site.page(request, "login.html", viewer, status=401, title="Sign in", problem=problem, name=name)
        site.attempts.succeeded(*keys)
        return self._signed_in(request, found.id)

    def _signed_in(self, request: Request, person_id: int) -> Response:
        token = people.open_session(self.site.store, person_id)
        response = redirect("/me")
        self.site.set_cookie(response, access.SESSION_COOKIE, credentials.sign(self.site.key, token))
        return self.site.finish(request, response)

    async def logout(self, request: Request) -> Response:
        viewer = self.site.viewer(request)
        await self.site.form(request, viewer)
        if viewer.session is not None:
            people.close_session(self.site.store, viewer.session)
        response = redirect("/")
        response.delete_cookie(access.SESSION_COOKIE, path="/")
        return self.site.finish(request, response)

    async def join_form(self, request: Request) -> Response:
        token = request.query_params.get("invite", "")
        found = people.open_invite(self.site.store, token) if token else None
        if found is None:
            raise Refused(404, "this invite link is used, expired or unknown: ask the organiser for a new one")
        return self._join_page(request, token, found.role.value, "", "")

    def _join_page(self, request: Request, token: str, role: str, name: str, problem: str, status: int = 200):
        return self.site.page(
            request,
            "join.html",
            self.site.viewer(request),
            status=status,
            title="Join",
            invite=token,
            role=role,
            name=name,
            problem=problem,
            min_password=credentials.MIN_PASSWORD,
        )

    async def join(self, request: Request) -> Response:
        site = self.site
        form = await site.form(request, site.viewer(request))
        token, name = text_of(form, "invite"), text_of(form, "name", limit=40)
        password = form.get("password")
        password = password if isinstance(password, str) else ""
        found = people.open_invite(site.store, token) if token else None
        if found is None:
            raise Refused(404, "this invite link is used, expired or unknown: ask the organiser for a new one")
        problem = None if NAME.fullmatch(name) else NAME_RULE
        problem = problem or credentials.password_problem(password)
        if problem is not None:
            return self._join_page(request, token, found.role.value, name, problem, status=400)
        hashed = await asyncio.to_thread(credentials.hash_password, password)
        try:
            made = people.accept(site.store, token, name, hashed)
        except people.PeopleError as error:
            return self._join_page(request, token, found.role.value, name, str(error), status=400)
        return self._signed_in(request, made.id)

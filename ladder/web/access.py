"""Who is asking, and whether they may: sessions, API tokens, CSRF, and the sign-in's rate limit.

A request is made by a :class:`Viewer`: anonymous, or a person signed in
through a session cookie (pages) or an ``Authorization: Bearer`` API token
(scripts). Every state-changing form carries a CSRF value bound to the
visitor: the session's token once signed in, before that a random visitor
cookie (so that the sign-in and invite forms cannot be posted from another
site either). A request with an API token carries no ambient credential and
needs none.

The rules of who may see and do what are the functions at the bottom; every
route asks one of them, and tests/ladder/web/test_authorisation.py tries each route
as each kind of visitor.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass

from starlette.requests import Request

from waraq.ladder.storage.store import Store
from waraq.ladder.web import credentials, people
from waraq.ladder.web.people import Person

SESSION_COOKIE = "waraq_session"
VISITOR_COOKIE = "waraq_visitor"
CSRF_FIELD = "csrf"


class Refused(Exception):
    """A request refused: its HTTP status and the one line the visitor is shown."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class Viewer:
    person: Person | None
    session: str | None  # the session cookie's token, when signed in through one
    visitor: str | None  # the visitor cookie's token (anonymous forms' CSRF)
    by_token: bool = False  # an API token: no cookie, no CSRF
    new_visitor: bool = False  # the visitor token was made for this request: the response sets its cookie

    @property
    def organiser(self) -> bool:
        return self.person is not None and self.person.organiser

    def csrf(self, key: bytes) -> str:
        """The value this viewer's forms carry."""
        base = self.session or self.visitor
        return "" if base is None else credentials.csrf_value(key, base)


def viewer_of(request: Request, store: Store, key: bytes) -> Viewer:
    """The viewer of a request: its bearer token, else its signed session cookie, else anonymous."""
    authorization = request.headers.get("authorization", "")
    if authorization.lower().startswith("bearer "):
        found = people.token_person(store, authorization[7:].strip())
        if found is None:
            raise Refused(401, "this API token is unknown or revoked")
        return Viewer(found, None, None, by_token=True)
    visitor = request.cookies.get(VISITOR_COOKIE)
    new_visitor = not visitor or len(visitor) > 100
    if new_visitor:
        visitor = credentials.new_token()
    cookie = request.cookies.get(SESSION_COOKIE)
    token = credentials.unsign(key, cookie) if cookie else None
    found = people.session_person(store, token) if token else None
    return Viewer(found, token if found else None, visitor, new_visitor=new_visitor)


def check_csrf(viewer: Viewer, key: bytes, given: str | None) -> None:
    """Refuse a form posted without this viewer's CSRF value (a page of another site cannot know it)."""
    if viewer.by_token:
        return
    base = viewer.session or viewer.visitor
    if base is None or not given or not credentials.csrf_ok(key, base, given):
        raise Refused(403, "this form has expired or did not come from this site: reload the page and send it again")


def signed_in(viewer: Viewer) -> Person:
    if viewer.person is None:
        raise Refused(401, "sign in first")
    return viewer.person


def organiser(viewer: Viewer) -> Person:
    person = signed_in(viewer)
    if not person.organiser:
        raise Refused(403, "only the organiser may do this")
    return person


def owner(viewer: Viewer, store: Store, base: str) -> Person:
    """The signed-in author of the bot ``base`` (the organiser may act on any bot). Someone else's bot and a
    bot that does not exist get the same answer, so that names cannot be probed."""
    person = signed_in(viewer)
    if person.organiser or people.owner_of(store, base) == person.id:
        return person
    raise Refused(404, f"you have no bot {base!r}")


class Attempts:
    """Failed sign-ins, by address and by name: past :data:`LIMIT` in :data:`WINDOW_S`, refused until the
    oldest failure leaves the window. By name as well as by address: many addresses guessing one
    person's password are slowed down too."""

    LIMIT = 5
    WINDOW_S = 15 * 60.0

    def __init__(self) -> None:
        self._failures: dict[str, deque[float]] = {}

    def wait_s(self, *keys: str) -> float:
        """Seconds before another attempt is heard, for the worst of ``keys``; 0 when it may go on."""
        now = time.monotonic()
        worst = 0.0
        for key in keys:
            failures = self._failures.get(key)
            if failures is None:
                continue
            while failures and now - failures[0] > self.WINDOW_S:
                failures.popleft()
            if len(failures) >= self.LIMIT:
                worst = max(worst, self.WINDOW_S - (now - failures[0]))
            if not failures:
                del self._failures[key]
        return worst

    KEYS = 100_000  # names and addresses remembered at most: a guesser of random names grows nothing past it

    def failed(self, *keys: str) -> None:
        now = time.monotonic()
        for key in keys:
            self._failures.setdefault(key, deque(maxlen=self.LIMIT)).append(now)
        while len(self._failures) > self.KEYS:  # the oldest first (a dict keeps its order of insertion)
            del self._failures[next(iter(self._failures))]

    def succeeded(self, *keys: str) -> None:
        for key in keys:
            self._failures.pop(key, None)

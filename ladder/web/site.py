"""What every route shares: the arena, the views, the key, the templates; rendering, forms and refusals.

Pages are rendered on the server by Jinja2 with autoescaping on: whatever a
bot or a person chose (a bot's name, its Hello, a fault's detail, a build
log) is text on every page. Every response carries a Content-Security-Policy
that allows this site's own style sheet and script only
(:data:`PAGE_POLICY`), so even a string that escaped the escaping could not
run.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jinja2
from starlette.convertors import Convertor, register_url_convertor
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from waraq.ladder.storage.store import Store
from waraq.ladder.web import access
from waraq.ladder.web.access import Attempts, Refused, Viewer
from waraq.ladder.web.arena import Arena
from waraq.ladder.web.uploads import Uploads
from waraq.ladder.web.views import Views
from waraq.referee.common.digits import ascii_digits


class RowId(Convertor[int]):
    """A row's id in a path (``{match_id:id}``): 1 to 18 digits, which int() and SQLite both take.
    Starlette's ``int`` takes any number of digits: 5,000 of them raised in int() and 20 in SQLite (500s)."""

    regex = "[0-9]{1,18}"

    def convert(self, value: str) -> int:
        return int(value)

    def to_string(self, value: int) -> str:
        return str(value)


register_url_convertor("id", RowId())  # here, imported by every module whose routes name an id

HERE = Path(__file__).parent
PAGE_POLICY = (
    "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",  # an invite link's token never leaves in a Referer
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
}
MAX_FORM_BYTES = 64 * 1024  # a form that is not an upload: names, notes, a password


@dataclass
class Site:
    arena: Arena
    views: Views
    key: bytes
    uploads: Uploads
    public_url: str = ""  # how people reach this server (for invite links); "" until it listens
    secure_cookies: bool = False  # set Secure on cookies (behind TLS)
    attempts: Attempts = field(default_factory=Attempts)
    templates: jinja2.Environment = field(
        default_factory=lambda: jinja2.Environment(
            loader=jinja2.FileSystemLoader(HERE / "templates"),
            autoescape=True,
            undefined=jinja2.StrictUndefined,
        )
    )

    @property
    def store(self) -> Store:
        return self.arena.ladder.store

    def viewer(self, request: Request) -> Viewer:
        return access.viewer_of(request, self.store, self.key)

    def page(self, request: Request, template: str, viewer: Viewer, status: int = 200, **values: Any) -> Response:
        html = self.templates.get_template(template).render(
            viewer=viewer,
            csrf=viewer.csrf(self.key),
            title=values.pop("title", "Waraq"),
            paused=self.arena.state.paused,
            ladder=self.arena.folder.resolve().name,
            **values,
        )
        return self.finish(request, HTMLResponse(html, status_code=status), viewer)

    def shown_once(
        self, request: Request, viewer: Viewer, what: str, secret: str, explain: str, after: str
    ) -> Response:
        """A page that shows a secret (a token, an invite link) this once: only its digest is kept."""
        back = "/admin" if request.url.path.startswith("/admin") else "/me"
        return self.page(
            request, "shown_once.html", viewer, title=what, heading=what, explain=explain, secret=secret, after=after,
            back=back,
        )  # fmt: skip

    def finish(self, request: Request, response: Response, viewer: Viewer | None = None) -> Response:
        """Security headers, and a visitor cookie for a visitor who has none (their forms' CSRF value)."""
        for name, value in SECURITY_HEADERS.items():
            response.headers.setdefault(name, value)
        response.headers.setdefault("Content-Security-Policy", PAGE_POLICY)
        response.headers.setdefault("Cache-Control", "no-store")
        if viewer is not None and viewer.new_visitor and viewer.visitor is not None:
            self.set_cookie(response, access.VISITOR_COOKIE, viewer.visitor)
        return response

    def set_cookie(self, response: Response, name: str, value: str, *, days: int = 14) -> None:
        response.set_cookie(
            name,
            value,
            max_age=days * 86400,
            httponly=True,
            samesite="lax",
            secure=self.secure_cookies,
            path="/",
        )

    async def form(self, request: Request, viewer: Viewer, *, files: int = 0) -> FormData:
        """A posted form, its CSRF value checked; a form too big is refused before it is read whole (an
        upload's size is checked by its caller first, :meth:`Uploads.check_room`)."""
        size = request.headers.get("content-length")
        if not files and size is not None and (not ascii_digits(size) or int(size) > MAX_FORM_BYTES):
            raise Refused(413, f"a form is at most {MAX_FORM_BYTES // 1024} KiB")
        form = await request.form(max_files=files, max_fields=50, max_part_size=MAX_FORM_BYTES)
        value = form.get(access.CSRF_FIELD)
        access.check_csrf(viewer, self.key, value if isinstance(value, str) else None)
        return form

    def refused(self, request: Request, refusal: Refused, viewer: Viewer | None, *, api: bool) -> Response:
        if api:
            return self.finish(request, JSONResponse({"error": refusal.message}, status_code=refusal.status))
        shown = viewer or Viewer(None, None, None)
        return self.page(request, "refused.html", shown, status=refusal.status, message=refusal.message)


def redirect(to: str) -> RedirectResponse:
    return RedirectResponse(to, status_code=303)


def text_of(form: FormData, name: str, *, limit: int = 200) -> str:
    value = form.get(name)
    if not isinstance(value, str):
        return ""
    value = value.strip()
    if len(value) > limit:
        raise Refused(400, f"{name} is at most {limit} characters")
    return value


def when(iso: str | None) -> str:
    """A stored UTC time as pages show it: ``2026-12-04 18:30 UTC``."""
    if not iso:
        return ""
    try:
        stamp = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except ValueError:
        return iso
    return stamp.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def as_json(data: Mapping[str, Any] | list[Any], status: int = 200) -> JSONResponse:
    return JSONResponse(data, status_code=status)

"""An author's own door: their bots, uploads, build logs and check reports, each match's faults and their
bot's own output, dial-in tokens, API tokens.

Every route asks who is signed in, and for a bot or an upload whether it is
theirs (:func:`~.access.owner`); someone else's and one that does not exist
get the same 404, so names cannot be probed. The organiser may read any.
The JSON twins live under ``/api/me``.
"""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from waraq.ladder.storage.store import Store
from waraq.ladder.web import access, people, uploads
from waraq.ladder.web.access import Refused
from waraq.ladder.web.arena import ArenaError
from waraq.ladder.web.people import Person
from waraq.ladder.web.signin import NAME, NAME_RULE
from waraq.ladder.web.site import Site, as_json, redirect, text_of, when
from waraq.referee.launch.bots import SpecKind

LOG_SHOWN = 256 * 1024  # of one seat's output in one match: its last bytes beyond this are shown
RECENT = 12


class Author:
    def __init__(self, site: Site) -> None:
        self.site = site

    def routes(self) -> list[Route]:
        return [
            Route("/me", self.page, methods=["GET"]),
            Route("/me/dial-ins", self.dial_in, methods=["POST"]),
            Route("/me/bots/{base}/token", self.rotate, methods=["POST"]),
            Route("/me/uploads", self.upload, methods=["POST"]),
            Route("/me/uploads/{upload_id:id}", self.upload_page, methods=["GET"]),
            Route("/me/uploads/{upload_id:id}/play", self.play_upload, methods=["POST"]),
            Route("/me/matches/{match_id:id}/seats/{seat:id}", self.seat_log, methods=["GET"]),
            Route("/me/api-tokens", self.new_token, methods=["POST"]),
            Route("/me/api-tokens/{short}/revoke", self.revoke_token, methods=["POST"]),
            Route("/api/me", self.api_me, methods=["GET"]),
            Route("/api/me/uploads", self.upload, methods=["POST"]),
            Route("/api/me/uploads/{upload_id:id}", self.api_upload, methods=["GET"]),
            Route("/api/me/matches/{match_id:id}/seats/{seat:id}", self.api_seat_log, methods=["GET"]),
        ]

    # -- the page ---------------------------------------------------------------------------------

    def _bots(self, person: Person) -> list[dict]:
        store, config = self.site.store, self.site.arena.ladder.config
        found = []
        for base in people.bots_of(store, person.id):
            bot = config.bot(base)
            entry = store.current_entry(base)
            versions = uploads.of_bot(store, base)
            playing = bot.cwd if bot is not None else None
            found.append(
                {
                    "base": base,
                    "kind": "dial-in" if bot and bot.bot_spec.kind is SpecKind.DIAL_IN else "uploaded",
                    "status": entry.status if entry else "removed",
                    "reason": entry.reason if entry else "",
                    "versions": [v.with_playing(self.site.arena.folder, playing) for v in versions],
                    "matches": _recent_seats(store, base),
                }
            )
        return found

    async def page(self, request: Request) -> Response:
        viewer = self.site.viewer(request)
        person = access.signed_in(viewer)
        store = self.site.store
        return self.site.page(
            request,
            "me.html",
            viewer,
            title=person.name,
            done=request.query_params.get("done", "")[:300],
            bots=self._bots(person),
            uploads_elsewhere=[v for v in uploads.of_person(store, person.id) if v.base is None],
            tokens=people.api_tokens(store, person.id),
            when=when,
        )

    async def api_me(self, request: Request) -> Response:
        person = access.signed_in(self.site.viewer(request))
        bots = self._bots(person)
        for bot in bots:
            bot["versions"] = [v.as_json() for v in bot["versions"]]
            bot["matches"] = [{"match": m, "seat": s} for m, s in bot["matches"]]
        return as_json({"name": person.name, "role": person.role.value, "bots": bots})

    # -- dial-in bots and tokens ---------------------------------------------------------------------

    async def dial_in(self, request: Request) -> Response:
        viewer = self.site.viewer(request)
        person = access.signed_in(viewer)
        name = text_of(await self.site.form(request, viewer), "name", limit=40)
        if not NAME.fullmatch(name):
            raise Refused(400, NAME_RULE)
        if self.site.arena.ladder.config.bot(name) is not None:
            raise Refused(400, f"there is a bot {name!r} here already: choose another name")
        return self._token_page(request, name, person)

    async def rotate(self, request: Request) -> Response:
        viewer = self.site.viewer(request)
        base = request.path_params["base"]
        person = access.owner(viewer, self.site.store, base)
        await self.site.form(request, viewer)
        bot = self.site.arena.ladder.config.bot(base)
        if bot is None or bot.bot_spec.kind is not SpecKind.DIAL_IN:
            raise Refused(404, f"you have no dial-in bot {base!r}")
        return self._token_page(request, base, person)

    def _token_page(self, request: Request, base: str, person: Person) -> Response:
        try:
            token = self.site.arena.add_dial_in(base, person)
        except ArenaError as error:
            raise Refused(400, str(error)) from None
        lobby = self.site.arena.lobby_address or "the lobby's address (the organiser gives it)"
        return self.site.shown_once(
            request,
            self.site.viewer(request),
            f"The token of {base}",
            token,
            f"Your bot dials {lobby} with this token (the starter kits: --connect ADDRESS --token TOKEN).",
            "A new token replaces it; the old one is refused from then on.",
        )

    async def new_token(self, request: Request) -> Response:
        viewer = self.site.viewer(request)
        person = access.signed_in(viewer)
        label = text_of(await self.site.form(request, viewer), "label", limit=60) or "API token"
        token = people.new_api_token(self.site.store, person.id, label)
        return self.site.shown_once(
            request,
            viewer,
            f"API token {label!r}",
            token,
            "A script sends it as the header Authorization: Bearer TOKEN.",
            "Revoke it on your page when it is no longer needed.",
        )

    async def revoke_token(self, request: Request) -> Response:
        viewer = self.site.viewer(request)
        person = access.signed_in(viewer)
        await self.site.form(request, viewer)
        if not people.revoke_api_token(self.site.store, person.id, request.path_params["short"]):
            raise Refused(404, "you have no such API token")
        return redirect("/me?done=revoked")

    # -- uploads ------------------------------------------------------------------------------------

    async def upload(self, request: Request) -> Response:
        viewer = self.site.viewer(request)
        person = access.signed_in(viewer)
        await self.site.uploads.check_room(person, request.headers.get("content-length"))
        form = await self.site.form(request, viewer, files=1)
        archive = form.get("archive")
        if archive is None or isinstance(archive, str):
            raise Refused(400, "choose an archive to upload (the form's field 'archive')")
        await self.site.uploads.make_room(person, int(request.headers["content-length"]))  # its CSRF value read
        upload_id = await self.site.uploads.receive(archive, person)
        if viewer.by_token:
            return as_json({"upload": upload_id, "status": f"/api/me/uploads/{upload_id}"}, status=202)
        return redirect(f"/me/uploads/{upload_id}")

    def _upload(self, request: Request) -> uploads.Upload:
        viewer = self.site.viewer(request)
        person = access.signed_in(viewer)
        found = uploads.upload(self.site.store, request.path_params["upload_id"])
        if found is None or (found.person != person.id and not person.organiser):
            raise Refused(404, "you have no such upload")
        return found

    async def upload_page(self, request: Request) -> Response:
        found = self._upload(request)
        folder = self.site.arena.folder
        return self.site.page(
            request,
            "upload.html",
            self.site.viewer(request),
            title=f"Upload {found.id}",
            upload=found,
            build_log=found.build_log(folder),
            check_report=found.check_report(folder),
            when=when,
        )

    async def api_upload(self, request: Request) -> Response:
        found = self._upload(request)
        folder = self.site.arena.folder
        return as_json({**found.as_json(), "build_log": found.build_log(folder), "check": found.check_report(folder)})

    async def play_upload(self, request: Request) -> Response:
        viewer = self.site.viewer(request)
        person = access.signed_in(viewer)
        await self.site.form(request, viewer)  # before the lookup: a forged post learns nothing of uploads
        found = self._upload(request)
        if found.stage is not uploads.Stage.READY or found.base is None or found.spec is None:
            raise Refused(400, "only an upload that was built and checked can play")
        try:
            message = self.site.arena.play_version(found.base, found.spec, found.path(self.site.arena.folder), person)
        except ArenaError as error:
            raise Refused(400, str(error)) from None
        return redirect(f"/me?done={message[:200]}")

    # -- a seat's faults and output -----------------------------------------------------------------

    def _seat(self, request: Request) -> tuple[int, int, str, Store]:
        store = self.site.store
        match_id, seat = request.path_params["match_id"], request.path_params["seat"]
        seats = store.seats_of(match_id)
        viewer = self.site.viewer(request)
        access.signed_in(viewer)
        if seat >= len(seats) or store.status_of(match_id) == "planned":
            raise Refused(404, "you have no bot in that seat of an ended match")
        entry = store.entry(seats[seat])
        try:
            access.owner(viewer, store, entry.base)
        except Refused:
            raise Refused(404, "you have no bot in that seat of an ended match") from None
        return match_id, seat, entry.name, store

    def _seat_data(self, request: Request) -> dict:
        match_id, seat, name, store = self._seat(request)
        faults = [f for f in store.played(match_id).faults if f.seat == seat]
        span = store.match_log(match_id, seat)
        log, about = _read_span(self.site.arena.folder, span)
        return {"match_id": match_id, "seat": seat, "entry": name, "faults": faults, "log": log, "about": about}

    async def seat_log(self, request: Request) -> Response:
        data = self._seat_data(request)
        return self.site.page(request, "seat_log.html", self.site.viewer(request), title="Faults and log", **data)

    async def api_seat_log(self, request: Request) -> Response:
        data = self._seat_data(request)
        data["faults"] = [f.__dict__ for f in data["faults"]]
        return as_json(data)


def _recent_seats(store: Store, base: str) -> list[tuple[int, int]]:
    """(match, seat) of the bot's latest ended matches, newest first."""
    rows = store.db.execute(
        "SELECT s.match_id, s.seat FROM seats s JOIN bots b ON b.id = s.bot_id JOIN matches m ON m.id = s.match_id "
        "WHERE b.base = ? AND m.status != 'planned' ORDER BY s.match_id DESC LIMIT ?",
        (base, RECENT),
    )
    return [(row[0], row[1]) for row in rows]


def _read_span(folder: Path, span: tuple[str, int, int] | None) -> tuple[str | None, str]:
    """A seat's output in a match, and a line about it."""
    if span is None:
        return None, "No log of this seat: its bot was not launched by this server (a dial-in bot keeps its own)."
    path, start, end = span
    log = folder / path
    first = max(start, end - LOG_SHOWN)
    try:
        with log.open("rb") as file:
            file.seek(first)
            data = file.read(end - first)
    except FileNotFoundError:
        return None, "Its log has been rotated away (the newest logs of each bot are kept)."
    except OSError as error:
        return None, f"Its log cannot be read: {error.strerror}"
    about = (
        f"{end - start:,} bytes written while the match was played"
        + (f"; the last {LOG_SHOWN // 1024} KiB shown" if first > start else "")
        + ". A process may play several matches at once: lines of another may be among them."
    )
    return data.decode("utf-8", "replace"), about

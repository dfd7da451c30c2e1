"""What anyone may read: the standings, each bot's page, each ended match and its replay, the report.

Pages and their JSON twins under ``/api`` come from one snapshot
(:mod:`.views`). A match's replay is served only once the match has ended
(its stored status says so, never the presence of its record, which is
written while it plays): a match in flight has hidden cards. Replay pages
are the HTML replay's own, with a policy that runs them in a sandbox of their
own origin (``sandbox allow-scripts``): their script sees no cookie and
reaches nothing of this site.
"""

from __future__ import annotations

import asyncio
import dataclasses
import gzip
import weakref
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response, StreamingResponse
from starlette.routing import Route

from waraq.ladder.present import report_html, svg
from waraq.ladder.present.report import MatchLine
from waraq.ladder.storage.store import CANCELLED, DONE, RATED, UNRATED, Entry
from waraq.ladder.web.access import SESSION_COOKIE, Refused
from waraq.ladder.web.site import Site, as_json, when
from waraq.ladder.web.views import Snapshot
from waraq.referee.common.digits import ascii_digits
from waraq.referee.replay.html.write import render_page
from waraq.referee.replay.walk import load

ENDED = (RATED, UNRATED, DONE, CANCELLED)  # a match listed in the report has a result: it is over
REPLAY_POLICY = "sandbox allow-scripts; default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'"
REPORT_POLICY = "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:"
REPLAYS_KEPT = 64  # rendered replay pages kept in memory: a replay costs a walk of the whole record
PAGES_KEPT = 256  # anonymous pages kept, by path, query and snapshot
GZIP_FROM = 8 * 1024  # a page this big or bigger is kept gzipped too
GZIP_LEVEL = 6
EVENT_EVERY_S = 1.0
# Live readers at once: each holds a connection, and so a file descriptor, for as long as it likes. Past
# this a reader is refused (its page still loads and shows the standings): a visitor opening thousands
# would otherwise take the descriptors the bots' sockets and the database need.
STREAMS_AT_ONCE = 256


def signed(value: float | None) -> str:
    return "–" if value is None else f"{value:+.0f}"


def standing_json(row: Any, snapshot: Snapshot) -> dict[str, Any]:
    base = snapshot.base_of(row.bot) or row.bot
    return {**dataclasses.asdict(row), "base": base, "author": snapshot.owners.get(base)}


def match_json(match: MatchLine) -> dict[str, Any]:
    return {
        **dataclasses.asdict(match),
        "result": report_html.result_text(match),
        "replay": f"/matches/{match.id}/replay",
    }


Handler = Callable[[Request], Awaitable[Response]]


@dataclass(frozen=True)
class Kept:
    """A page as every anonymous visitor is shown it, for one snapshot; gzipped once, when that pays (a
    replay page of 100 KB is 25 KB gzipped: readers of replays cost the server a quarter of the bytes)."""

    body: bytes
    media_type: str | None
    policy: str | None
    gzipped: bytes | None

    @classmethod
    def of(cls, made: Response) -> Kept:
        body = bytes(made.body)
        gzipped = gzip.compress(body, GZIP_LEVEL) if len(body) >= GZIP_FROM else None
        return cls(body, made.media_type, made.headers.get("content-security-policy"), gzipped)

    def response(self, request: Request) -> Response:
        gzipped = self.gzipped is not None and "gzip" in request.headers.get("accept-encoding", "")
        headers = {"Vary": "Accept-Encoding"}
        if gzipped:
            headers["Content-Encoding"] = "gzip"
        if self.policy is not None:
            headers["Content-Security-Policy"] = self.policy
        body = self.gzipped if gzipped and self.gzipped is not None else self.body
        return Response(body, media_type=self.media_type, headers=headers)


class Public:
    def __init__(self, site: Site) -> None:
        self.site = site
        self.replays: OrderedDict[int, str] = OrderedDict()
        self.kept: OrderedDict[tuple[str, str, int], Kept] = OrderedDict()
        self.making: dict[tuple[str, str, int], asyncio.Future[Response]] = {}
        self.streams = 0  # live readers now

    def routes(self) -> list[Route]:
        pages: list[tuple[str, Handler]] = [
            ("/", self.standings),
            ("/bots/{base}", self.bot),
            ("/matches/{match_id:id}", self.match),
            ("/matches/{match_id:id}/replay", self.replay),
            ("/report", self.report),
            ("/api/standings", self.api_standings),
            ("/api/bots", self.api_bots),
            ("/api/bots/{base}", self.api_bot),
            ("/api/matches", self.api_matches),
            ("/api/matches/{match_id:id}", self.api_match),
        ]
        return [Route(path, self._kept(handler)) for path, handler in pages] + [Route("/api/events", self.events)]

    def _kept(self, handler: Handler) -> Handler:
        """``handler``, its page made once per snapshot for every anonymous visitor: fifty readers of the
        standings cost one rendering a second, not fifty. A signed-in visitor's pages are their own."""

        async def kept(request: Request) -> Response:
            if request.cookies.get(SESSION_COOKIE) or request.headers.get("authorization"):
                return await handler(request)
            snapshot = await self.site.views.current()
            key = (request.url.path, request.url.query, snapshot.version)
            found = self.kept.get(key)
            if found is None:
                # One rendering for every reader who asks for it meanwhile: fifty readers of a new snapshot
                # are one rendering, not fifty at once (each a walk of a replay, say).
                making = self.making.get(key)
                if making is None:
                    making = self.making[key] = asyncio.ensure_future(handler(request))
                    making.add_done_callback(lambda _: self.making.pop(key, None))
                made = await asyncio.shield(making)
                if made.status_code != 200:
                    return made
                found = self.kept.get(key) or Kept.of(made)
                self.kept[key] = found
                while len(self.kept) > PAGES_KEPT:
                    self.kept.popitem(last=False)
            return self.site.finish(request, found.response(request), self.site.viewer(request))

        return kept

    async def standings(self, request: Request) -> Response:
        snapshot = await self.site.views.current()
        everyone = request.query_params.get("all") == "1"
        rows = snapshot.standings(everyone=everyone)
        return self.site.page(
            request,
            "standings.html",
            self.site.viewer(request),
            title="Standings",
            rows=rows,
            bases={row.bot: snapshot.base_of(row.bot) or row.bot for row in rows},
            owners=snapshot.owners,
            everyone=everyone,
            version=snapshot.version,
            played=snapshot.report.played,
            description=snapshot.report.description,
            matches=list(reversed(snapshot.report.matches))[:20],
            signed=signed,
            result=report_html.result_text,
        )

    async def _bot(self, request: Request) -> tuple[Snapshot, str, list[Entry], set[str]]:
        """The bot the path names: the snapshot, its name, its versions and their entries' names."""
        snapshot = await self.site.views.current()
        base = request.path_params["base"]
        versions = snapshot.versions(base)
        if not versions:
            raise Refused(404, f"no bot {base!r} here")
        return snapshot, base, versions, {e.name for e in versions}

    async def bot(self, request: Request) -> Response:
        snapshot, base, versions, names = await self._bot(request)
        standing = next(
            (row for row in snapshot.report.standings if row.bot in names and row.status != "retired"), None
        )
        cells = [
            c
            for row in versions
            for other in snapshot.report.standings
            if (c := snapshot.report.cell(row.name, other.bot))
        ]
        return self.site.page(
            request,
            "bot.html",
            self.site.viewer(request),
            title=base,
            base=base,
            author=snapshot.owners.get(base),
            standing=standing,
            versions=versions,
            plot=_rating_plot(snapshot, names),
            cells=cells,
            matches=snapshot.matches_of(base),
            signed=signed,
            when=when,
            result=report_html.result_text,
        )

    async def match(self, request: Request) -> Response:
        snapshot = await self.site.views.current()
        found = self._ended(snapshot, request.path_params["match_id"])
        viewer = self.site.viewer(request)
        mine: list[tuple[int, str]] = []
        if viewer.person is not None:
            for seat, bot in enumerate(found.bots):
                base = snapshot.base_of(bot)
                if base is not None and (viewer.organiser or snapshot.owners.get(base) == viewer.person.name):
                    mine.append((seat, base))
        bases = {bot: snapshot.base_of(bot) for bot in found.bots}
        return self.site.page(
            request, "match.html", viewer, title=f"Match {found.id}", match=found, mine=mine, bases=bases,
            result=report_html.result_text,
        )  # fmt: skip

    async def replay(self, request: Request) -> Response:
        snapshot = await self.site.views.current()
        found = self._ended(snapshot, request.path_params["match_id"])
        page = self.replays.get(found.id)
        if page is None:
            record = self.site.arena.folder / found.record
            if not record.is_file():
                raise Refused(404, f"match {found.id}'s record is not on this server any more")
            page = await asyncio.to_thread(lambda: render_page(load(record)))
            self.replays[found.id] = page
            while len(self.replays) > REPLAYS_KEPT:
                self.replays.popitem(last=False)
        self.replays.move_to_end(found.id)
        response = HTMLResponse(page, headers={"Content-Security-Policy": REPLAY_POLICY})
        return self.site.finish(request, response)

    def _ended(self, snapshot: Snapshot, match_id: int) -> MatchLine:
        found = snapshot.match(match_id)
        if found is None or found.status not in ENDED:
            raise Refused(404, f"no ended match {match_id} here (a match in play is shown once it ends)")
        return found

    async def report(self, request: Request) -> Response:
        snapshot = await self.site.views.current()
        links = {m.id: f"/matches/{m.id}/replay" for m in snapshot.report.matches}
        page = report_html.render(snapshot.report, links)
        return self.site.finish(request, HTMLResponse(page, headers={"Content-Security-Policy": REPORT_POLICY}))

    # -- the API --------------------------------------------------------------------------------

    async def api_standings(self, request: Request) -> Response:
        snapshot = await self.site.views.current()
        rows = snapshot.standings(everyone=request.query_params.get("all") == "1")
        return as_json(
            {
                "version": snapshot.version,
                "description": snapshot.report.description,
                "played": snapshot.report.played,
                "standings": [standing_json(row, snapshot) for row in rows],
            }
        )

    async def api_bots(self, request: Request) -> Response:
        snapshot = await self.site.views.current()
        return as_json({"bots": [{"bot": base, "author": snapshot.owners.get(base)} for base in snapshot.bots()]})

    async def api_bot(self, request: Request) -> Response:
        snapshot, base, versions, names = await self._bot(request)
        return as_json(
            {
                "bot": base,
                "author": snapshot.owners.get(base),
                "versions": [_entry_json(e) for e in versions],
                "standings": [standing_json(r, snapshot) for r in snapshot.report.standings if r.bot in names],
                "ratings": {
                    h.bot: [dataclasses.asdict(p) for p in h.points]
                    for h in snapshot.report.histories
                    if h.bot in names
                },
                "head_to_head": [
                    dataclasses.asdict(c)
                    for name in sorted(names)
                    for other in snapshot.report.standings
                    if (c := snapshot.report.cell(name, other.bot))
                ],
                "matches": [match_json(m) for m in snapshot.matches_of(base)],
            }
        )

    async def api_matches(self, request: Request) -> Response:
        snapshot = await self.site.views.current()
        base = request.query_params.get("bot")
        limit = _limit(request.query_params.get("limit"))
        found = snapshot.matches_of(base, limit) if base else list(reversed(snapshot.report.matches))[:limit]
        return as_json({"matches": [match_json(m) for m in found]})

    async def api_match(self, request: Request) -> Response:
        snapshot = await self.site.views.current()
        return as_json(match_json(self._ended(snapshot, request.path_params["match_id"])))

    async def events(self, request: Request) -> Response:
        """Server-sent events: ``standings`` with the snapshot's version, each time it changes."""
        if self.streams >= STREAMS_AT_ONCE:
            raise Refused(503, f"{STREAMS_AT_ONCE} live readers already: the standings load without it")
        self.streams += 1
        released = False

        def release() -> None:
            nonlocal released
            if not released:
                released = True
                self.streams -= 1

        async def stream():
            shown = -1
            try:
                # Until the visitor leaves or the server stops (an open stream would hold its shutdown up).
                while not await request.is_disconnected() and not self.site.arena.state.stopping:
                    snapshot = await self.site.views.current()
                    if snapshot.version != shown:
                        shown = snapshot.version
                        yield f"event: standings\ndata: {shown}\n\n"
                    await asyncio.sleep(EVENT_EVERY_S)
            finally:
                release()

        body = stream()
        # A visitor gone before the first byte leaves the stream never started, so its finally never runs:
        # its place is given back when it is collected instead.
        weakref.finalize(body, release)
        headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
        return self.site.finish(request, StreamingResponse(body, media_type="text/event-stream", headers=headers))


def _entry_json(entry: Entry) -> dict[str, Any]:
    return {
        "entry": entry.name,
        "hello_name": entry.hello_name,
        "hello_version": entry.hello_version,
        "status": entry.status,
        "reason": entry.reason,
        "added": entry.added,
    }


def _limit(text: str | None) -> int:
    if text is None:
        return 50
    if not ascii_digits(text) or not 1 <= int(text) <= 1000:
        raise Refused(400, "limit is a whole number from 1 to 1000")
    return int(text)


def _rating_plot(snapshot: Snapshot, names: set[str]) -> str | None:
    series = [
        svg.Series(h.bot, [(p.rated, p.mu) for p in h.points])
        for h in snapshot.report.histories
        if h.bot in names and h.points
    ]
    return svg.line_plot(series, x_label="matches rated", y_label="TrueSkill μ") if series else None

"""A person at the table: exhibition matches against the ladder's bots, from the browser.

    GET  /play                          the bots one may play, and one's exhibitions so far
    POST /play                          start one (a form: opponent, partner): to its page
    /play/p/TOKEN ...                   the seat's page and its API (waraq.referee.human.app's routes)
    GET  /play/ID/replay                an exhibition of one's own that is over, as its HTML replay
    GET  /play/assets/NAME              the seat page's script and style

The seat's page is the one ``waraq match --bots human`` serves, mounted here:
its address holds the match's own token, and each of its routes also asks who
is signed in, so only the person who started the match can see or play it.
Matches are played by :class:`~waraq.ladder.play.exhibition.Exhibitions`:
recorded, replayable, never rated.
"""

from __future__ import annotations

from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Mount, Route

from waraq.ladder.play.exhibition import ExhibitionError
from waraq.ladder.web import access
from waraq.ladder.web.access import Refused
from waraq.ladder.web.site import Site, redirect, text_of, when
from waraq.referee.human import app as seat_page
from waraq.referee.human.desk import Person
from waraq.referee.replay.html.write import render_page
from waraq.referee.replay.walk import load

ASSETS = "/play/assets"


class Exhibitions:
    def __init__(self, site: Site) -> None:
        self.site = site
        self.played = site.arena.exhibitions

    def routes(self) -> list[Route | Mount]:
        seat = Starlette(
            routes=seat_page.routes(self._seat_person, ASSETS, _replay_page),
            exception_handlers={seat_page.Refused: seat_page.refused},
        )
        return [
            Route("/play", self.page, methods=["GET"]),
            Route("/play", self.start, methods=["POST"]),
            Route("/play/assets/{name}", seat_page.asset, methods=["GET"]),
            Route("/play/{ident:str}/replay", self.replay, methods=["GET"]),
            Mount("/play", app=seat),
        ]

    def _seat_person(self, request: Request) -> Person | None:
        """The seat's person, when the one signed in started its match (anyone else: nobody, a 404)."""
        person = self.played.desk.by_token(request.path_params["token"])
        if person is None:
            return None
        viewer = self.site.viewer(request)
        if viewer.person is None or not self.played.holds(viewer.person.id, person.key):
            return None
        return person

    async def page(self, request: Request) -> Response:
        viewer = self.site.viewer(request)
        person = access.signed_in(viewer)
        rules = self.site.arena.ladder.config.rules
        return self.site.page(
            request,
            "play.html",
            viewer,
            title="Play a bot yourself",
            bots=self.played.bots(),
            teams=rules.teams < rules.players,
            mine=self.played.of_person(person.id),
            when=when,
        )

    async def start(self, request: Request) -> Response:
        viewer = self.site.viewer(request)
        person = access.signed_in(viewer)
        form = await self.site.form(request, viewer)
        try:
            exhibition = self.played.start(person.id, person.name, text_of(form, "opponent"), text_of(form, "partner"))
        except ExhibitionError as error:
            raise Refused(409, str(error)) from None
        return redirect(f"/play/p/{exhibition.token}")

    async def replay(self, request: Request) -> Response:
        viewer = self.site.viewer(request)
        person = access.signed_in(viewer)
        found = self.played.by_id(request.path_params["ident"])
        if found is None or found["person"] != person.id or not found["ended"]:
            raise Refused(404, "no exhibition of yours by that id is over")
        page = _replay_page(found["record"])
        return HTMLResponse(page, headers={"Content-Security-Policy": seat_page.REPLAY_POLICY})


def _replay_page(record: Path) -> str:
    return render_page(load(record))

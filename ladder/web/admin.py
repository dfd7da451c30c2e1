"""The organiser's door: people and invites, suspend or reinstate a bot, pause the ladder, export.

Every route here asks :func:`~.access.organiser` first; every form is
checked for its CSRF value. An invite link is shown once: only its digest
is kept.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from waraq.ladder.present import table
from waraq.ladder.web import access, people
from waraq.ladder.web.access import Refused
from waraq.ladder.web.arena import ArenaError
from waraq.ladder.web.people import Role
from waraq.ladder.web.site import Site, as_json, redirect, text_of, when

EXPORT_TABLES = ("standings", "pairs", "matches")


class Admin:
    def __init__(self, site: Site) -> None:
        self.site = site

    def routes(self) -> list[Route]:
        return [
            Route("/admin", self.page, methods=["GET"]),
            Route("/admin/invites", self.invite, methods=["POST"]),
            Route("/admin/pause", self.pause, methods=["POST"]),
            Route("/admin/resume", self.resume, methods=["POST"]),
            Route("/admin/bots/{base}/suspend", self.suspend, methods=["POST"]),
            Route("/admin/bots/{base}/reinstate", self.reinstate, methods=["POST"]),
            Route("/admin/people/{person_id:id}/disable", self.disable, methods=["POST"]),
            Route("/admin/people/{person_id:id}/enable", self.enable, methods=["POST"]),
            Route("/api/admin", self.api_admin, methods=["GET"]),
            Route("/admin/export.json", self.export_json, methods=["GET"]),
            Route("/admin/export.csv", self.export_csv, methods=["GET"]),
        ]

    def _bots(self) -> list[dict[str, Any]]:
        store = self.site.store
        owners = people.owners(store)
        bots = []
        for bot in self.site.arena.ladder.config.bots:
            entry = store.current_entry(bot.name)
            bots.append(
                {
                    "base": bot.name,
                    "author": owners.get(bot.name),
                    "entry": entry.name if entry else "",
                    "status": entry.status if entry else "not started",
                    "reason": entry.reason if entry else "",
                }
            )
        return bots

    async def api_admin(self, request: Request) -> Response:
        """The organiser's page as JSON: the ladder's state, its bots, people and invites (never a token)."""
        access.organiser(self.site.viewer(request))
        store, state = self.site.store, self.site.arena.state
        counts = store.count_by_status()
        return as_json(
            {
                "paused": state.paused,
                "played": counts["rated"] + counts["unrated"],
                "in_flight": state.in_flight,
                "lobby": self.site.arena.lobby_address,
                "bots": self._bots(),
                "people": [
                    {"id": p.id, "name": p.name, "role": p.role.value, "disabled": p.disabled, "made": p.made,
                     "bots": people.bots_of(store, p.id)}
                    for p in people.everyone(store)
                ],
                "invites": [
                    {"role": i.role.value, "made": i.made, "expires": i.expires, "by": by, "used_by": used}
                    for i, by, used in people.invites(store)
                ],
            }
        )  # fmt: skip

    async def page(self, request: Request, done: str = "") -> Response:
        site = self.site
        viewer = site.viewer(request)
        access.organiser(viewer)
        store = site.store
        bots = self._bots()
        counts = store.count_by_status()
        return site.page(
            request,
            "admin.html",
            viewer,
            title="Organiser",
            done=done or request.query_params.get("done", "")[:300],
            bots=bots,
            everyone=[(p, people.bots_of(store, p.id)) for p in people.everyone(store)],
            invites=people.invites(store),
            played=counts["rated"] + counts["unrated"],
            in_flight=site.arena.state.in_flight,
            lobby=site.arena.lobby_address,
            when=when,
        )

    async def _organiser_form(self, request: Request):
        viewer = self.site.viewer(request)
        person = access.organiser(viewer)
        return person, await self.site.form(request, viewer)

    async def invite(self, request: Request) -> Response:
        person, form = await self._organiser_form(request)
        role = text_of(form, "role")
        if role not in (Role.AUTHOR, Role.ORGANISER):
            raise Refused(400, "role is author or organiser")
        token = people.invite(self.site.store, Role(role), person.id)
        link = f"{self.site.public_url}/join?invite={token}"
        return self.site.shown_once(
            request,
            self.site.viewer(request),
            f"An invite link for an {role}",
            link,
            "Send this link to the person you invite; it serves once, within 7 days.",
            "Whoever has the link can join: send it privately.",
        )

    async def pause(self, request: Request) -> Response:
        await self._organiser_form(request)
        self.site.arena.pause(True)
        return redirect("/admin")

    async def resume(self, request: Request) -> Response:
        await self._organiser_form(request)
        self.site.arena.pause(False)
        return redirect("/admin")

    async def suspend(self, request: Request) -> Response:
        person, _ = await self._organiser_form(request)
        try:
            self.site.arena.suspend(request.path_params["base"], person)
        except ArenaError as error:
            raise Refused(400, str(error)) from None
        return redirect("/admin")

    async def reinstate(self, request: Request) -> Response:
        await self._organiser_form(request)
        try:
            self.site.arena.reinstate(request.path_params["base"])
        except ArenaError as error:
            raise Refused(400, str(error)) from None
        return redirect("/admin")

    async def disable(self, request: Request) -> Response:
        return await self._set_disabled(request, True)

    async def enable(self, request: Request) -> Response:
        return await self._set_disabled(request, False)

    async def _set_disabled(self, request: Request, disabled: bool) -> Response:
        person, _ = await self._organiser_form(request)
        target = request.path_params["person_id"]
        if target == person.id:
            raise Refused(400, "an organiser cannot disable themselves")
        if people.person(self.site.store, target) is None:
            raise Refused(404, "no such person")
        people.set_disabled(self.site.store, target, disabled)
        return redirect("/admin")

    async def export_json(self, request: Request) -> Response:
        access.organiser(self.site.viewer(request))
        arena = self.site.arena
        data = table.export_data(arena.ladder.store, arena.ladder.config)
        body = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
        return Response(body, media_type="application/json", headers=_attachment("ladder.json"))

    async def export_csv(self, request: Request) -> Response:
        access.organiser(self.site.viewer(request))
        which = request.query_params.get("table", "standings")
        if which not in EXPORT_TABLES:
            raise Refused(400, f"table is one of {', '.join(EXPORT_TABLES)}")
        arena = self.site.arena
        data = table.export_data(arena.ladder.store, arena.ladder.config)
        return Response(table.to_csv(data[which]), media_type="text/csv", headers=_attachment(f"{which}.csv"))


def _attachment(name: str) -> dict[str, str]:
    return {"Content-Disposition": f'attachment; filename="{name}"'}

"""The arena a ``waraq serve`` runs: the ladder, played without end, and what the web may do to it.

One process holds the ladder's lock (one writer, as ``ladder run``) and runs,
on one asyncio loop, the ladder's scheduler, the dial-in lobby and the web
server. The web changes the ladder only through this object, and this object
only through the ladder's own operations (:mod:`waraq.ladder.play.folder`,
:mod:`waraq.ladder.play.ledger`), then tells the scheduler
(:meth:`Scheduler.changed`), which takes the change up between matches: a bot
added is started, a suspended one is taken out of play, a version chosen is
started anew and rated as its entry.

The run is a service run (``RunState.service``): when there is nothing to play
(the stopping rule is met, too few bots, every bot at its hourly bound,
paused) it waits for a change instead of ending. Every change is a
transaction of the ladder's database, so ``kill -9`` loses nothing and the next
start goes on.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from waraq.ladder.play import folder, ledger
from waraq.ladder.play.exhibition import Exhibitions
from waraq.ladder.play.folder import Ladder
from waraq.ladder.play.scheduler import RunState, Scheduler
from waraq.ladder.storage.config import ConfigError
from waraq.ladder.storage.store import ACTIVE, SUSPENDED
from waraq.ladder.web import people
from waraq.ladder.web.people import Person
from waraq.referee.launch.bots import SpecKind
from waraq.referee.lobby.options import LobbyConfig

PAUSED = "serve_paused"  # a meta key: the organiser's pause outlives a restart


@dataclass(frozen=True)
class ServeSettings:
    """What ``waraq serve``'s options set for the run."""

    concurrency: int | None = None  # matches at once (None: ladder.toml's)
    keep_playing: bool = False  # play on once the stopping rule is met (else wait for the roster to change)
    matches: int | None = None  # plan no match past this many in all (a bench's fixed length)
    per_hour: int | None = 120  # matches planned for one bot in any hour, at most (and one batch)
    bots_per_author: int = 3
    upload_bytes: int = 2 << 30  # what an author's uploads may keep, besides the versions playing (--upload-mb)
    cluster: str | None = None  # --ray
    lobby: LobbyConfig | None = None


class ArenaError(ValueError):
    """A refusal to show whoever asked, in one line."""


class Arena:
    def __init__(
        self, ladder: Ladder, settings: ServeSettings, on_lobby: Callable[[str], None] = lambda address: None
    ) -> None:
        self.ladder = ladder
        self.settings = settings
        people.prepare(ladder.store)
        self.state = RunState(
            _target(ladder, settings),
            settings.concurrency or ladder.config.run.concurrency,
            cluster=settings.cluster,
            lobby=settings.lobby,
            service=True,
            per_hour=settings.per_hour,
            paused=ladder.store.meta(PAUSED) is not None,
        )
        self.scheduler = self._scheduler()
        self.exhibitions = Exhibitions(ladder)  # a person against the ladder's bots: played here, never rated
        self.lobby_address: str | None = None
        self.on_lobby = on_lobby
        self.state.on_lobby = self._lobby_opened

    def _scheduler(self) -> Scheduler:
        ladder = self.ladder
        if self.settings.cluster is None:
            return Scheduler(ladder.folder, ladder.config, ladder.store, self.state)
        from waraq.ladder.play import ray_cluster  # only with --ray: the one module that imports Ray

        return ray_cluster.RayScheduler(ladder.folder, ladder.config, ladder.store, self.state)

    def _lobby_opened(self, address: str) -> None:
        self.lobby_address = address
        self.on_lobby(address)

    @property
    def folder(self) -> Path:
        return self.ladder.folder

    async def play(self) -> RunState:
        """Run the ladder until it is stopped (a signal, or :meth:`stop`)."""
        return await self.scheduler.run()

    def stop(self) -> None:
        """As a first Ctrl-C: no new match starts, those in flight finish, then :meth:`play` returns."""
        self.scheduler.interrupt()

    # -- the organiser ------------------------------------------------------------------------

    def pause(self, paused: bool) -> None:
        with self.ladder.store.transaction():
            self.ladder.store.set_meta(PAUSED, "1" if paused else None)
        self.state.paused = paused
        self.scheduler.changed()

    def suspend(self, base: str, by: Person) -> str:
        entry = self.ladder.store.current_entry(base)
        if entry is None or entry.status != ACTIVE:
            raise ArenaError(f"{base} is not an active bot of this ladder")
        ledger.suspend(self.ladder.store, entry, f"suspended by the organiser ({by.name})", at=None)
        self.scheduler.changed()
        return f"{entry.name} is suspended: it is not scheduled until it is reinstated"

    def reinstate(self, base: str) -> str:
        entry = self.ladder.store.current_entry(base)
        if entry is None or entry.status != SUSPENDED:
            raise ArenaError(f"{base} is not a suspended bot of this ladder")
        message = folder.reinstate(self.ladder, entry.name)
        self.scheduler.changed()
        return message

    # -- an author's bots ---------------------------------------------------------------------

    def check_name(self, base: str, author: Person) -> None:
        """Refuse a bot name that another author's bot has, or a new bot past the author's bound."""
        store = self.ladder.store
        owner = people.owner_of(store, base)
        if owner is not None and owner != author.id:
            raise ArenaError(f"the name {base!r} belongs to another author's bot: choose another name")
        if owner is None and self.ladder.config.bot(base) is not None:
            raise ArenaError(f"the name {base!r} is the organiser's bot's: choose another name")
        if owner is None and len(people.bots_of(store, author.id)) >= self.settings.bots_per_author:
            raise ArenaError(
                f"an author has at most {self.settings.bots_per_author} bots here: "
                "upload a new version of one of yours instead"
            )

    def may_remove(self, folder: Path) -> bool:
        """Whether a bot version's ``folder`` may be removed: no bot plays from it or is launched there now.
        On a Ray cluster never: its workers keep launched bots warm out of this process's sight."""
        if self.settings.cluster is not None:
            return False
        here = str(folder)
        if any(bot.cwd == here for bot in self.ladder.config.bots):
            return False
        return here not in self.scheduler.folders_in_use() | self.exhibitions.folders_in_use()

    def add_dial_in(self, base: str, author: Person) -> str:
        """A dial-in bot of ``author``'s (or a new token for one): its token, shown once."""
        if self.settings.cluster is not None:
            raise ArenaError("this arena plays its matches on a Ray cluster: dial-in bots play on one machine only")
        self.check_name(base, author)
        current = self.ladder.config.bot(base)
        if current is not None and current.bot_spec.kind is not SpecKind.DIAL_IN:
            raise ArenaError(f"{base} is an uploaded bot: a dial-in bot needs a name of its own")
        try:
            with self.ladder.store.transaction():
                people.set_owner(self.ladder.store, base, author.id)
                if current is None:
                    _, token = folder.add_dial_in(self.ladder, base)
                else:
                    token = folder.rotate_token(self.ladder, base)
        except ConfigError as error:
            raise ArenaError(str(error)) from None
        assert token is not None
        self.scheduler.changed(self.ladder.config)
        return token

    def play_version(self, base: str, spec: str, cwd: Path, author: Person) -> str:
        """Make the version in ``cwd`` the one ``base`` plays (a new bot if the name is new)."""
        self.check_name(base, author)
        try:
            with self.ladder.store.transaction():
                people.set_owner(self.ladder.store, base, author.id)
                added = folder.add(self.ladder, base, spec, check=False, cwd=str(cwd))
        except ConfigError as error:
            raise ArenaError(str(error)) from None
        self.scheduler.changed(self.ladder.config)
        return added.message


def _target(ladder: Ladder, settings: ServeSettings) -> ledger.Target:
    run = ladder.config.run
    if settings.matches is not None:
        return ledger.Target(settings.matches)
    if settings.keep_playing:
        return ledger.Target(1 << 62)
    return ledger.Target(run.max_matches, True, run.confidence, run.margin)

"""A ladder folder as a whole: make one, open one, add and remove bots.

These are the library calls behind ``waraq ladder init|add|remove``; they
keep ladder.toml and the database in step. The rules a ladder was played
under are pinned in the database by their hash at the first match, so a
changed ``[rules]`` table is refused instead of mixing two games in one table.
"""

from __future__ import annotations

import asyncio
import fcntl
import os
import random
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from waraq.ladder.play import bots as launch
from waraq.ladder.storage import config as cfg
from waraq.ladder.storage import key_file
from waraq.ladder.storage.config import Bot, ConfigError, LadderConfig, Matchmaking
from waraq.ladder.storage.store import ACTIVE, REMOVED, RETIRED, SUSPENDED, Entry, Store
from waraq.referee.launch.bots import SpecKind
from waraq.referee.lobby import tokens

LOCK = "ladder.lock"


@dataclass
class Ladder:
    folder: Path
    config: LadderConfig
    store: Store
    _lock: IO[str] | None = None

    def close(self) -> None:
        self.store.close()
        if self._lock is not None:
            self._lock.close()  # closing the file releases the lock (so does any death of the process)
            self._lock = None

    def __enter__(self) -> Ladder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def init(
    folder: str | Path,
    rules: Any,
    *,
    seed: int | None = None,
    duplicate: bool = True,
    partners: str = "mixed",
    deal_key: str | None = None,
) -> Path:
    """Make a ladder folder: ladder.toml, an empty ladder.sqlite, records/, ladder.key.

    ``rules`` are any game's (HokmRules, HandRules): the ladder plays their game.
    ``deal_key`` is the secret its decks are drawn under (:mod:`waraq.ladder.storage.key_file`):
    a fresh one unless given (two ladders of one seed and key play the same matches).
    """
    folder = Path(folder)
    if (folder / cfg.CONFIG).exists() or (folder / cfg.DATABASE).exists():
        raise ConfigError(f"{folder} holds a ladder already")
    if folder.exists() and not folder.is_dir():
        raise ConfigError(f"{folder} exists and is not a folder")
    config = LadderConfig(
        seed=random.SystemRandom().randrange(1, 1 << 31) if seed is None else seed,
        rules=rules,
        matchmaking=Matchmaking(duplicate=duplicate, partners=partners),
    )
    cfg.parse(cfg.tomllib.loads(cfg.dumps(config)))  # a bad combination fails before anything is made
    folder.mkdir(parents=True, exist_ok=True)
    (folder / cfg.RECORDS).mkdir(exist_ok=True)
    store = Store.create(folder / cfg.DATABASE)
    try:
        key_file.create(folder, deal_key)
        key_file.made_at(store)  # every match of this ladder is dealt under its key
    finally:
        store.close()
    cfg.save(folder, config)
    return folder


def open_ladder(folder: str | Path, *, readonly: bool = False) -> Ladder:
    """Open a ladder to read (any number at once, also while a run goes on) or to change (one at a time)."""
    folder = Path(folder)
    config = cfg.load(folder)
    if not (folder / cfg.DATABASE).exists():
        raise ConfigError(f"{folder / cfg.DATABASE} is missing: {folder} is not a whole ladder")
    lock = None if readonly else _lock(folder)
    store = Store.open(folder / cfg.DATABASE, readonly=readonly)
    ladder = Ladder(folder, config, store, lock)
    if not readonly:
        check_rules(ladder)
    return ladder


def _lock(folder: Path) -> IO[str]:
    """An exclusive lock on the ladder, held while the process lives: one writer at a time."""
    file = (folder / LOCK).open("a+")
    try:
        fcntl.flock(file, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        file.seek(0)
        holder = file.read().strip() or "another process"
        file.close()
        raise ConfigError(
            f"{folder} is in use by {holder}: a ladder has one writer at a time "
            "(`waraq ladder show` works meanwhile; stop the run to change the ladder)"
        ) from None
    file.seek(0)
    file.truncate()
    holder = f"pid {os.getpid()} ({' '.join(sys.argv[:1] + sys.argv[1:4])})\n"
    try:  # who holds it, for the next one's message; unbuffered, so a failed write leaves nothing to flush
        os.write(file.fileno(), holder.encode())
    except OSError:  # a full disk: the ladder is still locked (the flock), and a run says what it cannot write
        pass
    return file


def check_rules(ladder: Ladder) -> None:
    """Pin the rules' hash on first use; refuse rules changed since."""
    store, rules = ladder.store, ladder.config.rules
    pinned = store.meta("rules_hash")
    if pinned is None:
        with store.transaction():
            store.set_meta("rules_hash", rules.rules_hash)
            store.set_meta("rules", rules.canonical_json())
        return
    if pinned != rules.rules_hash:
        played = sum(store.count_by_status().values())
        if played == 0:
            with store.transaction():
                store.set_meta("rules_hash", rules.rules_hash)
                store.set_meta("rules", rules.canonical_json())
            return
        raise ConfigError(
            f"{ladder.folder / cfg.CONFIG}: [rules] changed since this ladder's {played} matches were planned "
            f"(they were played under {store.meta('rules')}); a ladder rates one game: make a new ladder "
            "with `waraq ladder init`, or put the rules back"
        )


@dataclass
class Added:
    entry: Entry
    identity: launch.Identity | None
    message: str


def add(
    ladder: Ladder, name: str, spec: str, *, check: bool = True, same_entry: bool = False, cwd: str | None = None
) -> Added:
    """Add a bot, or a new version of one: started once to read its identity, unless ``check`` is off.

    A new version (another Hello version or other file contents) is a new entry, rated
    from the start, and the old entry is retired; with ``same_entry`` it keeps the entry.
    ``cwd``: the folder its command runs in (default: here, for a command with {port}).
    """
    name, spec = cfg.check_bot(str(ladder.folder / cfg.CONFIG), name, spec)
    if cwd is None:
        cwd = os.getcwd() if "{port}" in spec else ""
    bot = Bot(name, spec, cwd, "same_entry" if same_entry else "new_entry")
    found = asyncio.run(_identify(ladder, bot)) if check else None
    store = ladder.store
    current = store.current_entry(name)
    with store.transaction():
        back = _removed_same(store, name, found)
        if current is None and back is not None:  # removed once, and back in the same version
            entry_id = back.id
            store.set_status(entry_id, ACTIVE, None, None)
            store.set_identity(entry_id, spec, found.as_tuple() if found else _identity(back))
            store.log(entry_id, "added again")
            message = f"{name} is back: {back.name}, the same version, keeps its rating"
        elif current is None:
            entry_id = store.add_entry(
                name, store.free_name(name), spec, found.as_tuple() if found else (None, None, None)
            )
            message = f"added {name}" + (
                f": {found}" if found else " (not started: its identity is read at its first run)"
            )
        elif found is None or _identity(current) in ((None, None, None), found.as_tuple()) or same_entry:
            entry_id = current.id
            store.set_identity(entry_id, spec, found.as_tuple() if found else _identity(current))
            same = found is not None and _identity(current) == found.as_tuple()
            message = f"{name} is in the ladder already" + (f", the same version ({found})" if same else "")
            if found is not None and not same and _identity(current) != (None, None, None):
                store.log(entry_id, f"new version {found}, kept in the same entry")
                message = f"{name}: new version ({found}), kept in the same entry as asked"
        else:
            new_name = store.free_name(name)
            store.set_status(current.id, RETIRED, f"replaced by {new_name} (a new version)")
            store.cancel_planned(current.id, f"{current.name} retired")
            entry_id = store.add_entry(name, new_name, spec, found.as_tuple())
            store.log(entry_id, f"new version of {name}: {found} (was {current.name})")
            message = f"{name} is a new version ({found}): rated as a new entry, {new_name}; {current.name} is retired"
        if current is not None and current.status == SUSPENDED and entry_id == current.id:
            store.set_status(entry_id, ACTIVE, None, None)
            store.log(entry_id, "added again: no longer suspended")
            message += "; no longer suspended"
    ladder.config = ladder.config.with_bot(bot)
    cfg.save(ladder.folder, ladder.config)
    return Added(store.entry(entry_id), found, message)


def add_dial_in(ladder: Ladder, name: str, *, same_entry: bool = False) -> tuple[Added, str | None]:
    """Add a bot that dials in (waraq.referee.lobby), with a fresh token; the token, shown once (None for
    a dial-in bot the ladder has already: ``waraq ladder token NAME --rotate`` gives it a new one)."""
    current = ladder.config.bot(name)
    added = add(ladder, name, SpecKind.DIAL_IN.value, check=False, same_entry=same_entry)
    if current is not None and current.bot_spec.kind is SpecKind.DIAL_IN and _has_token(ladder, name):
        return added, None
    return added, rotate_token(ladder, name)


def rotate_token(ladder: Ladder, name: str) -> str:
    """A new token for the dial-in bot ``name``; the old one is refused from now on. Only its digest is kept."""
    bot = ladder.config.bot(name)
    if bot is None or bot.bot_spec.kind is not SpecKind.DIAL_IN:
        dial_ins = ", ".join(b.name for b in ladder.config.bots if b.bot_spec.kind is SpecKind.DIAL_IN) or "none"
        raise ConfigError(f"no dial-in bot {name!r} in {ladder.folder / cfg.CONFIG} (dial-in bots: {dial_ins})")
    token = tokens.new_token()
    with ladder.store.transaction():
        ladder.store.set_token(name, tokens.digest(token))
        entry = ladder.store.current_entry(name)
        ladder.store.log(entry.id if entry else None, f"{name}: new dial-in token")
    return token


def _has_token(ladder: Ladder, name: str) -> bool:
    return any(base == name for base in ladder.store.token_holders())


def remove(ladder: Ladder, name: str) -> str:
    """Take a bot out: it plays no more; its matches and ratings stay in the database."""
    if ladder.config.bot(name) is None:
        known = ", ".join(b.name for b in ladder.config.bots) or "none"
        raise ConfigError(f"no bot {name!r} in {ladder.folder / cfg.CONFIG} (bots: {known})")
    store = ladder.store
    with store.transaction():
        store.drop_token(name)  # a dial-in bot's: a bot removed is refused at the lobby
        for entry in store.entries([ACTIVE, SUSPENDED]):
            if entry.base == name:
                store.set_status(entry.id, REMOVED, "removed with `waraq ladder remove`")
                store.cancel_planned(entry.id, f"{entry.name} removed")
                store.log(entry.id, "removed")
    ladder.config = ladder.config.without_bot(name)
    cfg.save(ladder.folder, ladder.config)
    return f"removed {name}: it plays no more matches; its results stay (`waraq ladder show --all`)"


def reinstate(ladder: Ladder, name: str) -> str:
    """Lift a suspension (after fixing the bot)."""
    entry = ladder.store.current_entry(name) or ladder.store.entry_named(name)
    if entry is None or entry.status != SUSPENDED:
        raise ConfigError(f"{name!r} is not a suspended bot of this ladder")
    with ladder.store.transaction():
        ladder.store.set_status(entry.id, ACTIVE, None, None)
        ladder.store.log(entry.id, "reinstated")
    return f"{entry.name} is no longer suspended"


async def _identify(ladder: Ladder, bot: Bot) -> launch.Identity:
    endpoint = await launch.start(
        bot,
        startup_ms=ladder.config.time_control.startup_ms,
        attempts=1,
        log_dir=ladder.folder / "logs",
        confinement=ladder.config.sandbox.confinement((ladder.folder,)),
    )
    try:
        if endpoint.failure is not None:
            raise ConfigError(
                f"bot {bot.name} ({bot.spec}) did not start, so it was not added: {endpoint.failure.detail}"
                " (add it with --no-check to add it anyway)"
            )
        return launch.identity(bot, endpoint)
    finally:
        await endpoint.stop()


def _removed_same(store: Store, name: str, found: launch.Identity | None) -> Entry | None:
    """The latest entry of ``name`` taken out with `remove`, if it is the version just found."""
    removed = [e for e in store.entries([REMOVED]) if e.base == name]
    if not removed or found is None or _identity(removed[-1]) != found.as_tuple():
        return None
    return removed[-1]


def _identity(entry: Entry) -> tuple[str | None, str | None, str | None]:
    return (entry.hello_name, entry.hello_version, entry.files_hash)

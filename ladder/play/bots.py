"""A ladder's bots as processes: launched where they were added, identified, and never left behind.

A bot's version identity is what its ``Hello`` says (name and version) and,
where it can be computed, a sha256 of its code (:mod:`waraq.ladder.play.bot_code`: a
built-in bot's modules; a command's script, ``python -m`` module or
executable, read from the folder the bot was added from; never the files its
arguments merely name, such as a log). An address has only its ``Hello``.

Every process a run launches is remembered in the database with its command
line; a run that was killed with SIGKILL cannot stop its bots, so the next run
ends them first (only when ``/proc`` still shows the same command line under
that pid, so a reused pid is never hit).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import signal
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from waraq.ladder.play import bot_code
from waraq.ladder.storage.config import Bot
from waraq.ladder.storage.store import Store
from waraq.referee.launch import sandbox
from waraq.referee.launch.bots import Endpoint

# The confinement a bot gets unless told otherwise; one instance serves every call, as it is frozen.


@dataclass(frozen=True)
class Identity:
    hello_name: str | None
    hello_version: str | None
    files_hash: str | None

    def as_tuple(self) -> tuple[str | None, str | None, str | None]:
        return (self.hello_name, self.hello_version, self.files_hash)

    def __str__(self) -> str:
        files = f", files {self.files_hash[7:19]}" if self.files_hash else ""
        return f"{self.hello_name or '?'} {self.hello_version or '?'}{files}"


def files_hash(bot: Bot) -> str | None:
    """A sha256 of the bot's code (:mod:`waraq.ladder.play.bot_code`), or None when none is found."""
    files = bot_code.code_files(bot.bot_spec, bot.cwd)
    if not files:
        return None
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.name.encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return "sha256:" + digest.hexdigest()


async def start(
    bot: Bot,
    *,
    startup_ms: float,
    attempts: int,
    log_dir: Path | None,
    confinement: sandbox.Config = sandbox.DEFAULT,
    store: Store | None = None,
) -> Endpoint:
    """An endpoint made ready in up to ``attempts`` tries; on failure its ``failure`` says why.

    A command runs in the folder it was added from."""
    for attempt in range(attempts):
        if attempt:
            await asyncio.sleep(0.5 * attempt)
        endpoint = Endpoint(
            bot.bot_spec, startup_ms=startup_ms, log_dir=log_dir, cwd=bot.cwd or None, confinement=confinement
        )
        await endpoint.start()
        if store is not None and endpoint.pid is not None and endpoint.failure is None:
            try:
                store.remember_process(endpoint.pid, _cmdline(endpoint.pid) or "")
            except BaseException:  # a full disk: a bot no one remembers must not outlive the run
                await endpoint.stop()
                raise
        if endpoint.failure is None:
            return endpoint
    return endpoint


async def stop(endpoint: Endpoint, store: Store | None = None) -> None:
    """Stop the bot, then forget its process; a database that cannot be written (a full disk)
    keeps its row, which the next run's :func:`reap` drops once it finds the process gone."""
    pid = endpoint.pid
    await endpoint.stop()
    if store is not None and pid is not None:
        with contextlib.suppress(sqlite3.Error):
            store.forget_process(pid)


def identity(bot: Bot, endpoint: Endpoint) -> Identity:
    # The Hello's own name: a nameless bot's label (Endpoint.name) is no part of what it says.
    said = endpoint.hello.name if endpoint.hello is not None else ""
    return Identity(said or None, endpoint.version or None, files_hash(bot))


def alive(endpoint: Endpoint) -> bool:
    """False once a launched bot's process has exited."""
    process = endpoint.process
    return process is None or process.returncode is None


def reap(store: Store) -> list[int]:
    """End the bot processes a killed run left behind; their pids."""
    ended = []
    for pid, cmdline in store.processes():
        if cmdline and _cmdline(pid) == cmdline:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)
                ended.append(pid)
        store.forget_process(pid)
    return ended


def _cmdline(pid: int) -> str | None:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return None

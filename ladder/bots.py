"""A ladder's bots as processes: launched where they were added, identified, and never left behind.

A bot's version identity is what its ``Hello`` says (name and version) and,
where it can be computed, a sha256 of the files its command names: a
built-in bot's modules; a command's arguments that are files (read from the
folder the bot was added from), and the module of ``python -m``. An address
has only its ``Hello``.

Every process a run launches is remembered in the database with its command
line; a run that was killed with SIGKILL cannot stop its bots, so the next run
ends them first (only when ``/proc`` still shows the same command line under
that pid, so a reused pid is never hit).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import importlib.machinery
import importlib.util
import os
import shlex
import signal
from dataclasses import dataclass
from pathlib import Path

from referee import sandbox
from referee.bots import Endpoint

from ladder.config import Bot
from ladder.store import Store

BUILTIN_MODULES = {
    "random": ("server", "random_player", "hand_random", "hand_turn"),
    "heuristic": ("server", "heuristic", "hand_heuristic", "hand_turn"),
}


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


def named_files(bot: Bot) -> list[Path]:
    """The files a bot's spec names, as far as they can be found."""
    spec = bot.bot_spec
    if spec.kind == "builtin":
        import sample_bots

        folder = Path(sample_bots.__file__).parent
        return [folder / f"{module}.py" for module in BUILTIN_MODULES.get(spec.value, ("server",))]
    if spec.kind != "command":
        return []
    base = Path(bot.cwd or ".")
    argv = shlex.split(spec.value)
    found: list[Path] = []
    for index, token in enumerate(argv):
        if "{port}" in token:
            continue
        value = token.split("=", 1)[1] if token.startswith("-") and "=" in token else token
        path = base / value
        if value and path.is_file():
            found.append(path)
        elif index and argv[index - 1] == "-m" and Path(argv[0]).name.startswith("python"):
            found += _module_file(value, base)
    return sorted({p.resolve() for p in found})


def _module_file(module: str, base: Path) -> list[Path]:
    """Where ``python -m module`` would find the module, without importing anything
    (the folder it runs in first, then this interpreter's packages)."""
    parts = module.split(".")
    roots = [base]
    top = importlib.machinery.PathFinder.find_spec(parts[0]) or _quiet_find_spec(parts[0])
    if top is not None and top.submodule_search_locations:
        roots += [Path(p).parent for p in top.submodule_search_locations]
    elif top is not None and top.origin:
        roots.append(Path(top.origin).parent)
    for root in roots:
        stem = root.joinpath(*parts)
        for path in (stem.with_suffix(".py"), stem / "__main__.py"):
            if path.is_file():
                return [path]
    return []


def _quiet_find_spec(name: str) -> importlib.machinery.ModuleSpec | None:
    try:  # a top-level name: found by the import hooks (editable installs too), nothing imported
        return importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None


def files_hash(bot: Bot) -> str | None:
    files = named_files(bot)
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
    confinement: sandbox.Config = sandbox.Config(),
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
            store.remember_process(endpoint.pid, _cmdline(endpoint.pid) or "")
        if endpoint.failure is None:
            return endpoint
    return endpoint


async def stop(endpoint: Endpoint, store: Store | None = None) -> None:
    pid = endpoint.pid
    await endpoint.stop()
    if store is not None and pid is not None:
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

"""Confinement for launched bots: what a bot process may see, touch and use.

A launched bot is a stranger's program. Under :func:`confine` it runs inside
bubblewrap (``bwrap``, Debian's ``bubblewrap``) with:

* **its own PID, network, IPC and UTS namespaces**: it cannot see or signal
  the referee, other bots or their children, and it has no network at all.
  The referee reaches it through one Unix socket in a folder of its own,
  bind-mounted at ``/run/waraq`` (a ``{socket}`` command listens there; a
  ``{port}`` command listens on its own loopback, and ``socat`` inside the
  sandbox carries the socket to that port);
* **its own user**: when the referee runs as root, a fresh unprivileged uid
  per bot with no capabilities (``setpriv``); otherwise the referee's uid
  inside a user namespace, where it holds nothing the referee does not;
* **a read-only view of what it needs to run**: the system (``/usr``,
  ``/etc``), the interpreter, the project's packages, its own folder and the
  paths its command names; every path in ``Config.hidden`` (records, the
  ladder folder, logs, keys) is covered by an empty folder even where it
  lies inside one of those; a small private ``/tmp`` is its scratch (and
  ``HOME``); its environment is built anew (no ``WARAQ_DEAL_KEY``);
* **limits** (:class:`Limits`): memory through a cgroup where one can be
  made (v2 where delegated, else v1's memory controller), else
  ``RLIMIT_DATA`` (which, unlike ``RLIMIT_AS``, the Go and Node runtimes
  start under); CPU seconds, processes and file size through rlimits set
  inside the sandbox; a bot killed for a limit is told apart by its exit
  status or the cgroup's OOM count (:meth:`Launch.limit_hit`);
* **no life of its own**: ``--die-with-parent`` and the PID namespace end
  everything it started with the referee, even under ``kill -9``;
* **the same warning to stop as an unconfined bot**: SIGTERM reaches the bot's
  own processes inside the sandbox, not only bubblewrap (:meth:`Launch.terminate`),
  so that it has the referee's grace to end on its own before it is killed.

Where bubblewrap is missing or cannot start (no unprivileged user namespaces),
``auto`` falls back to an unconfined process with one warning, ``on`` refuses
(:class:`SandboxError`), and :func:`probe` says what the machine offers
(``waraq doctor``). Nothing here imports gRPC: the endpoint
(:mod:`waraq.referee.launch.bots`) launches the argv this module builds.
"""

from __future__ import annotations

import contextlib
import functools
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from waraq.referee.launch import process_tree

ENTRY = Path(__file__).with_name("sandbox_entry.py")
# The folder holding this project's packages: the checkout (referee/launch/ is two below it), or site-packages.
PROJECT = Path(__file__).resolve().parents[2]
SOCKET_DIR = "/run/waraq"  # where a sandboxed bot finds its socket folder
SOCKET_NAME = "bot.sock"
INNER_PORT = 50051  # a {port} bot's port on its own loopback: nothing else lives there
SCRATCH = "/tmp"
UID_BASE = 200_000  # a root referee's bots get uids from here on; no account owns them
UID_SPAN = 1 << 24
MIB = 1 << 20
SYSTEM_BINDS = ("/usr", "/etc", "/opt")
MERGED_DIRS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")  # links into /usr on merged systems
KEPT_ENVIRONMENT = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ")
SECRET_PREFIX = "WARAQ_"  # the referee's own variables ($WARAQ_DEAL_KEY): never a bot's


class SandboxError(RuntimeError):
    """Confinement was asked for (``on``) and this machine cannot give it; the message says why."""


class Isolation(StrEnum):
    AUTO = "auto"  # confine when the machine can, else warn once and run unconfined
    ON = "on"  # confine, or refuse to launch
    OFF = "off"  # run launched bots as plain child processes


@dataclass(frozen=True)
class Limits:
    """Per launched bot (all its processes together, where the machine has cgroups; else per process).

    The defaults leave an honest bot far from every limit: the sample bots use
    some 60 MiB, a handful of processes and one core; a bot's thinking time is
    the time control's to bound, so the CPU-seconds limit only stops a process
    left spinning for hours (a ladder bot lives for the whole run).
    """

    memory_mb: int = 2048
    cpu_seconds: int = 36_000
    processes: int = 64
    file_mb: int = 64  # any one file it writes, scratch and its log included
    scratch_mb: int = 256  # its private /tmp, which counts against its memory too
    open_files: int = 1024
    cpus: int = 1  # cores' worth of CPU time its processes may take together at any moment

    def __post_init__(self) -> None:
        for name, (low, high) in LIMIT_RANGES.items():
            value = getattr(self, name)
            if type(value) is not int or not low <= value <= high:
                raise ValueError(f"sandbox limit {name} = {value!r}: expected a whole number from {low} to {high:,}")


# What each limit may be. The highs keep every value a number the kernel takes as a limit:
# past them an rlimit or a cgroup knob overflows into "no limit" (10^20 MiB did).
LIMIT_RANGES: dict[str, tuple[int, int]] = {
    "memory_mb": (16, 1 << 20),  # 1 TiB
    "cpu_seconds": (1, 31 * 24 * 3600),  # a month of one core
    "processes": (4, 4096),  # the bot, its interpreter's threads, socat
    "file_mb": (1, 1 << 20),
    "scratch_mb": (1, 1 << 20),
    "open_files": (16, 1 << 20),  # the kernel's default nr_open
    "cpus": (1, 1024),
}


@dataclass(frozen=True)
class Config:
    mode: Isolation = Isolation.AUTO
    limits: Limits = Limits()
    # Paths no bot may see, even inside a folder it is shown: the records, the ladder's folder, logs, keys.
    hidden: tuple[Path, ...] = ()


DEFAULT = Config()  # frozen: one instance serves every default argument


# -- what the machine offers ---------------------------------------------------------------


@dataclass(frozen=True)
class Support:
    """What :func:`probe` found; ``problem`` says why confinement cannot run, if it cannot."""

    bwrap: str | None
    bwrap_version: str
    root: bool
    problem: str | None
    memory: str  # "cgroup v2", "cgroup v1", "RLIMIT_DATA"
    cgroup_dir: Path | None
    socat: str | None

    @property
    def usable(self) -> bool:
        return self.problem is None


@functools.cache
def probe() -> Support:
    """Look once per process: bubblewrap, whether it can start here, cgroups, socat."""
    bwrap = shutil.which("bwrap")
    root = os.geteuid() == 0
    version, problem = "", None
    if bwrap is None:
        problem = "bubblewrap is not installed (Debian: apt-get install bubblewrap)"
    else:
        version = _output([bwrap, "--version"]).removeprefix("bubblewrap ").strip()
        trial = subprocess.run(
            [bwrap, *_namespaces(root), "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "true"],
            capture_output=True,
            text=True,
            timeout=30,
        )
        if trial.returncode != 0:
            why = trial.stderr.strip().splitlines()[-1:] or [f"exit status {trial.returncode}"]
            problem = f"bubblewrap cannot make a sandbox here ({why[0]}); unprivileged user namespaces may be off"
    cgroup = _memory_cgroup()
    memory = "RLIMIT_DATA" if cgroup is None else f"cgroup {cgroup[0]}"
    return Support(bwrap, version, root, problem, memory, cgroup[1] if cgroup else None, shutil.which("socat"))


def _output(argv: list[str]) -> str:
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=10).stdout
    except OSError:
        return ""


def _namespaces(root: bool) -> list[str]:
    # A root referee makes the namespaces itself and drops to a bot uid inside (setpriv);
    # anyone else needs a user namespace to make the others.
    shared = ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    return shared if root else ["--unshare-user", *shared]


def _memory_cgroup() -> tuple[str, Path] | None:
    """A cgroup folder this process may make children in, with a memory limit: v2 first, then v1."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    paths = {}
    for line in lines:
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") or [""]:
            paths[controller] = path
    if "" in paths:  # v2: a delegated subtree that already offers the memory controller to children
        for mount in (Path("/sys/fs/cgroup"), Path("/sys/fs/cgroup/unified")):
            here = mount / paths[""].lstrip("/")
            if "memory" in _read(here / "cgroup.subtree_control").split() and os.access(here, os.W_OK):
                return "v2", here
    if "memory" in paths:
        here = Path("/sys/fs/cgroup/memory") / paths["memory"].lstrip("/")
        if (here / "memory.limit_in_bytes").exists() and os.access(here, os.W_OK):
            return "v1", here
    return None


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


# -- one launch ----------------------------------------------------------------------------


@dataclass
class Launch:
    """How to start one bot: the argv and environment to exec, and where to reach it."""

    argv: list[str]
    env: dict[str, str]
    address: str  # what the referee dials: unix:PATH or 127.0.0.1:PORT
    confined: bool
    limits: Limits | None = None
    cwd: str | None = None  # where it runs (a sandbox's own --chdir puts it there)
    _cgroup: Path | None = None
    _folder: Path | None = None  # the socket folder, removed with the launch
    _memory: str = ""

    def limit_hit(self, returncode: int | None) -> str | None:
        """The limit that ended the process with ``returncode``, if a limit did, as a fault detail."""
        limits = self.limits
        if limits is None or returncode is None:
            return None
        signum = returncode - 128 if returncode > 128 else -returncode
        if signum == signal.SIGXCPU:
            return f"CPU time limit {limits.cpu_seconds} s exceeded"
        if signum == signal.SIGXFSZ:
            return f"file size limit {_size(limits.file_mb)} exceeded"
        if signum == signal.SIGKILL and self._cgroup is not None and _oom_kills(self._cgroup, self._memory) > 0:
            return f"memory limit {_size(limits.memory_mb)} exceeded"
        return None

    def terminate(self, pid: int) -> None:
        """Ask the bot launched as ``pid`` to stop: SIGTERM to each of its processes.

        Unconfined, they are its process group (the launch gave it a session of its own).
        Confined, ``pid`` is bubblewrap's, outside the sandbox: SIGTERM would end it at once,
        and with it (``--die-with-parent``) the whole namespace, by SIGKILL, before the bot
        saw a thing. So the signal goes to the processes inside instead: every process of a
        PID namespace descends from its init, bubblewrap's own child, and bubblewrap forwards
        no signal. That init is left out: the kernel drops a signal it has no handler for
        from outside its namespace anyway, and it ends the namespace once the bot (its one
        child) ends, which ends bubblewrap with the bot's status. A cgroup would list the same
        processes plus bubblewrap's, but there is one only where the machine delegates it;
        an init of our own inside (``--as-pid-1``) would need an interpreter in every
        sandbox's view, a Go bot's too. A process forked while /proc is read may miss the
        signal; it ends with the namespace, as a straggler of an unconfined bot's group would
        with ``killpg(SIGKILL)``.
        """
        if self.confined:
            inside = [p for p in process_tree.descendants(pid) if process_tree.innermost_pid(p) not in (1, None)]
            for process in inside:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(process, signal.SIGTERM)
            if inside:
                return
            # A sandbox still being made runs nothing of the bot yet: ending bubblewrap ends it.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGTERM)

    def cleanup(self) -> None:
        """End every process left in the cgroup, then remove it and the socket folder."""
        if self._cgroup is not None:
            _empty(self._cgroup)
            self._cgroup = None
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None


def _size(mb: int) -> str:
    return f"{mb // 1024} GiB" if mb % 1024 == 0 else f"{mb} MiB"


def _oom_kills(cgroup: Path, kind: str) -> int:
    text = _read(cgroup / ("memory.events" if kind == "cgroup v2" else "memory.oom_control"))
    for line in text.splitlines():
        key, _, value = line.partition(" ")
        if key == "oom_kill":
            return int(value)
    return 0


_warned = False


def _to_stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def confine(argv: list[str], *, cwd: str | None, config: Config, warn: Callable[[str], None] | None = None) -> Launch:
    """The launch of ``argv`` (with ``{port}`` or ``{socket}`` still in it) under ``config``.

    ``warn`` (default: standard error) is told once per process when ``auto``
    falls back to an unconfined bot.
    """
    global _warned
    cwd = cwd or os.getcwd()
    if config.mode is not Isolation.OFF:
        support = probe()
        if support.usable:
            return _sandboxed(argv, cwd, config, support)
        if config.mode is Isolation.ON:
            raise SandboxError(f"bots cannot be sandboxed: {support.problem}")
        if not _warned:
            (warn or _to_stderr)(f"warning: launched bots run unconfined: {support.problem} (see `waraq doctor`)")
        _warned = True
    return _unconfined(argv, cwd)


def _unconfined(argv: list[str], cwd: str | None) -> Launch:
    folder = None
    if any("{socket}" in part for part in argv):
        folder = Path(tempfile.mkdtemp(prefix="waraq-bot-"))
        socket, address = str(folder / SOCKET_NAME), f"unix:{folder / SOCKET_NAME}"
        port = "0"
    else:
        port = str(_free_port())
        socket, address = "", f"127.0.0.1:{port}"
    # The bot dies with the referee (its own children may not: no PID namespace holds them).
    command = [*_entry(None), *(_fill(part, port, socket) for part in argv)]
    # An unconfined bot is one the user trusts to run as itself: it keeps the environment
    # (its PATH, its toolchain's variables) less Waraq's own, which hold the deal key.
    env = {key: value for key, value in os.environ.items() if not key.startswith(SECRET_PREFIX)}
    return Launch(command, env, address, False, cwd=cwd, _folder=folder)


def _sandboxed(argv: list[str], cwd: str | None, config: Config, support: Support) -> Launch:
    limits = config.limits
    folder = Path(tempfile.mkdtemp(prefix="waraq-bot-"))
    uid = UID_BASE + secrets.randbelow(UID_SPAN) if support.root else os.getuid()
    gid = uid if support.root else os.getgid()
    if support.root:
        os.chown(folder, uid, gid)  # the bot makes its socket here
    socket = f"{SOCKET_DIR}/{SOCKET_NAME}"
    by_port = not any("{socket}" in part for part in argv)
    command = [_fill(part, str(INNER_PORT), socket) for part in argv]
    if by_port:
        if support.socat is None:
            shutil.rmtree(folder, ignore_errors=True)
            raise SandboxError(
                "a {port} bot needs socat to be reached inside its sandbox (Debian: apt-get install socat),"
                " or give its command {socket} to listen on a Unix socket"
            )
        # nodelay: without it each small gRPC message waits for Nagle's timer, some 40 ms a decision.
        relay = f"{support.socat} UNIX-LISTEN:{socket},fork TCP:127.0.0.1:{INNER_PORT},nodelay & exec \"$@\""
        command = ["/bin/sh", "-c", relay, "sh", *command]
    inner = [
        "prlimit",
        # SIGXCPU at the limit names it; a bot that catches that gets SIGKILL a second later.
        f"--cpu={limits.cpu_seconds}:{limits.cpu_seconds + 1}",
        f"--fsize={limits.file_mb * MIB}",
        f"--nproc={limits.processes}",
        f"--nofile={limits.open_files}",
        "--core=0",
        *([f"--data={limits.memory_mb * MIB}"] if support.cgroup_dir is None else []),
        "--",
    ]
    if support.root:
        inner += [
            "setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups",
            "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--",
        ]  # fmt: skip
    bwrap = [
        support.bwrap or "bwrap",
        *_namespaces(support.root),
        "--die-with-parent",
        "--new-session",  # no terminal to push keystrokes into
        *_view(argv, cwd, config),
        "--perms", "0755", "--dir", str(Path(SOCKET_DIR).parent),
        "--bind", str(folder), SOCKET_DIR,
        "--chdir", cwd or "/",
        "--",
    ]  # fmt: skip
    cgroup = _new_cgroup(support, limits)
    # The launched process ties itself to the referee's life and joins the cgroup before it
    # becomes bwrap: a preexec_fn is unsafe once gRPC runs.
    return Launch(
        [*_entry(cgroup), *bwrap, *inner, *command],
        _environment(SCRATCH),
        f"unix:{folder / SOCKET_NAME}",
        True,
        limits,
        cwd,
        cgroup,
        folder,
        support.memory,
    )


def _entry(cgroup: Path | None) -> list[str]:
    """The launched process's first step (referee/launch/sandbox_entry.py): die with this referee, even
    one killed before the bot is up, and join ``cgroup``."""
    return [sys.executable, "-I", "-S", str(ENTRY), str(os.getpid()), str(cgroup or "-"), "--"]


def _fill(part: str, port: str, socket: str) -> str:
    return part.replace("{port}", port).replace("{socket}", socket)


def _environment(home: str) -> dict[str, str]:
    """A sandboxed bot's environment: a few harmless variables, its scratch as home."""
    env = {key: os.environ[key] for key in KEPT_ENVIRONMENT if key in os.environ}
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    env["HOME"] = env["TMPDIR"] = home
    return env


def _view(argv: list[str], cwd: str | None, config: Config) -> list[str]:
    """bwrap's mount options: the system and the bot's paths read-only, the hidden paths covered."""
    options = ["--dev", "/dev", "--proc", "/proc"]
    options += ["--perms", "1777", "--size", str(config.limits.scratch_mb * MIB), "--tmpfs", SCRATCH]
    for top in MERGED_DIRS:
        path = Path(top)
        if path.is_symlink():
            options += ["--symlink", os.readlink(path), top]
        elif path.is_dir():
            options += ["--ro-bind", top, top]
    shown = [Path(p) for p in SYSTEM_BINDS if Path(p).is_dir()]
    shown += [Path(p).resolve() for p in _needed(argv, cwd)]
    # Never the whole machine, nor the scratch folder itself (a bot's folder inside /tmp is shown alone).
    roots = _outermost(p for p in shown if p.exists() and str(p) not in ("/", SCRATCH))
    every_hidden = sorted({p.resolve() for p in config.hidden if p.exists()})
    hidden = _outermost(every_hidden)
    roots = [root for root in roots if not any(_within(root, secret) for secret in hidden)]
    for root in roots:
        options += _parents(root) + _show(root)
    here = Path(cwd or "/").resolve()
    if not any(_within(here, root) for root in roots):  # a home folder: there, but empty
        options += _parents(here) + ["--perms", "0755", "--dir", str(here)]
    options += _cover(hidden, roots)
    # The bot's own folder inside a hidden one (a ladder's bots/ folder) is shown again, and what is
    # hidden inside it covered again. Nothing else is: a path its command names cannot undo a cover.
    if any(_within(here, secret) and here != secret for secret in hidden):
        options += ["--ro-bind", str(here), str(here), *_cover(every_hidden, [here])]
    return options


def _cover(hidden: list[Path], roots: list[Path]) -> list[str]:
    """Cover each hidden path shown under one of ``roots``: an empty folder, or /dev/null for a file."""
    options: list[str] = []
    for secret in hidden:
        if any(_within(secret, root) for root in roots):
            if secret.is_dir():
                options += ["--perms", "0000", "--tmpfs", str(secret)]
            else:
                options += ["--ro-bind", "/dev/null", str(secret)]
    return options


def _needed(argv: list[str], cwd: str | None) -> list[str]:
    """The bot's own paths: its folder, what its command names, its interpreter, this project."""
    base = Path(cwd or os.getcwd())
    found = [] if _is_home(base) else [str(base)]
    for part in argv:
        if "{port}" in part or "{socket}" in part:
            continue
        value = part.split("=", 1)[1] if part.startswith("-") and "=" in part else part
        if not value:
            continue
        path = base / value
        if path.exists():
            folder = path if path.is_dir() else path.parent
            found.append(str(path if _is_home(folder.resolve()) else folder))
    program = shutil.which(argv[0], path=os.environ.get("PATH")) if argv else None
    if program is not None:
        found += [str(Path(program).parent), str(Path(program).resolve().parent)]
        if Path(program).resolve().name.startswith("python"):
            # A Python bot needs its interpreter's prefixes and this project's packages (its imports).
            found += [sys.prefix, sys.base_prefix, str(PROJECT)]
    return found


def _is_home(folder: Path) -> bool:
    """A home folder is never shown whole (its keys and dotfiles): only what a command names in it."""
    return folder in (Path.home(), Path("/root")) or folder.parent == Path("/home")


def _outermost(paths) -> list[Path]:
    unique = sorted(set(paths), key=lambda p: len(p.parts))
    kept: list[Path] = []
    for path in unique:
        if not any(_within(path, k) for k in kept):
            kept.append(path)
    return sorted(kept)


def _within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _show(root: Path) -> list[str]:
    """Show ``root`` read-only. A folder others may not enter (a pytest or home folder of mode
    0700, whose contents are readable) is made anew, open, with each entry shown inside it:
    a root referee's bot runs as a user of its own, for whom such a folder is closed."""
    if not root.is_dir() or root.stat().st_mode & 0o005 == 0o005:
        return ["--ro-bind", str(root), str(root)]
    options = ["--perms", "0755", "--dir", str(root)]
    for entry in sorted(root.iterdir()):
        options += ["--ro-bind", str(entry), str(entry)]
    return options


def _parents(path: Path) -> list[str]:
    """Open every parent folder on the way to ``path`` (bwrap would copy a 0700 /root)."""
    options = []
    for parent in reversed(path.parents):
        if str(parent) != "/" and not any(str(parent) == top for top in MERGED_DIRS):
            options += ["--perms", "0755", "--dir", str(parent)]
    return options


def _new_cgroup(support: Support, limits: Limits) -> Path | None:
    parent = support.cgroup_dir
    if parent is None:
        return None
    _sweep(parent)
    here = parent / f"waraq-{os.getpid()}-{secrets.token_hex(4)}"
    try:
        here.mkdir()
        memory = str(limits.memory_mb * MIB)
        if support.memory == "cgroup v2":
            (here / "memory.max").write_text(memory)
            _try_write(here / "memory.swap.max", "0")
            _try_write(here / "pids.max", str(limits.processes))
        else:
            (here / "memory.limit_in_bytes").write_text(memory)
            _try_write(here / "memory.memsw.limit_in_bytes", memory)
    except OSError:
        _rmdir(here)
        return None
    return here


def _empty(cgroup: Path, wait_s: float = 5.0) -> None:
    """Kill what is left in ``cgroup`` and remove it once the kernel has reaped it all.

    A sandbox's processes die with its PID namespace, but asynchronously: the
    folder cannot be removed until the last is gone.
    """
    deadline = time.monotonic() + wait_s
    while True:
        pids = _read(cgroup / "cgroup.procs").split()
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, ValueError):
                os.kill(int(pid), signal.SIGKILL)
        try:
            cgroup.rmdir()
            return
        except OSError:
            if time.monotonic() > deadline:
                return  # left for the next run's sweep
            time.sleep(0.01)


def _try_write(path: Path, value: str) -> None:
    try:
        path.write_text(value)
    except OSError:
        pass  # an optional knob this kernel lacks (swap accounting off, no pids controller)


def _rmdir(path: Path) -> None:
    try:
        path.rmdir()
    except OSError:
        pass


def _sweep(parent: Path) -> None:
    """Remove the empty cgroups of runs that were killed (a busy one cannot be removed)."""
    for old in parent.glob("waraq-*"):
        pid = old.name.split("-")[1]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            _rmdir(old)


def _free_port() -> int:
    import socket

    with socket.socket() as probe_socket:
        probe_socket.bind(("127.0.0.1", 0))
        return probe_socket.getsockname()[1]

"""Confinement for launched bots: what a bot process may see, touch and use.

A launched bot is a stranger's program, and its partner at the table may be
another stranger's, or its own second process. Under :func:`confine` it runs
inside bubblewrap (``bwrap``, Debian's ``bubblewrap``) with:

* **its own PID, network, IPC and UTS namespaces**: it cannot see or signal
  the referee, other bots or their children, and it has no network at all.
  The referee reaches it through one Unix socket, in a small folder of its
  own (``/run/waraq``, a tmpfs inside the sandbox: nothing it writes there
  reaches the host's disk or outlives it), which the referee walks to
  without following a link (:mod:`waraq.referee.launch.bot_socket`). A
  ``{port}`` command listens on its own loopback, and ``socat`` inside the
  sandbox carries the socket to that port;
* **its own user**: when the referee runs as root, a fresh unprivileged uid
  per bot with no capabilities (``setpriv``); otherwise the referee's uid
  inside a user namespace, where it holds nothing the referee does not;
* **a read-only view of what it needs to run**: the system (``/usr``,
  ``/etc``), its program's folder, the paths its command names (a file's
  folder), and for a Python bot its interpreter and this project's packages,
  never the folder the referee runs in as such (:func:`_needed`); every path
  in ``Config.hidden`` (records, the ladder folder, logs, keys) is covered by
  an empty folder even where it lies inside one of those; a small private
  ``/tmp`` is its scratch (and ``HOME``); its environment is built anew (no
  ``WARAQ_DEAL_KEY``);
* **no channel to another bot**: a seccomp filter refuses the system calls
  that act on a shared inode or on the whole machine (locks, inotify,
  ``sysinfo``: :mod:`waraq.referee.launch.seccomp`), and ``/proc``'s
  machine-wide counters (load, CPU and memory use) are frozen copies, the
  same for every bot (:data:`FROZEN_PROC`); nor a new user namespace;
* **limits** (:class:`Limits`): per bot, in cgroups of its own where the
  machine lets this process make them (v2 where delegated, else v1's
  controllers): memory, a CPU share (``cpus``), processes; else
  ``RLIMIT_DATA`` (which, unlike ``RLIMIT_AS``, the Go and Node runtimes
  start under) and ``RLIMIT_NPROC``; CPU seconds and file size through
  rlimits set inside the sandbox; a bot killed for a limit is told apart by
  its exit status or the cgroup's OOM count (:meth:`Launch.limit_hit`);
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
import importlib.util
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from waraq.referee.launch import bot_socket, process_tree, seccomp

ENTRY = Path(__file__).with_name("sandbox_entry.py")
# The packages a Python bot may import from this project (the built-in bots need waraq.bots and what it
# imports): their folders are shown, not the checkout or site-packages folder that holds them.
PACKAGES = ("waraq", "waraq.referee", "waraq.bots")  # the first holds the protocol, waraq.v1
SOCKET_DIR = "/run/waraq"  # where a sandboxed bot finds its socket folder
SOCKET_NAME = "bot.sock"
SOCKET_FOLDER_BYTES = 1 << 20  # a socket is no bytes; the rest is room for nothing much
UNCONFINED_PREFIX = "waraq-bot-"  # an unconfined {socket} bot's folder in the system's temp folder: +pid-
INNER_PORT = 50051  # a {port} bot's port on its own loopback: nothing else lives there
SCRATCH = "/tmp"
UID_BASE = 200_000  # a root referee's bots get uids from here on; no account owns them
UID_SPAN = 1 << 24
MIB = 1 << 20
CPU_PERIOD_US = 100_000  # the cgroup's accounting period: a bot of 1 cpu runs 100 ms in every 100 ms
SYSTEM_BINDS = ("/usr", "/etc", "/opt")
# A launched bot that ends with one of these exit statuses (the shell's and setpriv's, and the dynamic
# loader's for a library it cannot find) could not be run at all: under the sandbox the likely cause is
# what the sandbox hides or the fresh uid cannot read, which the bot's own words do not say.
CANNOT_RUN = {126: "found, but not allowed to run", 127: "a program or a library it needs was not found"}
WHAT_A_BOT_SEES = (
    "under the sandbox a bot sees only /usr, /etc, /opt, its own folder and the paths its command names, "
    "and runs as a fresh user: its program, its libraries and their folders must be readable by other "
    "users (programs executable too); compare with --sandbox off"
)
MERGED_DIRS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")  # links into /usr on merged systems
KEPT_ENVIRONMENT = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ")
SECRET_PREFIX = "WARAQ_"  # the referee's own variables ($WARAQ_DEAL_KEY): never a bot's
# /proc's files that count what the whole machine does: what one bot does moves them, so another could
# read it (a red-team bot read its partner's load from /proc/loadavg). Each bot sees a copy taken once
# per referee, the same for every bot and never changing; the runtimes that read them at start-up
# (a CPU count, the memory size) read what they would have.
FROZEN_PROC = (
    "loadavg", "stat", "meminfo", "uptime", "vmstat", "zoneinfo", "buddyinfo", "diskstats", "interrupts",
    "softirqs", "schedstat", "locks", "swaps", "key-users", "cpuinfo", "cgroups", "sys/fs/file-nr",
    "sys/fs/inode-nr", "sys/fs/inode-state", "sys/fs/dentry-state", "sys/fs/aio-nr",
    "sys/kernel/random/entropy_avail",
)  # fmt: skip
EMPTIED_PROC = ("pressure",)  # folders of the same: shown empty


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


class Controller(StrEnum):
    """The cgroup controllers a bot's limits use."""

    MEMORY = "memory"
    CPU = "cpu"
    PIDS = "pids"


@dataclass(frozen=True)
class Cgroups:
    """Where this process may make each bot's cgroups: one folder for every controller (v2), or one per
    controller (v1); a controller missing from ``parents`` falls back to an rlimit, or to nothing (CPU)."""

    version: str  # "v2" or "v1"
    parents: dict[Controller, Path]

    def describe(self, controller: Controller) -> str | None:
        parent = self.parents.get(controller)
        return None if parent is None else f"cgroup {self.version} ({parent})"


@dataclass(frozen=True)
class Support:
    """What :func:`probe` found; ``problem`` says why confinement cannot run, if it cannot."""

    bwrap: str | None
    bwrap_version: str
    root: bool
    problem: str | None
    cgroups: Cgroups | None
    socat: str | None

    @property
    def usable(self) -> bool:
        return self.problem is None

    def controls(self, controller: Controller) -> bool:
        return self.cgroups is not None and controller in self.cgroups.parents


@functools.cache
def probe() -> Support:
    """Look once per process: bubblewrap, whether it can start here, the filter, cgroups, socat."""
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
        else:
            # Without the filter, partners could talk through locks on the files every sandbox shares.
            problem = seccomp.problem()
    return Support(bwrap, version, root, problem, _cgroups(), shutil.which("socat"))


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


def _cgroups() -> Cgroups | None:
    """The cgroup folders this process may make children in: v2's delegated subtree first, then v1's."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
        mounts = Path("/proc/self/mounts").read_text().splitlines()
    except OSError:
        return None
    mine = {}
    for line in lines:
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") or [""]:
            mine[controller] = path.lstrip("/")
    if "" in mine:  # v2: a delegated subtree that already offers the controllers to its children
        for mount in _mount_points(mounts, "cgroup2", None):
            here = mount / mine[""]
            offered = _read(here / "cgroup.subtree_control").split()
            parents = {c: here for c in Controller if c.value in offered}
            if Controller.MEMORY in parents and os.access(here, os.W_OK):
                return Cgroups("v2", parents)
    parents = {}
    for controller in Controller:
        if controller.value not in mine:
            continue
        for mount in _mount_points(mounts, "cgroup", controller.value):
            here = mount / mine[controller.value]
            knob = {Controller.MEMORY: "memory.limit_in_bytes", Controller.CPU: "cpu.cfs_quota_us"}.get(controller)
            if (knob is None or (here / knob).exists()) and os.access(here, os.W_OK):
                parents[controller] = here
                break
    return Cgroups("v1", parents) if Controller.MEMORY in parents else None


def _mount_points(mounts: list[str], kind: str, controller: str | None) -> list[Path]:
    """Where /proc/self/mounts says a cgroup file system of ``kind`` (with ``controller``) is mounted."""
    found = []
    for line in mounts:
        fields = line.split()
        if len(fields) >= 4 and fields[2] == kind and (controller is None or controller in fields[3].split(",")):
            found.append(Path(fields[1]))
    return found


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


@functools.cache
def _frozen_proc() -> dict[str, bytes]:
    """The copies of :data:`FROZEN_PROC` every bot is shown: read once, on the first launch."""
    copies = {}
    for name in FROZEN_PROC:
        with contextlib.suppress(OSError):
            copies[name] = Path("/proc", name).read_bytes()
    return copies


# -- one launch ----------------------------------------------------------------------------


@dataclass
class Launch:
    """How to start one bot: the argv, environment and descriptors to exec it with, and how to reach it."""

    argv: list[str]
    env: dict[str, str]
    confined: bool
    limits: Limits | None = None
    cwd: str | None = None  # where it runs (a sandbox's own --chdir puts it there)
    pass_fds: tuple[int, ...] = ()  # for bubblewrap to read (the filter, /proc's copies): close once spawned
    address: str = ""  # a {port} bot's, known at once; a {socket} bot's once :meth:`reach` finds it
    owner: int = -1  # the uid its socket must belong to
    _socket_top: str = ""  # the trusted folder its socket is found from; "/proc/PID/root" when confined
    _socket_fd: int | None = None
    _inside: int | None = None  # a process of the sandbox, whose root is the sandbox's
    _cgroups: dict[Controller, Path] = field(default_factory=dict)
    _folder: Path | None = None  # an unconfined {socket} bot's folder, removed with the launch

    def spawned(self) -> None:
        """The process has started: its copies of the descriptors are its own, the referee's go."""
        for fd in self.pass_fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        self.pass_fds = ()

    def reach(self, pid: int) -> str | None:
        """The address to dial the bot launched as ``pid`` at, or None while its socket is not there yet.

        Raises :class:`bot_socket.BotSocketError` when the socket's path holds anything but a socket of the
        bot's own (a link it planted to a host socket, say)."""
        if self.address:
            return self.address
        top = self._socket_top
        if self.confined:
            # Its first process lives as long as the sandbox: found once, not by a scan of /proc a try.
            self._inside = self._inside or _inside(pid)
            if self._inside is None:
                return None  # bubblewrap has not made the sandbox yet
            top = f"/proc/{self._inside}/root"
        names = [*Path(SOCKET_DIR).relative_to("/").parts, SOCKET_NAME] if self.confined else [SOCKET_NAME]
        try:
            fd = bot_socket.open_socket(top, names, self.owner)
        except (PermissionError, ProcessLookupError):
            return None  # the sandbox is being made, or ended: the caller sees the process end
        if fd is None:
            return None
        self._socket_fd = fd
        self.address = bot_socket.address(fd)
        return self.address

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
        memory = self._cgroups.get(Controller.MEMORY)
        if signum == signal.SIGKILL and memory is not None and _oom_kills(memory) > 0:
            return f"memory limit {_size(limits.memory_mb)} exceeded"
        return None

    def forks_refused(self) -> int:
        """How many new processes its cgroup refused for its process limit so far (0 without a cgroup)."""
        pids = self._cgroups.get(Controller.PIDS)
        return 0 if pids is None else _count(pids / "pids.events", "max")

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
        """End every process left in its cgroups, then remove them, its socket and its folder."""
        self.spawned()
        for cgroup in self._cgroups.values():
            _empty(cgroup)
        self._cgroups = {}
        bot_socket.close(self._socket_fd)
        self._socket_fd = None
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None


def _inside(pid: int) -> int | None:
    """A process of the sandbox bubblewrap ``pid`` made (its root is the sandbox's), None before there is one.

    Every process below bubblewrap is inside; one that still shares the referee's mount namespace
    has not made the sandbox yet, and its root is the host's."""
    mine = _namespace_of("self")
    for process in process_tree.descendants(pid):
        theirs = _namespace_of(str(process))
        if theirs is not None and theirs != mine:
            return process
    return None


def _namespace_of(pid: str) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/ns/mnt")
    except OSError:
        return None


def _size(mb: int) -> str:
    return f"{mb // 1024} GiB" if mb % 1024 == 0 else f"{mb} MiB"


def _oom_kills(cgroup: Path) -> int:
    v2 = (cgroup / "memory.events").exists()
    return _count(cgroup / ("memory.events" if v2 else "memory.oom_control"), "oom_kill")


def _count(events: Path, name: str) -> int:
    """The count ``name`` of a cgroup's file of events (lines of ``name count``), 0 if it has none."""
    for line in _read(events).splitlines():
        key, _, value = line.partition(" ")
        if key == name:
            return int(value)
    return 0


_warned = False


def _to_stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def confine(argv: list[str], *, cwd: str | None, config: Config, warn: Callable[[str], None] | None = None) -> Launch:
    """The launch of ``argv`` (with ``{port}`` or ``{socket}`` still in it) under ``config``.

    ``cwd`` is the bot's own folder where one was chosen for it (a ladder's bot runs where it was added
    from); None runs it in the referee's folder, which a sandbox never shows it as such. ``warn``
    (default: standard error) is told once per process when ``auto`` falls back to an unconfined bot.
    """
    global _warned
    if config.mode is not Isolation.OFF:
        support = probe()
        if support.usable:
            return _sandboxed(argv, cwd, config, support)
        if config.mode is Isolation.ON:
            raise SandboxError(f"bots cannot be sandboxed: {support.problem}")
        if not _warned:
            (warn or _to_stderr)(f"warning: launched bots run unconfined: {support.problem} (see `waraq doctor`)")
        _warned = True
    return _unconfined(argv, cwd or os.getcwd())


def _unconfined(argv: list[str], cwd: str) -> Launch:
    folder = None
    if any("{socket}" in part for part in argv):
        _sweep_folders(Path(tempfile.gettempdir()))
        folder = Path(tempfile.mkdtemp(prefix=f"{UNCONFINED_PREFIX}{os.getpid()}-"))
        socket, address, port = str(folder / SOCKET_NAME), "", "0"
    else:
        port = str(_free_port())
        socket, address = "", f"127.0.0.1:{port}"
    # The bot dies with the referee (its own children may not: no PID namespace holds them).
    command = [*_entry({}), *(_fill(part, port, socket) for part in argv)]
    # An unconfined bot is one the user trusts to run as itself: it keeps the environment
    # (its PATH, its toolchain's variables) less Waraq's own, which hold the deal key.
    env = {key: value for key, value in os.environ.items() if not key.startswith(SECRET_PREFIX)}
    return Launch(
        command, env, False, cwd=cwd, address=address, owner=os.getuid(), _socket_top=str(folder or ""), _folder=folder
    )


def _sandboxed(argv: list[str], cwd: str | None, config: Config, support: Support) -> Launch:
    socket = f"{SOCKET_DIR}/{SOCKET_NAME}"
    by_port = not any("{socket}" in part for part in argv)
    command = [_fill(part, str(INNER_PORT), socket) for part in argv]
    if by_port:
        if support.socat is None:
            raise SandboxError(
                "a {port} bot needs socat to be reached inside its sandbox (Debian: apt-get install socat),"
                " or give its command {socket} to listen on a Unix socket"
            )
        # nodelay: without it each small gRPC message waits for Nagle's timer, some 40 ms a decision.
        relay = f'{support.socat} UNIX-LISTEN:{socket},fork TCP:127.0.0.1:{INNER_PORT},nodelay & exec "$@"'
        command = ["/bin/sh", "-c", relay, "sh", *command]
    proc_fds = {name: _memory_file(f"waraq-proc-{name}", data) for name, data in _frozen_proc().items()}
    view = [
        *_view(argv, cwd, config),
        *(o for name, fd in proc_fds.items() for o in ("--perms", "0444", "--ro-bind-data", str(fd), f"/proc/{name}")),
        *(option for name in EMPTIED_PROC if Path("/proc", name).is_dir() for option in _empty_folder(f"/proc/{name}")),
        "--perms", "0755", "--dir", str(Path(SOCKET_DIR).parent),
        "--perms", "0777", "--size", str(SOCKET_FOLDER_BYTES), "--tmpfs", SOCKET_DIR,
    ]  # fmt: skip
    return _confined(command, view, cwd, config.limits, support, tuple(proc_fds.values()))


def confine_job(argv: list[str], view: list[str], *, cwd: str, limits: Limits) -> Launch:
    """``argv`` confined as a bot is (namespaces, filter, user, limits, cgroups), in a view of the system,
    a scratch ``/tmp`` and the caller's own ``view`` (bwrap's mount options) instead of a bot's paths, with
    no socket: a job that is no bot, such as an uploaded bot's build (waraq.ladder.submit.build). It
    never runs unconfined: :class:`SandboxError` where the machine cannot sandbox."""
    support = probe()
    if not support.usable:
        raise SandboxError(f"this machine cannot sandbox: {support.problem}")
    system = [o for p in SYSTEM_BINDS if Path(p).is_dir() for o in ("--ro-bind", p, p)]
    return _confined(argv, [*_system_view(limits), *system, *view], cwd, limits, support)


def _confined(
    command: list[str], view: list[str], cwd: str | None, limits: Limits, support: Support, fds: tuple[int, ...] = ()
) -> Launch:
    """The launch of ``command`` under bwrap with the mount options ``view``, run in ``cwd`` as its own user,
    under the filter, the rlimits and cgroups of ``limits``; ``fds`` are the view's memory files."""
    uid = UID_BASE + secrets.randbelow(UID_SPAN) if support.root else os.getuid()
    gid = uid if support.root else os.getgid()
    inner = [
        "prlimit",
        # SIGXCPU at the limit names it; a bot that catches that gets SIGKILL a second later.
        f"--cpu={limits.cpu_seconds}:{limits.cpu_seconds + 1}",
        f"--fsize={limits.file_mb * MIB}",
        f"--nofile={limits.open_files}",
        "--core=0",
        # Per uid: all of a root referee's bot's processes (a uid of its own), but all of the user's
        # beside a user's referee, where only a cgroup counts one bot's.
        *([f"--nproc={limits.processes}"] if not support.controls(Controller.PIDS) else []),
        *([f"--data={limits.memory_mb * MIB}"] if not support.controls(Controller.MEMORY) else []),
        "--",
    ]
    if support.root:
        inner += [
            "setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups",
            "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--",
        ]  # fmt: skip
    filter_fd = _memory_file("waraq-seccomp", seccomp.program())
    bwrap = [
        support.bwrap or "bwrap",
        *_namespaces(support.root),
        "--die-with-parent",
        "--new-session",  # no terminal to push keystrokes into
        *view,
        "--chdir", cwd or os.getcwd(),
        "--seccomp", str(filter_fd),
        "--",
    ]  # fmt: skip
    cgroups = _new_cgroups(support, limits)
    # The launched process ties itself to the referee's life and joins the cgroups before it
    # becomes bwrap: a preexec_fn is unsafe once gRPC runs.
    return Launch(
        [*_entry(cgroups), *bwrap, *inner, *command],
        _environment(SCRATCH),
        True,
        limits,
        cwd,
        pass_fds=(filter_fd, *fds),
        owner=uid,
        _cgroups=cgroups,
    )


def _memory_file(name: str, data: bytes) -> int:
    """A descriptor of ``data`` in memory, read from its start: bubblewrap reads the filter and /proc's copies
    from such, so nothing of a launch is a file on the host."""
    fd = os.memfd_create(name)
    os.write(fd, data)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _entry(cgroups: dict[Controller, Path]) -> list[str]:
    """The launched process's first step (referee/launch/sandbox_entry.py): die with this referee, even
    one killed before the bot is up, and join its ``cgroups``."""
    joined = os.pathsep.join(str(c) for c in cgroups.values()) or "-"
    return [sys.executable, "-I", "-S", str(ENTRY), str(os.getpid()), joined, "--"]


def _fill(part: str, port: str, socket: str) -> str:
    return part.replace("{port}", port).replace("{socket}", socket)


def _environment(home: str) -> dict[str, str]:
    """A sandboxed bot's environment: a few harmless variables, its scratch as home."""
    env = {key: os.environ[key] for key in KEPT_ENVIRONMENT if key in os.environ}
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    env["HOME"] = env["TMPDIR"] = home
    return env


def _empty_folder(path: str) -> list[str]:
    return ["--perms", "0555", "--tmpfs", path]


def _system_view(limits: Limits) -> list[str]:
    """What every sandbox is shown first: /dev, /proc, its scratch, and the merged system's links."""
    options = ["--dev", "/dev", "--proc", "/proc"]
    options += ["--perms", "1777", "--size", str(limits.scratch_mb * MIB), "--tmpfs", SCRATCH]
    for top in MERGED_DIRS:
        path = Path(top)
        if path.is_symlink():
            options += ["--symlink", os.readlink(path), top]
        elif path.is_dir():
            options += ["--ro-bind", top, top]
    return options


def _view(argv: list[str], cwd: str | None, config: Config) -> list[str]:
    """bwrap's mount options: the system and the bot's paths read-only, the hidden paths covered."""
    options = _system_view(config.limits)
    base = Path(cwd or os.getcwd())
    program = shutil.which(argv[0], path=os.environ.get("PATH")) if argv else None
    named = _named(argv, base, program)
    own = _own_folder(cwd, named)
    shown = [Path(p) for p in SYSTEM_BINDS if Path(p).is_dir()]
    shown += [Path(p).resolve() for p in _needed(named, own, program)]
    # Never the whole machine, nor the scratch folder itself (a bot's folder inside /tmp is shown alone).
    roots = _outermost(p for p in shown if p.exists() and str(p) not in ("/", SCRATCH))
    every_hidden = sorted({p.resolve() for p in config.hidden if p.exists()})
    hidden = _outermost(every_hidden)
    roots = [root for root in roots if not any(_within(root, secret) for secret in hidden)]
    for root in roots:
        options += _parents(root) + _show(root)
    here = base.resolve()
    if not any(_within(here, root) for root in roots):  # the referee's folder, a home folder: there, but empty
        options += _parents(here) + ["--perms", "0755", "--dir", str(here)]
    options += _cover(hidden, roots)
    # The bot's own folder inside a hidden one (a ladder's bots/ folder) is shown again, and so are the
    # paths its command names inside the folder chosen for it (an uploaded bot's `python3 bot.py`, run
    # from its folder under the ladder's); what is hidden inside them is covered again. Nothing else is:
    # a path its command names elsewhere cannot undo a cover.
    chosen = Path(cwd).resolve() if cwd else None
    again = [own] if own is not None else [p.resolve() for p in named if chosen and _within(p.resolve(), chosen)]
    for path in _outermost(again):
        if any(_within(path, secret) and path != secret for secret in hidden):
            options += ["--ro-bind", str(path), str(path), *_cover(every_hidden, [path])]
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


def _needed(named: list[Path], own: Path | None, program: str | None) -> list[str]:
    """The bot's own paths: what its command names, its program's folder, and for a Python bot its
    interpreter and this project's packages.

    The folder it runs in is not among them as such: run from a folder that holds every author's bot
    (``python alice/bot.py``), alice is shown ``alice/``, not ``bob/``. Only a folder chosen for the bot
    (``cwd``: a ladder's bot's, where it was added from) whose command names nothing inside it
    (``python -m mybot`` from its folder, a program elsewhere) is shown, as the bot's own.
    """
    found = [str(p) for p in named]
    if own is not None:
        found.append(str(own))
    # The protocol's folder (waraq/v1/bot.proto) for every bot: the starter kits read the contract there.
    found += map(str, _package_folders()[:1])
    if program is not None:
        found += [str(Path(program).parent), str(Path(program).resolve().parent)]
        if _is_python(program):
            # A Python bot needs its interpreter's prefixes and this project's packages (its imports).
            found += [sys.prefix, sys.base_prefix, *map(str, _package_folders())]
    return found


def _own_folder(cwd: str | None, named: list[Path]) -> Path | None:
    """The folder chosen for the bot, when its command names nothing inside it (``named``): its own,
    shown whole."""
    if not cwd:
        return None
    here = Path(cwd).resolve()
    if _is_home(here) or any(_within(path.resolve(), here) for path in named):
        return None
    return here


def _named(argv: list[str], base: Path, program: str | None) -> list[Path]:
    """What the command names: each existing path among its words (a file's folder, or the file alone in a
    home folder), and a Python module run with ``-m`` from ``base`` (when ``program``, its first word
    found on PATH, is Python)."""
    found = []
    words = [part.split("=", 1)[1] if part.startswith("-") and "=" in part else part for part in argv]
    if program is not None and _is_python(program) and "-m" in argv[:-1]:
        module = argv[argv.index("-m") + 1].split(".")[0]
        words += [module, module + ".py"]
    for value in words:
        if not value or "{port}" in value or "{socket}" in value:
            continue
        path = base / value
        try:
            if not path.exists():
                continue
        except OSError:  # a word no path can be (python -c's code: a name too long)
            continue
        folder = path if path.is_dir() else path.parent
        found.append(path if _is_home(folder.resolve()) else folder)
    return found


def _is_python(program: str) -> bool:
    return Path(program).resolve().name.startswith("python")


@functools.cache
def _package_folders() -> tuple[Path, ...]:
    """The folders of :data:`PACKAGES`: site-packages' ``waraq/``, or an editable checkout's mapped folders
    (protocol/waraq, referee/, sample_bots/), never the checkout with its records and ladders."""
    folders = []
    for name in PACKAGES:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            folders += [Path(location).resolve() for location in spec.submodule_search_locations]
    return tuple(folders)


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


def _new_cgroups(support: Support, limits: Limits) -> dict[Controller, Path]:
    """A bot's cgroups, one per controller the machine lets us use (one folder for all under v2), with its
    limits written: memory (no swap), a CPU quota of ``limits.cpus`` cores, ``limits.processes``."""
    if support.cgroups is None:
        return {}
    v2 = support.cgroups.version == "v2"
    name = f"waraq-{os.getpid()}-{secrets.token_hex(4)}"
    made: dict[Controller, Path] = {}
    for controller, parent in support.cgroups.parents.items():
        _sweep(parent)
        here = parent / name
        if here not in made.values():
            try:
                here.mkdir()
            except OSError:
                continue
        made[controller] = here
    memory, quota = str(limits.memory_mb * MIB), limits.cpus * CPU_PERIOD_US
    knobs = {
        Controller.MEMORY: [("memory.max", memory), ("memory.swap.max", "0")]
        if v2
        else [("memory.limit_in_bytes", memory), ("memory.memsw.limit_in_bytes", memory)],
        Controller.CPU: [("cpu.max", f"{quota} {CPU_PERIOD_US}")]
        if v2
        else [("cpu.cfs_period_us", str(CPU_PERIOD_US)), ("cpu.cfs_quota_us", str(quota))],
        Controller.PIDS: [("pids.max", str(limits.processes))],
    }
    for controller, here in list(made.items()):
        (first, value), *optional = knobs[controller]
        try:
            (here / first).write_text(value)
        except OSError:
            # A limit this cgroup cannot hold: the rlimits stand in (memory, processes) or nothing does (CPU).
            del made[controller]
            if here not in made.values():
                _rmdir(here)
            continue
        for knob, value in optional:
            _try_write(here / knob, value)  # swap accounting may be off
    return made


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
        except FileNotFoundError:
            return  # one folder serves every controller under v2: removed already
        except OSError:
            if time.monotonic() > deadline:
                return  # left for the next run's sweep
            time.sleep(0.01)


def _try_write(path: Path, value: str) -> None:
    try:
        path.write_text(value)
    except OSError:
        pass  # an optional knob this kernel lacks (swap accounting off)


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


def _sweep_folders(parent: Path) -> None:
    """Remove the socket folders of referees that were killed (``kill -9`` leaves them behind)."""
    for old in parent.glob(UNCONFINED_PREFIX + "*"):
        pid = old.name.removeprefix(UNCONFINED_PREFIX).split("-")[0]
        if old.is_dir() and pid.isdigit() and not Path(f"/proc/{pid}").exists():
            shutil.rmtree(old, ignore_errors=True)


def _free_port() -> int:
    import socket

    with socket.socket() as probe_socket:
        probe_socket.bind(("127.0.0.1", 0))
        return probe_socket.getsockname()[1]

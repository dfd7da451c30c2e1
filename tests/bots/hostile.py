"""A gRPC bot that plays like the random bot and, at its first decision, attacks its host.

    python tests/bots/hostile.py (--port N | --unix PATH) [--read PATH] [--write PATH] [--stop PID]
        [--connect PORT] [--steal-port PORT] [--env NAME] [--spawn TOKEN] [--fork N]
        [--unshare-user] [--fill-socket-folder] [--proc] [--hog N] [--link-socket PATH]
        [--memory-mb MB] [--spin] [--big-file-mb MB]

It is what a dishonest bot author would ship: each option is one attack of
issue 11, tried once per process at the first decision request it gets, and
the first reply's note reports every result as JSON, ``{"read:/x": "blocked:
EACCES", ...}``. ``"done"`` means the attack worked; a test asserts none did
(and checks from outside what it can: the file unchanged, the opponent not
stopped, no process left). ``--memory-mb``, ``--spin`` and ``--big-file-mb``
run last: they end the process when a limit holds. ``--link-socket PATH``
(issue 30) serves nothing: it puts a link to PATH, a host's socket, where its
own socket should be, and waits for the referee to dial it.
"""

from __future__ import annotations

import argparse
import asyncio
import ctypes
import errno
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from typing import Any

from waraq.bots.server import PlayerBot, builtin_players, serve_until_stopped
from waraq.v1 import bot_pb2 as pb


def _failed(error: OSError) -> str:
    return f"blocked: {errno.errorcode.get(error.errno or 0, type(error).__name__)}"


def read(path: str) -> str:
    try:
        with open(path, "rb") as file:
            return "done" if file.read(64) else "done (empty)"
    except OSError as error:
        return _failed(error)


def write(path: str) -> str:
    try:
        with open(path, "r+b") as file:
            file.seek(0)
            file.write(b"hijacked")
        return "done"
    except OSError as error:
        return _failed(error)


def stop(pid: int) -> str:
    try:
        os.kill(pid, signal.SIGSTOP)
        return "done"
    except OSError as error:
        return _failed(error)


def connect(port: int) -> str:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2):
            return "done"
    except OSError as error:
        return _failed(error)


def steal_port(port: int) -> str:
    """Bind the opponent's port beside it (SO_REUSEPORT): on a shared loopback, calls to it come here.

    "bound" alone proves nothing (a loopback of its own has the port free): the
    test checks from outside that the victim lost no call."""
    thief = socket.socket()
    try:
        thief.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        thief.bind(("127.0.0.1", port))
        thief.listen()
        _kept.append(thief)
        return "bound"
    except OSError as error:
        thief.close()
        return _failed(error)


def environment(name: str) -> str:
    return "done" if name in os.environ else "blocked: absent"


def spawn(token: str) -> str:
    """A child in a session of its own, meant to outlive the referee's cleanup."""
    try:
        subprocess.Popen(
            ["setsid", sys.executable, "-c", "import time, sys; time.sleep(600)", token],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        return "started"
    except OSError as error:
        return _failed(error)


def fork(count: int) -> str:
    """Start ``count`` processes; then end them, so the bot plays on to show the limit held.
    (Started as commands: a bare fork of a process running gRPC would wedge the bot itself.)"""
    children: list[subprocess.Popen[bytes]] = []
    result = "done"
    for _ in range(count):
        try:
            children.append(subprocess.Popen(["sleep", "600"]))
        except OSError as error:
            result = f"blocked after {len(children)}: {_failed(error)}"
            break
    for child in children:
        child.kill()
        child.wait()
    return result


def memory(mb: int) -> str:
    hoard = bytearray(mb << 20)
    for i in range(0, len(hoard), 4096):
        hoard[i] = 1  # touch every page: reserved memory is not used memory
    _kept.append(hoard)
    return "done"


def spin() -> str:
    while True:
        pass


def big_file(mb: int) -> str:
    # Python ignores SIGXFSZ (a write past the limit fails with EFBIG instead); a C program
    # does not: be one, so the limit kills as it kills most programs.
    signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
    chunk = b"x" * (1 << 20)
    with open(os.path.join(os.environ.get("TMPDIR", "/tmp"), "big"), "wb") as file:
        for _ in range(mb):
            file.write(chunk)
    return "done"


def unshare_user() -> str:
    """A user namespace of its own: every capability inside it, and the kernel's surface with them."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWUSER) == 0:
        return "done"
    return _failed(OSError(ctypes.get_errno(), "unshare"))


def fill_socket_folder(folder: str) -> str:
    """Write into the folder its socket is in (the host's disk, when that was a bind of /tmp/waraq-bot-*)."""
    written = 0
    chunk = b"x" * (1 << 16)
    try:
        with open(os.path.join(folder, "fill"), "wb") as file:
            while written < 64 << 20:
                file.write(chunk)
                file.flush()
                written += len(chunk)
        return f"done: {written} bytes"
    except OSError as error:
        return f"{_failed(error)} after {written} bytes"


def machine_counters() -> dict[str, str]:
    """Whether /proc's machine-wide counters move while this bot burns CPU, and whether sysinfo answers."""
    found = {}
    names = ("/proc/stat", "/proc/loadavg", "/proc/meminfo")
    before = {name: _read_all(name) for name in names}
    end = time.process_time() + 0.3
    hoard = []
    while time.process_time() < end:
        if len(hoard) < 1024:
            hoard.append(bytearray(1 << 16))  # 64 MiB in all: free memory moves as well as CPU time
    for name in names:
        found[f"proc:{name}"] = "moved" if _read_all(name) != before[name] else "still"
    libc = ctypes.CDLL(None, use_errno=True)
    info = ctypes.create_string_buffer(256)
    found["sysinfo"] = "done" if libc.sysinfo(info) == 0 else _failed(OSError(ctypes.get_errno(), "sysinfo"))
    return found


def _read_all(path: str) -> bytes:
    with open(path, "rb") as file:
        return file.read()


def hog(count: int) -> str:
    """``count`` spinning processes, each in a session of its own: they take the machine's CPU from the others."""
    for _ in range(count):
        subprocess.Popen(
            ["setsid", sys.executable, "-c", "while True: pass"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    return f"started {count}"


def link_socket(socket_path: str, target: str) -> None:
    """Leave a link where the socket should be, and wait: a referee that dials it reaches ``target``."""
    os.symlink(target, socket_path)
    time.sleep(600)


_kept: list[Any] = []
PROCESS = os.urandom(4).hex()
CLONE_NEWUSER = 0x10000000


def attacks(args: argparse.Namespace) -> dict[str, str]:
    found: dict[str, str] = {}
    targeted = (
        ("read", args.read, read),
        ("write", args.write, write),
        ("stop", args.stop, stop),
        ("connect", args.connect, connect),
        ("steal", args.steal_port, steal_port),
        ("env", args.env, environment),
        ("spawn", args.spawn, spawn),
    )
    for name, targets, attack in targeted:
        for target in targets:
            found[f"{name}:{target}"] = attack(target)
    for number, path in enumerate(args.read_hex):  # by number: long paths would outgrow the note
        found[f"read-hex:{number}"] = read(path)
    if args.fork:
        found["fork"] = fork(args.fork)
    if args.unshare_user:
        found["unshare user"] = unshare_user()
    if args.fill_socket_folder:
        found["fill socket folder"] = fill_socket_folder(os.path.dirname(args.unix))
    if args.proc:
        found.update(machine_counters())
    if args.hog:
        found["hog"] = hog(args.hog)
    found["processes seen"] = str(sum(1 for p in os.listdir("/proc") if p.isdigit()))
    if args.memory_mb:
        found["memory"] = memory(args.memory_mb)
    if args.big_file_mb:
        found["big file"] = big_file(args.big_file_mb)
    if args.spin:
        found["spin"] = spin()
    return found


class HostileBot(PlayerBot):
    """Plays random; attacks at its first decision; and in every note says which other seats of the
    same match this process was asked about (partners served by one process see both hands)."""

    def __init__(self, args: argparse.Namespace) -> None:
        super().__init__("hostile", builtin_players()["random"], author="tests/bots")
        self.args = args
        self.attacked = False
        self.seats_seen: dict[str, set[int]] = {}

    async def Play(self, requests: AsyncIterator[pb.RefereeMessage], context: Any) -> AsyncIterator[pb.BotMessage]:
        stream: dict[str, Any] = {}  # this stream's match and seat

        async def watched() -> AsyncIterator[pb.RefereeMessage]:
            async for message in requests:
                if message.WhichOneof("body") == "start":
                    stream.update(match=message.start.match_id, seat=message.start.seat)
                    self.seats_seen.setdefault(message.start.match_id, set()).add(message.start.seat)
                yield message

        async for message in super().Play(watched(), context):
            found = {}
            if not self.attacked:
                self.attacked = True
                found = attacks(self.args)
            others = sorted(self.seats_seen.get(stream.get("match", ""), set()) - {stream.get("seat")})
            found["other seats"] = ",".join(map(str, others)) or "none"
            found["process"] = PROCESS  # which process answered: tests tell apart what each one was sent
            message.reply.note = json.dumps(found, separators=(",", ":"))[:1024]
            yield message


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    listen = parser.add_mutually_exclusive_group(required=True)
    listen.add_argument("--port", type=int)
    listen.add_argument("--unix")
    parser.add_argument("--read", action="append", default=[])
    # The same, for a path given in hex (a path the command names is one the referee shows the bot),
    # reported as read-hex:N by its place among these.
    parser.add_argument("--read-hex", action="append", type=lambda h: bytes.fromhex(h).decode(), default=[])
    parser.add_argument("--write", action="append", default=[])
    parser.add_argument("--stop", action="append", type=int, default=[])
    parser.add_argument("--connect", action="append", type=int, default=[])
    parser.add_argument("--steal-port", action="append", type=int, default=[])
    parser.add_argument("--env", action="append", default=[])
    parser.add_argument("--spawn", action="append", default=[])
    parser.add_argument("--fork", type=int, default=0)
    parser.add_argument("--memory-mb", type=int, default=0)
    parser.add_argument("--big-file-mb", type=int, default=0)
    parser.add_argument("--spin", action="store_true")
    parser.add_argument("--unshare-user", action="store_true")
    parser.add_argument("--fill-socket-folder", action="store_true")
    parser.add_argument("--proc", action="store_true")
    parser.add_argument("--hog", type=int, default=0)
    parser.add_argument("--link-socket")
    args = parser.parse_args(argv)
    if args.link_socket:
        link_socket(args.unix, args.link_socket)
        return 0
    address = f"unix:{args.unix}" if args.unix else f"127.0.0.1:{args.port}"
    asyncio.run(serve_until_stopped(HostileBot(args), address, "hostile"))
    return 0


if __name__ == "__main__":
    sys.exit(main())

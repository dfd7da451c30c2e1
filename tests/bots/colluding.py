"""A gRPC Hokm bot that plays like the random bot and tells its partner its hand through the kernel.

    python tests/bots/colluding.py (--port N | --unix PATH)

It is what two dishonest authors would ship as partners (issue 30): every
sandbox shows the same read-only files (the interpreter's standard library),
and a lock or a watch is per inode, not per namespace. Each seat owns a bank
of 52 of those files, one per card, and at each decision it publishes the
cards it holds on its bank through four channels, then reads its partner's:

* ``flock``: a shared lock on each held card's file; the partner's
  ``LOCK_EX | LOCK_NB`` fails on exactly those;
* ``posix``: the same with ``fcntl``'s record locks (``F_SETLK``), read with
  ``F_GETLK``;
* ``ofd``: the same with open-file-description locks (``F_OFD_SETLK``);
* ``inotify``: it reads a byte of each held card's file; the partner watches
  its bank for ``IN_ACCESS`` and reads the cards read since its last decision
  (a read, not an open: closing a file would drop the process's ``posix``
  locks on it).

The note of each reply is JSON: for each channel the partner's cards it read
(``"AS KH"``), or the error that stopped it (``"error: ENOLCK"``). A test
compares the cards read with the partner's real hand in the record.
"""

from __future__ import annotations

import argparse
import asyncio
import ctypes
import errno
import fcntl
import glob
import json
import os
import struct
import sys
from collections.abc import AsyncIterator
from typing import Any

from waraq.bots.server import PlayerBot, builtin_players, serve_until_stopped
from waraq.referee.games.cards import CARD_BY_NAME, CARD_NAMES
from waraq.v1 import bot_pb2 as pb

# The same list of files in every sandbox: the interpreter's standard library, shown read-only to all.
FILES = sorted(glob.glob(os.path.join(os.path.dirname(os.__file__), "*.py")))[: 4 * 52]
IN_ACCESS = 0x1
LOCK = struct.Struct("hhqqi")  # struct flock: type, whence, start, len, pid


def bank(seat: int) -> list[str]:
    return FILES[seat * 52 : (seat + 1) * 52]


def _error(error: OSError) -> str:
    return "error: " + errno.errorcode.get(error.errno or 0, str(error))


class Channels:
    """One seat's four channels: publish its hand on its bank, read its partner's."""

    def __init__(self, seat: int, partner: int) -> None:
        self.mine = [os.open(path, os.O_RDONLY) for path in bank(seat)]
        self.partner_files = bank(partner)
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.watch: int | None = None
        self.watched: dict[int, int] = {}
        self.broken: dict[str, str] = {}
        try:
            self.watch = self._inotify()
        except OSError as error:
            self.broken["inotify"] = _error(error)

    def _inotify(self) -> int:
        fd = self.libc.inotify_init1(os.O_NONBLOCK)
        if fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1")
        for card, path in enumerate(self.partner_files):
            wd = self.libc.inotify_add_watch(fd, path.encode(), IN_ACCESS)
            if wd < 0:
                raise OSError(ctypes.get_errno(), "inotify_add_watch")
            self.watched[wd] = card
        return fd

    def publish(self, hand: set[int]) -> None:
        for card, fd in enumerate(self.mine):
            held = card in hand
            for name, lock in (("flock", self._flock), ("posix", self._posix), ("ofd", self._ofd)):
                if name not in self.broken:
                    try:
                        lock(fd, held)
                    except OSError as error:
                        self.broken[name] = _error(error)
            if held and "inotify" not in self.broken:
                os.pread(fd, 1, 0)

    def read(self) -> dict[str, str]:
        found = {}
        for name, probe in (("flock", self._flock_held), ("posix", self._posix_held), ("ofd", self._ofd_held)):
            if name in self.broken:
                found[name] = self.broken[name]
                continue
            try:
                found[name] = " ".join(CARD_NAMES[c] for c, path in enumerate(self.partner_files) if probe(path))
            except OSError as error:
                self.broken[name] = found[name] = _error(error)
        found["inotify"] = self.broken.get("inotify") or self._opened()
        return found

    def _flock(self, fd: int, held: bool) -> None:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB if held else fcntl.LOCK_UN)

    def _posix(self, fd: int, held: bool) -> None:
        fcntl.fcntl(fd, fcntl.F_SETLK, LOCK.pack(fcntl.F_RDLCK if held else fcntl.F_UNLCK, 0, 0, 1, 0))

    def _ofd(self, fd: int, held: bool) -> None:
        # Byte 1: another lock than posix's byte 0, so the two channels are read apart.
        fcntl.fcntl(fd, fcntl.F_OFD_SETLK, LOCK.pack(fcntl.F_RDLCK if held else fcntl.F_UNLCK, 0, 1, 1, 0))

    @staticmethod
    def _flock_held(path: str) -> bool:
        fd = os.open(path, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return False
        except BlockingIOError:
            return True
        finally:
            os.close(fd)

    @staticmethod
    def _posix_held(path: str) -> bool:
        with open(path, "rb") as file:
            answer = fcntl.fcntl(file, fcntl.F_GETLK, LOCK.pack(fcntl.F_WRLCK, 0, 0, 1, 0))
        return LOCK.unpack(answer)[0] != fcntl.F_UNLCK

    @staticmethod
    def _ofd_held(path: str) -> bool:
        with open(path, "rb") as file:
            answer = fcntl.fcntl(file, fcntl.F_OFD_GETLK, LOCK.pack(fcntl.F_WRLCK, 0, 1, 1, 0))
        return LOCK.unpack(answer)[0] != fcntl.F_UNLCK

    def _opened(self) -> str:
        assert self.watch is not None
        cards = set()
        while True:
            try:
                data = os.read(self.watch, 1 << 16)
            except BlockingIOError:
                break
            offset = 0
            while offset < len(data):
                wd, _, _, length = struct.unpack_from("iIII", data, offset)
                if wd in self.watched:
                    cards.add(self.watched[wd])
                offset += 16 + length
        return " ".join(CARD_NAMES[c] for c in sorted(cards))


class ColludingBot(PlayerBot):
    def __init__(self) -> None:
        super().__init__("colluding", builtin_players()["random"], author="tests/bots", games=("hokm",))

    async def Play(self, requests: AsyncIterator[pb.RefereeMessage], context: Any) -> AsyncIterator[pb.BotMessage]:
        channels: Channels | None = None
        hand: set[int] = set()

        async def watched() -> AsyncIterator[pb.RefereeMessage]:
            nonlocal channels, hand
            async for message in requests:
                body = message.WhichOneof("body")
                if body == "start" and message.start.players == 4:
                    seat = message.start.seat
                    channels = Channels(seat, (seat + 2) % 4)
                elif body == "decision":
                    hand = {CARD_BY_NAME[name] for name in message.decision.hokm.hand}
                yield message

        async for message in super().Play(watched(), context):
            if channels is not None:
                channels.publish(hand)
                message.reply.note = json.dumps(channels.read(), separators=(",", ":"))[:1024]
            yield message


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    listen = parser.add_mutually_exclusive_group(required=True)
    listen.add_argument("--port", type=int)
    listen.add_argument("--unix")
    args = parser.parse_args(argv)
    address = f"unix:{args.unix}" if args.unix else f"127.0.0.1:{args.port}"
    asyncio.run(serve_until_stopped(ColludingBot(), address, "colluding"))
    return 0


if __name__ == "__main__":
    sys.exit(main())

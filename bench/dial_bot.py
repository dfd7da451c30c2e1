"""A built-in bot that dials a referee's lobby: ``waraq.bots.server``'s own servicer over ``Lobby.Dial``.

    python bench/dial_bot.py random --connect HOST:PORT --tokens FILE [--spare N] [--back-off S] [--times]

For bench/lobby.py only. The built-in bot server (sample_bots/server.py) only
listens; this wraps the very servicer it serves (``PlayerBot``: the same
``Play`` coroutine, the same player) around Dial streams this process opens,
so a launched bot and a dialled-in one differ only in how the bytes travel.
One channel (so one connection) per token in FILE (one token a line), each
its own bot, as separate bot processes would be.

Each bot keeps ``--spare`` streams offered; as one is seated (its ``start``
arrives) it opens another, as the starter kits do. A stream lost dials again
after ``--back-off`` seconds ±20 % (the Python kit's first wait, 0.5 s; 0:
at once), with its match and seat if it held one; unless, meanwhile, another
of its streams was sent that seat's MatchStart (a waiting stream dialled back
and was given the seat as unheard: lobby.py's ``_unheard_away``), which holds
the seat now. Dialling back for it anyway would take it from that stream,
and the referee would go on reading the stream it took it from (bench/lobby.py's
docstring). With ``--times``, each stream's first DecisionRequest prints a
JSON line, ``{"first": T, "slept": S}``: T the ``time.monotonic()`` of its
arrival (CLOCK_MONOTONIC, the clock of the referee's event loop too), S what
the stream slept before dialling.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import signal
import sys
import time
from collections.abc import AsyncIterator

import grpc

from waraq.bots.server import GAMES, PlayerBot, builtin_players
from waraq.referee.common import built_in
from waraq.v1 import bot_pb2 as pb

DIAL = "/waraq.v1.Lobby/Dial"
REFUSED = (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.FAILED_PRECONDITION)
SEAT_GONE = (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.ABORTED)
OFFER_FLOOR_S = 0.05  # the least a stream that only waited for a seat waits before dialling again


class DialBot:
    """One bot: one channel to the lobby, ``spare`` streams offered, each seat played by ``servicer``."""

    def __init__(
        self, address: str, token: str, servicer: PlayerBot, *, spare: int, back_off_s: float, times: bool
    ) -> None:
        # A subchannel pool of its own: channels to one address would otherwise share one connection.
        self.channel = grpc.aio.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)])
        self.dial = self.channel.stream_stream(
            DIAL, request_serializer=pb.BotMessage.SerializeToString, response_deserializer=pb.RefereeMessage.FromString
        )
        self.token = token
        self.servicer = servicer
        self.spare = spare
        self.back_off_s = back_off_s
        self.times = times  # print when each stream's first request arrives
        self.hello: pb.HelloReply | None = None
        self.tasks: set[asyncio.Task[None]] = set()
        # (match id, seat) -> the seat offer (:meth:`_seat`) whose stream was last sent its MatchStart.
        self.held: dict[tuple[str, int], object] = {}

    async def run(self) -> None:
        self.hello = await self.servicer.Hello(pb.HelloRequest(), None)
        for _ in range(self.spare):
            self._open()
        await asyncio.Event().wait()  # until cancelled

    def _open(self) -> None:
        task = asyncio.create_task(self._seat())
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _seat(self) -> None:
        """One seat offer: waited on, played to its end, dialled back for after each drop."""
        start: pb.MatchStart | None = None
        slept = 0.0
        me = object()  # this seat offer's streams, in self.held
        while True:
            try:
                await self._stream(start, slept, me)
                return
            except Dropped as dropped:
                if dropped.code in REFUSED:
                    print(f"refused: {dropped.code.name} {dropped.details}", file=sys.stderr, flush=True)
                    raise SystemExit(1) from None
                if dropped.code in SEAT_GONE:
                    return
                start = dropped.start or start
            slept = self.back_off_s * random.uniform(0.8, 1.2)
            await asyncio.sleep(slept if start is not None else max(slept, OFFER_FLOOR_S))
            if start is not None and self.held.get((start.match_id, start.seat)) is not me:
                return  # another of this bot's streams was sent the seat's MatchStart since: it holds the seat

    async def _stream(self, resume: pb.MatchStart | None, slept: float, me: object) -> None:
        """One Dial stream of the seat offer ``me``, to its end; :class:`Dropped` if it ends otherwise than OK."""
        dial = pb.Dial(token=self.token, hello=self.hello)
        if resume is not None:
            dial.match_id, dial.seat = resume.match_id, resume.seat
        call = self.dial(wait_for_ready=True)
        start = resume
        first = True

        async def messages() -> AsyncIterator[pb.RefereeMessage]:
            nonlocal start, first
            while True:
                message = await call.read()
                if message is grpc.aio.EOF:
                    return
                body = message.WhichOneof("body")
                if body == "start":
                    if start is None:
                        self._open()  # seated: another stream takes this one's place as an offer
                    start = message.start
                    self.held[start.match_id, start.seat] = me
                elif body == "decision" and first:
                    first = False
                    if self.times:
                        print(json.dumps({"first": time.monotonic(), "slept": slept}), flush=True)
                yield message

        try:
            await call.write(pb.BotMessage(dial=dial))
            async for reply in self.servicer.Play(messages(), None):
                await call.write(reply)
            await call.done_writing()
        except grpc.aio.AioRpcError as error:
            raise Dropped(error.code(), error.details() or "", start) from None
        except (grpc.aio.UsageError, asyncio.InvalidStateError):  # the call ended as we wrote: how?
            code = await call.code()
            if code is not grpc.StatusCode.OK:
                raise Dropped(code, await call.details() or "", start) from None
        if start is not None and self.held.get((start.match_id, start.seat)) is me:
            del self.held[start.match_id, start.seat]


class Dropped(Exception):
    """A Dial stream ended with ``code``; ``start``: the seat it held, if it held one."""

    def __init__(self, code: grpc.StatusCode, details: str, start: pb.MatchStart | None) -> None:
        super().__init__(f"{code.name}: {details}")
        self.code = code
        self.details = details
        self.start = start


async def main_async(args: argparse.Namespace) -> None:
    tokens = [line.strip() for line in open(args.tokens) if line.strip()]
    games = tuple(game for game in GAMES if game in built_in.get(args.name).games)
    servicer = PlayerBot(args.name, builtin_players()[args.name], games=games)
    bots = [
        DialBot(args.connect, t, servicer, spare=args.spare, back_off_s=args.back_off, times=args.times) for t in tokens
    ]
    runs = [asyncio.create_task(bot.run()) for bot in bots]
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    done = asyncio.create_task(stop.wait())
    await asyncio.wait([done, *runs], return_when=asyncio.FIRST_COMPLETED)
    for task in runs:
        task.cancel()
    for bot in bots:
        for task in list(bot.tasks):
            task.cancel()
    await asyncio.gather(*(bot.channel.close() for bot in bots))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("name", help="a built-in bot")
    parser.add_argument("--connect", required=True, metavar="HOST:PORT")
    parser.add_argument("--tokens", required=True, metavar="FILE", help="one token a line: a bot (a channel) each")
    parser.add_argument("--spare", type=int, default=1, help="streams each bot keeps offered (default 1)")
    parser.add_argument("--back-off", type=float, default=0.5, help="seconds before dialling back (default 0.5)")
    parser.add_argument("--times", action="store_true", help="print when each stream's first request arrives")
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()

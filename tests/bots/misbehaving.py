"""A gRPC bot that plays like the random bot until it misbehaves in one chosen way.

    python tests/bots/misbehaving.py MODE --port N [--at K] [--count C] [--matches ID,ID]
                                      [--pidfile FILE] [--child] [--ignore-term]

It is a real process for the referee to launch, so that the tests see what a
bot author's broken program would do to it. Until its misbehaviour triggers it
answers exactly as ``sample_bots``' random bot does (the same player, seeded
from the match id and seat), so a record of it matches a clean record up to
the fault.

The ``HELLO_MODES`` misbehave in ``Hello`` only and then play cleanly. Any
other misbehaviour happens at the ``--at``-th decision request of a ``Play``
stream (one match, one seat), counting from 1, and at the next ``--count - 1``
requests after it. Modes that need a card to play (``illegal``, ``wrong_kind``,
``garbage``) wait for the first ``PLAY`` request from there on; ``illegal
--how revoke`` waits for a trick it could follow but does not. With
``--matches`` it misbehaves only in those matches.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from waraq.bots import codec
from waraq.bots.hokm_random import RandomPlayer
from waraq.referee.games.cards import parse_card
from waraq.v1 import bot_pb2 as pb
from waraq.v1 import bot_pb2_grpc

MODES = {
    "slow": "sleeps far past deadline + bank before replying",
    "exit": "the whole process exits at once, mid-match, without replying",
    "illegal": "plays a card it does not hold (--how unheld) or fails to follow suit (--how revoke)",
    "wrong_kind": "answers a PLAY with Action.suit instead of Action.card",
    "garbage": "answers a PLAY with the card '11X'",
    "bad_seq": "echoes seq + 1000 instead of the request's seq",
    "twice": "sends the same reply twice to one request",
    "never_healthy": "serves, but the health service says NOT_SERVING forever",
    "never_bind": "runs but never listens on its port",
    "crash_at_start": "exits with status 3 before serving",
    "nameless": "its Hello gives no name",
    "wrong_game": "its Hello declares that it plays hand [4] only",
    "wrong_protocol": "its Hello declares protocol_version 2",
}
HELLO_MODES = ("nameless", "wrong_game", "wrong_protocol")
CARD_MODES = ("illegal", "wrong_kind", "garbage")  # they misbehave on a PLAY only
GARBAGE = "11X"
SEQ_SHIFT = 1000
CRASH_STATUS = 3
EXIT_STATUS = 17
PLAYS = pb.GameSupport(game="hokm", players=[2, 3, 4])  # what it plays, as the random bot it is


class MisbehavingBot(bot_pb2_grpc.BotServicer):
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args

    async def Hello(self, request: pb.HelloRequest, context: Any) -> pb.HelloReply:
        mode = self.args.mode
        return pb.HelloReply(
            name="" if mode == "nameless" else f"misbehaving-{mode}",
            version="test",
            author="tests/bots",
            games=[pb.GameSupport(game="hand", players=[4]) if mode == "wrong_game" else PLAYS],
            protocol_version=2 if mode == "wrong_protocol" else codec.PROTOCOL_VERSION,
        )

    async def Play(self, requests: AsyncIterator[pb.RefereeMessage], context: Any) -> AsyncIterator[pb.BotMessage]:
        player: RandomPlayer | None = None
        match_id, asked, done = "", 0, 0
        async for message in requests:
            body = message.WhichOneof("body")
            if body == "start":
                match_id = message.start.match_id
                player = RandomPlayer(f"{match_id}/{message.start.seat}")  # as the random bot seeds it
                asked = done = 0
            elif body == "decision" and player is not None:
                request = message.decision
                asked += 1
                kind = codec.kind_of(request)
                action = codec.action_to_message(kind, player(codec.message_to_view(request)))
                reply = pb.DecisionReply(seq=request.seq, action=action)
                if self._due(done, asked, match_id, request):
                    done += 1
                    async for bad in self._misbehave(request, reply):
                        yield bad
                    continue
                yield pb.BotMessage(reply=reply)

    def _due(self, done: int, asked: int, match_id: str, request: pb.DecisionRequest) -> bool:
        """Whether to misbehave at this request: ``done`` misbehaviours so far, ``asked`` requests."""
        if self.args.mode in HELLO_MODES or done >= self.args.count or asked < self.args.at:
            return False
        return self._in_match(match_id) and self._fits(request)

    def _in_match(self, match_id: str) -> bool:
        return not self.args.matches or match_id in self.args.matches.split(",")

    def _fits(self, request: pb.DecisionRequest) -> bool:
        mode = self.args.mode
        if mode not in CARD_MODES:
            return True
        if request.kind != "PLAY":
            return False
        if mode == "illegal" and self.args.how == "unheld":
            return len(request.hokm.tricks) > 0  # a card already played this round is surely not held
        if mode == "illegal":
            return _revoke_card(request) is not None
        return True

    async def _misbehave(self, request: pb.DecisionRequest, reply: pb.DecisionReply) -> AsyncIterator[pb.BotMessage]:
        mode = self.args.mode
        print(f"misbehaving ({mode}) at seq {request.seq} of {request.match_id}", file=sys.stderr, flush=True)
        if mode == "slow":
            await asyncio.sleep(self.args.sleep_s)
        elif mode == "exit":
            os._exit(EXIT_STATUS)
        elif mode == "illegal" and self.args.how == "unheld":
            reply.action.CopyFrom(pb.Action(card=request.hokm.tricks[0].cards[0]))
        elif mode == "illegal":
            reply.action.CopyFrom(pb.Action(card=_revoke_card(request)))
        elif mode == "wrong_kind":
            reply.action.CopyFrom(pb.Action(suit="S"))
        elif mode == "garbage":
            reply.action.CopyFrom(pb.Action(card=GARBAGE))
        elif mode == "bad_seq":
            reply.seq = request.seq + SEQ_SHIFT
        elif mode == "twice":
            yield pb.BotMessage(reply=reply)
        yield pb.BotMessage(reply=reply)


def _revoke_card(request: pb.DecisionRequest) -> str | None:
    """The lowest card off the led suit, when the seat holds the led suit too (so must follow)."""
    view = request.hokm
    if not view.trick:
        return None
    led = parse_card(view.trick[0].card) // 13
    hand = [parse_card(c) for c in view.hand]
    off = [c for c in hand if c // 13 != led]
    if not off or len(off) == len(hand):
        return None
    return next(name for name in view.hand if parse_card(name) == min(off))


async def serve(args: argparse.Namespace) -> None:
    server = grpc.aio.server()
    bot_pb2_grpc.add_BotServicer_to_server(MisbehavingBot(args), server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    server.add_insecure_port(f"127.0.0.1:{args.port}")
    await server.start()
    never = args.mode == "never_healthy"
    status = health_pb2.HealthCheckResponse.NOT_SERVING if never else health_pb2.HealthCheckResponse.SERVING
    for service in ("", pb.DESCRIPTOR.services_by_name["Bot"].full_name):
        await health_servicer.set(service, status)
    print(f"misbehaving bot ({args.mode}) on port {args.port}", flush=True)
    await server.wait_for_termination()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=MODES)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--at", type=int, default=5, help="misbehave from this decision of a stream on (1-based)")
    parser.add_argument("--count", type=int, default=1, help="how many decisions to misbehave at")
    parser.add_argument("--matches", default="", help="comma-separated match ids to misbehave in (default: all)")
    parser.add_argument("--how", choices=("unheld", "revoke"), default="unheld", help="illegal: which illegal card")
    parser.add_argument("--sleep-s", type=float, default=60.0, help="slow: how long to sleep")
    parser.add_argument("--pidfile", help="write {pid, pgid, child} here as JSON at start")
    parser.add_argument("--child", action="store_true", help="start a sleeping child process in the same group")
    parser.add_argument("--ignore-term", action="store_true", help="ignore SIGTERM (so only SIGKILL ends it)")
    args = parser.parse_args(argv)

    if args.ignore_term:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    child = None
    if args.child:
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    if args.pidfile:
        with open(args.pidfile, "w") as file:
            json.dump({"pid": os.getpid(), "pgid": os.getpgrp(), "child": child and child.pid}, file)
    if args.mode == "crash_at_start":
        print(f"misbehaving bot (crash_at_start): exiting with status {CRASH_STATUS}", file=sys.stderr, flush=True)
        return CRASH_STATUS
    if args.mode == "never_bind":
        time.sleep(3600)
        return 0
    asyncio.run(serve(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""A gRPC bot that keeps every message the referee sends it, for information-hiding tests.

Run it in the test's event loop with ``waraq.bots.server.start_server`` (a
real server on port 0). It plays at random, seeded from the match id and seat
like the random bot, except that it always asks for a redeal and always calls
bam when it may: so those decisions, and what they show, happen often. In a
Hand match (``MatchStart.game``) it always takes the discard when offered, so
that views with a taken card and its uses happen often too.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from typing import Any

from waraq.bots import codec
from waraq.referee.games.hokm.engine import BAM, REDEAL, HokmView
from waraq.v1 import bot_pb2 as pb
from waraq.v1 import bot_pb2_grpc


class EagerPlayer:
    """Random, but says yes to every redeal and every bam offered."""

    def __init__(self, seed: int | str) -> None:
        self._rng = random.Random(seed)

    def __call__(self, view: HokmView) -> Any:
        if view.kind in (REDEAL, BAM):
            return True
        return self._rng.choice(view.legal)


class EagerHandPlayer:
    """Hand: takes every discard offered, then plays a random legal turn (the random bot's)."""

    def __init__(self, seed: int | str) -> None:
        self._rng = random.Random(seed)

    def __call__(self, view: Any) -> Any:
        from waraq.bots.hand_random import random_turn

        if view.kind == "TAKE":
            return "discard"
        return random_turn(view, self._rng)


def eager_player(match_id: str, seat: int, game: str = "hokm") -> EagerPlayer | EagerHandPlayer:
    if game == "hand":
        return EagerHandPlayer(f"{match_id}/{seat}")
    return EagerPlayer(f"{match_id}/{seat}")


class RecordingBot(bot_pb2_grpc.BotServicer):
    """Serves any number of seats; ``streams`` holds each ``Play`` stream's messages, in order."""

    def __init__(self) -> None:
        self.streams: list[list[pb.RefereeMessage]] = []

    async def Hello(self, request: pb.HelloRequest, context: Any) -> pb.HelloReply:
        return pb.HelloReply(
            name="recording",
            version="test",
            author="tests/bots",
            games=[pb.GameSupport(game=game, players=[2, 3, 4]) for game in ("hokm", "hand")],
            protocol_version=codec.PROTOCOL_VERSION,
        )

    async def Play(self, requests: AsyncIterator[pb.RefereeMessage], context: Any) -> AsyncIterator[pb.BotMessage]:
        received: list[pb.RefereeMessage] = []
        self.streams.append(received)
        player = None
        async for message in requests:
            received.append(message)
            body = message.WhichOneof("body")
            if body == "start":
                player = eager_player(message.start.match_id, message.start.seat, message.start.game)
            elif body == "decision" and player is not None:
                request = message.decision
                kind = codec.kind_of(request)
                action = player(codec.message_to_view(request))
                reply = pb.DecisionReply(seq=request.seq, action=codec.action_to_message(kind, action))
                yield pb.BotMessage(reply=reply)

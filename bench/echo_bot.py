"""The transport's ceiling bot: answers every decision at once, thinking nothing.

    python bench/echo_bot.py --port N        # N = 0: any free port (printed)

The same server as the sample bots (``waraq.bots.server.start_server``:
health and reflection included), but ``Play`` echoes each request's ``seq``
with its first legal action: no engine, no view parsing, no player. What is
left is gRPC, protobuf and the event loop, which is what ``bench/transport.py``
measures the referee against.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import AsyncIterator
from typing import Any

from waraq.bots import codec
from waraq.bots.server import serve_until_stopped
from waraq.v1 import bot_pb2 as pb
from waraq.v1 import bot_pb2_grpc


class EchoBot(bot_pb2_grpc.BotServicer):
    async def Hello(self, request: pb.HelloRequest, context: Any) -> pb.HelloReply:
        return pb.HelloReply(
            name="echo",
            version="bench",
            games=[pb.GameSupport(game="hokm", players=[2, 3, 4])],
            protocol_version=codec.PROTOCOL_VERSION,
        )

    async def Play(self, requests: AsyncIterator[pb.RefereeMessage], context: Any) -> AsyncIterator[pb.BotMessage]:
        async for message in requests:
            if message.HasField("decision"):
                request = message.decision
                yield pb.BotMessage(reply=pb.DecisionReply(seq=request.seq, action=request.legal[0]))


async def serve(address: str) -> None:
    await serve_until_stopped(EchoBot(), address, "echo")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=0, help="TCP port on 127.0.0.1 (0: any free port)")
    args = parser.parse_args()
    asyncio.run(serve(f"127.0.0.1:{args.port}"))


if __name__ == "__main__":
    main()

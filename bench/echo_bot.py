"""The transport's ceiling bot: answers every decision at once, thinking nothing.

    python bench/echo_bot.py --port N        # N = 0: any free port (printed)

The same server as the sample bots (``sample_bots.server.start_server``:
health and reflection included), but ``Play`` echoes each request's ``seq``
with its first legal action: no engine, no view parsing, no player. What is
left is gRPC, protobuf and the event loop, which is what ``bench/grpc.py``
measures the referee against.
"""

from __future__ import annotations

import sys
from pathlib import Path

# bench/grpc.py would shadow the grpc package if this folder led sys.path.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

import argparse  # noqa: E402
import asyncio  # noqa: E402
from collections.abc import AsyncIterator  # noqa: E402
from typing import Any  # noqa: E402

from waraq.v1 import bot_pb2 as pb  # noqa: E402
from waraq.v1 import bot_pb2_grpc  # noqa: E402

from referee import wire  # noqa: E402
from sample_bots.server import serve_until_stopped  # noqa: E402


class EchoBot(bot_pb2_grpc.BotServicer):
    async def Hello(self, request: pb.HelloRequest, context: Any) -> pb.HelloReply:
        return pb.HelloReply(
            name="echo",
            version="bench",
            games=[pb.GameSupport(game="hokm", players=[2, 3, 4])],
            protocol_version=wire.PROTOCOL_VERSION,
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

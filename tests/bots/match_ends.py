"""A gRPC bot that plays like the random bot and prints a line for every MatchEnd it receives.

    python tests/bots/match_ends.py --unix PATH [--learn-ms N]

What a bot that learns from its results does: it needs every match's end,
the run's last one included, and takes a while over each (``--learn-ms``)
before it says so: ``match end MATCH_ID``, on its log (stdout), which the
tests count.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import AsyncIterator
from typing import Any

from waraq.bots.server import PlayerBot, builtin_players, serve_until_stopped
from waraq.v1 import bot_pb2 as pb

END_LINE = "match end "


class MatchEndCounter(PlayerBot):
    def __init__(self, learn_s: float) -> None:
        super().__init__("match-ends", builtin_players()["random"], author="tests/bots")
        self.learn_s = learn_s

    async def Play(self, requests: AsyncIterator[pb.RefereeMessage], context: Any) -> AsyncIterator[pb.BotMessage]:
        match = ""

        async def watched() -> AsyncIterator[pb.RefereeMessage]:
            nonlocal match
            async for message in requests:
                body = message.WhichOneof("body")
                if body == "start":
                    match = message.start.match_id
                elif body == "end":
                    await asyncio.sleep(self.learn_s)  # learning from the result
                    print(f"{END_LINE}{match}", flush=True)
                yield message

        async for reply in super().Play(watched(), context):
            yield reply


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--unix", required=True)
    parser.add_argument("--learn-ms", type=float, default=0)
    args = parser.parse_args()
    asyncio.run(serve_until_stopped(MatchEndCounter(args.learn_ms / 1000), f"unix:{args.unix}", "match-ends"))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""A gRPC bot that looks for the deal key where a careless referee would leave it, and tells.

    python tests/bots/snooping.py --port N

It plays as ``sample_bots``' random bot, and its ``Hello`` name says what it
found in its own environment: ``snoop-saw-a-key`` or ``snoop-saw-nothing``.
The referee records that name in every record's header, so a test reads there
what a stranger's bot could have learnt.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys

from waraq.bots import server


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    found = "a-key" if os.environ.get("WARAQ_DEAL_KEY") else "nothing"
    bot = server.PlayerBot(f"snoop-saw-{found}", server.builtin_players()["random"])
    asyncio.run(server.serve_until_stopped(bot, f"127.0.0.1:{args.port}", "snooping"))
    return 0


if __name__ == "__main__":
    sys.exit(main())

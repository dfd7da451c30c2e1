"""The options of a human seat's page (``--page``, ``--open``), and the clock a person gets.

``waraq match`` takes them; they are read here so that a command that seats no
person never imports the web stack. A person is slower than a bot: when a
human sits and the command gives no clock, the match gets :data:`HUMAN_CLOCK`
(every seat alike, since a match has one time control and the record one
header).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

LOOPBACK = "127.0.0.1:0"  # where the page is served unless told: this machine only, any free port
EXTRA = "serve"  # the optional dependencies that hold the web stack: pip install 'waraq[serve]'
# (decision_ms, bank_ms, startup_ms) when a person sits: a minute a decision, ten minutes of bank, and
# ten minutes to open the page.
HUMAN_CLOCK = (60_000.0, 600_000.0, 600_000.0)


@dataclass(frozen=True)
class PageConfig:
    address: str = LOOPBACK
    open_browser: bool = False  # --open: ask the desktop's browser to open each person's page


def add_page_options(command: argparse.ArgumentParser) -> None:
    group = command.add_argument_group("human seats (BOT 'human': a person plays through a page)")
    group.add_argument(
        "--page",
        metavar="HOST:PORT",
        default=LOOPBACK,
        help=f"where each person's page is served (default {LOOPBACK}: this machine only, any free port); "
        "whoever reaches it with the printed address holds the seat",
    )
    group.add_argument("--open", action="store_true", help="open each person's page in this desktop's browser")


def page_config(args: argparse.Namespace) -> PageConfig:
    return PageConfig(args.page, args.open)

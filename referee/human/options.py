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


KEEP_S = 600.0  # how long a page is kept after the run, at a terminal: its replays are served from it


@dataclass(frozen=True)
class PageConfig:
    address: str = LOOPBACK
    open_browser: bool = False  # --open: ask the desktop's browser to open each person's page
    # After the run, how long the page (and its matches' replays) stays served, or until Ctrl-C; 0: not at all.
    keep_s: float = 0.0


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
    group.add_argument(
        "--keep-page",
        type=_seconds,
        metavar="S",
        help=f"after the run, keep each page (with its matches' replays) S seconds more, or until Ctrl-C "
        f"(default {KEEP_S:g} at a terminal, 0 otherwise)",
    )


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 86_400:
        raise argparse.ArgumentTypeError(f"{text!r} is not allowed: expected seconds, from 0 to 86400")
    return value


def page_config(args: argparse.Namespace, *, interactive: bool) -> PageConfig:
    """The page's options; ``interactive``: a person at the terminal, who may still want the replays."""
    keep = args.keep_page if args.keep_page is not None else KEEP_S if interactive else 0.0
    return PageConfig(args.page, args.open, keep)

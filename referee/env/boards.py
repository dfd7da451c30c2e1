"""What the environments share with the ladder: the deal of a board, and a side's reward.

A ladder's board is its matches (rooms) of one seed, each room dealt so that every
seat gets the same cards whoever deals (:class:`~waraq.referee.games.dealers.SeatDealer`,
for a game that deals by seat: Hokm), the bots moved round the table from room to
room. An environment reset with ``options={"board": seed}`` deals that board: an agent
evaluated at each seat of the same boards holds each seat's cards once, as a ladder's
bots do, so its evaluation is paired as theirs is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from waraq.referee.games import registry
from waraq.referee.games.dealers import SeatDealer


def board_of(options: Mapping[str, Any] | None) -> int | None:
    """The board a reset's ``options`` ask for, checked: None when they ask for none."""
    if not options or options.get("board") is None:
        return None
    board = options["board"]
    if isinstance(board, bool) or not isinstance(board, int) or board < 0:
        raise ValueError(f"options['board'] = {board!r}: expected a board's seed, an integer of at least 0")
    return board


def board_dealer(rules: Any, board: int) -> SeatDealer | None:
    """The dealer of every room of ``board`` (None: the game's own dealer of the seed deals it)."""
    return SeatDealer(board) if registry.entry(registry.game_of_rules(rules)).deals_by_seat else None


def side_reward(winners: tuple[int, ...] | list[int], seat: int) -> int:
    """+1 for a seat of the winning side, -1 for the others, 0 for all in a match without winners (aborted)."""
    if not winners:
        return 0
    return 1 if seat in winners else -1

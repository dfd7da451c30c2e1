"""Whole matches in one process, with Python callables as players.

For tests, benchmarks and search bots: no gRPC, no clocks, no files. Each
player is called with its seat's view (what it may know, including its legal
actions) and returns one of those actions. Nothing is caught: a player that
returns an illegal action raises :class:`~referee.games.hokm.IllegalAction`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from referee.games.hokm import HokmState, HokmView, new_match
from referee.games.hokm_rules import HokmRules

Player = Callable[[HokmView], Any]


def play_match(rules: HokmRules, seed: int | str, players: Sequence[Player]) -> HokmState:
    """Play a match to its end; the returned state holds the result and the events."""
    if len(players) != rules.players:
        raise ValueError(f"{rules.players} players needed, {len(players)} given")
    state = new_match(rules, seed)
    while state.result is None:
        seat = state.to_act
        state.apply(players[seat](state.view(seat)))
    return state

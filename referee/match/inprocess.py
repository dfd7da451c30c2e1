"""Whole matches in one process, with Python callables as players.

For tests, benchmarks and search bots: no gRPC, no clocks, no files. Each
player is called with its seat's view (what it may know, including its legal
actions) and returns one of those actions. Nothing is caught: a player that
returns an illegal action raises the engine's ``IllegalAction``. The rules
name the game (:mod:`waraq.referee.games.registry`): Hokm or Hand alike.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from waraq.referee.games.registry import engine, game_of_rules

Player = Callable[[Any], Any]  # a seat's view -> one of its legal actions


def play_match(
    rules: Any,
    seed: int | str,
    players: Sequence[Player],
    dealer: Any = None,
    before_each: Callable[[Any, Player], None] | None = None,
) -> Any:
    """Play a match to its end; the returned state holds the result and the events.

    ``dealer``: the decks to deal instead of the seed's (the game's dealer, duck-typed).
    ``before_each(state, player)``: called before each decision with the whole state and the
    player about to decide, for benchmarks that measure what knowing more would be worth; a
    player never sees more than its view unless such a hook hands it more."""
    if len(players) != rules.players:
        raise ValueError(f"{rules.players} players needed, {len(players)} given")
    state = engine(game_of_rules(rules)).new_match(rules, seed, dealer)
    while state.result is None:
        seat = state.to_act
        assert seat is not None  # a match not over has a decision pending
        player = players[seat]
        if before_each is not None:
            before_each(state, player)
        state.apply(player(state.view(seat)))
    return state

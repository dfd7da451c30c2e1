"""`waraq play` for Hand: a match between random players, one row a round.

The registry's ``Part.PLAY`` for Hand (:mod:`waraq.referee.cli.main` asks for it).
"""

from __future__ import annotations

import random
from typing import Any

from rich.console import Console
from rich.table import Table

from waraq.referee.cli.games import side_name
from waraq.referee.games import registry


def play(console: Console, rules: Any, seed: int, tricks: bool = False) -> int:
    """One Hand match between random players (each seeded from the match seed and its seat); Hand
    has no tricks to print."""
    state = registry.engine("hand").new_match(rules, seed)
    rngs = [random.Random(f"{seed}/{seat}") for seat in range(rules.players)]
    while state.result is None:
        seat = state.to_act
        assert seat is not None  # a match not over has a decision pending
        state.apply(state.random_action(rngs[seat]))
    console.print(
        f"Hand, {rules.players} players{' in partnership' if rules.partnership else ''}, "
        f"{rules.rounds} round{'s' if rules.rounds != 1 else ''}, opening {rules.opening_points}, seed {seed} "
        f"({rules.rules_hash[:19]}…)",
        highlight=False,
    )
    console.print(_hand_rounds_table(rules, state.events))
    result = state.result
    score = _sides_text(rules, list(result.score))
    if result.winners:
        who = " and ".join(f"seat {s}" for s in result.winners)
        console.print(f"[bold]{who} won[/bold], score {score} ({result.reason}, lowest wins)", highlight=False)
    else:
        console.print(f"[bold]nobody won[/bold], score {score} ({result.reason})", highlight=False)
    return 0


def _hand_rounds_table(rules: Any, events: list[dict[str, Any]]) -> Table:
    """One row per round_end (a void deal too): who dealt first, the turns, who went out, the points."""
    teams = rules.teams < rules.players  # else a seat's points are its charges: one column
    table = Table(title="Rounds", title_justify="left")
    for name in ("round", "first", "turns", "out", "charges by seat", *(("points",) if teams else ()), "score"):
        table.add_column(name, justify="right" if name in ("round", "first", "turns") else "left")
    first, turns = 0, 0
    for event in events:
        if event["type"] == "deal":
            first, turns = event["first"], 0
        elif event.get("kind") == "TURN":
            turns += 1
        elif event["type"] == "round_end":
            if event.get("void"):
                out = "void: dealt again"
            else:
                out = f"seat {event['out']}" + (" (hand: doubled)" if event["hand"] else "")
            table.add_row(
                str(event["round"]),
                str(first),
                str(turns),
                out,
                " ".join(map(str, event["charges"])),
                *((_sides_text(rules, event["points"]),) if teams else ()),
                _sides_text(rules, event["score"]),
            )
    return table


def _sides_text(rules: Any, values: list[int]) -> str:
    """Per side: named when seats play in teams (``0+2:-30 1+3:45``), else the values in seat order
    (``29 26 100 -30``: Hand's scores go below zero, so no dashes between them)."""
    if rules.teams == rules.players:
        return " ".join(map(str, values))
    return " ".join(f"{side_name(rules, side)}:{v}" for side, v in enumerate(values))

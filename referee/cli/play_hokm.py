"""`waraq play` for Hokm: a match between the built-in random bot's players, its rounds and tricks.

The registry's ``Part.PLAY`` for Hokm (:mod:`waraq.referee.cli.main` asks for it).
"""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from waraq.referee.cli.games import side_name
from waraq.referee.common import built_in
from waraq.referee.games.cards import parse_card, parse_suit
from waraq.referee.games.hokm.engine import HokmState, winning_index
from waraq.referee.games.hokm.rules import HokmRules
from waraq.referee.match.inprocess import play_match


def play(console: Console, rules: HokmRules, seed: int, tricks: bool) -> int:
    """One Hokm match between the built-in random bot's players, each seeded from the seed and its seat."""
    random_player = built_in.get("random").player_class("hokm")
    players = [random_player(f"{seed}/{seat}") for seat in range(rules.players)]
    state = play_match(rules, seed, players)
    console.print(
        f"Hokm, {rules.players} players, to {rules.target_score} points, seed {seed} ({rules.rules_hash[:19]}…)",
        highlight=False,
    )
    if tricks:
        _print_tricks(console, state)
    console.print(_rounds_table(state))
    result = state.result
    assert result is not None
    who = " and ".join(f"seat {s}" for s in result.winners)
    console.print(f"[bold]{who} won[/bold], score {'-'.join(map(str, result.score))} ({result.reason})")
    return 0


def _rounds_table(state: HokmState) -> Table:
    rules = state.rules
    table = Table(title="Rounds", title_justify="left")
    for name in ("round", "hakem", "trump", "tricks by seat", "won by", "points", "kot", "score"):
        table.add_column(name, justify="right" if name in ("round", "hakem", "points") else "left")
    for event in state.events:
        if event["type"] != "round_end":
            continue
        winner = next(i for i, p in enumerate(event["points"]) if p)
        table.add_row(
            str(event["round"]),
            str(event["hakem"]),
            event["trump"],
            " ".join(map(str, event["tricks"])),
            side_name(rules, winner),
            str(event["points"][winner]),
            (event["kot"] or "").replace("_", "-"),
            "-".join(map(str, event["score"])),
        )
    return table


def _print_tricks(console: Console, state: HokmState) -> None:
    """Each round's tricks, rebuilt from the events alone, as a record reader would."""
    players = state.rules.players
    trump, leader = 0, 0
    plays: list[str] = []  # the trick so far, as the records spell its cards
    for event in state.events:
        kind = event.get("kind")
        if event["type"] == "deal":
            console.print(f"[bold]round {event['round']}[/bold]: deal, hakem seat {event['hakem']}")
        elif kind == "TRUMP":
            trump = parse_suit(event["action"])
            console.print(f"  seat {event['seat']} names trump {event['action']}", highlight=False)
        elif kind == "PLAY":
            if not plays:
                leader = event["seat"]
            plays.append(event["action"])
            if len(plays) == players:
                winner = (leader + winning_index([parse_card(c) for c in plays], trump)) % players
                console.print(f"  seat {leader} leads: {' '.join(plays)} -> seat {winner}", highlight=False)
                plays = []
        elif kind is not None:
            console.print(f"  seat {event['seat']} {kind}: {event['action']}", highlight=False)

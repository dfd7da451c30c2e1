"""What the commands that play or show a game share: a match's sides.

Seats play in ``rules.teams`` sides, seat ``s`` on side ``s mod teams``
(partners sit opposite: seats 0 and 2 against 1 and 3); with as many sides as
seats, each seat is its own. Nothing here prints.
"""

from __future__ import annotations

from typing import Any


def side_seats(rules: Any, side: int) -> list[int]:
    """The seats of ``side``, in order."""
    return list(range(side, rules.players, rules.teams))


def side_name(rules: Any, side: int) -> str:
    """A team as its seats ("0+2") when seats play in teams, else the seat."""
    return "+".join(map(str, side_seats(rules, side)))

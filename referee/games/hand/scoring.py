"""What a Hand round costs each seat, and who wins the match (docs/rules.md "## Hand", scoring).

Points are penalties: the seat that goes out is charged -30, every other seat what
it still holds (ace 11, pictures 10, a joker 15), or 100 if it never opened.
With partners, the partner of the seat that goes out is charged 0, and the
other team both its seats' hands; everything is doubled on a "hand" finish
(the engine's docstring lists these readings). The lowest total wins.

Pure, as Hokm's ``round_points``: a bot valuing a round's end reads the same
rule the referee scores by.
"""

from __future__ import annotations

from collections.abc import Sequence

from waraq.referee.games.hand.melds import CHARGES

OUT_POINTS = -30  # the seat that goes out
NEVER_OPENED = 100  # a seat that never opened this round


def round_charges(
    hands: Sequence[Sequence[int]], opened: Sequence[bool], out: int, hand_finish: bool, partnership: bool
) -> list[int]:
    """What each seat is charged for the round that seat ``out`` ended by going out."""
    times = 2 if hand_finish else 1
    partner = (out + 2) % 4 if partnership else None
    charges = []
    for seat, held in enumerate(hands):
        if seat == out:
            charge = OUT_POINTS
        elif seat == partner:
            charge = 0
        elif opened[seat]:
            charge = sum(CHARGES[c] for c in held)
        else:
            charge = NEVER_OPENED
        charges.append(charge * times)
    return charges


def side_points(charges: Sequence[int], teams: int) -> list[int]:
    """What each side (a seat, or a team with partners) gains from the seats' ``charges``."""
    points = [0] * teams
    for seat, charge in enumerate(charges):
        points[seat % teams] += charge
    return points


def winning_seats(scores: Sequence[int], players: int, teams: int) -> tuple[int, ...]:
    """The seats that win on ``scores``: every seat of a side tied for the lowest total."""
    low = min(scores)
    return tuple(s for s in range(players) if scores[s % teams] == low)

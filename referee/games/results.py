"""How a match ends, in every game: its winners, its reason, its score (docs/records.md "#### Reasons").

The engines end a match on ``score``, ``bam`` (Hokm) or ``aborted`` (a bound
reached); the referee ends one on ``forfeit`` (a fault lost it) or
``aborted`` (its own error). One closed set for both, spelled in the
``result`` line and ``MatchEnd.reason`` by its values.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class ResultReason(StrEnum):
    SCORE = "score"  # Hokm: a side reached target_score; Hand: the last round ended
    BAM = "bam"  # Hokm: a side that called bam took every trick of the round
    FORFEIT = "forfeit"  # the referee: a fault lost the match
    ABORTED = "aborted"  # a bound was reached (the engine), or the referee failed (with a detail)


@dataclass(frozen=True, slots=True)
class Result:
    """An engine's end of a match: never ``FORFEIT``, which only the referee writes."""

    winners: tuple[int, ...]  # seats; none when aborted
    reason: ResultReason
    score: tuple[int, ...]  # per side, the totals so far

"""What a stage's matches left for the judging: their records, and how each of the bot's streams ended."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from waraq.referee.conformance.stages import Stage
from waraq.referee.replay import walk


@dataclass
class Played:
    """One match of a stage: its record, and for each of the bot's seats how long it took to close."""

    seed: int
    record: Path
    closed_ms: list[float | None] = field(default_factory=list)
    replay: walk.Replay | None = None


@dataclass
class StageResult:
    stage: Stage
    matches: list[Played] = field(default_factory=list)
    failure: str = ""  # the stage's process could not be made ready
    dialled: bool = False  # the bot dialled in: its streams are ended by the referee, and have no side to close

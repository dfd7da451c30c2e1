"""Check records: re-play each through the engine and compare every line it can explain.

A record passes when it reads whole, its header is a ``waraq.record.v1``
header, every deal, decision, ``round_end`` and ``result`` follows from the
rules and the decisions, and it ends with its result. Otherwise it is
``corrupt`` (a line that is not an event, or not a record at all), ``cut
short`` (a crash or a kill: the verdict says where it stops),
``inconsistent`` (a line that does not follow from the play) or
``unreadable`` (no such file). Nothing here raises for a bad record.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from waraq.referee.replay.walk import CORRUPT, OK, RECORD_SUFFIXES, ReplayStatus, load, record_paths


@dataclass(frozen=True)
class Verdict:
    path: Path
    status: ReplayStatus  # OK, or what is wrong (see waraq.referee.replay.walk)
    problem: str | None = None  # one line, naming the record line where it can
    decisions: int = 0
    players: int = 0
    result: dict[str, Any] | None = None
    rules: Any = None  # the record's rules, when they could be read: the result is shown in its game's terms

    @property
    def ok(self) -> bool:
        return self.status == OK


def verify_record(path: str | Path) -> Verdict:
    replay = load(path)
    decisions = sum(1 for step in replay.steps if step.action is not None)
    return Verdict(replay.path, replay.status, replay.problem, decisions, replay.players, replay.result, replay.rules)


def verify(paths: Sequence[str | Path]) -> Iterator[Verdict]:
    """A verdict on every record named or inside a folder named; an empty folder is a failure too."""
    for given in map(Path, paths):
        found = record_paths([given])
        if not found:
            patterns = ", ".join("*" + suffix for suffix in RECORD_SUFFIXES)
            yield Verdict(given, CORRUPT, f"no records ({patterns}) in this folder")
        for path in found:
            yield verify_record(path)

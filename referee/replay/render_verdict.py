"""What ``waraq replay --verify`` found, for a record of any game: one line a record, and the total.

A record's result is said by its game's text part (the registry's
``Part.TEXT``), imported only for a record of its game.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text

from waraq.referee.games import registry
from waraq.referee.games.registry import Part


class VerdictLine:
    """One record's verdict: ``ok`` with its result, or what is wrong and where."""

    def __init__(self, verdict: Any) -> None:
        self.verdict = verdict

    def __rich__(self) -> Text:
        verdict = self.verdict
        if not verdict.ok:
            return Text(f"{verdict.path}: {verdict.status}: {verdict.problem}", style="bold red")
        result = verdict.result or {}
        game = registry.game_of_rules(verdict.rules) if verdict.rules is not None else registry.DEFAULT_GAME
        outcome = registry.part(game, Part.TEXT).result_line(result, verdict.rules)[len("Result: ") :]
        return Text(f"{verdict.path}: ok, {verdict.decisions} decisions; {outcome}")


def verify_summary(total: int, failed: int) -> Text:
    return Text(
        f"{total} record{'s' if total != 1 else ''}: {total - failed} ok, {failed} failed",
        style="bold red" if failed else "bold",
    )

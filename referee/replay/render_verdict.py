"""What ``waraq replay --verify`` found, for a record of any game: one line a record, and the total.

A record's result is said by its game's renderer: Hokm's
(:func:`waraq.referee.replay.render_hokm.result_line`), or Hand's, imported only
for a Hand record. This module picks between them, so neither renderer imports the other.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text

from waraq.referee.replay.render_hokm import result_line


class VerdictLine:
    """One record's verdict: ``ok`` with its result, or what is wrong and where."""

    def __init__(self, verdict: Any) -> None:
        self.verdict = verdict

    def __rich__(self) -> Text:
        verdict = self.verdict
        if not verdict.ok:
            return Text(f"{verdict.path}: {verdict.status}: {verdict.problem}", style="bold red")
        result = verdict.result or {}
        if getattr(verdict.rules, "GAME", "hokm") == "hand":
            from waraq.referee.replay.render_hand import (
                result_line as hand_result_line,  # Hand's renderer only for Hand
            )

            outcome = hand_result_line(result, verdict.rules)[len("Result: ") :]
        else:
            outcome = result_line(result)[len("Result: ") :]
        return Text(f"{verdict.path}: ok, {verdict.decisions} decisions; {outcome}")


def verify_summary(total: int, failed: int) -> Text:
    return Text(
        f"{total} record{'s' if total != 1 else ''}: {total - failed} ok, {failed} failed",
        style="bold red" if failed else "bold",
    )

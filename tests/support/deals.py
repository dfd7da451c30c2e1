"""The real `waraq` command and the decks it deals: what the secret-deal tests share."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from waraq.referee.games import registry
from waraq.referee.records.record_file import read_record

PYTHON = sys.executable


def waraq(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The real command, with no deal key in its environment unless ``env`` gives one."""
    base = {k: v for k, v in os.environ.items() if k != "WARAQ_DEAL_KEY"}
    result = subprocess.run(
        [PYTHON, "-m", "waraq.referee.cli.main", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**base, "COLUMNS": "200", "NO_COLOR": "1", **(env or {})},
    )
    assert result.returncode in (0, 2), result.stdout + result.stderr
    return result


def records_of(path: Path) -> list[list[dict[str, Any]]]:
    """Every record in ``path``, in planned or seed order, as its events."""
    return [read_record(p).events for p in sorted(path.glob("*.jsonl"))]


def first_deck(events: list[dict[str, Any]]) -> list[str]:
    return next(e["deck"] for e in events if e["type"] == "deal")


def deck_dealt(rules: Any, seed: int | str) -> list[str]:
    """The first deck the engine deals a match from this dealing seed: what a bot can compute."""
    state = registry.engine(registry.game_of_rules(rules)).new_match(rules, seed)
    return first_deck(state.events)


def verified(path: Path) -> bool:
    check = waraq("replay", "--verify", str(path))
    return check.returncode == 0 and " 0 failed" in check.stdout

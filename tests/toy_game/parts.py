"""The toy game's wire and text parts: JSON on the wire, one line a card in the terminal."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.text import Text

from tests.toy_game import engine
from waraq.referee.games.cards import CARD_NAMES
from waraq.referee.replay.render import header_grid
from waraq.referee.replay.walk import Replay, Step
from waraq.referee.wire.json_view import JsonWire

WIRE = JsonWire(engine, engine.ToyView)
TRICKS = False


def action_text(kind: str, action: Any) -> Text:
    return Text(CARD_NAMES[action])


def result_line(event: dict[str, Any], rules: Any) -> str:
    who = " and ".join(f"s{s}" for s in event.get("winners") or []) or "nobody"
    return f"Result: {who} ({event.get('reason')}), score {'-'.join(map(str, event.get('score') or []))}"


def match_text(replay: Replay, seat: int | None, round_: int | None, trick: int | None) -> Group:
    lines: list[Any] = [header_grid(replay, seat)]
    for step in replay.steps:
        if round_ is None or step.round == round_:
            lines.append(Text(f"round {step.round}: s{step.seat} shows {CARD_NAMES[step.action]}"))
    if replay.result is not None:
        lines.append(Text(result_line(replay.result, replay.rules), style="bold"))
    return Group(*lines)


def step_screen(replay: Replay, step: Step, seat: int | None) -> Text:
    hand = " ".join(CARD_NAMES[c] for c in step.view.hand)
    return Text(f"Decision {step.number}: s{step.seat} holds {hand}, shows {CARD_NAMES[step.action]}")

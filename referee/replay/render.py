"""What every game's replay text shares: the header, faults, notes, connections, sides named by their seats.

:mod:`waraq.referee.replay.render_hokm` and :mod:`waraq.referee.replay.render_hand`
say their game's match and steps; both build on this module, which knows no
game: a rules object here is any game's (``players``, ``teams``, ``to_dict``,
``rules_hash``). Seats are ``s0``..``s3``; hearts and diamonds are red.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any, Protocol

from rich.console import RenderableType
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from waraq.referee.games import registry
from waraq.referee.games.registry import Part
from waraq.referee.replay.walk import Change, Connection, Replay, Step

RED_SUITS = (1, 2)  # hearts, diamonds
NOTE_INDENT = 6
CONNECTION_STYLE = "yellow"
# A record's times: UTC, ISO 8601, to the millisecond (docs/records.md), "2026-12-04T15:45:33.123Z".
_UTC_TIME = re.compile(r"(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2}(?:\.\d+)?)Z")


class GameText(Protocol):
    """A game's text part (the registry's ``Part.TEXT``): how the terminal says its matches."""

    @property
    def TRICKS(self) -> bool:  # the game is played in tricks: `replay --trick T` means something
        ...

    def match_text(self, replay: Replay, seat: int | None, round_: int | None, trick: int | None) -> RenderableType:
        """The whole match, or one round (from one trick on), as everyone or one seat saw it."""

    def step_screen(self, replay: Replay, step: Step, seat: int | None) -> RenderableType:
        """One decision: the table as the seat saw it, and what it chose."""

    def result_line(self, event: dict[str, Any], rules: Any) -> str:
        """``Result: ...``: the record's result line in words."""

    def action_text(self, kind: str, action: Any) -> Text:
        """One action, as a replay shows it."""


def trick_games() -> str:
    """The games played in tricks, as an error message names them (``Hokm``)."""
    games = [
        game.capitalize()
        for game, entry in registry.GAMES.items()
        if Part.TEXT in entry.parts and registry.part(game, Part.TEXT).TRICKS
    ]
    return " and ".join(games)


def side_name(rules: Any, side: int) -> str:
    """Seats in teams (4-player Hokm, Hand's partnership): a team by its seats, ``s0+s2``;
    else the seat, ``s1``."""
    return "+".join(f"s{s}" for s in range(side, rules.players, rules.teams))


def note_line(text: str | Text) -> Padding:
    """A bot's note under the line it explains, wrapped with a hanging indent."""
    body = text if isinstance(text, Text) else Text(text)
    body.stylize("italic")
    return Padding(body, (0, 0, 0, NOTE_INDENT))


def fault_text(fault: dict[str, Any], kind: str | None = None, *, detail: bool = True) -> Text:
    """``fault: s2 ILLEGAL: <detail>; played for it: 7H``. Without ``detail`` for another
    seat's view: an ILLEGAL detail quotes the faulty seat's hand."""
    text = Text(f"fault: s{fault['seat']} {fault['kind']}", style="bold red")
    if detail:
        text.append(f": {fault.get('detail', '')}")
    if "substituted" in fault and kind:
        text.append(f"; played for it: {_json_action(fault['substituted'])}", style="red")
    return text


def connection_words(replay: Replay, connection: Connection) -> str:
    """A connection line in words, the text's and the HTML page's: ``seat 2 (kit): connection lost at
    15:45:33.123``, ``seat 2 (kit): back at 15:45:34.357 after 1.2 s``. The time of day alone when the
    match started that day (the header says the date), else the date too; a time that is none of the
    record's is quoted as it is."""
    who = f"seat {connection.seat} ({replay.bots[connection.seat]})"  # the walk keeps only the match's seats
    at = f" at {_time_of(connection.at, replay.header.get('started'))}" if connection.at else ""
    if connection.change is Change.LOST:
        return f"{who}: connection lost{at}"
    away = f" after {_duration(connection.away_ms)}" if connection.away_ms is not None else ""
    return f"{who}: back{at}{away}"


def connection_line(replay: Replay, connection: Connection, where: str = "", indent: int = 2) -> Padding:
    """A connection line in the text, indented as a fault is; ``where``, when the text's place for it
    does not say (``trick 3, before s2 played``)."""
    text = connection_words(replay, connection) + (f" ({where})" if where else "")
    return Padding(Text(text, style=CONNECTION_STYLE), (0, 0, 0, indent))


def step_connections(replay: Replay, step: Step, seat: int | None, *, after: bool = False) -> list[Text]:
    """A step screen's connection lines: those shown with ``step`` in the walk over every step, or over
    ``seat``'s (:meth:`Replay.step_of`); those before it, or with ``after`` those after it (the walk's last)."""
    walked: Sequence[Step] = replay.steps if seat is None else replay.steps_of(seat)
    lines = []
    for connection in replay.connections:
        if replay.step_of(connection, walked) is step and (connection.after >= step.number) == after:
            text = Text("After this decision: " if after else "Before this decision: ", style="bold")
            lines.append(text.append(connection_words(replay, connection), style=CONNECTION_STYLE))
    return lines


def _time_of(at: str, started: Any) -> str:
    found = _UTC_TIME.fullmatch(at)
    if found is None:
        return repr(at)
    date, time = found.groups()
    day = _UTC_TIME.fullmatch(started) if isinstance(started, str) else None
    return time if day is not None and day.group(1) == date else f"{date} {time}"


def _duration(ms: float) -> str:
    """``340 ms`` below a second, else ``1.2 s``."""
    return f"{ms:.0f} ms" if ms < 1000 else f"{ms / 1000:.1f} s"


def _json_action(value: Any) -> str:
    if isinstance(value, list):
        return " ".join(map(str, value))
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def header_grid(replay: Replay, seat: int | None = None) -> Table:
    """The record's header: match, seats and bots, rules, clock (and whose view this is)."""
    header = replay.header
    grid = Table.grid(padding=(0, 1))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column()
    match = [replay.match_id, str(header.get("game", "?")), f"seed {header.get('seed')}"]
    if header.get("deal_key"):
        match.append("dealt with a secret key")
    if header.get("started"):
        match.append(f"started {header['started']}")
    grid.add_row("Match", Text(", ".join(match)))
    seats, connected_via = [], replay.connected_via
    for entry in header.get("seats") or []:
        if isinstance(entry, dict):
            version = f" {entry['version']}" if entry.get("version") else ""
            number = entry.get("seat")
            given = connected_via[number] if isinstance(number, int) and 0 <= number < len(connected_via) else None
            via = f" ({given})" if given is not None else ""  # records written before `via` have none
            seats.append(f"s{entry.get('seat')} {entry.get('bot', '?')}{version}{via}")
    grid.add_row("Seats", Text(", ".join(seats)))
    rules = replay.rules
    if rules is not None:
        keys = " ".join(f"{k}={json.dumps(v)}" for k, v in rules.to_dict().items())
        grid.add_row("Rules", f"{keys} ({rules.rules_hash[:19]}…)")
        if rules.teams < rules.players:  # Hokm's 4 players, Hand's partnership
            grid.add_row("Teams", f"{side_name(rules, 0)} and {side_name(rules, 1)}")
    tc = replay.time_control
    if tc:
        policy = f"; policy {header['policy']}" if header.get("policy") else ""
        grid.add_row("Clock", f"{_ms(tc.get('decision_ms'))} a decision, {_ms(tc.get('bank_ms'))} bank{policy}")
    if seat is not None:
        bot = replay.bots[seat] if seat < len(replay.bots) else "?"
        grid.add_row("Seen by", Text(f"s{seat} ({bot}): its own cards and what is public"))
    draw = next((e for e in replay.events[:3] if e.get("type") == "ace_draw"), None)
    if draw is not None:
        grid.add_row(
            "Ace draw",
            f"{' '.join(map(str, draw.get('cards', [])))} (face up, one card a seat from s0): "
            f"s{draw.get('hakem')} is the first hakem",
        )
    return grid


def _ms(value: Any) -> str:
    return f"{value:g} ms" if isinstance(value, (int, float)) else "? ms"

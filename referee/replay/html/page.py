"""A replayed record as the data of its HTML page: pure, no I/O (the file is :mod:`.write`'s).

The page holds what the record says and what the seats were told, nothing
rebuilt a second way: each seat's view at each decision is the view (its
game's message, or a plug-in game's ``view_json`` read as JSON) of the request
the referee sent (or would have sent, had that seat been the one asked), in
protobuf's JSON mapping, exactly as
``waraq replay --json`` prints it (:func:`waraq.referee.replay.walk.request_json`
of :func:`waraq.referee.wire.codec.decision_request` of ``Step.before.view(seat)``).
The viewer draws a seat's view from that seat's views alone, and the
all-hands view from every seat's own hand in its own view: the page holds no
hand but the ones the seats were shown.

Compact, so that a page can be mailed: a 4-player Hokm match to 7 points has
some 300 decisions, and its views in full would be about 1 MB. So each seat's
views are kept as its first view in full (``views.base[seat]``) and, at each
later decision, a patch from its previous view (``views.patch[views.refs[d][seat]]``):
a field that changed, its new value; a list field, a splice ``[start, removed,
*inserted]`` (as JavaScript's ``Array.splice``). Seats at one decision mostly
change in the same way (the trick, whose turn it is): what their patches share
is stored once, and each seat's own part (its hand) apart. :func:`seat_views` undoes this, as the
viewer does, and the tests compare it with the views themselves.

A record's ``connection`` lines (a dial-in seat away and back) are public: the
page shows each as a note at the decision it falls by
(:meth:`~waraq.referee.replay.walk.Replay.step_of`), in the terminal replay's
words.

A record that cannot be fully replayed still gets its data, as far as it
replays, with ``status`` and ``problem`` saying what is wrong.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from waraq.referee.games import registry
from waraq.referee.games.registry import Part
from waraq.referee.replay.render import connection_words
from waraq.referee.replay.walk import Connection, Replay, Step, request_json
from waraq.referee.wire import codec as wire
from waraq.v1 import bot_pb2 as pb

PAGE_FORMAT = "waraq.replay-page.v1"  # the embedded data's shape, for the viewer (viewer.js reads it)


def page_data(replay: Replay) -> dict[str, Any]:
    """The page's data for one replayed record (see the module docstring for ``views``)."""
    requests = [request_json(replay.request(step)) for step in replay.steps]  # as --json prints them
    views = [all_seat_views(replay, step, request) for step, request in zip(replay.steps, requests, strict=True)]
    return {
        "format": PAGE_FORMAT,
        "file": replay.path.name,
        "match": match_data(replay),
        "status": str(replay.status),
        "problem": replay.problem,
        "steps": [step_data(step, request) for step, request in zip(replay.steps, requests, strict=True)],
        "views": encode_views(views),
        "opening_faults": opening_faults(replay),
        "connections": [connection_data(replay, c) for c in replay.connections],
        "rounds": round_ends(replay),
        "result": result_data(replay),
    }


def match_data(replay: Replay) -> dict[str, Any]:
    """The header as the page shows it; what a header lacks is None (a broken record's header)."""
    header, rules = replay.header, replay.rules
    seats = [{"seat": seat, "bot": bot, "version": _version(header, seat)} for seat, bot in enumerate(replay.bots)]
    for seat, via in zip(seats, replay.connected_via, strict=True):
        if via is not None:  # records written before `via` have none
            seat["via"] = via
    return {
        "match_id": replay.match_id,
        "game": replay.game if rules is not None else header.get("game"),
        "seed": header.get("seed"),
        "started": header.get("started"),
        "policy": header.get("policy"),
        "deal_key": header.get("deal_key"),
        "rules": rules.to_dict() if rules is not None else _dict_or_none(header.get("rules")),
        "players": replay.players,
        "teams": rules.teams if rules is not None else 0,
        "seats": seats,
        "time_control": replay.time_control,
    }


def _dict_or_none(value: Any) -> dict[str, Any] | None:
    return value if isinstance(value, dict) else None


def _version(header: dict[str, Any], seat: int) -> str:
    for entry in header.get("seats") or []:
        if isinstance(entry, dict) and entry.get("seat") == seat:
            return str(entry.get("version") or "")
    return ""


def step_data(step: Step, request: dict[str, Any]) -> dict[str, Any]:
    """One decision: who was asked what, what it was told (its request, but the view), what it did.

    ``seq`` and ``bank_ms`` are the request's fields as ``--json`` prints them, and ``legal`` its
    legal actions, each ``Action`` as the value of its one field (:func:`legal_values`); its
    ``deadline_ms`` and ``match_id`` are the match's (``match``), its view is in ``views``.
    ``request`` is the step's request in protobuf JSON (:func:`waraq.referee.replay.walk.request_json`)."""
    data: dict[str, Any] = {
        "n": step.number,
        "line": step.line,
        "seat": step.seat,
        "kind": step.kind,
        "round": step.round,
        "trick": step.trick,
        "seq": request["seq"],
        "bank_ms": request["bank_ms"],
        "legal": legal_values(request["legal"]),
        "action": step.action_json,
        "ms": step.ms,
    }
    if step.note:
        data["note"] = step.note
    if step.bot_ms is not None:
        data["bot_ms"] = step.bot_ms
    if not step.sent:
        data["sent"] = False
    if step.fault is not None:
        data["fault"] = fault_data(step.fault)
    return data


def legal_values(legal: list[dict[str, Any]]) -> list[Any]:
    """A request's legal ``Action``s in protobuf JSON, each as the value of its one field (the
    ``action`` oneof): ``{"card": "7H"}`` -> ``"7H"``, ``{"discard": {"cards": [...]}}`` -> ``{"cards": [...]}``.
    The decision's kind says which field it was; a page's every PLAY lists cards, a third of the bytes."""
    values = []
    for action in legal:
        (value,) = action.values()
        values.append(value)
    return values


def fault_data(fault: dict[str, Any]) -> dict[str, Any]:
    """A fault as the record has it, the fields the page shows."""
    keys = ("seat", "kind", "code", "detail", "substituted")
    data: dict[str, Any] = {key: fault[key] for key in keys if key in fault}
    data.setdefault("code", None)
    data.setdefault("detail", "")
    return data


def opening_faults(replay: Replay) -> list[dict[str, Any]]:
    """Faults on no question: seats that could not be opened (a forfeit before the first decision)."""
    on_steps = {s.fault_line for s in replay.steps if s.fault_line is not None}
    return [
        {**fault_data(event), "line": line}
        for line, event in enumerate(replay.events[: replay.checked_lines or len(replay.events)], start=1)
        if event.get("type") == "fault" and line not in on_steps and isinstance(event.get("seat"), int)
    ]


def connection_data(replay: Replay, connection: Connection) -> dict[str, Any]:
    """A connection line as the record has it, ``text`` as the terminal replay says it, ``after`` the
    decisions answered before it and ``n`` the decision it is shown with (None: the record has none)."""
    step = replay.step_of(connection)
    return {
        "line": connection.line,
        "seat": connection.seat,
        "change": str(connection.change),
        "at": connection.at,
        "away_ms": connection.away_ms,
        "after": connection.after,
        "n": step.number if step is not None else None,
        "text": connection_words(replay, connection),
    }


def round_ends(replay: Replay) -> list[dict[str, Any]]:
    """Each ``round_end`` line replayed, as the record has it, with the decision it follows."""
    if not replay.checked_lines:
        return []
    ends, asked = [], 0
    steps_by_line = {s.line for s in replay.steps}
    for line, event in enumerate(replay.events[: replay.checked_lines], start=1):
        if line in steps_by_line:
            asked += 1
        if event.get("type") == "round_end":
            ends.append({**{k: v for k, v in event.items() if k != "type"}, "after": asked})
    return ends


def result_data(replay: Replay) -> dict[str, Any] | None:
    """The result line, and how the terminal replay says it (its renderer's words, not new ones)."""
    result = replay.result
    if result is None or replay.rules is None:
        return None
    text = registry.part(replay.game, Part.TEXT).result_line(result, replay.rules)
    data = {k: v for k, v in result.items() if k != "type"}
    data["text"] = text.removeprefix("Result: ")
    return data


# -- the views ------------------------------------------------------------------


VIEW_FIELDS = tuple(field.name for field in pb.DecisionRequest.DESCRIPTOR.oneofs_by_name["view"].fields)


def view_of(request: dict[str, Any]) -> dict[str, Any]:
    """The view a request in protobuf JSON holds, in whichever field of the ``view`` oneof its game
    uses: a message (``hokm``, ``hand``), or JSON text (``view_json``: a plug-in game's)."""
    for name in VIEW_FIELDS:
        if name in request:
            view = request[name]
            return json.loads(view) if isinstance(view, str) else view
    return {}


def all_seat_views(replay: Replay, step: Step, request: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """What each seat knew when ``step`` was asked: the view of the request the referee sent the
    seat asked (``request``, that request in protobuf JSON, if already made), and the same message
    of each other seat's view (what it would have been sent)."""
    views = []
    for seat in range(replay.players):
        if seat == step.seat:
            views.append(view_of(request or request_json(replay.request(step))))
        else:
            views.append(view_of(request_json(wire.view_message(step.before.view(seat)))))
    return views


def encode_views(views: Sequence[Sequence[dict[str, Any]]]) -> dict[str, Any]:
    """``views[d][seat]`` as ``{"base": [...], "patch": [...], "refs": [...]}`` (the module docstring).

    ``refs[d - 1][seat]`` is one patch's index, or a list of them (applied in turn; their fields never
    overlap): what every seat's patch shares is stored once, and each seat's own part apart."""
    if not views:
        return {"base": [], "patch": [], "refs": []}
    patches: list[dict[str, Any]] = []
    known: dict[str, int] = {}

    def index(patch: dict[str, Any]) -> int:
        key = json.dumps(patch, sort_keys=True, separators=(",", ":"))
        if key not in known:
            known[key] = len(patches)
            patches.append(patch)
        return known[key]

    refs: list[list[Any]] = []
    for previous, current in zip(views, views[1:], strict=False):
        seats = [view_patch(before, after) for before, after in zip(previous, current, strict=True)]
        shared = {k: v for k, v in seats[0].items() if all(k in p and p[k] == v for p in seats[1:])}
        row: list[Any] = []
        for patch in seats:
            own = {k: v for k, v in patch.items() if k not in shared}
            parts = [index(part) for part in (shared, own) if part]
            row.append(parts[0] if len(parts) == 1 else parts or index({}))
        refs.append(row)
    return {"base": list(views[0]), "patch": patches, "refs": refs}


def view_patch(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """What turns ``before`` into ``after``: the fields that changed, with a new value; a list
    field as a splice, ``[start, removed, *inserted]`` (a card gone from the hand is ``[i, 1]``)."""
    patch: dict[str, Any] = {}
    for key, value in after.items():
        old = before[key]
        if old == value:
            continue
        if isinstance(value, list):
            start = 0
            while start < min(len(old), len(value)) and old[start] == value[start]:
                start += 1
            end_old, end_new = len(old), len(value)  # the common tail, after the common head
            while end_old > start and end_new > start and old[end_old - 1] == value[end_new - 1]:
                end_old, end_new = end_old - 1, end_new - 1
            patch[key] = [start, end_old - start, *value[start:end_new]]
        else:
            patch[key] = value
    return patch


def seat_views(views: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """The inverse of :func:`encode_views`: every seat's view at every decision (as viewer.js reads them)."""
    if not views["base"]:
        return []
    rows = [[dict(view) for view in views["base"]]]
    for refs in views["refs"]:
        row = []
        for previous, ref in zip(rows[-1], refs, strict=True):
            view = dict(previous)
            for part in ref if isinstance(ref, list) else [ref]:
                for key, value in views["patch"][part].items():
                    if isinstance(previous[key], list):
                        start, removed, *inserted = value
                        view[key] = previous[key][:start] + inserted + previous[key][start + removed :]
                    else:
                        view[key] = value
            row.append(view)
        rows.append(row)
    return rows

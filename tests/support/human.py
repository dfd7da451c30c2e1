"""A real ``waraq match`` with human seats, and a person who plays one over HTTP, as the page does.

:func:`seated` starts the command and returns once it prints each person's page
address; :func:`play` answers every question the page is sent with a choice of
the test's, through the page's own routes (events, reply, turn), until the run
is over. What the page was sent is kept, for the tests that check it holds
nothing the seat may not see (:func:`same_questions`).
"""

from __future__ import annotations

import contextlib
import os
import queue
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from tests.support import ROOT
from waraq.referee.replay.walk import load, request_json

PAGE = re.compile(r"^(\S+): your seat's page is (http://\S+)")

Choose = Callable[[httpx.Client, str, dict[str, Any]], dict[str, Any] | None]  # (client, page, event) -> action


@dataclass
class Seated:
    process: subprocess.Popen
    pages: dict[str, str]  # each person's page address, by name
    lines: list[str] = field(default_factory=list)
    reader: threading.Thread | None = None

    def finish(self, timeout: float = 120.0) -> tuple[int, str]:
        """Its exit status and whole output, once it has ended."""
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        deadline = time.monotonic() + 10
        while self.reader is not None and self.reader.is_alive() and time.monotonic() < deadline:
            self.reader.join(0.1)
        return self.process.returncode, "\n".join(self.lines)


def seated(*args: str, cwd: Path, people: int = 1, timeout: float = 60.0) -> Seated:
    """``waraq match ARGS`` in ``cwd``; returns once it has printed ``people`` page addresses."""
    process = subprocess.Popen(
        [sys.executable, "-m", "waraq.referee.cli.main", "match", *args],
        stdin=subprocess.DEVNULL,  # no terminal: the page is not kept after the run unless --keep-page says so
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=cwd,
        env={**os.environ, "COLUMNS": "400", "PYTHONPATH": str(ROOT)},
    )
    lines: queue.Queue[str | None] = queue.Queue()
    into: list[str] = []

    def read() -> None:
        assert process.stdout is not None
        for line in iter(process.stdout.readline, ""):
            into.append(line.rstrip("\n"))
            lines.put(line.rstrip("\n"))
        lines.put(None)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    pages: dict[str, str] = {}
    deadline = time.monotonic() + timeout
    while len(pages) < people:
        line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
        if line is None:
            raise AssertionError("waraq match ended before it served a page:\n" + "\n".join(into))
        if found := PAGE.match(line):
            pages[found.group(1)] = found.group(2)
    return Seated(process, pages, into, reader)


def replay_offered(events: list[dict[str, Any]]) -> bool:
    """Whether the page was offered its match's replay: the match is over and recorded."""
    return any(event.get("door") == "replay" for event in events)


def first_legal(client: httpx.Client, page: str, event: dict[str, Any]) -> dict[str, Any] | None:
    """The question's first legal action; a Hand turn: take no step and discard the last card held."""
    request = event["message"]["decision"]
    if request["kind"] != "TURN":
        return request["legal"][0]
    where = {"match_id": event["match_id"], "seat": event["seat"], "steps": []}
    options = client.post(page + "/turn", json={**where, "selected": []}).json()
    finished = client.post(page + "/turn", json={**where, "discard": options["hand"][-1]})
    assert finished.status_code == 200, finished.text
    return finished.json()["action"]


def play(
    page: str,
    choose: Choose = first_legal,
    *,
    until: Callable[[list[dict[str, Any]]], bool],
    client: httpx.Client | None = None,
) -> list[dict[str, Any]]:
    """Answer each question sent to the page with ``choose``'s action (None: leave it unanswered), until
    ``until(events so far)``; every event the page was sent, in order. ``client``: one signed in
    (``waraq serve``)."""
    events: list[dict[str, Any]] = []
    with contextlib.nullcontext(client) if client is not None else httpx.Client(timeout=30) as client:
        while not until(events):
            try:
                got = client.get(page + "/events", params={"after": len(events)}).json()["events"]
            except httpx.TransportError:
                break  # the run is over: its server is gone
            for event in got:
                events.append(event)
                if "decision" in event.get("message", {}):
                    action = choose(client, page, event)
                    if action is None:
                        continue
                    seq = event["message"]["decision"]["seq"]
                    answer = client.post(
                        page + "/reply",
                        json={"match_id": event["match_id"], "seat": event["seat"],
                              "message": {"reply": {"seq": seq, "action": action}}},
                    )  # fmt: skip
                    assert answer.status_code == 200, answer.text
    return events


def same_questions(events: list[dict[str, Any]], record: Path, seats: set[int]) -> int:
    """Every question the page was sent (``events``, as GET events gives them) is the one the record says
    that seat was asked, and no other seat's; the count of them."""
    replay = load(record)
    asked = {(s.seat, s.seq): request_json(replay.request(s)) for s in replay.steps if s.seat in seats}
    sent = [e for e in events if "decision" in e.get("message", {}) and e["match_id"] == replay.match_id]
    for event in sent:
        request = event["message"]["decision"]
        assert event["seat"] in seats and request["seat"] == event["seat"]
        expected = asked[(event["seat"], int(request["seq"]))]
        clock = ("deadline_ms", "bank_ms")  # the record keeps times to the µs
        assert {k: v for k, v in request.items() if k not in clock} == {
            k: v for k, v in expected.items() if k not in clock
        }
    assert len(sent) == len(asked)
    return len(sent)

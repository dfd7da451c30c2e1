"""A compiled bot (the Go starter, sample_bots/starters/go) plays whole Hokm matches through the real referee.

The referee launches the binary as it would any bot command, listening on a
port or on a Unix socket, inside its sandbox where the machine has one
(``waraq.referee.launch.sandbox``): so a statically linked program that no interpreter
runs, built from nothing but the ``.proto``, plays unchanged. The bot's
strategy is a few fixed rules (its README's, restated in
``tests.support.go_starter``), which lets every one of its decisions in the
record be checked exactly against the engine's view and list.

The binary comes from the session fixture ``go_starter`` (tests/conftest.py):
CI builds it into sample_bots/starters/go/bin before the tests; elsewhere it
is built once a session when Go is installed. tests/starters/ builds and
plays the starter as its README tells a bot author to.
"""

from __future__ import annotations

import asyncio
import dataclasses
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support.go_starter import NAME, VERSION, decisions_with_views, starter_answer
from tests.support.servers import assert_clean_end
from waraq.referee.games.hokm.rules import PRESETS, HokmRules
from waraq.referee.launch import sandbox
from waraq.referee.launch.bots import BotSpec, Endpoint
from waraq.referee.match.play import MatchOutcome
from waraq.referee.records.record_file import read_record
from waraq.referee.run import runner

pytestmark = pytest.mark.system("go", "sandbox")  # the Go starter, in and out of a sandbox

LISTENING = {"port": "--port {port}", "socket": "--unix {socket}"}
# One round each (target_score=1). Seed 2 asks the Go seats every kind these rules ask:
# a suit, a card, and in 2-player Hokm two discards and a draw.
MATCHES = {
    "four": (HokmRules(target_score=1), 2),
    "two": (dataclasses.replace(PRESETS["two"], target_score=1), 2),
}


@dataclass
class Played:
    rules: HokmRules
    outcome: MatchOutcome
    events: list[dict[str, Any]]
    endpoints: list[Endpoint]  # the Go bot's, one a seat, as the run left them
    go_seats: set[int]


def _config(binary: Path, listening: str, rules: HokmRules, seed: int, record_dir: Path) -> runner.RunConfig:
    # The Go bot at the even seats, the built-in random bot at the odd ones.
    specs = [BotSpec.parse(f"{shlex.quote(str(binary))} {listening}"), BotSpec.parse("random")]
    return runner.RunConfig(rules, [specs[seat % 2] for seat in range(rules.players)], seed=seed, record_dir=record_dir)


def _played(config: runner.RunConfig, report: runner.RunReport) -> Played:
    (outcome,) = report.outcomes
    record = read_record(outcome.record)
    assert record.complete, f"record {outcome.record} is incomplete: {record.problem}"
    go = config.bots[0]
    endpoints = [e for e in report.bots if e.spec == go]
    seats = {seat for seat, spec in enumerate(config.bots) if spec == go}
    assert len(endpoints) == len(seats)  # a process a seat: partners never share one
    return Played(config.rules, outcome, record.events, endpoints, seats)


async def _run_all(configs: list[runner.RunConfig]) -> list[runner.RunReport]:
    return await asyncio.gather(*(runner.run(config) for config in configs))


@pytest.fixture(scope="module")
def matches(go_starter: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Played]:
    """Every match, played at once: each run launches its own Go bot process."""
    configs = {
        (how, name): _config(go_starter, listening, rules, seed, tmp_path_factory.mktemp(f"go-{how}-{name}"))
        for how, listening in LISTENING.items()
        for name, (rules, seed) in MATCHES.items()
    }
    reports = asyncio.run(_run_all(list(configs.values())))
    return {key: _played(config, report) for (key, config), report in zip(configs.items(), reports, strict=True)}


@pytest.fixture(params=[(how, name) for how in LISTENING for name in MATCHES], ids="-".join)
def played(request: pytest.FixtureRequest, matches: dict[tuple[str, str], Played]) -> Played:
    return matches[request.param]


def test_match_ends_by_score_without_faults(played: Played) -> None:
    assert_clean_end(played.outcome, played.events)
    assert max(played.outcome.score) >= played.rules.target_score
    # Hello was answered: the header names the Go bot, with its version, at its seats.
    seats = played.events[0]["seats"]
    assert {s["seat"] for s in seats if s["bot"] == NAME} == played.go_seats
    assert {s["version"] for s in seats if s["bot"] == NAME} == {VERSION}


def test_bot_ran_in_the_sandbox_where_the_machine_has_one(played: Played) -> None:
    support = sandbox.probe()
    for endpoint in played.endpoints:
        launch = endpoint.launch
        assert launch is not None
        assert launch.confined == support.usable, f"confined={launch.confined}, sandbox: {support.problem or 'usable'}"


def test_every_go_decision_is_the_starters_answer_with_a_note(played: Played) -> None:
    kinds = set()
    for event, view in decisions_with_views(played.rules, played.events):
        if event["seat"] in played.go_seats:
            where = f"round {event['round']} seat {event['seat']}: {event}"
            assert event["action"] == starter_answer(view), where
            assert event.get("note"), where
            kinds.add(event["kind"])
    # Seed-dependent (see MATCHES): if this fails after an engine change, pick another seed.
    needed = {"TRUMP", "PLAY"} | ({"DISCARD", "DRAW"} if played.rules.players == 2 else set())
    assert needed <= kinds, f"the Go seats were asked only {sorted(kinds)}"

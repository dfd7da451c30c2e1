"""A starter kit's built binary in real ``waraq match`` runs, each read back from its record.

The Go and C++ kit tests (tests/starters/) play the same way: the binary
against the built-in random bot, a case a match, every case at once; then the
same two checks of each record: the match ends without a fault with the
starter, at its version, at its seats, and the starter is asked every decision
kind its case brings. What each kit's starter answers is checked by its own test
module.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from collections import Counter
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from waraq.referee.games.hokm.rules import HokmRules, load_rules
from waraq.referee.records.record_file import read_record

WARAQ = str(Path(sys.executable).with_name("waraq"))
DEAL_KEY = "65" * 32  # with it, each seed deals the same decks on every run


@dataclass(frozen=True)
class Case:
    rules: str  # a preset, or a rules file of the kit
    others: tuple[str, ...]  # the specs after the starter's, one a seat it does not hold
    seed: int
    kinds: frozenset[str]  # what the starter must be asked
    listen: str = "--port {port}"  # how the referee tells the starter where to listen


@dataclass
class Played:
    case: Case
    rules: HokmRules
    run: subprocess.CompletedProcess[str]
    events: list[dict[str, Any]]


def play(binary: Path, case: Case, here: Path) -> Played:
    """``case``'s match, run in the new folder ``here`` with the starter ``binary`` (a kit's
    bin/bot, whose kit holds the case's rules file if it names one) at seat 0."""
    here.mkdir()
    kit = binary.parents[1]
    rules = str(kit / case.rules) if case.rules.endswith(".toml") else case.rules
    starter = f"{shlex.quote(str(binary))} {case.listen}"
    run = subprocess.run(
        [WARAQ, "match", "--rules", rules, "--bots", starter, *case.others,
         "--seed", str(case.seed), "--deal-key", DEAL_KEY, "--record", "records"],
        capture_output=True, text=True, timeout=600, cwd=here,
    )  # fmt: skip
    (path,) = (here / "records").glob("*.jsonl")
    record = read_record(path)
    assert record.complete, f"record {path} is incomplete: {record.problem}"
    return Played(case, load_rules(record.events[0]["rules"]), run, record.events)


def play_all(binary: Path, cases: Mapping[str, Case], root: Path) -> dict[str, Played]:
    """Every case's match, run at once, each in the folder of its name under ``root``."""
    with ThreadPoolExecutor(max_workers=len(cases)) as pool:
        done = {name: pool.submit(play, binary, case, root / name) for name, case in cases.items()}
        return {name: future.result() for name, future in done.items()}


def starter_seats(played: Played, name: str) -> set[int]:
    """The seats of the bot called ``name`` (its HelloReply.name), as the record's header says."""
    return {s["seat"] for s in played.events[0]["seats"] if s["bot"] == name}


def check_the_match_ends_without_a_fault(played: Played, name: str, version: str) -> None:
    assert played.run.returncode == 0, played.run.stderr
    assert [e for e in played.events if e["type"] == "fault"] == []
    (result,) = [e for e in played.events if e["type"] == "result"]
    assert result["reason"] in {"score", "bam"}, result
    # Hello was answered: the header names the starter, with its version, at its seats: the
    # specs fill the seats in turn, so the starter's are every (1 + others)-th from seat 0.
    seats = set(range(0, played.rules.players, 1 + len(played.case.others)))
    assert starter_seats(played, name) == seats
    assert {s["version"] for s in played.events[0]["seats"] if s["bot"] == name} == {version}


def check_the_starter_is_asked_every_kind_the_rules_bring(played: Played, name: str) -> None:
    seats = starter_seats(played, name)
    asked = Counter(e["kind"] for e in played.events if e["type"] == "decision" and e["seat"] in seats)
    assert played.case.kinds <= asked.keys(), f"the starter was asked only {dict(asked)}"

"""Secret deals in a ladder: no published record predicts a deal still to be played.

A real ladder (random bots, one-point 2-player Hokm, so it takes seconds)
publishes 50 records; the engine rebuilds decks from every value in their
headers, the ladder's seed and its arithmetic, with every public string tried
as the key, and none is the next deal's deck (the control: with no key, the
same search finds it). The key lives in ``ladder.key``, private, out of the
records; a ladder older than keys gets one.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import stat
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.support.deals import deck_dealt, first_deck, records_of, verified, waraq
from waraq.ladder.play import folder, ledger
from waraq.ladder.play.ledger import DEALS_PER_SEED, Target
from waraq.ladder.play.scheduler import RunState, run
from waraq.ladder.stats.ratings import environment
from waraq.referee.games import registry
from waraq.referee.games.hokm.rules import PRESETS
from waraq.referee.match.secret_deals import dealing_seed

RULES = PRESETS["two"].replace(target_score=1)


@pytest.fixture(scope="module")
def ladder_run(tmp_path_factory) -> Path:
    """52 matches of a real ladder: the first 50 records are published, then the next deal is played."""
    path = tmp_path_factory.mktemp("ladder") / "published"
    folder.init(path, RULES, seed=5)
    with folder.open_ladder(path) as ladder:
        for name in ("a", "b"):
            folder.add(ladder, name, "random", check=False)
        state = asyncio.run(run(ladder.folder, ladder.config, ladder.store, RunState(Target(52), 4)))
    assert state.finished.reason == "target" and state.played == 52
    return path


def public_values(value: Any) -> list[Any]:
    """Every string and integer in a header: what a bot reading published records knows."""
    if isinstance(value, dict):
        return [v for item in value.values() for v in public_values(item)]
    if isinstance(value, list):
        return [v for item in value for v in public_values(item)]
    return [value] if isinstance(value, (str, int)) and not isinstance(value, bool) else []


@pytest.mark.slow
def test_no_field_of_fifty_published_records_predicts_the_next_deal(ladder_run):
    played = records_of(ladder_run / "records")
    published, later = played[:50], played[50:]
    seeds = {events[0]["seed"] for events in published}
    following = next(events for events in later if events[0]["seed"] not in seeds)  # the next deal's first match
    rules = registry.rules_from_dict("hokm", following[0]["rules"])
    ladder_seed = tomllib.loads((ladder_run / "ladder.toml").read_text())["seed"]
    values = {v for events in published for v in public_values(events[0])} | {ladder_seed}
    numbers = {v for v in values if isinstance(v, int)}
    # The ladder's arithmetic: the deals' seeds are public, and so is the next one.
    arithmetic = {ladder_seed * DEALS_PER_SEED + deal for deal in range(100)}
    assert following[0]["seed"] in arithmetic
    texts = {v for v in values if isinstance(v, str)} | {str(ladder_seed), ""}
    predictions = set()
    for seed in numbers | arithmetic | {n + k for n in numbers for k in (1, 2, 3)}:
        predictions.add(json.dumps(deck_dealt(rules, seed)))
    for text in texts:
        predictions.add(json.dumps(deck_dealt(rules, text)))
        for seed in arithmetic:  # every public string tried as the key, both ways keys were ever mixed in
            predictions.add(json.dumps(deck_dealt(rules, f"{text}/{seed}")))
            predictions.add(json.dumps(deck_dealt(rules, dealing_seed(seed, text))))
    assert json.dumps(first_deck(following)) not in predictions
    # The control: with no key, the next seed is all it takes.
    assert json.dumps(deck_dealt(rules, following[0]["seed"])) in predictions


def test_every_ladder_match_has_its_own_opaque_id_and_every_record_verifies(ladder_run):
    played = records_of(ladder_run / "records")
    ids = [events[0]["match_id"] for events in played]
    assert len(set(ids)) == 52 and all(re.fullmatch(r"m-[0-9a-f]{16}", i) for i in ids)
    assert all(events[0]["deal_key"] is True for events in played)
    assert verified(ladder_run / "records")


def test_the_ladder_key_is_private_kept_out_of_the_records_and_never_written_elsewhere(ladder_run):
    key_file = ladder_run / "ladder.key"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    key = next(line for line in key_file.read_text().splitlines() if not line.startswith("#"))
    assert len(key) == 64
    shown = [ladder_run / "ladder.toml", ladder_run / "ladder.sqlite", *(ladder_run / "records").iterdir()]
    assert not any(key.encode() in path.read_bytes() for path in shown)


def test_a_key_file_is_made_private_whatever_the_umask(tmp_path):
    old = os.umask(0)
    try:
        made = waraq("ladder", "init", str(tmp_path / "open"), "--rules", "two")
    finally:
        os.umask(old)
    assert made.returncode == 0, made.stderr
    assert stat.S_IMODE((tmp_path / "open" / "ladder.key").stat().st_mode) == 0o600
    assert "ladder.key" in made.stdout  # the person is told it is there and to keep it


@pytest.mark.slow
def test_a_ladder_older_than_keys_gets_one_and_deals_its_planned_matches_under_it(tmp_path):
    path = tmp_path / "old"
    folder.init(path, RULES, seed=8)
    (path / "ladder.key").unlink()  # as a ladder made before keys existed
    with folder.open_ladder(path) as ladder:
        for name in ("a", "b"):
            folder.add(ladder, name, "random", check=False)
        config = ladder.config
        planned = ledger.plan_next(ladder.store, config, environment(config.trueskill), Target(4))
    assert isinstance(planned, list) and len(planned) == 4
    result = waraq("ladder", "run", "--matches", "4", "-C", str(path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "this ladder had no deal key: made" in result.stdout
    assert stat.S_IMODE((path / "ladder.key").stat().st_mode) == 0o600
    played = records_of(path / "records")
    assert [e[0]["seed"] for e in played] == [p.seed for p in planned]  # the matches planned before
    assert all(e[0]["deal_key"] is True for e in played)
    rules = registry.rules_from_dict("hokm", played[0][0]["rules"])
    assert all(first_deck(e) != deck_dealt(rules, e[0]["seed"]) for e in played)
    assert verified(path / "records")


def test_a_key_file_others_may_read_is_refused_without_showing_the_key(tmp_path):
    path = tmp_path / "loose"
    folder.init(path, RULES, seed=2)
    key_file = path / "ladder.key"
    key_file.chmod(0o644)
    refused = waraq("ladder", "run", "--matches", "2", "-C", str(path))
    assert refused.returncode == 2
    assert f"{key_file} is mode 0644" in refused.stderr and f"chmod 600 {key_file}" in refused.stderr
    key = key_file.read_text().splitlines()[-1]
    assert key not in refused.stdout + refused.stderr and not list((path / "records").iterdir())

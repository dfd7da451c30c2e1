"""Fuzzed inputs: records and rules files of every shape end in a clean answer, never another exception.

What each reader promises, and what is checked here on inputs hypothesis
builds: :func:`waraq.referee.records.record_file.read_record` reads anything, keeping the
events before the first bad line; :func:`waraq.referee.replay.walk.load` and
:func:`waraq.referee.replay.verify.verify_record` never raise for a bad record, they say
what is wrong; a game's rules loader and :func:`waraq.ladder.storage.config.load` raise
their own ``RulesError`` / ``ConfigError`` naming the problem, or succeed.
The inputs are arbitrary bytes, arbitrary JSON lines, real records with
fields changed, dropped and lines moved, and TOML documents built from
arbitrary keys and values. Sized to run in a few seconds.
"""

from __future__ import annotations

import gzip
import json
import math
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.replay_records import hand_worked, record_header, render
from waraq.ladder.storage import config as ladder_config
from waraq.referee.cli.replay import match_text, step_screen
from waraq.referee.games.hand import engine as hand
from waraq.referee.games.hand.rules import HandRules
from waraq.referee.games.hokm.rules import HokmRules
from waraq.referee.games.options import RulesError, toml_value
from waraq.referee.records.record_file import read_record
from waraq.referee.replay.render_verdict import VerdictLine
from waraq.referee.replay.verify import verify_record
from waraq.referee.replay.walk import load, request_json

# 80 examples a test under the ci profile (tests/conftest.py): the file runs in a few seconds; 800 under thorough.
FUZZ = settings(
    max_examples=settings.default.max_examples * 4 // 5,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
EVENT_TYPES = ("match", "ace_draw", "deal", "decision", "fault", "round_end", "result", "restock")
KEYS = (
    "type",
    "round",
    "seat",
    "kind",
    "action",
    "seed",
    "rules",
    "rules_hash",
    "score",
    "winners",
    "reason",
    "faulty",
    "deck",
    "hakem",
    "first",
    "tricks",
    "points",
    "kot",
    "cards",
    "format",
    "game",
    "seats",
    "time_control",
    "detail",
    "substituted",
    "note",
    "ms",
)

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False),
    st.text(max_size=12),
    st.sampled_from(["AS", "10H", "JK#0", "7H#1", "S", "keep", "pass", "TRUMP", "PLAY", "TURN", "score", "forfeit"]),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=20,
)


@pytest.fixture(scope="module", params=["hokm", "hand"])
def real_events(request, tmp_path_factory) -> list[dict[str, Any]]:
    """A whole record of each game: Hokm's hand-worked one, a short Hand match between random players."""
    if request.param == "hokm":
        path = hand_worked(tmp_path_factory.mktemp("fuzz") / "r.jsonl")
        return [json.loads(line) for line in path.read_text().splitlines()]
    rules = HandRules(players=2, rounds=1)
    state = hand.new_match(rules, 3)
    rng = random.Random(3)
    while not state.is_over:
        state.apply(state.random_action(rng))
    return [record_header(rules, 3), *({**e, "ms": 1.0} if e["type"] == "decision" else e for e in state.events)]


def reads_cleanly(path: Path) -> None:
    """What every reader of a record promises on any file: an answer, no exception; and what
    ``waraq replay`` shows of it (the whole match, each step, each request) is shown."""
    record = read_record(path)
    assert record.problem is None or isinstance(record.problem, str)
    replay = load(path)
    verdict = verify_record(path)
    assert verdict.status == replay.status and (verdict.ok or verdict.problem)
    render(VerdictLine(verdict))
    if replay.rules is not None and replay.initial is not None:
        render(match_text(replay, None, None, None))
        for step in replay.steps[:3]:
            render(step_screen(replay, step, step.seat))
            request_json(replay.request(step))


@FUZZ
@given(data=st.binary(max_size=2000), gzip_it=st.booleans(), name=st.sampled_from(["r.jsonl", "r.jsonl.gz"]))
def test_any_bytes_as_a_record(tmp_path, data, gzip_it, name):
    path = tmp_path / name
    path.write_bytes(gzip.compress(data) if gzip_it else data)
    reads_cleanly(path)


# Lines no JSON encoder writes but a file may hold: nesting past any parser's depth, numbers past
# Python's 4300 digits, a line cut short.
odd_lines = st.one_of(
    st.integers(1, 6000).map(lambda n: '{"type": "decision", "action": ' + "[" * n + "]" * n + "}"),
    st.integers(1, 6000).map(lambda n: '{"type": "match", "seed": ' + "9" * n + "}"),
    st.text(max_size=40),
)


@FUZZ
@given(
    lines=st.lists(
        st.one_of(
            json_values.map(json.dumps),
            st.dictionaries(st.sampled_from(KEYS), json_values, max_size=6).map(json.dumps),
            odd_lines,
        ),
        max_size=8,
    )
)
def test_any_json_lines_as_a_record(tmp_path, lines):
    path = tmp_path / "r.jsonl"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8", errors="surrogatepass")
    reads_cleanly(path)


@pytest.mark.slow
@FUZZ
@given(data=st.data())
def test_a_real_record_with_fields_changed_dropped_and_lines_moved(tmp_path, real_events, data):
    events = [dict(e) for e in real_events]
    for _ in range(data.draw(st.integers(1, 4))):
        line = data.draw(st.integers(0, len(events) - 1))
        how = data.draw(st.sampled_from(["change", "drop-key", "drop-line", "copy-line", "swap-lines"]))
        if how == "change":
            events[line][data.draw(st.sampled_from(KEYS))] = data.draw(json_values)
        elif how == "drop-key" and events[line]:
            del events[line][data.draw(st.sampled_from(sorted(events[line])))]
        elif how == "drop-line" and len(events) > 1:
            del events[line]
        elif how == "copy-line":
            events.insert(data.draw(st.integers(0, len(events))), dict(events[line]))
        else:
            other = data.draw(st.integers(0, len(events) - 1))
            events[line], events[other] = events[other], events[line]
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    reads_cleanly(path)


@pytest.mark.parametrize("seat", [1.0, True], ids=["float", "bool"])
def test_a_seat_equal_to_a_number_but_no_whole_number_is_a_broken_record_not_a_crash(tmp_path, real_events, seat):
    """The fuzzer's find: a decision's seat of 1.0 passed for 1 (Python calls them equal), and the
    walk then indexed a list with it. A seat is a whole number, or the record says where it breaks."""
    events = [dict(e) for e in real_events]
    first = next(i for i, e in enumerate(events) if e["type"] == "decision" and e["seat"] == 1)
    events[first]["seat"] = seat
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    reads_cleanly(path)
    replay = load(path)
    assert not replay.ok and f"the record has seat {seat}" in replay.problem, replay.problem


# -- rules files and ladder.toml -----------------------------------------------------------------

toml_scalars = st.one_of(
    st.booleans(),
    st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=False),
    st.text(max_size=10),
    st.sampled_from(["classic", "three", "two", "short", "partners", "free", "must_trump", "2D", "hokm", "hand"]),
)
toml_values = st.recursive(
    toml_scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.from_regex(r"[a-z_]{1,8}", fullmatch=True), inner, max_size=4)
    ),
    max_leaves=12,
)
HOKM_KEYS = [o.name for o in HokmRules.OPTIONS]
HAND_KEYS = [o.name for o in HandRules.OPTIONS]
rule_keys = st.one_of(st.sampled_from([*HOKM_KEYS, *HAND_KEYS, "preset", "game"]), st.text(min_size=1, max_size=8))


def toml_document(table: dict[str, Any]) -> str:
    """A TOML document of ``key = value`` lines (keys quoted, values as Waraq spells them)."""
    return "".join(f"{json.dumps(key)} = {toml_value(value)}\n" for key, value in table.items())


def real_number(value: Any) -> bool:
    return not isinstance(value, float) or math.isfinite(value)


@pytest.mark.slow
@FUZZ
@given(table=st.dictionaries(rule_keys, toml_values, max_size=6), game=st.sampled_from([HokmRules, HandRules]))
def test_any_toml_rules_file_is_rules_or_a_rules_error(tmp_path, table, game):
    path = tmp_path / "house.toml"
    path.write_text(toml_document(table), encoding="utf-8", errors="surrogatepass")
    try:
        rules = game.from_toml(path)
    except RulesError as error:
        assert str(error)
    else:
        assert rules.to_dict() and game.from_dict(rules.to_dict()) == rules


deep_toml = st.tuples(st.sampled_from(["[", "{a = "]), st.integers(1, 6000)).map(
    # removed_cards = [[[...]]] or {a = {a = ... 1}}, nested t[1] deep
    lambda t: (
        "removed_cards = " + t[0] * t[1] + ("1" if t[0] != "[" else "") + ("]" if t[0] == "[" else "}") * t[1] + "\n"
    )
)


@FUZZ
@given(text=st.one_of(st.text(max_size=300), st.binary(max_size=300), deep_toml))
def test_any_text_or_bytes_as_a_rules_file_is_rules_or_a_rules_error(tmp_path, text):
    path = tmp_path / "house.toml"
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass"))
    for game in (HokmRules, HandRules):
        try:
            game.from_toml(path)
        except RulesError as error:
            assert str(path) in str(error)


TABLE_KEYS = {name: list(keys) for name, (_, keys) in ladder_config.TABLES.items()}
ladder_tables = st.fixed_dictionaries(
    {},
    optional={
        "format": st.one_of(st.just(ladder_config.FORMAT), toml_values),
        "game": st.one_of(st.sampled_from(["hokm", "hand"]), toml_values),
        "seed": st.one_of(st.integers(0, 2**40), toml_values),
        "rules": st.one_of(st.dictionaries(rule_keys, toml_values, max_size=3), toml_values),
        "bots": st.one_of(
            st.lists(
                st.dictionaries(
                    st.sampled_from(["name", "spec", "cwd", "on_new_version", "x"]),
                    st.one_of(st.sampled_from(["a", "random", "heuristic", "x {port}"]), toml_values),
                    max_size=4,
                ),
                max_size=3,
            ),
            toml_values,
        ),
        **{
            name: st.one_of(st.dictionaries(st.sampled_from([*keys, "extra"]), toml_values, max_size=3), toml_values)
            for name, keys in TABLE_KEYS.items()
        },
    },
)


@pytest.mark.slow
@FUZZ
@given(raw=ladder_tables)
def test_any_ladder_toml_is_a_config_or_a_config_error_naming_the_file(tmp_path, raw):
    loads_or_names_the_file(tmp_path, _ladder_document(raw).encode("utf-8", "surrogatepass"))


@FUZZ
@given(data=st.one_of(st.binary(max_size=400), deep_toml.map(str.encode)))
def test_any_bytes_as_ladder_toml_is_a_config_error_naming_the_file(tmp_path, data):
    loads_or_names_the_file(tmp_path, data)


def loads_or_names_the_file(folder: Path, data: bytes) -> None:
    (folder / ladder_config.CONFIG).write_bytes(data)
    try:
        ladder_config.load(folder)
    except ladder_config.ConfigError as error:
        assert str(folder / ladder_config.CONFIG) in str(error)


def _ladder_document(raw: dict[str, Any]) -> str:
    """ladder.toml as a person might write it: scalars first, then [tables] and [[bots]]."""
    lines = [
        f"{json.dumps(k)} = {toml_value(v)}"
        for k, v in raw.items()
        if not isinstance(v, (dict, list)) or k == "rules" and not isinstance(v, dict)
    ]
    for key, value in raw.items():
        if isinstance(value, dict):
            lines += [f"[{key}]", *(f"{json.dumps(k)} = {toml_value(v)}" for k, v in value.items())]
        elif isinstance(value, list) and key == "bots" and all(isinstance(b, dict) for b in value):
            for bot in value:
                lines += ["[[bots]]", *(f"{json.dumps(k)} = {toml_value(v)}" for k, v in bot.items())]
        elif isinstance(value, list):
            lines.insert(0, f"{json.dumps(key)} = {toml_value(value)}")
    return "\n".join(lines) + "\n"

"""Decision kinds are StrEnum members: spelled as plain strings, and a plain string equal to one
(a record line read back, a request's field) takes the same road through the engine as the member.

A kind read from JSON is a new ``str`` object, never the member itself: code that compared kinds
with ``is`` would send it down the wrong branch without a word. These tests feed engines such
strings and check they get what the members get.
"""

from __future__ import annotations

import json
import random

import orjson
import pytest

from tests.support.hokm_setup import rules as hokm_rules
from waraq.referee.games.cards import parse_card, parse_suit
from waraq.referee.games.hand import engine as hand
from waraq.referee.games.hand.decisions import TURN, Turn
from waraq.referee.games.hand.rules import PRESETS as HAND_PRESETS
from waraq.referee.games.hokm import engine as hokm
from waraq.referee.records.record_file import encode_line
from waraq.v1 import bot_pb2 as pb

SPELLED = {hokm: ["TRUMP", "PLAY", "DISCARD", "DRAW", "REDEAL", "BAM"], hand: ["TAKE", "TURN"]}  # docs/records.md


def copy_of(kind: str) -> str:
    """A plain ``str`` equal to ``kind`` and not the same object, as json.loads makes one."""
    return "".join(list(str(kind)))


@pytest.mark.parametrize("engine", [hokm, hand], ids=["hokm", "hand"])
def test_the_kinds_are_spelled_as_the_records_spell_them(engine):
    assert [str(k) for k in engine.KINDS] == SPELLED[engine]
    assert [k.value for k in engine.KINDS] == SPELLED[engine]
    for kind, spelled in zip(engine.KINDS, SPELLED[engine], strict=True):
        assert orjson.dumps({"kind": kind}) == b'{"kind":"%s"}' % spelled.encode()
        assert json.dumps({"kind": kind}) == f'{{"kind": "{spelled}"}}'
        assert f"{kind}" == spelled and f"{kind:>8}" == spelled.rjust(8)
        # A record line, by orjson and (an integer beyond 64 bits) by the json module's fallback.
        assert encode_line({"kind": kind}) == b'{"kind":"%s"}\n' % spelled.encode()
        assert encode_line({"kind": kind, "seed": 2**70}) == b'{"kind":"%s","seed":%d}\n' % (spelled.encode(), 2**70)


@pytest.mark.parametrize("engine", [hokm, hand], ids=["hokm", "hand"])
def test_a_kind_read_from_json_is_a_plain_string_equal_to_its_member(engine):
    for kind in engine.KINDS:
        read = json.loads(orjson.dumps({"kind": kind}))["kind"]
        assert type(read) is str and read is not kind
        assert read == kind and kind == read and not read != kind
        assert hash(read) == hash(kind) and {kind: "found"}[read] == "found"
        assert read in engine.KINDS


@pytest.mark.parametrize("engine", [hokm, hand], ids=["hokm", "hand"])
def test_a_protobuf_field_takes_a_member_and_gives_back_a_plain_string_equal_to_it(engine):
    for kind in engine.KINDS:
        by_member = pb.DecisionRequest(kind=kind, seat=1)
        assert by_member.SerializeToString() == pb.DecisionRequest(kind=str(kind), seat=1).SerializeToString()
        read = pb.DecisionRequest.FromString(by_member.SerializeToString()).kind
        assert type(read) is str and read == kind


def test_hokm_reads_every_kinds_action_the_same_from_a_copied_kind():
    # Hand-worked: each kind's spelling and the value the engine keeps for it (docs/records.md).
    cases = [
        ("TRUMP", "H", parse_suit("H")),
        ("PLAY", "10H", parse_card("10H")),
        ("DISCARD", ["KS", "2C"], tuple(sorted([parse_card("KS"), parse_card("2C")]))),
        ("DRAW", "pass", "pass"),
        ("REDEAL", True, True),
        ("BAM", False, False),
    ]
    for spelled, value, expected in cases:
        assert hokm.action_from_json(copy_of(spelled), value) == expected
        assert hokm.action_from_json(getattr(hokm, spelled), value) == expected
        engine_value = hokm.action_from_json(copy_of(spelled), value)
        assert hokm.action_to_json(copy_of(spelled), engine_value) == value
    with pytest.raises(hokm.ActionError, match="'DEAL' is not a decision kind"):
        hokm.action_from_json("DEAL", "AS")


def test_hand_reads_every_kinds_action_the_same_from_a_copied_kind():
    turn = {"steps": [{"meld": ["7H#0", "8H#0", "9H#1"]}], "discard": "KD#1"}
    assert hand.action_from_json(copy_of("TAKE"), "discard") == "discard"
    parsed = hand.action_from_json(copy_of("TURN"), turn)
    assert parsed == hand.action_from_json(TURN, turn) and type(parsed) is Turn
    assert hand.action_to_json(copy_of("TURN"), parsed) == turn
    assert hand.action_to_json(copy_of("TAKE"), "stock") == "stock"


def played_hokm(seed: int):
    rules = hokm_rules(players=2, bam=True, max_redeals=2)
    state = hokm.new_match(rules, seed)
    rng = random.Random(seed)
    while state.result is None:
        state.apply(rng.choice(state.legal_actions()))
    return rules, state


def played_hand(seed: int):
    rules = HAND_PRESETS["short"].replace(players=2)
    state = hand.new_match(rules, seed)
    rng = random.Random(seed)
    while state.result is None:
        state.apply(state.random_action(rng))
    return rules, state


def read_back(events: list[dict]) -> list[dict]:
    """The events as a record holds them and a reader gets them: lines of JSON, parsed."""
    return [json.loads(encode_line(e)) for e in events]


def test_a_hokm_record_read_back_from_json_replays_to_the_same_match():
    seen: set[str] = set()
    for seed in range(40):
        rules, played = played_hokm(seed)
        events = read_back(played.events)
        kinds = {e["kind"] for e in events if e["type"] == "decision"}
        assert all(type(e["kind"]) is str for e in events if e["type"] == "decision")
        seen |= kinds
        replayed = hokm.replay(rules, events)
        assert replayed.events == played.events and replayed.result == played.result
        # The state's own kind stays the member itself, whatever strings the record held:
        # HokmState compares it by identity on its hot path.
        for state in hokm.iter_replay(rules, events):
            assert state.kind is None or any(state.kind is k for k in hokm.KINDS)
        if seen == set(SPELLED[hokm]):
            break
    assert seen == set(SPELLED[hokm]), f"the seeds tried never asked for {set(SPELLED[hokm]) - seen}"


def test_a_hand_record_read_back_from_json_replays_to_the_same_match():
    rules, played = played_hand(3)
    events = read_back(played.events)
    assert {e["kind"] for e in events if e["type"] == "decision"} == {"TAKE", "TURN"}
    replayed = hand.replay(rules, events)
    assert replayed.events == played.events and replayed.result == played.result

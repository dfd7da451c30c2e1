"""A record's events rebuild the match; a record the rules do not reproduce says where and why."""

from __future__ import annotations

import copy
import json

import pytest

from waraq.bots.hokm_random import RandomPlayer
from waraq.referee.games.hokm.engine import ReplayError, iter_replay, replay
from waraq.referee.games.hokm.rules import PRESETS
from waraq.referee.match.inprocess import play_match
from waraq.referee.replay.walk import record_paths

RULES = PRESETS["classic"].replace(bam=True, max_redeals=1)


@pytest.fixture(scope="module")
def events() -> list[dict]:
    state = play_match(RULES, 11, [RandomPlayer(s) for s in range(4)])
    # Through JSON, as a record file holds them, with the referee's extra fields.
    return [
        {**e, "ms": 1.5, "note": "why"} if e["type"] == "decision" else e for e in json.loads(json.dumps(state.events))
    ]


def index_of(events, predicate) -> int:
    return next(i for i, e in enumerate(events) if predicate(e))


def test_a_whole_record_replays_to_the_same_result(events):
    state = replay(RULES, events)
    assert state.is_over
    assert state.events[-1] == {k: events[-1][k] for k in state.events[-1]}


def test_a_record_cut_short_replays_up_to_its_last_line(events):
    cut = index_of(events, lambda e: e["type"] == "round_end") + 5  # into round 2
    state = replay(RULES, events[:cut])
    assert not state.is_over
    assert len(state.events) == cut


def test_a_record_cut_right_after_a_round_end_stops_there(events):
    cut = index_of(events, lambda e: e["type"] == "round_end") + 1
    states = list(iter_replay(RULES, events[:cut]))
    assert states[-1].events[cut - 1]["type"] == "round_end"
    assert states[-1].kind is None and not states[-1].is_over


def test_tampered_round_points_are_caught(events):
    tampered = copy.deepcopy(events)
    i = index_of(tampered, lambda e: e["type"] == "round_end")
    tampered[i]["points"] = [p + 1 for p in tampered[i]["points"]]
    with pytest.raises(ReplayError, match=rf"event {i + 1} \(round_end, round 1\): record has points"):
        replay(RULES, tampered)


def test_a_tampered_result_is_caught(events):
    tampered = copy.deepcopy(events)
    tampered[-1]["winners"] = [s for s in range(4) if s not in tampered[-1]["winners"]]
    with pytest.raises(ReplayError, match="result"):
        replay(RULES, tampered)


def test_an_illegal_recorded_play_is_caught_with_the_engines_reason(events):
    tampered = copy.deepcopy(events)
    # The second play of the first trick repeats the lead: a card that seat cannot hold.
    first = index_of(tampered, lambda e: e.get("kind") == "PLAY")
    lead = tampered[first]["action"]
    tampered[first + 1]["action"] = lead
    with pytest.raises(ReplayError, match=rf"event {first + 2} .*played '{lead}' but does not hold it"):
        replay(RULES, tampered)


def test_a_decision_by_the_wrong_seat_is_caught(events):
    tampered = copy.deepcopy(events)
    i = index_of(tampered, lambda e: e.get("kind") == "PLAY")
    tampered[i]["seat"] = (tampered[i]["seat"] + 1) % 4
    with pytest.raises(ReplayError, match="the rules ask seat"):
        replay(RULES, tampered)


def test_a_deck_that_is_not_a_shuffle_of_the_deck_is_caught(events):
    tampered = copy.deepcopy(events)
    i = index_of(tampered, lambda e: e["type"] == "deal")
    tampered[i]["deck"][3] = tampered[i]["deck"][4]
    with pytest.raises(ReplayError, match="not a shuffle"):
        replay(RULES, tampered)


def test_an_unreadable_action_is_caught(events):
    tampered = copy.deepcopy(events)
    i = index_of(tampered, lambda e: e.get("kind") == "PLAY")
    tampered[i]["action"] = "11H"
    with pytest.raises(ReplayError, match="'11H' is not a card"):
        replay(RULES, tampered)


def test_an_event_the_rules_do_not_produce_is_caught(events):
    tampered = copy.deepcopy(events)
    i = index_of(tampered, lambda e: e.get("kind") == "PLAY")
    tampered.insert(i, {"type": "round_end", "round": 1})
    with pytest.raises(ReplayError):
        replay(RULES, tampered)


def test_a_record_without_its_ace_draw_is_refused(events):
    with pytest.raises(ReplayError, match="ace_draw"):
        replay(RULES, events[1:])


def test_a_folders_records_come_in_natural_order_whatever_digits_their_names_hold(tmp_path):
    # '²' and '٣' are digits to str.isdigit(); only 0-9 count as a number in a name ('1²2' sorted by int() raised).
    names = ["hokm-10.jsonl", "hokm-2.jsonl", "hokm-1²2.jsonl", "hokm-٣.jsonl", "hokm-1.jsonl"]
    for name in names:
        (tmp_path / name).write_text("")
    found = [path.name for path in record_paths([tmp_path])]
    assert found == ["hokm-1.jsonl", "hokm-1²2.jsonl", "hokm-2.jsonl", "hokm-10.jsonl", "hokm-٣.jsonl"]

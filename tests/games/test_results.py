"""A match's end reason is one closed set, spelled in the record and on the wire as before."""

from __future__ import annotations

import json
import random

from tests.support.hokm_setup import rules as hokm_rules
from waraq.referee.games.hand import engine as hand
from waraq.referee.games.hand.rules import PRESETS as HAND_PRESETS
from waraq.referee.games.hokm import engine as hokm
from waraq.referee.games.results import ResultReason
from waraq.referee.records.record_file import encode_line
from waraq.v1 import bot_pb2 as pb


def test_the_reasons_are_the_records_table():
    # docs/records.md "#### Reasons", by hand.
    assert [r.value for r in ResultReason] == ["score", "bam", "forfeit", "aborted"]


def test_a_reason_is_written_as_its_spelling_in_a_record_line_and_a_match_end():
    for reason in ResultReason:
        line = encode_line({"type": "result", "reason": reason})
        assert line == b'{"type":"result","reason":"%s"}\n' % reason.value.encode()
        assert pb.MatchEnd(reason=reason).SerializeToString() == pb.MatchEnd(reason=reason.value).SerializeToString()
        assert json.loads(line)["reason"] == reason


def finish(state, rng):
    while state.result is None:
        state.apply(state.random_action(rng))
    return state


def test_each_engine_ends_a_whole_match_on_score():
    hokm_state = finish(hokm.new_match(hokm_rules(players=4, target_score=2), 5), random.Random(5))
    hand_state = finish(hand.new_match(HAND_PRESETS["short"], 5), random.Random(5))
    for state in (hokm_state, hand_state):
        assert state.result.reason is ResultReason.SCORE
        last = state.events[-1]
        assert last["type"] == "result" and encode_line(last).endswith(b'"reason":"score"}\n')

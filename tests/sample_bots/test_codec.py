"""The bots' codec (sample_bots/codec.py) agrees with the referee's, over random positions of both games.

At a random point of a random match, the referee writes the seat's question
(:mod:`waraq.referee.wire.codec`), it crosses as bytes, and the bots' codec
must read back the very view the engine made. The sample random bot then
chooses from that decoded view, the bots' codec writes the choice, and the
referee's reply parser must read the same action, which the real state must
accept: a view decoded wrong would lead the bot to an illegal choice.
"""

from __future__ import annotations

import random
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.hokm_strategies import SEEDS, hokm_rules, random_matches
from waraq.bots import codec
from waraq.bots.hand_random import HandRandomPlayer
from waraq.bots.hokm_random import RandomPlayer
from waraq.referee.games.hand.decisions import TURN, HandKind
from waraq.referee.games.hand.engine import new_match as new_hand_match
from waraq.referee.games.hand.rules import HandRules
from waraq.referee.games.hokm.engine import ActionError, HokmKind, new_match
from waraq.referee.wire import codec as referee
from waraq.v1 import bot_pb2 as pb


def through_the_wire(state, seq: int) -> tuple[object, pb.DecisionRequest]:
    """The seat to act's view, and the request about it as the bot's process receives it."""
    view = state.view(state.to_act)
    sent = pb.RefereeMessage()
    referee.decision_request(seq, view, match_id="m-1", deadline_ms=250.0, bank_ms=900.0, into=sent.decision)
    return view, pb.RefereeMessage.FromString(sent.SerializeToString()).decision


def answer_and_check(state, view, request: pb.DecisionRequest, player) -> None:
    decoded = codec.message_to_view(request)
    assert decoded == view
    kind = codec.kind_of(request)
    assert kind == view.kind and type(kind) is type(view.kind)  # the game's own member
    action = player(decoded)
    reply = pb.Action.FromString(codec.action_to_message(kind, action).SerializeToString())
    parsed = referee.message_to_action(view.kind, reply)
    assert parsed == action and type(parsed) is type(action)
    state.apply(parsed)  # legal in the real state


@random_matches(150)
@given(data=st.data(), seed=SEEDS, players=st.sampled_from([2, 3, 4]), depth=st.integers(0, 120))
def test_a_hokm_request_reads_back_to_its_view_and_a_reply_to_its_action(data, seed, players, depth):
    rules = data.draw(hokm_rules(players), label="rules")
    state = new_match(rules, seed)
    rng = random.Random(seed)
    for _ in range(depth):  # a random position: random legal plays from the deal
        if state.is_over:
            break
        state.apply(state.random_action(rng))
    if state.is_over:
        return
    view, request = through_the_wire(state, depth + 1)
    assert request.WhichOneof("view") == "hokm"
    answer_and_check(state, view, request, RandomPlayer(seed))


# Every seat count, with and without partners, and openings easy to hard: positions where seats
# have opened, so that the table has melds, the discard has uses and jokers stand for faces.
HAND_RULES = st.builds(
    HandRules,
    players=st.sampled_from([2, 3, 4]),
    rounds=st.integers(1, 3),
    opening_points=st.sampled_from([1, 30, 51, 71]),
) | st.builds(HandRules, partnership=st.just(True), rounds=st.integers(1, 3), opening_points=st.sampled_from([1, 51]))


@pytest.mark.slow
@random_matches(150)
@given(rules=HAND_RULES, seed=SEEDS, depth=st.integers(0, 150))
def test_a_hand_request_reads_back_to_its_view_and_a_reply_to_its_action(rules, seed, depth):
    state = new_hand_match(rules, seed)
    rng = random.Random(seed)
    for _ in range(depth):
        if state.is_over:
            break
        state.apply(state.random_action(rng))
    if state.is_over:
        return
    view, request = through_the_wire(state, depth + 1)
    assert request.WhichOneof("view") == "hand"
    assert view.kind != TURN or not request.legal  # a TURN is checked whole: no legal actions listed
    answer_and_check(state, view, request, HandRandomPlayer(seed))


def test_kinds_are_read_as_their_games_members_and_an_unknown_kind_is_named():
    assert codec.kind_of(pb.DecisionRequest(kind="PLAY", hokm=pb.HokmView())) is HokmKind.PLAY
    assert codec.kind_of(pb.DecisionRequest(kind="TURN", hand=pb.HandView())) is HandKind.TURN
    with pytest.raises(ActionError, match="'TURN' is not a Hokm decision kind: expected one of TRUMP, PLAY"):
        codec.kind_of(pb.DecisionRequest(kind="TURN", hokm=pb.HokmView()))
    with pytest.raises(ValueError, match="'DEAL' is not a Hand decision kind: expected one of TAKE, TURN"):
        codec.kind_of(pb.DecisionRequest(kind="DEAL", hand=pb.HandView()))


def test_the_bots_use_no_part_of_the_referee_but_the_engines_its_argument_checks_and_the_bot_table():
    code = """
import sys
from waraq.bots import cli, codec, hand_codec, server
print(sorted(name for name, module in sys.modules.items() if name.startswith("waraq.referee.")
             and not name.startswith("waraq.referee.games.") and not hasattr(module, "__path__")))
"""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == str(["waraq.referee.common.arguments", "waraq.referee.common.built_in"])

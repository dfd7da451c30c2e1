"""Hand across the protocol boundary: views and actions survive the wire, bad replies are named.

The referee writes with :mod:`waraq.referee.wire.codec`; the bot's side reads with
:mod:`waraq.bots.codec`, as the sample bots do.

Card ids used below, worked out from the spec (``copy * 53 + suit * 13 + rank``,
suits S H D C = 0..3, ranks 2..A = 0..12, the joker face 52): 5H#0 = 16,
6H#1 = 53 + 17 = 70, JK#0 = 52, JK#1 = 105, 8H#0 = 19, 7S#0 = 5,
9S#1 = 53 + 7 = 60, KD#0 = 26 + 11 = 37; and the face 7H = 13 + 5 = 18.
"""

from __future__ import annotations

import random
import subprocess
import sys
from dataclasses import replace

import pytest

from waraq.bots import codec
from waraq.referee.games.hand.decisions import TAKE, TURN, Turn
from waraq.referee.games.hand.engine import ActionError, new_match
from waraq.referee.games.hand.melds import Add, Meld, Swap, TableMeld
from waraq.referee.games.hand.rules import PRESETS
from waraq.referee.games.hand.view import HandView
from waraq.referee.wire import codec as wire
from waraq.v1 import bot_pb2 as pb

VARIANTS = [PRESETS["short"], *(PRESETS[name].replace(rounds=1) for name in ("partners", "three", "two"))]

# The spec's example TURN, as the record spells it, and as the engine's values.
TURN_JSON = {
    "steps": [
        {"meld": ["5H#0", "6H#1", "JK#0"]},
        {"add": 2, "cards": ["8H#0"], "at": "high"},
        {"add": 0, "cards": ["7S#0"]},
        {"swap": 1, "card": "9S#1"},
    ],
    "discard": "KD#0",
}
TURN_VALUE = Turn((Meld((16, 70, 52)), Add(2, (19,), "high"), Add(0, (5,), None), Swap(1, 60)), 37)


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: f"{r.players}p{'-partners' if r.partnership else ''}")
def test_every_view_of_a_match_comes_back_from_its_message_unchanged(rules):
    rng = random.Random(5)
    seen = {"TAKE": 0, "TURN": 0, "uses": 0, "joker_as": 0, "taken": 0}
    for seed in range(12):  # until the matches have shown every part of a view
        if all(seen.values()):
            break
        state = new_match(rules, seed)
        while not state.is_over:
            view = state.view(state.to_act)
            request = wire.decision_request(4, view, match_id="m", deadline_ms=1, bank_ms=2)
            received = pb.DecisionRequest.FromString(request.SerializeToString())  # as another process gets it
            assert received.WhichOneof("view") == "hand" and not received.HasField("hokm")
            assert codec.message_to_view(received) == view
            action = state.random_action(rng)
            assert wire.message_to_action(view.kind, wire.action_to_message(view.kind, action)) == action
            seen[view.kind] += 1
            seen["uses"] += bool(view.uses)
            seen["joker_as"] += any(m.joker_as is not None for m in view.melds)
            seen["taken"] += bool(view.taken)
            state.apply(action)
    assert all(seen.values()), f"the matches did not show every part of a view: {seen}"


def test_the_specs_turn_is_the_same_turn_as_a_message_and_as_a_record_line():
    message = wire.action_to_message(TURN, TURN_VALUE)
    assert message.WhichOneof("action") == "turn"
    turn = message.turn
    assert turn.discard == "KD#0"
    assert [s.WhichOneof("step") for s in turn.steps] == ["meld", "add", "add", "swap"]
    assert list(turn.steps[0].meld.cards) == ["5H#0", "6H#1", "JK#0"]
    assert (turn.steps[1].add.meld, list(turn.steps[1].add.cards), turn.steps[1].add.at) == (2, ["8H#0"], "high")
    assert turn.steps[2].add.at == ""  # a set's addition: no end, "" on the wire
    assert (turn.steps[3].swap.meld, turn.steps[3].swap.card) == (1, "9S#1")
    received = pb.Action.FromString(message.SerializeToString())
    assert wire.message_to_action(TURN, received) == TURN_VALUE
    from waraq.referee.wire.hand import turn_json

    assert turn_json(received.turn) == TURN_JSON  # the record's spelling, "at" absent for the set


def test_take_requests_list_both_answers_and_turn_requests_none():
    taking = HandView(
        rules=PRESETS["classic"],
        seat=1,
        round=2,
        first=0,
        kind=TAKE,
        to_act=1,
        legal=("stock", "discard"),
        hand=(5, 60),
        hand_sizes=(3, 2, 4, 4),
        opened=(True, False, False, False),
        melds=(TableMeld(0, "run", (16, 70, 52), 18),),
        pile=(37, 105),
        taken=((3, 19),),
        stock_size=40,
        drawn=None,
        took=None,
        uses=(),
        scores=(10, -30, 100, 0),
        result=None,
    )
    request = wire.decision_request(9, taking, match_id="m-1", deadline_ms=100, bank_ms=50)
    assert request.kind == "TAKE" and [a.take for a in request.legal] == ["stock", "discard"]
    view = request.hand
    assert (view.seat, view.players, view.round, view.first, view.to_act) == (1, 4, 2, 0, 1)
    assert list(view.melds[0].cards) == ["5H#0", "6H#1", "JK#0"] and view.melds[0].joker_as == "7H"  # face 18
    assert list(view.pile) == ["KD#0", "JK#1"] and (view.taken[0].seat, view.taken[0].card) == (3, "8H#0")
    assert (view.drawn, view.took, list(view.scores), view.partnership) == ("", "", [10, -30, 100, 0], False)
    turning = replace(taking, kind=TURN, legal=(), took=105, uses=((Add(0, (105,), "high"),),))
    request = wire.decision_request(10, turning, match_id="m-1", deadline_ms=100, bank_ms=50)
    assert request.kind == "TURN" and not request.legal
    assert request.hand.took == "JK#1" and request.hand.uses[0].steps[0].add.at == "high"
    assert codec.message_to_view(request) == turning


@pytest.mark.parametrize(
    "kind, action, problem",
    [
        ("TAKE", pb.Action(turn=pb.Turn(discard="KD#0")), "a TAKE decision needs Action.take, the reply set 'turn'"),
        ("TAKE", pb.Action(), "needs Action.take, the reply set no action"),
        ("TAKE", pb.Action(take="both"), "'both' is neither 'stock' nor 'discard'"),
        ("TURN", pb.Action(take="stock"), "a TURN decision needs Action.turn, the reply set 'take'"),
        ("TURN", pb.Action(card="7H"), "needs Action.turn, the reply set 'card'"),
        ("TURN", pb.Action(turn=pb.Turn(discard="7H")), "'7H' is not a Hand card"),
        ("TURN", pb.Action(turn=pb.Turn()), "'' is not a Hand card"),
        ("TURN", pb.Action(turn=pb.Turn(steps=[pb.Step()], discard="7H#0")), "step 1 sets none of meld, add, swap"),
        (
            "TURN",
            pb.Action(
                turn=pb.Turn(steps=[pb.Step(add=pb.Addition(meld=0, cards=["7H#0"], at="middle"))], discard="7H#1")
            ),
            "'at' must be 'low', 'high' or absent",
        ),
        ("PLAY", pb.Action(take="stock"), "a PLAY decision needs Action.card, the reply set 'take'"),
    ],
)
def test_a_malformed_hand_action_says_what_is_wrong(kind, action, problem):
    with pytest.raises(ValueError, match=problem):
        wire.message_to_action(kind, action)


def test_hand_actions_raise_hands_own_action_error():
    with pytest.raises(ActionError):
        wire.message_to_action(TAKE, pb.Action(take="maybe"))


def test_a_hokm_only_process_never_loads_hand():
    # The referee's Hokm path through its codec and the match runner, and a built-in bot's through
    # the table of built-in bots and the bots' codec, must not import Hand's engine or codecs.
    code = """
import asyncio, sys
from waraq.bots import codec
from waraq.bots.server import builtin_players
from waraq.referee.wire import codec as wire
from waraq.referee.games.hokm.rules import PRESETS
from waraq.referee.match.play import MatchConfig, run_match
from waraq.referee.match.seats import InProcessSeat
random = builtin_players()["random"]
seats = [InProcessSeat(lambda m, s: random(m, s, "hokm"), "random") for _ in range(4)]
outcome = asyncio.run(run_match(MatchConfig(PRESETS["short"], 1, "m"), seats))
from waraq.referee.games.hokm.engine import new_match
state = new_match(PRESETS["short"], 1)
view = state.view(state.to_act)
wire.decision_message(1, view, match_id="m", deadline_ms=1, bank_ms=1)
request = wire.decision_request(1, view, match_id="m", deadline_ms=1, bank_ms=1)
kind = codec.kind_of(request)
reply = codec.action_to_message(kind, random("m", 0, "hokm")(codec.message_to_view(request)))
wire.message_to_action(request.kind, reply)
loaded = sorted(m for m in sys.modules if "hand" in m)
print(outcome.reason, loaded)
"""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "score []"

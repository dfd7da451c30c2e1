"""A plug-in game's messages (referee/wire/json_view.py), with the toy game of tests/toy_game/."""

from __future__ import annotations

import json

import pytest

from tests.toy_game import engine
from tests.toy_game.rules import ToyRules
from waraq.referee.games.cards import CARD_NAMES
from waraq.referee.wire.json_view import JsonWire
from waraq.v1 import bot_pb2 as pb

WIRE = JsonWire(engine, engine.ToyView)


def test_a_request_holds_the_seats_view_as_json_and_every_legal_action_as_the_record_spells_it():
    state = engine.new_match(ToyRules(), 7)
    view = state.view(0)
    request = WIRE.decision_request(3, view, match_id="m", deadline_ms=10, bank_ms=20)
    assert (request.seq, request.kind, request.seat, request.WhichOneof("view")) == (3, "SHOW", 0, "view_json")
    assert json.loads(request.view_json) == view.to_json()
    assert [json.loads(a.json) for a in request.legal] == [CARD_NAMES[c] for c in view.legal]
    # What the bot is sent shows its own hand, never the other seat's.
    assert not set(json.loads(request.view_json)["hand"]) & {CARD_NAMES[c] for c in state.hands[1]}


def test_a_reply_reads_back_to_the_engines_action():
    state = engine.new_match(ToyRules(), 7)
    card = state.legal_actions()[0]
    assert WIRE.message_to_action("SHOW", WIRE.action_to_message("SHOW", card)) == card


@pytest.mark.parametrize(
    ("action", "says"),
    [
        (pb.Action(card="7H"), "sets Action.json, not card"),
        (pb.Action(), "sets Action.json, not None"),
        (pb.Action(json="{7H"), "is not JSON"),
        (pb.Action(json='"7X"'), "is not a card"),
        (pb.Action(json="[" * 100_000 + "]" * 100_000), "nested too deeply"),
    ],
)
def test_a_reply_that_spells_no_action_is_the_games_action_error(action: pb.Action, says: str):
    with pytest.raises(engine.ActionError, match=says):
        WIRE.message_to_action("SHOW", action)

"""Whatever a reply says, reading it and playing it ends in an action, a Fault, or the engine's IllegalAction.

The referee turns a bot's bytes into a move in three steps, each with its own
refusal: the Play stream's deserializer (bytes that are no BotMessage), the
reply's checks and the wire's action parser (``seats._answer``: MALFORMED),
and the engine's checked door (``state.apply``: ILLEGAL). The match loop
catches those two exception types and nothing else, so anything else raised
on the way would abort the match as a referee error, charged to no one.

Here every kind of decision of both games (every Hokm preset and Hand
preset, replayed at random) gets replies built to be wrong in every way a
message can be: each Action field set for each kind, card names the seat
holds and does not, duplicates, the wrong number of cards, Hand turns of
random steps over the seat's own cards with meld numbers in and out of range,
odd ``think_ms`` values; and random bytes. Seeded, so the same cases every run.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from waraq.referee.games.cards import CARD_NAMES as HOKM_CARDS
from waraq.referee.games.hand import engine as hand
from waraq.referee.games.hand.melds import CARD_NAMES as HAND_CARDS
from waraq.referee.games.hand.rules import PRESETS as HAND_PRESETS
from waraq.referee.games.hokm import engine as hokm
from waraq.referee.games.hokm.rules import PRESETS as HOKM_PRESETS
from waraq.referee.match.faults import Fault
from waraq.referee.match.seats import Question, Unreadable, _answer, _deserialize
from waraq.referee.wire import codec as wire
from waraq.v1 import bot_pb2 as pb

ODD = ["", "x", "10h", "11X", "AH#2", "JK#9", "low", "mid", "stock", "keep", "S", "\x00", "7H#1", "JK#0"]
THINK = [0.0, 1.5, float("nan"), float("inf"), -float("inf"), -3.0, 1e300]


def states() -> Iterator[tuple[Any, Any]]:
    """(engine, state) at decisions of every preset of both games, a few matches each, played at random."""
    for engine, presets in ((hokm, HOKM_PRESETS), (hand, HAND_PRESETS)):
        for rules in presets.values():
            for seed in range(3):
                state, rng = engine.new_match(rules, seed), random.Random(seed)
                for _ in range(150):
                    if state.is_over:
                        break
                    yield engine, state
                    state.apply(state.random_action(rng))


def actions(rng: random.Random, view: Any) -> Iterator[pb.Action]:
    """Replies to ``view``: its legal ones, and each Action field filled with near misses."""
    names = HOKM_CARDS if isinstance(view, hokm.HokmView) else HAND_CARDS
    mine = [names[c] for c in view.hand] or ["2S"]
    words = ODD + mine + [rng.choice(names) for _ in range(3)]
    yield from (wire.action_to_message(view.kind, a) for a in view.legal[:3])
    yield pb.Action()
    yield pb.Action(suit=rng.choice(words))
    yield pb.Action(card=rng.choice(words))
    yield pb.Action(discard=pb.Cards(cards=[rng.choice(words) for _ in range(rng.randrange(4))]))
    yield pb.Action(discard=pb.Cards(cards=[mine[0], mine[0]]))
    yield pb.Action(draw=rng.choice(words))
    yield pb.Action(answer=rng.random() < 0.5)
    yield pb.Action(take=rng.choice(words))
    for _ in range(4):
        turn = pb.Turn(discard=rng.choice(words))
        tables = len(getattr(view, "melds", ()))
        for _ in range(rng.randrange(5)):
            step = turn.steps.add()
            which = rng.randrange(4)
            if which == 0:
                step.meld.cards.extend(rng.sample(mine, min(len(mine), rng.randrange(1, 6))))
            elif which == 1:
                step.add.meld = rng.choice([0, tables, tables + 1, 2**32 - 1])
                step.add.cards.extend(rng.sample(mine, min(len(mine), rng.randrange(1, 3))))
                step.add.at = rng.choice(["", "low", "high", "mid"])
            elif which == 2:
                step.swap.meld = rng.choice([0, tables, 2**32 - 1])
                step.swap.card = rng.choice(words)
            # else: a step that sets none of meld, add, swap
        yield pb.Action(turn=turn)


def test_every_reply_is_an_action_a_fault_or_illegal_and_nothing_else():
    rng = random.Random(11)
    outcomes = {"played": 0, "fault": 0, "illegal": 0}
    for engine, state in states():
        view = state.view(state.to_act)
        for action in actions(rng, view):
            message = pb.BotMessage(reply=pb.DecisionReply(seq=1, action=action, think_ms=rng.choice(THINK)))
            try:
                answer = _answer(Question(1, view, "m", 1000, 1000), message, set())
            except Fault:
                outcomes["fault"] += 1
                continue
            try:
                state.clone().apply(answer.action)
            except engine.IllegalAction:
                outcomes["illegal"] += 1
                continue
            outcomes["played"] += 1
    assert all(outcomes.values()), outcomes  # each way was taken, many times over


def test_random_bytes_are_a_message_or_unreadable_and_either_ends_in_a_fault_or_an_answer():
    rng = random.Random(12)
    state = hokm.new_match(HOKM_PRESETS["classic"], 1)
    while state.kind != hokm.PLAY:
        state.apply(state.legal_actions()[0])
    view = state.view(state.to_act)
    good = pb.BotMessage(reply=pb.DecisionReply(seq=1, action=wire.action_to_message(view.kind, view.legal[0])))
    good_bytes = good.SerializeToString()
    seen = set()
    for n in range(3000):
        if n % 2:
            data = bytearray(good_bytes)
            for _ in range(rng.randrange(1, 4)):
                data[rng.randrange(len(data))] = rng.randrange(256)
        else:
            data = bytearray(rng.randrange(256) for _ in range(rng.randrange(40)))
        message = _deserialize(bytes(data))
        seen.add(type(message))
        try:
            _answer(Question(1, view, "m", 1000, 1000), message, set())
        except Fault as fault:
            assert fault.lost == (type(message) is Unreadable)
    assert seen == {pb.BotMessage, Unreadable}

"""Hand as a PettingZoo AEC environment (referee/env/hand_pettingzoo.py): PettingZoo's own api_test
and seed_test on every preset, and a match played through it ends as the engine ends it."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from waraq.referee.env.hand_encoding import action_of, decode, encode
from waraq.referee.env.hand_pettingzoo import HandAEC, env
from waraq.referee.env.hand_steps import DISCARD, PICK
from waraq.referee.games.hand.decisions import TAKE
from waraq.referee.games.hand.engine import new_match
from waraq.referee.games.hand.rules import PRESETS


@pytest.mark.parametrize("preset", PRESETS)
def test_pettingzoos_api_test_and_seed_test_pass(preset):
    api_test(env(preset), num_cycles=300)
    seed_test(lambda: env(preset), num_cycles=100)


def play_through(aec: HandAEC, seed: int) -> tuple[list, dict[str, float]]:
    """A whole match of random allowed indices (steps preferred to the discard): the engine's
    actions it made (TAKE answers and finished turns) and the agents' last rewards."""
    aec.reset(seed=seed)
    rng = np.random.default_rng(seed)
    taken, rewards = [], {}
    while aec.agents:
        agent = aec.agent_selection
        observation, reward, terminated, truncated, _ = aec.last()
        if terminated or truncated:
            rewards[agent] = reward
            aec.step(None)
            continue
        allowed = np.flatnonzero(observation["action_mask"])
        steps = [i for i in allowed if decode(i).kind != DISCARD]
        index = int(rng.choice(steps if steps and rng.random() < 0.8 else allowed))
        turn = aec.turn
        if aec.match.kind == TAKE:
            taken.append(action_of(index, aec.match.view(aec.match.to_act)))
        aec.step(index)
        if turn is not None and turn.finished is not None:
            taken.append(turn.finished)
    return taken, rewards


@pytest.mark.parametrize("preset", PRESETS)
def test_a_match_through_the_environment_ends_as_the_engine_playing_the_same_actions(preset):
    aec = HandAEC(preset)
    taken, rewards = play_through(aec, 4)
    direct = new_match(aec.rules, 4)
    for action in taken:
        direct.apply(action)
    assert direct.result is not None and direct.result == aec.match.result
    assert direct.events == aec.match.events
    winners = direct.result.winners
    assert rewards == {f"seat_{s}": 1 if s in winners else -1 for s in range(aec.rules.players)}


def test_a_turn_is_one_agents_moves_and_the_others_see_it_only_once_discarded():
    aec = HandAEC("classic")
    aec.reset(seed=2)  # its first player holds an opening
    actor = aec.agent_selection
    others = [a for a in aec.agents if a != actor]
    before = {a: aec.observe(a)["observation"] for a in others}
    assert aec.match.events[:1] == new_match(aec.rules, 2).events[:1]  # the deal waraq play deals
    pick = next(i for i in np.flatnonzero(aec.observe(actor)["action_mask"]) if decode(i).kind == PICK)
    aec.step(int(pick))
    assert aec.agent_selection == actor and aec.turn.selection == {decode(pick).arg}
    assert np.array_equal(aec.observe(actor)["observation"], encode(aec.match.view(aec.match.to_act), aec.turn))
    for agent in others:
        assert np.array_equal(aec.observe(agent)["observation"], before[agent])
        assert not aec.observe(agent)["action_mask"].any()
    while aec.agent_selection == actor:
        mask = aec.observe(actor)["action_mask"]
        aec.step(int(np.flatnonzero(mask)[-1]))  # the highest index: a step before a discard
    assert aec.match.view(0).pile  # the turn reached the engine with its discard
    assert any(not np.array_equal(aec.observe(a)["observation"], before[a]) for a in others)


def test_a_board_deals_the_match_of_its_seed():
    aec = HandAEC("two")
    aec.reset(seed=5, options={"board": 41})
    assert aec.match.events[0] == new_match(aec.rules, 41).events[0]


def test_the_ansi_rendering_shows_the_table_and_no_hand():
    aec = HandAEC("classic", render_mode="ansi")
    aec.reset(seed=9)
    seat = aec.match.to_act
    assert aec.render() == (f"round 1 first {seat} melds 0 pile - stock 49 opened .... score 0-0-0-0: seat {seat} TURN")
    assert HandAEC("classic").render() is None


def test_an_index_not_allowed_raises_naming_it():
    aec = HandAEC("classic")
    aec.reset(seed=9)
    with pytest.raises(ValueError, match=r"action index 0 \(TAKE stock\) is not allowed"):
        aec.step(0)
    with pytest.raises(ValueError, match=r"action index 214 \(MELD\) is not allowed .* nothing selected"):
        aec.step(214)

"""Hokm as a PettingZoo AEC environment (referee/env/hokm_pettingzoo.py): PettingZoo's own
api_test on every player count, and a match played through it ends as the engine ends it."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from waraq.referee.env.hokm_encoding import action_of
from waraq.referee.env.hokm_pettingzoo import HokmAEC, env
from waraq.referee.games.dealers import SeatDealer
from waraq.referee.games.hokm.dealing import by_seat
from waraq.referee.games.hokm.engine import new_match


@pytest.mark.parametrize("preset", ["classic", "three", "two"])
def test_pettingzoos_api_test_and_seed_test_pass(preset):
    api_test(env(preset), num_cycles=300)
    seed_test(lambda: env(preset), num_cycles=100)


@pytest.mark.parametrize("preset", ["classic", "three", "two"])
def test_a_match_through_the_environment_ends_as_the_engine_playing_the_same_actions(preset):
    aec = HokmAEC(preset)
    aec.reset(seed=4)
    rewards = {}
    rng = np.random.default_rng(4)
    taken = []
    while aec.agents:
        agent = aec.agent_selection
        observation, reward, terminated, truncated, _ = aec.last()
        if terminated:
            rewards[agent] = reward
            aec.step(None)
            continue
        index = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        taken.append(action_of(index, aec.match.view(int(agent.removeprefix("seat_")))))
        aec.step(index)
    direct = new_match(aec.rules, 4)
    for action in taken:
        direct.apply(action)
    assert direct.result is not None and direct.result == aec.match.result
    assert direct.events == aec.match.events
    winners = direct.result.winners
    assert rewards == {f"seat_{s}": 1 if s in winners else -1 for s in range(aec.rules.players)}


def test_a_seed_deals_the_match_waraq_play_deals_and_only_the_actor_has_a_mask():
    aec = HokmAEC("classic")
    aec.reset(seed=9)
    assert aec.match.events[:2] == new_match(aec.rules, 9).events[:2]  # the ace draw and the deal
    actor = aec.agent_selection
    for agent in aec.agents:
        assert aec.observe(agent)["action_mask"].any() == (agent == actor)


def test_the_ansi_rendering_shows_the_table_and_no_hand():
    aec = HokmAEC("classic", render_mode="ansi")
    aec.reset(seed=9)
    seat = aec.match.to_act
    assert aec.render() == f"round 1 hakem {seat} trump - trick - tricks 0-0-0-0 score 0-0: seat {seat} TRUMP"
    assert HokmAEC("classic").render() is None


def test_an_illegal_index_raises_naming_it():
    aec = HokmAEC("classic")
    aec.reset(seed=9)
    with pytest.raises(ValueError, match=r"action index 0 \(PLAY 2S\) is not legal"):
        aec.step(0)


def test_a_board_deals_as_the_ladder_deals_its_rooms():
    # A board is dealt by seat (SeatDealer): whoever the first hakem, each seat gets the cards seat 0's
    # deal of the board's seed gives it. Here the ace draw picks another hakem, so the deck is laid out.
    aec = HokmAEC("classic")
    aec.reset(seed=1, options={"board": 12})
    board = new_match(aec.rules, 12, SeatDealer(12))
    assert aec.match.events[:2] == board.events[:2]
    hakem = board.hakem
    plain = new_match(aec.rules, 12)
    assert hakem != 0 and aec.match.deck != plain.deck
    assert aec.match.deck == by_seat(aec.rules, plain.deck, hakem)

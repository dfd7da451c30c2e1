"""Hokm for one learning seat (referee/env/hokm_gymnasium.py): Gymnasium's own check_env, and
matches against every house bot that end with the reward of the agent's side."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from waraq.referee.env.hokm_encoding import legal_mask
from waraq.referee.env.hokm_gymnasium import HokmSeatEnv


def test_gymnasiums_check_env_passes():
    env = HokmSeatEnv("classic", seat=1)
    # check_env draws its actions with action_space.sample(), blind to the mask, and the env refuses
    # an illegal index (ValueError). So the sample is drawn from the actions legal now; and since the
    # step-determinism check draws its action *before* its reset(seed=123), one also legal at seed
    # 123's first decision when there is one (with seat 1 there is: the check then runs in full).
    twin = HokmSeatEnv("classic", seat=1)
    at_123 = twin.reset(seed=123)[1]["action_mask"]
    rng = np.random.default_rng(0)

    def sample(mask=None, probability=None):
        now = legal_mask(env.match.view(env.seat))
        both = now & at_123
        return np.int64(rng.choice(np.flatnonzero(both if both.any() else now)))

    env.action_space.sample = sample
    check_env(env)


def play(env: HokmSeatEnv, seed: int) -> tuple[float, int]:
    """A match with random legal actions; its last reward and its steps."""
    rng = np.random.default_rng(seed)
    observation, info = env.reset(seed=seed)
    steps, reward, over = 0, 0.0, False
    while not over:
        assert observation in env.observation_space and info["action_mask"].any()
        index = int(rng.choice(np.flatnonzero(info["action_mask"])))
        observation, reward, over, truncated, info = env.step(index)
        assert not truncated and (over or reward == 0.0)
        steps += 1
    return reward, steps


@pytest.mark.parametrize("preset, bots", [("classic", "random"), ("three", ["greedy", "heuristic"]), ("two", "random")])
def test_a_match_against_house_bots_ends_with_the_agents_sides_reward(preset, bots):
    env = HokmSeatEnv(preset, seat=1, bots=bots)
    reward, steps = play(env, seed=2)
    result = env.match.result
    assert steps > 10 and reward == (1.0 if 1 in result.winners else -1.0)
    assert env.match.to_act is None


def test_the_search_bot_plays_a_seat():
    env = HokmSeatEnv({"preset": "classic", "target_score": 1}, seat=0, bots=["search", "random", "random"])
    reward, _ = play(env, seed=3)
    assert reward in (1.0, -1.0)


def test_a_bad_index_or_bot_is_refused_naming_it():
    env = HokmSeatEnv("classic")
    _, info = env.reset(seed=5)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match=rf"action index {illegal} \("):
        env.step(illegal)
    with pytest.raises(ValueError, match="no built-in bot 'nobody'"):
        HokmSeatEnv("classic", bots="nobody")
    with pytest.raises(ValueError, match="3 bots needed"):
        HokmSeatEnv("classic", bots=["random"])

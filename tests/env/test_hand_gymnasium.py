"""Hand for one learning seat (referee/env/hand_gymnasium.py): Gymnasium's own check_env, matches
against the house bots that end with the agent's reward, a ladder's board, and the referee's way
(any bot spec, a record) agreeing with the engine's."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from waraq.referee.env.hand_encoding import decode, legal_mask
from waraq.referee.env.hand_gymnasium import HandSeatEnv
from waraq.referee.env.hand_steps import DISCARD, PICK
from waraq.referee.games.hand.engine import new_match
from waraq.referee.records.record_file import read_record
from waraq.referee.replay.verify import verify_record


def test_gymnasiums_check_env_passes():
    env = HandSeatEnv("classic", seat=1)
    # check_env draws its actions with action_space.sample(), blind to the mask, and the env refuses
    # an index not allowed (ValueError). So the sample is drawn from the indices allowed now; and since
    # the step-determinism check draws its action *before* its reset(seed=123), one also allowed at
    # seed 123's first decision when there is one (a card of the agent's hand there, to pick).
    twin = HandSeatEnv("classic", seat=1)
    at_123 = twin.reset(seed=123)[1]["action_mask"]
    rng = np.random.default_rng(0)

    def sample(mask=None, probability=None):
        now = legal_mask(env.view, env.turn)
        both = now & at_123
        return np.int64(rng.choice(np.flatnonzero(both if both.any() else now)))

    env.action_space.sample = sample
    check_env(env)


def play(env: HandSeatEnv, seed: int, options: dict | None = None) -> tuple[float, int]:
    """A match of random allowed indices (steps preferred to the discard); its last reward and its steps."""
    rng = np.random.default_rng(seed)
    observation, info = env.reset(seed=seed, options=options)
    steps, reward, over = 0, 0.0, False
    while not over:
        assert observation in env.observation_space and info["action_mask"].any()
        allowed = np.flatnonzero(info["action_mask"])
        moves = [i for i in allowed if decode(i).kind != DISCARD]
        index = int(rng.choice(moves if moves and rng.random() < 0.8 else allowed))
        observation, reward, over, truncated, info = env.step(index)
        assert not truncated and (over or reward == 0.0)
        steps += 1
    assert not info["action_mask"].any()
    return reward, steps


@pytest.mark.parametrize(
    "preset, seat, bots",
    [
        ("short", 1, "random"),
        ("partners", 2, "heuristic"),
        ("three", 0, ["heuristic", "random"]),
        ("two", 1, "heuristic"),
        ({"preset": "classic", "rounds": 2}, 3, "random"),
    ],
)
def test_a_match_against_house_bots_ends_with_the_agents_reward(preset, seat, bots):
    env = HandSeatEnv(preset, seat=seat, bots=bots)
    reward, steps = play(env, seed=2)
    result = env.match.result
    assert steps > 5 and reward == (1.0 if seat in result.winners else -1.0)
    assert env.match.to_act is None


def test_a_bad_index_or_bot_is_refused_naming_it():
    env = HandSeatEnv("classic")
    _, info = env.reset(seed=5)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match=rf"action index {illegal} \("):
        env.step(illegal)
    with pytest.raises(ValueError, match="bot 'nobody' is none of"):
        HandSeatEnv("classic", bots="nobody")
    with pytest.raises(ValueError, match="the greedy bot does not play 'hand'"):
        HandSeatEnv("classic", bots="greedy")
    with pytest.raises(ValueError, match="3 bots needed"):
        HandSeatEnv("classic", bots=["random"])
    with pytest.raises(ValueError, match="seat 4 is not a seat of 4-player Hand"):
        HandSeatEnv("classic", seat=4)

    with pytest.raises(ValueError, match=r"options\['board'\] = 'one': expected a board's seed"):
        env.reset(options={"board": "one"})


def test_a_board_deals_the_match_its_seed_deals_at_every_seat():
    # Hand deals by the seed alone (not by seat): a ladder board's rooms are the match of its seed.
    decks = []
    for seat in (0, 2):
        env = HandSeatEnv("short", seat=seat, bots="heuristic")
        play(env, seed=seat, options={"board": 41})
        decks.append(env.match.events[0])
    assert decks[0] == decks[1] == new_match(env.rules, 41).events[0]


@pytest.mark.slow
def test_the_referees_way_plays_any_bot_spec_writes_a_record_that_verifies_and_agrees_with_the_engines(tmp_path):
    # Seat 2 is a command, as a bot author's would be; seat 0 and 3 the built-in random bot in its own
    # process. The same seed and agent the engine's way (in-process players) play the same match.
    command = f"{sys.executable} -m waraq.bots.server random --unix {{socket}}"
    refereed = HandSeatEnv("short", seat=1, bots=["random", command, "heuristic"], record_dir=tmp_path)
    direct = HandSeatEnv("short", seat=1, bots=["random", "random", "heuristic"])
    try:
        for seed in (3, 4):
            rewards = [play(env, seed)[0] for env in (refereed, direct)]
            record = refereed.record
            assert verify_record(record).ok, verify_record(record).problem
            events = read_record(record).events
            result = events[-1]
            assert result["type"] == "result" and rewards[0] == rewards[1] == (1.0 if 1 in result["winners"] else -1.0)
            decisions = [(e["seat"], e["kind"], e["action"]) for e in events if e["type"] == "decision"]
            assert decisions == [
                (e["seat"], e["kind"], e["action"]) for e in direct.match.events if e["type"] == "decision"
            ]
    finally:
        refereed.close()


@pytest.mark.parametrize("preset", ["classic", "partners"])
def test_gymnasiums_check_env_passes_unpatched_when_an_illegal_index_forfeits(preset):
    check_env(HandSeatEnv(preset, seat=1, illegal="forfeit"))


def test_an_illegal_move_mid_turn_forfeits_the_match_when_asked():
    env = HandSeatEnv("partners", seat=1, illegal="forfeit")
    _, info = env.reset(seed=2)
    while not any(decode(i).kind == PICK for i in np.flatnonzero(info["action_mask"])):
        allowed = np.flatnonzero(info["action_mask"])
        _, _, _, _, info = env.step(int(allowed[-1]))
    pick = next(i for i in np.flatnonzero(info["action_mask"]) if decode(i).kind == PICK)
    _, reward, over, _, info = env.step(int(pick))
    assert (reward, over) == (0.0, False) and env.turn.selection
    observation, reward, over, _, info = env.step(108 + decode(pick).arg)  # a discard with cards selected
    assert (reward, over, env.winners) == (-1.0, True, (0, 2)) and not info["action_mask"].any()
    assert not observation.any()
    with pytest.raises(ValueError, match="illegal='lose': expected one of 'raise', 'forfeit'"):
        HandSeatEnv("classic", illegal="lose")


@pytest.mark.slow
def test_an_illegal_move_is_the_agents_ILLEGAL_fault_in_the_referees_record(tmp_path):
    env = HandSeatEnv("short", seat=1, record_dir=tmp_path, illegal="forfeit")
    try:
        _, info = env.reset(seed=5)
        illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
        _, reward, over, _, _ = env.step(illegal)
        events = read_record(env.record).events
    finally:
        env.close()
    fault, result = events[-2:]
    assert (reward, over) == (-1.0, True)
    assert (fault["type"], fault["seat"], fault["code"]) == ("fault", 1, "illegal_action")
    assert f"action index {illegal} (" in fault["detail"]
    assert (result["reason"], result["winners"], result["faulty"]) == ("forfeit", [0, 2, 3], [1])
    assert verify_record(env.record).ok

"""Hokm for one learning seat (referee/env/hokm_gymnasium.py): Gymnasium's own check_env, matches
against every house bot that end with the reward of the agent's side, a ladder's boards dealt
alike at every seat, and the referee's way (any bot spec, a record) agreeing with the engine's."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from tests.support.replay_records import waraq
from waraq.referee.env.hokm_encoding import legal_mask
from waraq.referee.env.hokm_gymnasium import HokmSeatEnv
from waraq.referee.games.hokm.dealing import PACKET_FIRST
from waraq.referee.records.record_file import read_record
from waraq.referee.replay.verify import verify_record


@pytest.mark.parametrize("preset", ["classic", "two"])
def test_gymnasiums_check_env_passes(preset):
    # check_env steps actions drawn by action_space.sample(), blind to the mask: with illegal="forfeit"
    # an illegal one loses the match, as at the referee's table, and the check runs as for any env.
    check_env(HokmSeatEnv(preset, seat=1, illegal="forfeit"))


def test_an_illegal_index_forfeits_the_match_when_asked_to_the_engines_way_and_the_referees(tmp_path):
    direct = HokmSeatEnv("classic", seat=1, illegal="forfeit")
    _, info = direct.reset(seed=5)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    observation, reward, over, _, info = direct.step(illegal)
    assert (reward, over, direct.winners) == (-1.0, True, (0, 2)) and not info["action_mask"].any()
    assert not observation.any()
    with pytest.raises(ValueError, match="illegal='lose': expected one of 'raise', 'forfeit'"):
        HokmSeatEnv("classic", illegal="lose")


@pytest.mark.slow
def test_an_illegal_index_is_the_agents_ILLEGAL_fault_in_the_referees_record(tmp_path):
    env = HokmSeatEnv("classic", seat=1, record_dir=tmp_path, illegal="forfeit")
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
    assert (result["reason"], result["winners"], result["faulty"]) == ("forfeit", [0, 2], [1])
    assert verify_record(env.record).ok


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
    with pytest.raises(ValueError, match="bot 'nobody' is none of"):
        HokmSeatEnv("classic", bots="nobody")
    with pytest.raises(ValueError, match="3 bots needed"):
        HokmSeatEnv("classic", bots=["random"])
    with pytest.raises(ValueError, match=r"options\['board'\] = 'one': expected a board's seed"):
        env.reset(options={"board": "one"})


def first_packets(env: HokmSeatEnv) -> list[list[tuple[int, ...]]]:
    """Each round's first five cards of every seat, as dealt (the engine's deal events)."""
    rounds = []
    n = env.rules.players
    for event in env.match.events:
        if event["type"] == "deal":
            hakem, deck = event["hakem"], event["deck"]
            packets = [()] * n
            for j in range(n):
                packets[(hakem + j) % n] = tuple(sorted(deck[PACKET_FIRST * j : PACKET_FIRST * (j + 1)]))
            rounds.append(packets)
    return rounds


@pytest.mark.parametrize("preset", ["classic", "three"])
def test_a_board_deals_every_seat_the_same_cards_whoever_sits_where_and_plays_how(preset):
    # Two rooms of board 41: the agent at seat 0 against random bots, then at seat 1 against greedy
    # ones. Play differs, so hakems differ from round 2; each round both reach, each seat got the same
    # cards. A third env without the board deals otherwise.
    rooms = [HokmSeatEnv(preset, seat=0, bots="random"), HokmSeatEnv(preset, seat=1, bots="greedy")]
    for env in rooms:
        env.reset(seed=7, options={"board": 41})
        play_on(env, seed=env.seat)
    a, b = (first_packets(env) for env in rooms)
    hakems = [[e["hakem"] for e in env.match.events if e["type"] == "deal"] for env in rooms]
    assert hakems[0] != hakems[1] and len(a) > 1 and len(b) > 1
    shared = min(len(a), len(b))
    assert a[:shared] == b[:shared]
    plain = HokmSeatEnv(preset, seat=0)
    plain.reset(seed=41)
    play_on(plain, seed=0)
    assert first_packets(plain)[0] != a[0]


def play_on(env: HokmSeatEnv, seed: int) -> float:
    """Random legal actions from where the env is to the match's end; the last reward."""
    rng = np.random.default_rng(seed)
    mask, reward, over = legal_mask(env.view), 0.0, False
    while not over:
        _, reward, over, _, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        mask = info["action_mask"]
    return reward


@pytest.mark.slow
def test_the_referees_way_plays_any_bot_spec_writes_a_record_that_verifies_and_agrees_with_the_engines(tmp_path):
    # Seat 2 is a command, as a bot author's would be; seats 0 and 3 the built-in random bot in its own
    # process. The same seed and agent the engine's way (in-process players) play the same match.
    rules = {"preset": "classic", "target_score": 2}
    command = f"{sys.executable} -m waraq.bots.server random --unix {{socket}}"
    refereed = HokmSeatEnv(rules, seat=1, bots=["random", command, "random"], record_dir=tmp_path)
    direct = HokmSeatEnv(rules, seat=1, bots="random")
    try:
        for seed in (3, 4):
            rewards = []
            for env in (refereed, direct):
                env.reset(seed=seed)
                rewards.append(play_on(env, seed))
            record = refereed.record
            assert verify_record(record).ok, verify_record(record).problem
            checked = waraq("replay", "--verify", str(record))  # the command, as a person runs it
            assert checked.returncode == 0 and f"{record}: ok" in checked.stdout, checked.stdout + checked.stderr
            events = read_record(record).events
            result = events[-1]
            assert result["type"] == "result" and rewards[0] == rewards[1] == (1.0 if 1 in result["winners"] else -1.0)
            decisions = [(e["seat"], e["kind"], e["action"]) for e in events if e["type"] == "decision"]
            assert decisions == [
                (e["seat"], e["kind"], e["action"]) for e in direct.match.events if e["type"] == "decision"
            ]
            assert [s["via"] for s in read_record(record).header["seats"]] == [
                "launched",
                "in-process",
                "launched",
                "launched",
            ]
    finally:
        refereed.close()

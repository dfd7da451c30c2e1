"""Decisions per second through the research environments, against the engine's own random playout.

    python bench/env.py [--seconds S] [--rounds R] [--players 4 3 2]

Three ways to play random Hokm matches, interleaved round by round in this process so
their ratios compare like with like on a noisy machine (the median of the rounds is
printed):

* ``engine``: bench/engine.py's playout, the engine's checked ``apply`` of a random
  legal action, nothing else;
* ``pettingzoo``: the AEC environment, every decision an ``observe`` (the view encoded,
  the legal mask) and a ``step`` of an index drawn from the mask;
* two floors, to show where the time goes: ``views``, the engine's playout making
  each decision's view (what any observation or bot starts from) and nothing more;
  ``aec step``, the AEC environment's ``step`` alone, its PettingZoo bookkeeping
  included, the index found from the engine's legal actions without ``observe``;
* ``gymnasium``: the single-seat environment, seat 0 the agent drawing from the mask
  as above, the other seats the built-in random bot; the other seats' decisions are
  counted as decisions too (the agent's steps are printed apart). And its floor,
  ``seat floor``: the engine's playout doing at seat 0's decisions only what any
  single-seat environment must, encoding aside: the seat's view made, an observation
  buffer copied out, the legal mask made, the agent's draw from it.

The agents draw an index from the mask's nonzero entries with Python's ``random``
(numpy's ``Generator.choice`` alone costs four engine decisions).

Issue 36's figure is each environment's decisions per second divided by the engine's:
the goal is at least 0.5.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from functools import partial

import numpy as np
from engine import RULES  # this file's folder leads sys.path: bench/engine.py

from waraq.referee.env.hokm_encoding import action_index, action_of, legal_mask, observation_size
from waraq.referee.env.hokm_gymnasium import HokmSeatEnv
from waraq.referee.env.hokm_pettingzoo import HokmAEC
from waraq.referee.games.hokm.engine import new_match

WAYS = ("engine", "views", "aec step", "pettingzoo", "gymnasium", "seat floor")


def engine_decisions(players: int, seed: int, rng: random.Random) -> int:
    state = new_match(RULES[players], seed)
    legal, apply, choice = state.legal_actions, state.apply, rng.choice
    decisions = 0
    while state.result is None:
        apply(choice(legal()))
        decisions += 1
    return decisions


def pettingzoo_decisions(players: int, seed: int, rng: random.Random) -> int:
    aec = HokmAEC(RULES[players])
    aec.reset(seed=seed)
    decisions = 0
    while aec.match is not None and aec.match.result is None:
        aec.step(draw(aec.observe(aec.agent_selection)["action_mask"], rng))
        decisions += 1
    return decisions


def draw(mask: np.ndarray, rng: random.Random) -> int:
    """An agent's uniform choice among the mask's legal indices."""
    legal = mask.nonzero()[0]
    return int(legal[rng.randrange(len(legal))])


def aec_floor_decisions(players: int, seed: int, rng: random.Random) -> int:
    """The AEC environment's step alone: the index of a legal action found without ``observe``."""
    aec = HokmAEC(RULES[players])
    aec.reset(seed=seed)
    state = aec.match
    assert state is not None
    decisions = 0
    while state.result is None:
        aec.step(action_index(state.kind, rng.choice(state.legal_actions())))
        decisions += 1
    return decisions


def view_floor_decisions(players: int, seed: int, rng: random.Random) -> int:
    """The engine's playout with each decision's view made, as a bot needs one: no encoding at all."""
    state = new_match(RULES[players], seed)
    legal, apply, view, choice = state.legal_actions, state.apply, state.view, rng.choice
    decisions = 0
    while state.result is None:
        view(state.to_act)
        apply(choice(legal()))
        decisions += 1
    return decisions


def gymnasium_decisions(players: int, seed: int, rng: random.Random, steps: list[int]) -> int:
    env = HokmSeatEnv(RULES[players], seat=0, bots="random")
    _, info = env.reset(seed=seed)
    over, taken = False, 0
    while not over:
        _, _, over, _, info = env.step(draw(info["action_mask"], rng))
        taken += 1
    steps.append(taken)
    assert env.match is not None
    return sum(1 for event in env.match.events if event["type"] == "decision")


def seat_floor_decisions(players: int, seed: int, rng: random.Random) -> int:
    """The engine's playout with, at seat 0's decisions, a single-seat step's least work but its encoding."""
    state = new_match(RULES[players], seed)
    legal, apply, choice = state.legal_actions, state.apply, rng.choice
    buffer = np.zeros(observation_size(players), np.float32)
    decisions = 0
    while state.result is None:
        if state.to_act == 0:
            view = state.view(0)
            buffer.copy()
            apply(action_of(draw(legal_mask(view), rng), view))
        else:
            apply(choice(legal()))
        decisions += 1
    return decisions


def measure(play: Callable[[int, int, random.Random], int], players: int, seconds: float) -> float:
    """Decisions per second over whole matches played for about ``seconds``."""
    rng = random.Random(players)
    decisions, seed = 0, 0
    began = time.perf_counter()
    while (elapsed := time.perf_counter() - began) < seconds:
        decisions += play(players, seed, rng)
        seed += 1
    return decisions / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="per way, per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--players", type=int, nargs="+", default=[4, 3, 2], choices=[4, 3, 2])
    args = parser.parse_args()
    for players in args.players:
        agent_steps: list[int] = []
        rates: dict[str, list[float]] = {way: [] for way in WAYS}
        for _ in range(args.rounds):
            rates["engine"].append(measure(engine_decisions, players, args.seconds))
            rates["views"].append(measure(view_floor_decisions, players, args.seconds))
            rates["aec step"].append(measure(aec_floor_decisions, players, args.seconds))
            rates["pettingzoo"].append(measure(pettingzoo_decisions, players, args.seconds))
            rates["gymnasium"].append(measure(partial(gymnasium_decisions, steps=agent_steps), players, args.seconds))
            rates["seat floor"].append(measure(seat_floor_decisions, players, args.seconds))
        median = {way: statistics.median(values) for way, values in rates.items()}
        share = sum(agent_steps) / max(1, len(agent_steps))
        print(f"{players} players, medians of {args.rounds} rounds of {args.seconds:g} s each:")
        print(f"  engine      {median['engine']:>9,.0f} decisions/s")
        for way in WAYS[1:]:
            ratio = median[way] / median["engine"]
            print(f"  {way:<11} {median[way]:>9,.0f} decisions/s  x{ratio:.2f} of the engine's")
        print(f"  (gymnasium: the agent's steps are {share:.0f} of each match's decisions)")


if __name__ == "__main__":
    main()

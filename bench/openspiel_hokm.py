"""Hokm through OpenSpiel against the engine's own playout, and resampling, in one run.

    python bench/openspiel_hokm.py [--seconds S] [--repeats R]

(a) Random playouts of whole classic matches: through pyspiel
(:mod:`waraq.referee.env.hokm_openspiel`; every step counted, chance included, chance
outcomes drawn by their probabilities, decisions uniformly from ``legal_actions()``) and
through the engine's checked ``apply`` as bench/engine.py plays them (its
``engine_match``, the same loop). Printed: OpenSpiel steps/s, both matches/s, the engine's
decisions/s, and two ratios: steps/s against the engine's decisions/s, and matches/s
against matches/s (a match through OpenSpiel has ~2.2 times as many steps: its ~580 dealt
cards). Interleaved, medians of ``--repeats``.

(b) ``resample_from_infostate`` per second for the seat to play in a 4-player state after
four tricks of its first round, with pyspiel's ``UniformProbabilitySampler``, medians of
``--repeats``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

import pyspiel

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/engine.py, run as a script or imported

from engine import engine_match

from waraq.referee.env import hokm_openspiel


def openspiel_match(game: pyspiel.Game, rng: random.Random) -> int:
    """One random playout to the end of the match; the number of steps it took."""
    state = game.new_initial_state()
    # Bound once, as bench/engine.py's loop binds the engine's.
    over, chance, outcomes, legal, apply = (
        state.is_terminal,
        state.is_chance_node,
        state.chance_outcomes,
        state.legal_actions,
        state.apply_action,
    )
    choice, uniform = rng.choice, rng.random
    steps = 0
    while not over():
        if chance():
            drawn = outcomes()
            u, total = uniform(), 0.0
            for outcome, probability in drawn:
                total += probability
                if u < total:
                    apply(outcome)
                    break
            else:  # u within rounding of 1
                apply(drawn[-1][0])
        else:
            apply(choice(legal()))
        steps += 1
    return steps


def engine_decisions_per_match(matches: int = 200) -> float:
    """The mean number of decisions in a random classic match (bench/engine.py's matches count none)."""
    from waraq.referee.games.hokm.engine import new_match
    from waraq.referee.games.hokm.rules import PRESETS

    rng, decisions = random.Random(2), 0
    for seed in range(matches):
        state = new_match(PRESETS["classic"], seed)
        while state.result is None:
            state.apply(rng.choice(state.legal_actions()))
            decisions += 1
    return decisions / matches


def measure_openspiel(game: pyspiel.Game, seconds: float) -> tuple[float, float]:
    """(steps/s, matches/s) of random playouts for ``seconds``."""
    rng = random.Random(1)
    steps = matches = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        steps += openspiel_match(game, rng)
        matches += 1
    elapsed = time.perf_counter() - start
    return steps / elapsed, matches / elapsed


def measure_engine(seconds: float) -> float:
    """Matches/s as bench/engine.py measures them (its engine_match, fresh seeds)."""
    rng = random.Random(1)
    matches, seed = 0, 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        engine_match(4, seed, rng)
        seed += 1
        matches += 1
    return matches / (time.perf_counter() - start)


def mid_round_state(game: pyspiel.Game, tricks: int = 4, seed: int = 1) -> pyspiel.State:
    """A classic state at a decision after ``tricks`` tricks of its first round."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    while True:
        engine = state.table.engine
        if engine is not None and engine.kind is not None and len(engine.history) == tricks and not engine.trick:
            return state
        state.apply_action(rng.choice(state.legal_actions()))


def measure_resamples(state: pyspiel.State, seconds: float) -> float:
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    seat = state.current_player()
    state.resample_from_infostate(seat, sampler)  # the deal's start is made once per deal: not timed
    done, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        state.resample_from_infostate(seat, sampler)
        done += 1
    return done / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=4.0, help="per measurement (default 4)")
    parser.add_argument("--repeats", type=int, default=3, help="interleaved rounds; medians kept (default 3)")
    args = parser.parse_args()
    game = hokm_openspiel.load("classic")
    decisions = engine_decisions_per_match()
    steps, os_matches, engine_matches, resamples = [], [], [], []
    state = mid_round_state(game)
    for _ in range(args.repeats):
        s, m = measure_openspiel(game, args.seconds)
        steps.append(s)
        os_matches.append(m)
        engine_matches.append(measure_engine(args.seconds))
        resamples.append(measure_resamples(state, args.seconds))
    s, m, e, r = (statistics.median(x) for x in (steps, os_matches, engine_matches, resamples))
    print(f"classic Hokm random playouts, medians of {args.repeats} x {args.seconds:g} s, interleaved")
    print(f"  OpenSpiel  {s:>9.0f} steps/s (chance included)  {m:>7.1f} matches/s")
    print(f"  engine     {e * decisions:>9.0f} decisions/s           {e:>7.1f} matches/s  ({decisions:.0f} per match)")
    print(f"  ratio      {s / (e * decisions):>9.2f} steps/s : decisions/s  {m / e:>7.2f} matches/s : matches/s")
    print(f"resample_from_infostate, 4 players after 4 tricks: {r:.0f} per second")


if __name__ == "__main__":
    main()

"""Hand through OpenSpiel against the engine's own playout, and resampling, in one run.

    python bench/openspiel_hand.py [--seconds S] [--repeats R] [--preset P]

(a) Random playouts of whole matches (default ``classic``, 5 rounds): through pyspiel
(:mod:`waraq.referee.env.hand_openspiel`; every step counted, chance included, chance
outcomes drawn by their probabilities, moves uniformly from ``legal_actions()``, so a turn
is built move by move) and through the engine's checked ``apply`` as bench/hand.py plays
them (its ``play_match``: ``random_action``, a whole random turn at once). Printed:
OpenSpiel steps/s and moves/s (steps less chance), both matches/s, the engine's
decisions/s (TAKE and TURN), and two ratios: steps/s against the engine's decisions/s, and
matches/s against matches/s. The two random policies differ (a random walk of moves
against the engine's random turn), so matches differ in length: the steps and decisions
per match are printed too. Interleaved, medians of ``--repeats``.

(b) ``resample_from_infostate`` per second for the seat to play in a 4-player state in
the middle of its first round (``--preset``'s rules), with pyspiel's
``UniformProbabilitySampler``, medians of ``--repeats``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

import pyspiel

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/hand.py, run as a script or imported

from hand import play_match

from waraq.referee.env import hand_openspiel


def openspiel_match(game: pyspiel.Game, rng: random.Random) -> tuple[int, int]:
    """One random playout to the end of the match; (steps, chance steps) it took."""
    state = game.new_initial_state()
    over, chance, outcomes, legal, apply = (
        state.is_terminal,
        state.is_chance_node,
        state.chance_outcomes,
        state.legal_actions,
        state.apply_action,
    )
    choice, uniform = rng.choice, rng.random
    steps = dealt = 0
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
            dealt += 1
        else:
            apply(choice(legal()))
        steps += 1
    return steps, dealt


def measure_openspiel(game: pyspiel.Game, seconds: float) -> tuple[float, float, float, float]:
    """(steps/s, moves/s, matches/s, steps per match) of random playouts for ``seconds``."""
    rng = random.Random(1)
    steps = dealt = matches = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        s, d = openspiel_match(game, rng)
        steps += s
        dealt += d
        matches += 1
    elapsed = time.perf_counter() - start
    return steps / elapsed, (steps - dealt) / elapsed, matches / elapsed, steps / matches


def measure_engine(preset: str, seconds: float) -> tuple[float, float]:
    """(matches/s, decisions per match) as bench/hand.py plays them (its play_match, fresh seeds)."""
    matches = decisions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        turns, _ = play_match(preset, matches)
        decisions += turns
        matches += 1
    return matches / (time.perf_counter() - start), decisions / matches


def engine_decisions(preset: str, matches: int = 20) -> float:
    """Decisions (TAKE and TURN) per random match: play_match counts TURNs only; this counts both."""
    from waraq.referee.games.hand.engine import new_match
    from waraq.referee.games.hand.rules import PRESETS

    total = 0
    for seed in range(matches):
        state = new_match(PRESETS[preset], seed)
        rng = random.Random(seed)
        while state.result is None:
            state.apply(state.random_action(rng))
            total += 1
    return total / matches


def mid_round_state(game: pyspiel.Game, story: int = 130, seed: int = 1) -> pyspiel.State:
    """A state at a decision of the first round, ``story`` steps after its deck was dealt."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    while True:
        table = state.table
        if table.dealt and len(table.story) >= story and not state.is_chance_node() and not table.turn_moves:
            return state
        state.apply_action(rng.choice(state.legal_actions()))


def measure_resamples(state: pyspiel.State, seconds: float) -> float:
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    seat = (state.current_player() + 1) % state.num_players()  # a seat waiting: others' turns to explain
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
    parser.add_argument("--preset", default="classic", help="rules preset (default classic)")
    args = parser.parse_args()
    game = hand_openspiel.load(args.preset)
    decisions = engine_decisions(args.preset)
    state = mid_round_state(game)
    steps, moves, os_matches, per_match, engine_matches, resamples = [], [], [], [], [], []
    for _ in range(args.repeats):
        s, m, r, k = measure_openspiel(game, args.seconds)
        steps.append(s)
        moves.append(m)
        os_matches.append(r)
        per_match.append(k)
        engine_matches.append(measure_engine(args.preset, args.seconds)[0])
        resamples.append(measure_resamples(state, args.seconds))
    s, m, r, k, e, x = (statistics.median(v) for v in (steps, moves, os_matches, per_match, engine_matches, resamples))
    n = game.num_players()
    print(f"{args.preset} Hand random playouts, medians of {args.repeats} x {args.seconds:g} s, interleaved")
    print(f"  OpenSpiel  {s:>8.0f} steps/s  {r:>6.2f} matches/s  ({k:.0f} steps a match; {m:.0f} moves/s)")
    print(f"  engine     {e * decisions:>8.0f} dec./s   {e:>6.2f} matches/s  ({decisions:.0f} decisions a match)")
    print(f"  ratio      {s / (e * decisions):>8.2f} steps/s : decisions/s   {r / e:.3f} matches/s : matches/s")
    print(f"resample_from_infostate, {n} players, {len(state.table.story)} steps into round 1: {x:.1f} per second")


if __name__ == "__main__":
    main()

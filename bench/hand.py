"""Hand's engine speed: random-vs-random matches per second, and the discard's uses.

    python bench/hand.py [--seconds S] [--presets classic two three partners] [--hands N]

(a) Whole matches played in-process by ``random_action`` through the checked
``apply`` (every turn validated, every record event built), per preset, with
the mean number of TURN decisions per round: how fast a search bot or the
ladder can play, and that random rounds do end.

(b) The referee's question at every turn: may the seat take the top discard?
For N random positions, a 14-card hand and a top discard not in it, timed
for a seat that has not opened (the discard must be part of an opening worth
51) and for one that has (a table of melds laid from other random hands):
``discard_uses`` (every use, what a seat's view lists after taking) and
``has_discard_use`` (the referee's yes or no), median, p99 and worst.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from waraq.referee.games.hand.decisions import TURN
from waraq.referee.games.hand.discard import discard_uses, has_discard_use
from waraq.referee.games.hand.engine import new_match
from waraq.referee.games.hand.meld_search import best_opening
from waraq.referee.games.hand.melds import TableMeld, check_meld
from waraq.referee.games.hand.rules import PRESETS


def play_match(preset: str, seed: int) -> tuple[int, int]:
    """One random-vs-random match; returns (TURN decisions, rounds played)."""
    state = new_match(PRESETS[preset], seed)
    rng = random.Random(seed)
    turns = 0
    act, apply = state.random_action, state.apply  # bound once
    while state.result is None:
        if state.kind == TURN:
            turns += 1
        apply(act(rng))
    rounds = sum(1 for e in state.events if e["type"] == "round_end" and not e.get("void"))
    return turns, rounds


def measure_matches(preset: str, seconds: float) -> tuple[float, float]:
    done = turns = rounds = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        t, r = play_match(preset, done)
        done += 1
        turns += t
        rounds += r
    return done / (time.perf_counter() - start), turns / max(rounds, 1)


def table_from(cards: list[int], rng: random.Random, seats: int = 3) -> list[TableMeld]:
    """The openings of ``seats`` random 15-card hands from ``cards``: a table as play leaves it."""
    rng.shuffle(cards)
    table = []
    for seat in range(seats):
        _, melds = best_opening(cards[15 * seat : 15 * seat + 15])
        for meld in melds:
            kind, ordered, joker_as = check_meld(meld)
            table.append(TableMeld(seat + 1, kind, ordered, joker_as))
    return table


def positions(count: int, seed: int = 1) -> list[tuple[list[int], int, list[TableMeld]]]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        deck = list(range(106))
        rng.shuffle(deck)
        hand, card, rest = deck[:14], deck[14], deck[15:]
        out.append((hand, card, table_from(rest, rng)))
    return out


def timings(fn: Callable[..., object], cases, opened: bool) -> list[float]:
    times = []
    for hand, card, table in cases:
        start = time.perf_counter()
        fn(hand, card, table, opened, 51)
        times.append((time.perf_counter() - start) * 1e3)
    return times


def summary(times: list[float]) -> str:
    times = sorted(times)
    p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
    return f"{statistics.median(times):>9.3f}  {p99:>9.3f}  {times[-1]:>9.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="per preset (default 5)")
    parser.add_argument("--presets", nargs="+", default=["classic", "two", "three", "partners"])
    parser.add_argument("--hands", type=int, default=2000, help="random positions for (b) (default 2000)")
    args = parser.parse_args()

    print(f"(a) Hand random-vs-random, checked apply, {args.seconds:g} s per preset")
    print(f"{'preset':>9}  {'matches/s':>9}  {'turns/round':>11}")
    for preset in args.presets:
        rate, per_round = measure_matches(preset, args.seconds)
        print(f"{preset:>9}  {rate:>9.1f}  {per_round:>11.1f}")

    cases = positions(args.hands)
    found = {o: sum(has_discard_use(h, c, t, o, 51) for h, c, t in cases) for o in (False, True)}
    print(f"\n(b) the top discard's uses, 14 held + 1, {args.hands} random positions, ms")
    print(f"{'question':>16}  {'seat':>10}  {'median':>9}  {'p99':>9}  {'worst':>9}  {'with a use':>10}")
    for opened in (False, True):
        seat = "opened" if opened else "not opened"
        for name, fn in (("discard_uses", discard_uses), ("has_discard_use", has_discard_use)):
            print(f"{name:>16}  {seat:>10}  {summary(timings(fn, cases, opened))}  {found[opened]:>10}")


if __name__ == "__main__":
    main()

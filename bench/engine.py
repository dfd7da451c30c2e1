"""Random-vs-random Hokm matches per second in-process, against a bare loop.

    python bench/engine.py [--seconds S] [--players 4 3 2]

The engine side plays whole matches through the checked ``apply`` (every
action validated, every record event built). The bare loop plays the same
game with the same random choices' cost but nothing else: shuffle, deal,
pick a random legal card by the same sorted-hand slicing the engine uses, no
checks, no views, no events. Both run in this process, interleaved, so the
printed ratio compares like with like on a noisy machine.
"""

from __future__ import annotations

import argparse
import random
import time
from bisect import bisect_left, insort

from waraq.referee.games.hokm.engine import new_match
from waraq.referee.games.hokm.rules import PRESETS

RULES = {4: PRESETS["classic"], 3: PRESETS["three"], 2: PRESETS["two"]}


def engine_match(players: int, seed: int, rng: random.Random) -> None:
    state = new_match(RULES[players], seed)
    legal, apply, choice = state.legal_actions, state.apply, rng.choice  # bound once, as in the bare loop
    while state.result is None:
        apply(choice(legal()))


def _legal(hand: list[int], led: int) -> list[int]:
    lo = bisect_left(hand, led)
    hi = bisect_left(hand, led + 13, lo)
    return hand[lo:hi] if lo < hi else hand


def bare_match(players: int, seed: int, rng: random.Random) -> None:
    """Hokm with the rules' skeleton only: what any engine must at least do."""
    n = players
    deck = [c for c in range(52) if n == 4 or c != 2 * 13]  # 2D out for 2 and 3
    teams = 2 if n == 4 else n
    scores = [0] * teams
    hakem = rng.randrange(n)
    shuffle, choice = random.Random(seed).shuffle, rng.choice
    while max(scores) < 7:
        shuffle(deck)
        hands = [sorted(deck[5 * j : 5 * j + 5]) for j in range(n)]
        hands = hands[n - hakem :] + hands[: n - hakem]  # packet j goes to hakem + j
        trump = rng.randrange(4)
        pos = 5 * n
        if n == 2:
            for seat in (hakem, 1 - hakem):
                for card in rng.sample(hands[seat], 2):
                    hands[seat].remove(card)
            seat = hakem
            while pos < 50:
                insort(hands[seat], deck[pos] if choice((True, False)) else deck[pos + 1])
                pos += 2
                seat = 1 - seat
        else:
            while pos < len(deck):
                for j in range(n):
                    hands[(hakem + j) % n].extend(deck[pos : pos + 4])
                    pos += 4
            for hand in hands:
                hand.sort()
        won = [0] * n
        team_won = [0] * teams
        leader = hakem
        played = 0
        while True:
            hand = hands[leader]
            best = choice(hand)
            hand.remove(best)
            led = best // 13 * 13
            winner = leader
            for i in range(1, n):
                seat = (leader + i) % n
                hand = hands[seat]
                card = choice(_legal(hand, led))
                hand.remove(card)
                if (card // 13 == best // 13 and card > best) or (card // 13 == trump and best // 13 != trump):
                    best, winner = card, seat
            won[winner] += 1
            team_won[winner % teams] += 1
            played += 1
            leader = winner
            if n == 3:
                top = max(won)
                if played == 17 or sorted(won)[-2] + 17 - played < top:
                    break
            elif team_won[winner % teams] == 7:
                break
        team = won.index(max(won)) % teams
        scores[team] += 1 if min(team_won) else 2
        if team != hakem % teams:
            hakem = (hakem + 1) % n


def measure(fn, players: int, seconds: float) -> float:
    rng = random.Random(1)
    done, start, seed = 0, time.perf_counter(), 0
    while time.perf_counter() - start < seconds:
        for _ in range(10):
            fn(players, seed, rng)
            seed += 1
        done += 10
    return done / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="per measurement (default 5)")
    parser.add_argument("--players", type=int, nargs="+", default=[4, 3, 2])
    parser.add_argument("--repeats", type=int, default=3, help="interleaved rounds; best kept")
    args = parser.parse_args()
    print(f"Hokm random-vs-random, {args.repeats} x {args.seconds:g} s per figure, best kept")
    print(f"{'players':>7}  {'engine m/s':>10}  {'bare m/s':>9}  {'ratio':>5}")
    for players in args.players:
        engine = bare = 0.0
        for _ in range(args.repeats):
            engine = max(engine, measure(engine_match, players, args.seconds))
            bare = max(bare, measure(bare_match, players, args.seconds))
        print(f"{players:>7}  {engine:>10.0f}  {bare:>9.0f}  {engine / bare:>5.2f}")


if __name__ == "__main__":
    main()

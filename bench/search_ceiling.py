"""What could the search bot gain, and from what? Determinized search with exact values, knowing more or less.

    python bench/search_ceiling.py [--know none|partner|all] [--know-cards 0 52] [--worlds 40]
                                   [--exact-from 32] [--against heuristic] [--boards 30] [--first 0] [--jobs 2]

Needs endplay's DDS (``pip install -e '.[analysis]'``; sample_bots/double_dummy.py).

The player measured is the search bot with every card play of 4-player
classic Hokm valued exactly: in each world (a deal of the unseen cards, as
the search samples them) DDS solves the position after each legal card, so a
world's value is what best play by all four seats makes of it, where the
search bot plays the round out by a greedy policy. With ``--exact-from`` or
fewer cards left a card's value is its tricks (a round won or lost, a kot,
the match, the margin), above it only whether the side reaches 7 tricks
(a yes-or-no solve, ten times cheaper with many cards left), ties broken by
the heuristic's card. Every other decision is the search bot's.

``--know`` prices information, by cheating, in this benchmark only:
``partner`` deals each world the partner's true hand (and samples only the
opponents'), ``all`` takes the true hands as the only world. Against
``--know none`` (the search's own knowledge) they tell how much of what the
search lacks is information, and whose. ``--know-cards LO HI`` gives it only to
the card plays made with LO to HI cards left in all hands (``40 52``: the first
three tricks), and so tells when the information is worth having.

Duplicate boards as in bench/search.py's ``strength``, 4 players; decisions
are not timed (a fixed number of worlds), so ``--jobs`` changes nothing but
the time taken.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from itertools import repeat
from typing import Any

from search import OPPONENTS, clopper_pearson
from search import play_board as search_board

from waraq.bots import double_dummy
from waraq.bots.hokm_heuristic import HeuristicPlayer, Table
from waraq.bots.hokm_search import (
    TRICK_WEIGHT,
    SearchPlayer,
    distinct_actions,
    leader_of,
    match_worth,
    sample_hands,
)
from waraq.referee.games.hokm.engine import PLAY, HokmState, HokmView, round_points

KNOWING = ("none", "partner", "all")


class ExactSearch(SearchPlayer):
    """The search bot with each world of a card play valued by DDS (module docstring)."""

    def __init__(
        self, seed: str, worlds: int, know: str, exact_from: int, know_cards: tuple[int, int] = (0, 52)
    ) -> None:
        super().__init__(seed, worlds=worlds)
        self.know = know
        self.know_cards = know_cards
        self.exact_from = exact_from
        self.truth: HokmState | None = None  # the match itself, set before each decision (--know)
        self._tie_breaker = HeuristicPlayer(seed)

    def _decide(self, view: HokmView, start: float) -> Any:
        rules = view.rules
        if view.kind != PLAY or rules.players != 4 or rules.void_rule != "free" or view.bam or len(view.legal) == 1:
            return super()._decide(view, start)
        rng = random.Random(self._decision_key(view))
        actions, means = self._weigh(view, rng)
        best = max(means)
        top = [a for a, m in zip(actions, means, strict=True) if m >= best - 1e-9]
        if len(top) == 1:
            return top[0]
        preferred = self._tie_breaker(view)  # or the lowest card of its run, which distinct_actions kept
        of_its_run = max((a for a in actions if a // 13 == preferred // 13 and a <= preferred), default=None)
        return of_its_run if of_its_run in top else top[0]

    def _weigh(self, view: HokmView, rng: random.Random) -> tuple[tuple[int, ...], list[float]]:
        table = Table.of(view)
        actions = distinct_actions(view, table.unseen)
        team = view.seat % 2
        ours = view.tricks_won[team] + view.tricks_won[team + 2]
        theirs = sum(view.tricks_won) - ours
        left = (sum(view.hand_sizes) + len(view.trick)) // 4  # tricks, the current one's included
        leader = leader_of(view)
        trick = [c for _, c in view.trick]
        exact = sum(view.hand_sizes) <= self.exact_from
        know = self._knowing(view)
        need = 7 - ours

        def value(tricks: int) -> float:  # the round's worth to us when our side takes ``tricks`` of those left
            mine, others = ours + tricks, theirs + left - tricks
            return _round_worth(view, mine, others) + TRICK_WEIGHT * (mine - others) / 13

        totals = [0.0] * len(actions)
        worlds = 1 if know == "all" else self.worlds
        for _ in range(worlds):
            hands = self._world(view, table, rng, know)
            if exact:
                tricks = double_dummy.tricks_by_card(view.trump, leader, trick, hands)
                for i, action in enumerate(actions):
                    totals[i] += value(tricks[action])
            else:
                winning = double_dummy.reaching(view.trump, leader, trick, hands, need)
                for i, action in enumerate(actions):
                    totals[i] += value(need if action in winning else need - 1)
        return actions, [t / worlds for t in totals]

    def _knowing(self, view: HokmView) -> str:
        """What this card play is given: ``know``, or nothing outside ``know_cards``."""
        low, high = self.know_cards
        return self.know if low <= sum(view.hand_sizes) <= high else "none"

    def _world(self, view: HokmView, table: Table, rng: random.Random, know: str) -> list[list[int]]:
        if know == "none":
            return sample_hands(view, table, rng)
        assert self.truth is not None, "--know needs the harness to set the match's state"
        if know == "all":
            return [list(h) for h in self.truth.hands]
        partner = (view.seat + 2) % 4
        known = list(self.truth.hands[partner])
        sizes = tuple(0 if s == partner else n for s, n in enumerate(view.hand_sizes))
        hands = sample_hands(view._replace(hand_sizes=sizes), replace(table, unseen=table.unseen - set(known)), rng)
        hands[partner] = known
        return hands


def _round_worth(view: HokmView, mine: int, others: int) -> float:
    """Our points less theirs for a round that ends ``mine`` to ``others`` in tricks, with the
    match's target when it ends the match, as the search bot's round_value counts it. A kot is
    read from the whole round's tricks: a lower bound (module docstring of double_dummy)."""
    rules, team = view.rules, view.seat % 2
    hakem_side = view.hakem % 2
    won = mine >= 7
    winners = team if won else 1 - team
    kot = (others if won else mine) == 0
    points, _ = round_points(rules, kot=kot, hakem_side=winners == hakem_side)
    ends = view.scores[winners] + points >= rules.target_score
    worth = points + (match_worth(rules) if ends else 0)
    return worth if won else -worth


@dataclass(frozen=True)
class Measured:
    """A picklable maker of the measured seats, so boards can play in other processes."""

    worlds: int
    know: str
    exact_from: int
    know_cards: tuple[int, int]

    def __call__(self, seed: str) -> ExactSearch:
        return ExactSearch(seed, self.worlds, self.know, self.exact_from, self.know_cards)


def play_board(board: int, measured: Measured, other: str) -> list[tuple[bool, float]]:
    """Both rooms of one board, as bench/search.py plays them, each measured seat shown the match."""
    return search_board(4, board, measured, other, before_each=_show_the_match)


def _show_the_match(state: HokmState, player: Any) -> None:
    if isinstance(player, ExactSearch):
        player.truth = state


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--know", choices=KNOWING, default="none", help="the hands it is given (default: none)")
    parser.add_argument(
        "--know-cards",
        type=int,
        nargs=2,
        default=(0, 52),
        metavar=("LO", "HI"),
        help="give --know only to card plays with LO to HI cards left (default: 0 52, every one)",
    )
    parser.add_argument("--worlds", type=int, default=40, help="worlds a card play (default 40; 1 with --know all)")
    parser.add_argument("--exact-from", type=int, default=32, help="cards left from which tricks are counted")
    parser.add_argument("--against", default="heuristic", choices=sorted(OPPONENTS))
    parser.add_argument("--boards", type=int, default=30)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    if not double_dummy.available():
        raise SystemExit("bench/search_ceiling.py needs endplay's DDS: pip install -e '.[analysis]'")
    measured = Measured(args.worlds, args.know, args.exact_from, tuple(args.know_cards))
    start = time.perf_counter()
    with ProcessPoolExecutor(args.jobs) as pool:
        numbers = range(args.first, args.first + args.boards)
        rooms = [
            room for board in pool.map(play_board, numbers, repeat(measured), repeat(args.against)) for room in board
        ]
    wins = sum(won for won, _ in rooms)
    low, high = clopper_pearson(wins, len(rooms))
    worlds = "the true hands" if args.know == "all" else f"{args.worlds} worlds, knowing {args.know}"
    if args.know != "none" and tuple(args.know_cards) != (0, 52):
        worlds += " at {} to {} cards left".format(*args.know_cards)
    print(
        f"exact search ({worlds}, tricks from {args.exact_from} cards) v {args.against}: won {wins}/{len(rooms)} "
        f"matches = {wins / len(rooms):.0%} (95 % {low:.1%}-{high:.1%}), "
        f"{statistics.mean(s for _, s in rooms):.1%} of the points; boards {args.first}-{args.first + args.boards - 1} "
        f"in {time.perf_counter() - start:.0f} s"
    )


if __name__ == "__main__":
    main()

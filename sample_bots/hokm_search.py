"""A Hokm bot that searches: determinized (perfect-information Monte Carlo) play under a time budget.

For a PLAY or BAM decision it samples *worlds*: deals of the cards it has not
seen to the other seats, each consistent with everything its view shows
(:func:`sample_hands`). In each world it tries every legal action on a copy
of the engine's state, through the trusted door (``push``), and plays the
round out: by the greedy policy (sample_bots/hokm_greedy.py, the same two
functions the greedy bot plays by) while many cards are left, and by an
exact alpha-beta search over the remaining tricks near the end of the round
(:func:`solve`). The action with the best average over the worlds is played.
A world's value is the round's points, ours minus the best opponent's
(+1 a won round, +2 or +3 a kot, the same negative when lost), so a kot
counts for what it is worth and a trick nobody needs counts nothing; a
round that ends the match counts the match too (:func:`round_value`).

TRUMP, REDEAL and DISCARD are decided by the heuristic bot's rules
(sample_bots/hokm_heuristic.py), DRAW by the greedy bot's: the search's
worlds start once every hand is dealt, so these are rules, chosen by
measure (docs/bots.md): with 2 players the heuristic with greedy's DRAW won
65 of 200 matches against greedy, with its own 44; greedy's TRUMP (42) and
DISCARD (48) did not beat the heuristic's. Its note names the rule.

It never sees a card it could not see: a world is built from the
:class:`~waraq.referee.games.hokm.engine.HokmView` alone.

Time. The budget is ``ms`` a decision (default 100; served, ``python -m
waraq.bots.server search --ms 50``: the referee hands a launched bot no
``WARAQ_`` variable, and a sandboxed one almost no environment, so the
budget is an option, not a variable), cut to the request's
``deadline_ms`` less a margin for the transport. It is spent by a fixed
cost model (:class:`Budget`, :func:`action_cost_us`, from bench/search.py's
measures on a 2-core machine), not by the clock: so the same decision
samples the same worlds whatever the machine's load, and ``replay --ask``
gets the same answer. The model plans to spend :data:`BUDGET_SHARE` of the
budget. The actions race (:func:`search`): one that falls clearly behind is
dropped, and what it would have cost buys more worlds for the others. The
clock is a safety net: a search still running at :data:`HARD_FACTOR` times
the budget, or at the deadline less the margin, stops and plays the best so
far (anytime), and its note says so ("stopped by the clock"): only then may
a replay on a faster or idler machine differ. So the bank is never drawn
on. ``worlds`` (``--worlds``) fixes the count instead of the model.

Determinism. The worlds come from a generator keyed by the seed (the
server's is the match id and seat) and the decision itself (its round, hand,
tricks and trick), as the heuristic's tie-breaks are.
"""

from __future__ import annotations

import math
import random
import time
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from waraq.bots.hokm_greedy import GreedyPlayer, beats, greedy_follow, greedy_lead
from waraq.bots.hokm_heuristic import HeuristicPlayer, Table
from waraq.referee.games.cards import CARD_NAMES
from waraq.referee.games.dealers import SeededDealer
from waraq.referee.games.hokm.engine import BAM, DRAW, PLAY, HokmKind, HokmState, HokmView, winning_index
from waraq.referee.games.hokm.rules import HokmRules

DEFAULT_MS = 100.0
# Kept off the request's deadline for the reply's way back and the referee's clock.
MARGIN_MS, MARGIN_SHARE = 15.0, 0.2
MAX_WORLDS = 400  # more worlds change the average by less than the noise between decisions
# The exact search takes over when this few cards are left in all hands together: there it
# costs about what a rollout of every action does over a few worlds (bench/search.py).
EXACT_CARDS = {4: 12, 3: 10, 2: 10}
# The cost model of :class:`Budget`, in microseconds of CPU, from measures on a 2-core machine
# over real decisions (random matches, 4 players, 20 worlds each): a rollout by seeing_policy
# costs 3.7 an action and a card left at 13 to 27 cards, 4.7 at 28 to 39, 5.1 at 40 to 52 (the
# longer the hands, the more cards the policy walks), push included; an exact action 1.6 times
# more a card more, 280 to 590 at 10 cards (median; up to 1,200 at the 90th centile, 2,000 at
# most). Planning BUDGET_SHARE of the budget, a decision at 100 ms took 62 to 70 ms of CPU at the
# median with 3 and 4 players, 95 to 112 at the 90th centile: the dearest stay under HARD_FACTOR.
US_PER_WORLD = 40.0  # sampling and dealing one world
# One card left, one action: a rollout by seeing_policy, policy included, at ``cards`` left:
# US_PER_PLAY + US_PER_PLAY_GROWTH * cards (a line through the three measures above).
US_PER_PLAY, US_PER_PLAY_GROWTH = 2.6, 0.055
US_EXACT_AT_10, EXACT_GROWTH = 700.0, 1.6  # one action's exact search at 10 cards; per card more
BUDGET_SHARE = 0.85
HARD_FACTOR = 2.0  # the clock stops a search at this many budgets (or at the deadline, if sooner)
# The race of :func:`search`: the first look after RACE_FROM worlds, then one every RACE_EVERY; an
# action is dropped when the leader is ahead of it by more than RACE_Z standard errors. Generous,
# for the looks are many: an action dropped wrongly is one close to the best.
RACE_FROM, RACE_EVERY, RACE_Z = 8, 4, 2.5
# A trick more than the opponents, in points: the round's points decide, but a won round's
# margin tells a safe line from a lucky one, which rollouts of ±1 alone barely do.
TRICK_WEIGHT = 0.1


class _NoNextDeal(SeededDealer):
    """The dealer of a world: a world is played to the end of its round only, but the engine
    deals the next round as the round ends, so it is given the deck in card order, unshuffled
    (a shuffle would cost more than the rest of a rollout's end)."""

    __slots__ = ()

    def deck(self, index: int, cards: Sequence[int]) -> list[int]:
        return list(cards)


_NO_NEXT_DEAL = _NoNextDeal("world")


# -- worlds ------------------------------------------------------------------------------


def sample_hands(view: HokmView, table: Table, rng: random.Random) -> list[list[int]]:
    """One world: every seat's hand, this seat's as it is, the others' drawn from the unseen cards.

    Each other seat gets exactly its ``hand_sizes`` count, never a card this seat has seen
    (played, held, discarded, burned in its sight) and never a card of a suit it showed out
    of (:class:`~waraq.bots.hokm_heuristic.Table`'s voids; under ``must_trump`` a seat that
    showed out without trumping holds no trump either).

    With 2 players the unseen cards are more than the other hand (its discards, the burns
    this seat did not see, the unused card): the hand is a uniform sample of those that fit
    its voids. With 3 and 4 every unseen card is in some hand: cards that fit the fewest
    seats are placed first, each to a seat with room, chosen by the room left; a placement
    that runs out of room is tried again (rarely: real voids leave much room), and after a
    few tries :func:`_place_in_order` places them so that none can run out.
    """
    pool = sorted(table.unseen)
    others = [s for s in range(view.rules.players) if s != view.seat]
    sizes = {s: view.hand_sizes[s] for s in others}
    voids = table.voids
    if len(others) == 1:
        (other,) = others
        fitting = [c for c in pool if c // 13 not in voids[other]]
        placed = {other: rng.sample(fitting, sizes[other])}
    else:
        for _ in range(PLACEMENT_TRIES):
            found = _place(pool, others, sizes, voids, rng)
            if found is not None:
                placed = found
                break
        else:
            placed = _place_in_order(pool, others, sizes, voids, rng)
    hands: list[list[int]] = [[] for _ in range(view.rules.players)]
    hands[view.seat] = list(view.hand)
    for s in others:
        hands[s] = sorted(placed[s])
    return hands


PLACEMENT_TRIES = 20


def _place(
    pool: list[int], others: list[int], sizes: dict[int, int], voids: Sequence[frozenset[int]], rng: random.Random
) -> dict[int, list[int]] | None:
    """A random placement of every card of ``pool``, or None when a card found no room."""
    room = dict(sizes)
    placed: dict[int, list[int]] = {s: [] for s in others}
    cards = pool[:]
    rng.shuffle(cards)
    fits = {c: [s for s in others if c // 13 not in voids[s]] for c in cards}
    cards.sort(key=lambda c: len(fits[c]))  # stable: the shuffle orders cards that fit as many seats
    for card in cards:
        seats = [s for s in fits[card] if room[s]]
        if not seats:
            return None
        seat = seats[0] if len(seats) == 1 else rng.choices(seats, [room[s] for s in seats])[0]
        placed[seat].append(card)
        room[seat] -= 1
    return placed


def _place_in_order(
    pool: list[int], others: list[int], sizes: dict[int, int], voids: Sequence[frozenset[int]], rng: random.Random
) -> dict[int, list[int]]:
    """A placement that cannot run out of room when the view comes from a real deal: the seats
    filled in order of fewest fitting cards, each first with the cards no later seat may take."""
    placed: dict[int, list[int]] = {}
    left = pool[:]
    rng.shuffle(left)
    order = sorted(others, key=lambda s: sum(1 for c in left if c // 13 not in voids[s]))
    for i, seat in enumerate(order):
        later = order[i + 1 :]
        mine = [c for c in left if c // 13 not in voids[seat]]
        only = [c for c in mine if all(c // 13 in voids[s] for s in later)]
        rest = [c for c in mine if c not in only]
        placed[seat] = (only + rest)[: sizes[seat]]
        chosen = set(placed[seat])
        left = [c for c in left if c not in chosen]
    return placed


def world_template(view: HokmView) -> HokmState:
    """The engine's state of this seat's position, every hand but its own still empty.

    Each world is a clone of it with the hands dealt (:func:`sample_hands`). Built field by
    field from the view: a state is otherwise only made by dealing a match from its start.
    tests/sample_bots/test_hokm_search.py checks that a world's view of this seat is the
    view it was built from, so a field the engine grows is caught there.
    """
    rules = view.rules
    n = rules.players
    state = object.__new__(HokmState)
    state._log, state._spelled = [], []
    state.rules, state.players, state.teams = rules, n, rules.teams
    state.hand_size, state.tricks = rules.hand_size, rules.tricks
    state.dealer, state.deals = _NO_NEXT_DEAL, 0
    state.round, state.hakem, state.trump = view.round, view.hakem, view.trump
    state.hands = [[] for _ in range(n)]
    state.hands[view.seat] = list(view.hand)
    state.scores = list(view.scores)
    assert view.kind is not None
    state.kind, state.to_act = HokmKind(view.kind), view.to_act
    state.leader = leader_of(view)
    state.trick = [c for _, c in view.trick]
    state.history = list(view.tricks)
    state.tricks_won = list(view.tricks_won)
    state.team_tricks = [sum(view.tricks_won[s] for s in range(t, n, rules.teams)) for t in range(rules.teams)]
    state.deck, state.stock = list(rules.deck), len(rules.deck)  # all dealt: play has begun
    state.redeals, state.shown = len(view.redeals), list(view.redeals)
    state.discards = [()] * n
    state.discards[view.seat] = view.discarded
    state.draw_choices = []
    state.bam_team = None
    if view.bam:  # the side that called bam has taken every trick so far
        played = len(view.tricks)
        state.bam_team = next(t for t, won in enumerate(state.team_tricks) if won == played)
    state.result = None
    state._legal = None
    return state


def leader_of(view: HokmView) -> int:
    """The seat that leads the trick being played: its first card's, else the last trick's
    winner, else (the round's first trick) the hakem."""
    if view.trick:
        return view.trick[0][0]
    return view.tricks[-1].winner if view.tricks else view.hakem


def deal_world(template: HokmState, hands: list[list[int]]) -> HokmState:
    world = template.clone()
    world.hands = hands
    return world


# -- evaluating a world ------------------------------------------------------------------


def round_value(state: HokmState, before: Sequence[int], team: int) -> float:
    """The round's points for ``team`` less the most any other side gained (the round is over).

    A round that ends the match adds :func:`match_worth` for the winners, taken from the losers.
    """
    gained = [after - was for after, was in zip(state.scores, before, strict=True)]
    value: float = gained[team] - max(g for t, g in enumerate(gained) if t != team)
    tricks = _round_tricks(state, len(before))
    value += TRICK_WEIGHT * (tricks[team] - max(t for side, t in enumerate(tricks) if side != team))
    result = state.result
    if result is not None and result.winners:
        won = any(seat % state.teams == team for seat in result.winners)
        value += match_worth(state.rules) if won else -match_worth(state.rules)
    return value


def match_worth(rules: HokmRules) -> int:
    """What a round that ends the match adds to its value for the winners: a match won is worth
    as many points as it is played to. So a bam that wins the game at once outweighs the kot it
    risks (2 points against 1 and the match)."""
    return rules.target_score


def _round_tricks(state: HokmState, sides: int) -> list[int]:
    """The tricks each side took in the round just ended, from its ``round_end`` event: the
    state has dealt the next round by then. Read from the engine's log, a few entries from its
    end, because spelling the whole log (``events``) would cost more than the rollout."""
    for event in reversed(state._log):
        if isinstance(event, dict) and event["type"] == "round_end":
            per_seat = event["tricks"]
            return [sum(per_seat[side::sides]) for side in range(sides)]
    raise AssertionError("a round that ended has a round_end event")


def policy(state: HokmState) -> Any:
    """The rollouts' action: greedy play; at a bam, take the kot."""
    if state.kind is not PLAY:
        return False  # BAM, the only other decision inside a round's play
    legal = state.legal_actions()
    if len(legal) == 1:
        return legal[0]
    trick = state.trick
    if not trick:
        return greedy_lead(legal, state.trump)
    partner = False
    if state.players == 4 and len(trick) >= 2:
        seat = state.to_act
        assert seat is not None
        partner = (state.leader + winning_index(trick, state.trump)) % 4 == (seat + 2) % 4
    return greedy_follow(legal, trick, state.trump, partner)


def can_beat(hand: Sequence[int], best: int, led: int, trump: int | None) -> bool:
    """A seat holding ``hand`` (sorted, as the engine keeps it) can take a trick led in ``led``
    from ``best``, playing as the follow rule lets it."""
    lo = bisect_left(hand, led * 13)
    hi = bisect_left(hand, led * 13 + 13, lo)
    if lo < hi:  # it must follow: only a higher card of the led suit, and only when best is of it
        return best // 13 == led and hand[hi - 1] > best
    if trump is None:
        return False
    t = bisect_left(hand, trump * 13)
    top = hand[t] if t < len(hand) else -1
    if top // 13 != trump:
        return False  # no trump
    t_hi = bisect_left(hand, trump * 13 + 13, t)
    return best // 13 != trump or hand[t_hi - 1] > best


def seeing_policy(state: HokmState) -> Any:
    """The rollouts' action in a world, where every hand is known: greedy play that looks.

    Leading: a card no opponent can beat (a side card before a trump, the lowest such), else
    the lowest side card. Following: the cheapest card that takes the trick and that no
    opponent after can beat; a partner (4 players) already sure of it gets the lowest card,
    and so does a trick that cannot be made sure. At a bam: take the kot.

    It is most of a rollout's cost, so it walks the legal cards cheapest first and stops at the
    first that will do, rather than testing every card (tests/sample_bots/test_hokm_search.py
    holds it to the plain reading above on every card of 25 rounds of each player count).
    """
    if state.kind is not PLAY:
        return False  # BAM, the only other decision inside a round's play
    legal = state.legal_actions()
    if len(legal) == 1:
        return legal[0]
    seat = state.to_act
    assert seat is not None
    n, trump, trick, hands = state.players, state.trump, state.trick, state.hands
    cheapest_first = sorted(legal, key=lambda c: (c // 13 == trump, c % 13))  # low_key; stable on ties
    if not trick:
        if n == 4:
            opponents = [hands[(seat + 1) % 4], hands[(seat + 3) % 4]]
        else:
            opponents = [hand for other, hand in enumerate(hands) if other != seat]
        for card in cheapest_first:
            if not any(can_beat(hand, card, card // 13, trump) for hand in opponents):
                return card
        return cheapest_first[0]
    played = len(trick)
    # The seats still to play after this one; with 4 players only the opponents among them.
    later = [hands[(seat + k) % n] for k in range(1, n - played) if n != 4 or k % 2]
    led = trick[0] // 13
    i = winning_index(trick, trump)
    best = trick[i]
    if n == 4 and i == played - 2:  # the partner played the winning card: low, unless it can be beaten
        if not any(can_beat(hand, best, led, trump) for hand in later):
            return cheapest_first[0]
    for card in cheapest_first:
        if beats(card, best, trump) and not any(can_beat(hand, card, led, trump) for hand in later):
            return card
    return cheapest_first[0]


def rollout(state: HokmState, round_: int, before: Sequence[int], team: int) -> float:
    """Play ``state`` to the end of round ``round_`` (its scores were ``before``) by
    :data:`ROLLOUT_POLICY`; the round's value for ``team``. The round may be over already:
    the action tried may have taken its last trick."""
    push = state.push
    while state.round == round_ and state.result is None:
        push(ROLLOUT_POLICY(state))
    return round_value(state, before, team)


class OutOfTime(Exception):
    """An exact search reached its ``stop_at``: the action it was valuing has no value."""


def solve(
    state: HokmState,
    round_: int,
    before: Sequence[int],
    team: int,
    alpha: float,
    beta: float,
    stop_at: float = math.inf,
) -> float:
    """The exact value for ``team`` of round ``round_`` (its scores were ``before``), every hand
    known, by alpha-beta.

    ``team``'s seats maximise, every other seat minimises (with 3 players the two others are
    taken to play together against us: the safe reading when no partner is fixed). The
    greedy policy's action is tried first, which makes the cut-offs come early. Raises
    :class:`OutOfTime` at ``stop_at`` (a ``time.perf_counter()``): one action's search may
    take longer than a whole world's rollouts, so the clock is read at every position.
    """
    if state.result is not None or state.round != round_:
        return round_value(state, before, team)
    if time.perf_counter() >= stop_at:
        raise OutOfTime
    seat = state.to_act
    assert seat is not None
    legal = state.legal_actions()
    first = policy(state)
    ordered = [first, *(a for a in legal if a != first)] if len(legal) > 1 else list(legal)
    maximising = seat % state.teams == team
    best = -math.inf if maximising else math.inf
    for action in ordered:
        child = state.clone()
        child.push(action)
        value = solve(child, round_, before, team, alpha, beta, stop_at)
        if maximising:
            best = max(best, value)
            alpha = max(alpha, value)
        else:
            best = min(best, value)
            beta = min(beta, value)
        if alpha >= beta:
            break
    return best


def cards_left(view: HokmView) -> int:
    return sum(view.hand_sizes)


def is_exact(view: HokmView) -> bool:
    return cards_left(view) <= EXACT_CARDS[view.rules.players]


def evaluate_world(
    world: HokmState, actions: Sequence[Any], team: int, exact: bool, stop_at: float = math.inf
) -> list[float]:
    """Each action's value in one world: rolled out, or solved exactly; the first few only
    when ``stop_at`` (a ``time.perf_counter()``) comes before the last."""
    before, round_ = tuple(world.scores), world.round
    values = []
    for action in actions:
        if time.perf_counter() >= stop_at:
            break
        child = world.clone()
        child.push(action)
        if exact:
            try:
                values.append(solve(child, round_, before, team, -math.inf, math.inf, stop_at))
            except OutOfTime:
                break
        else:
            values.append(rollout(child, round_, before, team))
    return values


def distinct_actions(view: HokmView, unseen: frozenset[int]) -> tuple[Any, ...]:
    """The legal actions worth trying: of cards of one suit with no unseen card between them
    (each card between is this seat's or played to an earlier trick) only the lowest, since in
    every world they take the same tricks (2D 3D 5D with 4D played: 2D). A card on the table
    parts them too: with 4D led, 3D loses the trick and 5D takes it. A BAM's two answers are
    both tried."""
    if view.kind != PLAY:
        return tuple(view.legal)
    parting = unseen | {c for _, c in view.trick}
    kept: list[int] = []
    previous = -1
    for card in sorted(view.legal):
        equal = previous // 13 == card // 13 and not any(previous < c < card for c in parting)
        if not equal:
            kept.append(card)
        previous = card
    return tuple(kept)


def action_cost_us(view: HokmView) -> float:
    """What valuing one action in one world costs here, by the fixed cost model (module docstring)."""
    cards = cards_left(view)
    if is_exact(view):
        return US_EXACT_AT_10 * EXACT_GROWTH ** (cards - 10)
    return cards * (US_PER_PLAY + US_PER_PLAY_GROWTH * cards)


@dataclass(frozen=True)
class Budget:
    """What a search may spend: at most ``worlds`` worlds and ``us`` microseconds of the cost model."""

    worlds: int
    us: float = math.inf

    @classmethod
    def of_ms(cls, ms: float) -> Budget:
        return cls(MAX_WORLDS, BUDGET_SHARE * ms * 1000)


# -- the bot -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Weighed:
    """What a search weighed: per action its mean value over the ``seen`` worlds it was valued in,
    and whether it was ``kept`` in the race to the end (:func:`search`)."""

    actions: tuple[Any, ...]
    means: tuple[float, ...]
    seen: tuple[int, ...]
    kept: tuple[bool, ...]
    worlds: int
    exact: bool
    clocked: bool = False  # the clock stopped it before its budget was spent
    spent_us: float = 0.0  # of the budget, by the cost model

    def best(self) -> Any:
        """The best mean of the actions kept in the race; the first in the legal order on ties."""
        kept = (i for i, k in enumerate(self.kept) if k)
        return self.actions[max(kept, key=self.means.__getitem__)]


def search(view: HokmView, rng: random.Random, budget: Budget, stop_at: float) -> Weighed:
    """Sample worlds and value the distinct legal actions (:func:`distinct_actions`) in each, until
    ``budget`` is spent or ``stop_at`` (a ``time.perf_counter()``, read before each action).

    The actions race: from :data:`RACE_FROM` worlds on, every :data:`RACE_EVERY`, an action
    whose values fall short of the leader's, world by world, by more than :data:`RACE_Z` standard
    errors of their mean difference is dropped, and its cost goes to more worlds for the rest.
    One left, the search stops. Each world values every action still in the race, so the
    differences are paired: the luck of a world's cards cancels.

    Stopped inside the first world, it weighs the actions that world valued so far (none at
    all: ``worlds`` is 0 and the caller plays without searching); inside a later one, the
    worlds done.
    """
    team = view.seat % view.rules.teams
    table = Table.of(view)
    actions = distinct_actions(view, table.unseen)
    template = world_template(view)
    exact = is_exact(view)
    per_action = action_cost_us(view)
    values: list[list[float]] = [[] for _ in actions]
    live = list(range(len(actions)))
    done, spent, clocked = 0, 0.0, False
    while done == 0 or (done < budget.worlds and len(live) > 1):
        cost = US_PER_WORLD + len(live) * per_action
        if done and spent + cost > budget.us:
            break
        world = deal_world(template, sample_hands(view, table, rng))
        found = evaluate_world(world, [actions[i] for i in live], team, exact, stop_at)
        if len(found) < len(live):  # out of time
            if done == 0:
                ones = len(found)
                return Weighed(actions[:ones], tuple(found), (1,) * ones, (True,) * ones, 0, exact, True)
            clocked = True
            break
        for i, value in zip(live, found, strict=True):
            values[i].append(value)
        done += 1
        spent += cost
        if done >= RACE_FROM and (done - RACE_FROM) % RACE_EVERY == 0:
            live = race(values, live)
    means = tuple(sum(v) / len(v) for v in values)
    kept = tuple(i in live for i in range(len(actions)))
    return Weighed(actions, means, tuple(map(len, values)), kept, done, exact, clocked, spent)


def race(values: list[list[float]], live: list[int]) -> list[int]:
    """The actions of ``live`` still in the race: the leader, and each whose mean difference from
    it is within :data:`RACE_Z` standard errors (every one of ``live`` has a value in each world)."""
    n = len(values[live[0]])
    leader = max(live, key=lambda i: sum(values[i]))
    kept = []
    for i in live:
        if i == leader:
            kept.append(i)
            continue
        gaps = [a - b for a, b in zip(values[leader], values[i], strict=True)]
        mean = sum(gaps) / n
        spread = sum((g - mean) ** 2 for g in gaps) / (n - 1)
        if mean <= 0 or mean * mean * n <= RACE_Z * RACE_Z * spread:
            kept.append(i)
    return kept


class SearchPlayer:
    """The search bot (module docstring). ``ms``: the budget a decision; ``worlds``: a fixed count."""

    def __init__(self, seed: int | str = 0, ms: float | None = None, worlds: int | None = None) -> None:
        self.seed = seed
        self.ms = DEFAULT_MS if ms is None else ms
        self.worlds = worlds
        self.note = ""
        self.think_ms = 0.0
        self._deadline_ms = 0.0  # from the request, when served (:meth:`set_clock`); 0: none
        self._rules_player = HeuristicPlayer(seed)
        self._greedy = GreedyPlayer(seed)

    def set_clock(self, deadline_ms: float, bank_ms: float) -> None:
        """The request's clock, given by the server before each decision. The bank is not spent:
        the budget stays under the deadline, so a slow reply draws on it only by accident."""
        self._deadline_ms = deadline_ms

    def budget_ms(self) -> float:
        """This decision's time: ``ms``, cut to the deadline less the transport's margin."""
        return min(self.ms, self._room_ms())

    def hard_limit_ms(self) -> float:
        """When the clock stops a search: :data:`HARD_FACTOR` budgets, never past the deadline's room."""
        return min(HARD_FACTOR * self.budget_ms(), self._room_ms())

    def _room_ms(self) -> float:
        if self._deadline_ms <= 0:
            return math.inf
        return max(1.0, self._deadline_ms - max(MARGIN_MS, MARGIN_SHARE * self._deadline_ms))

    def __call__(self, view: HokmView) -> Any:
        start = time.perf_counter()
        try:
            return self._decide(view, start)
        finally:
            self.think_ms = (time.perf_counter() - start) * 1000

    def _decide(self, view: HokmView, start: float) -> Any:
        assert view.kind is not None, "a bot is asked only while a decision is pending"
        if view.kind == DRAW:
            action = self._greedy(view)
            self.note = f"{self._greedy.note} (greedy's rule)"
            return action
        if view.kind != PLAY and view.kind != BAM:
            action = self._rules_player(view)
            self.note = f"{self._rules_player.note} (heuristic's rule)"
            return action
        if len(view.legal) == 1:
            only = view.legal[0]
            self.note = f"{_spell(view.kind, only)}: the only legal action"
            return only
        distinct = distinct_actions(view, Table.of(view).unseen)
        if len(distinct) == 1:
            cards = " ".join(CARD_NAMES[c] for c in sorted(view.legal))
            self.note = f"{CARD_NAMES[distinct[0]]}: {cards} take the same tricks in every world, the lowest"
            return distinct[0]
        budget = Budget(self.worlds) if self.worlds else Budget.of_ms(self.budget_ms())
        rng = random.Random(self._decision_key(view))
        weighed = search(view, rng, budget, start + self.hard_limit_ms() / 1000)
        if not weighed.actions:  # no time for a single rollout: the greedy bot's card
            action = self._greedy(view)
            self.note = f"{self._greedy.note} (greedy's rule: no time to search)"
            return action
        self.note = describe(view, weighed)
        return weighed.best()

    def _decision_key(self, view: HokmView) -> str:
        return (
            f"search/{self.seed}/{view.seat}/{view.round}/{view.scores}/{view.kind}/"
            f"{view.hand}/{len(view.tricks)}/{view.trick}/{len(view.redeals)}"
        )


ROLLOUT_POLICY = seeing_policy


def _spell(kind: str, action: Any) -> str:
    if kind == PLAY:
        return CARD_NAMES[action]
    return "bam" if action else "no bam"


def describe(view: HokmView, weighed: Weighed, shown: int = 6) -> str:
    """``48 worlds, rollouts: AS +0.71, KS +0.64, 7H -0.52 (8)``: the best first, as many as fit;
    an action the race dropped says in how many worlds it was valued."""
    assert view.kind is not None
    order = sorted(range(len(weighed.actions)), key=lambda i: (not weighed.kept[i], -weighed.means[i]))
    parts = []
    for i in order[:shown]:
        dropped = "" if weighed.kept[i] else f" ({weighed.seen[i]})"
        parts.append(f"{_spell(view.kind, weighed.actions[i])} {weighed.means[i]:+.2f}{dropped}")
    if len(order) > shown:
        parts.append(f"{len(order) - shown} more")
    how = "exact" if weighed.exact else "rollouts"
    if weighed.worlds == 0:
        how += f", stopped by the clock in the first world after {len(weighed.actions)} of {len(view.legal)} actions"
    elif weighed.clocked:
        how += ", stopped by the clock"
    return f"{weighed.worlds} world{'s' if weighed.worlds != 1 else ''}, {how}: {', '.join(parts)}"

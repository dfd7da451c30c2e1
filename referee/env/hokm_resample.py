"""The deals consistent with what one seat knows of the deal on the table, and drawing one at random.

A *world* of the current deal is its deck (the order the chance nodes dealt it in)
and, with 2 players, the other seat's hidden decisions (its two discards, its
keep or pass at each draw). :func:`sample_world` draws one from everything that
``seat``'s information allows, given only that seat's two views of the deal: the
view right after the deck was laid out (its first five, and whether the hakem was
offered a redeal) and its view now. Nothing else of the true deal is read, so a
world cannot carry a hidden card over.

What the views pin down, and so what every world keeps:

* the seat's own cards where it got them: its first packet, the rest of its hand
  (3 and 4 players), its discards and every card it saw in its draws (2 players),
  the card it is offered now;
* every card played, by the seat that played it;
* the voids play has shown: a seat that did not follow the led suit holds none of
  it from then on, and under ``void_rule = "must_trump"`` a seat that then played
  no trump (its partner, with 4 players, not winning the trick) holds no trump
  either;
* the removed cards (``removed_cards``) are out of every deck: they are public.

The rest is hidden and is shuffled: the other seats' hands, which of each
seat's cards came in its first packet, and with 2 players the discards, the
burned and unseen cards, the stock still to come, the unused card and the other
seat's keep-or-pass choices. Two facts are not checked here but by replaying the
world through the engine (:mod:`waraq.referee.env.hokm_openspiel` rejects a world
whose views differ): a redeal offered to the hakem says its first five held no
ace, king, queen or jack, and one not offered (while redeals remained) says they
held one.

**Distribution.** Before that replay, the worlds are uniform over every deck that
keeps the facts above, each 2-player hidden choice uniform too: the hidden cards
are first dealt to *places* (each other seat's hand, and the cards in no hand: the
deck still to come before trump, with 2 players the cards out of play), uniformly
over all assignments that fill every place and respect every void, by
dynamic programming over the suits (:func:`deal_hidden`): for suit after suit,
a split of its hidden cards over the places is drawn with probability
proportional to the number of ways to complete the deal from it, and the cards
of the suit are then shuffled into that split. Each assignment corresponds to
the same number of decks (the shuffles within each seat's packets and between
first packet and the rest are drawn uniformly), so every consistent deck is
equally likely. Rejecting the worlds whose replay differs keeps that: a uniform
draw from a set, kept only inside a subset, is uniform on the subset.
"""

from __future__ import annotations

import functools
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from math import factorial
from random import Random
from typing import Any

from waraq.referee.games.hokm.dealing import PACKET_FIRST, deal_order
from waraq.referee.games.hokm.engine import DISCARD, DRAW, KEEP, PASS, HokmKind, HokmView, winning_index
from waraq.referee.games.hokm.rules import HokmRules

SUITS = 4
ALL_SUITS = (1 << SUITS) - 1
Decision = tuple[int, HokmKind, Any]  # (seat, kind, the engine's action), as the deal went


def plays_of(view: HokmView) -> list[list[tuple[int, int]]]:
    """The deal's tricks as (seat, card) in play order, the one in progress last."""
    n = view.rules.players
    tricks = [list(trick.plays(n)) for trick in view.tricks]
    if view.trick:
        tricks.append(list(view.trick))
    return tricks


def shown_voids(view: HokmView) -> list[int]:
    """Per seat, a bit mask of the suits its play has shown it holds none of (bit ``s`` for suit ``s``)."""
    rules = view.rules
    n, trump = rules.players, view.trump
    voids = [0] * n
    for plays in plays_of(view):
        led = plays[0][1] // 13
        for i in range(1, len(plays)):
            seat, card = plays[i]
            if card // 13 == led:
                continue
            voids[seat] |= 1 << led
            # Under must_trump a void seat holding a trump must play one, unless its partner is winning.
            if rules.void_rule == "must_trump" and trump is not None and card // 13 != trump:
                if not _partner_winning(plays[:i], seat, trump, n):
                    voids[seat] |= 1 << trump
    return voids


def _partner_winning(before: Sequence[tuple[int, int]], seat: int, trump: int, players: int) -> bool:
    if players != 4 or len(before) < 2:
        return False
    winner = before[winning_index([card for _, card in before], trump)][0]
    return winner == (seat + 2) % 4


# -- dealing the hidden cards to places ------------------------------------------


def deal_hidden(cards: Sequence[int], places: Sequence[tuple[int, int]], rng: Random) -> list[list[int]]:
    """``cards`` dealt to places given as (capacity, mask of the suits it may take), every place filled,
    uniformly over all such assignments. ValueError when the capacities do not add up to the cards."""
    if sum(cap for cap, _ in places) != len(cards):
        raise ValueError(f"{len(cards)} hidden cards for places of {[cap for cap, _ in places]} cards")
    dealt: list[list[int]] = [[] for _ in places]
    if all(mask == ALL_SUITS for _, mask in places):  # no void: a plain shuffle is uniform
        shuffled = list(cards)
        rng.shuffle(shuffled)
        start = 0
        for i, (cap, _) in enumerate(places):
            dealt[i] = shuffled[start : start + cap]
            start += cap
        return dealt
    by_suit = [[c for c in cards if c // 13 == s] for s in range(SUITS)]
    counts = tuple(len(group) for group in by_suit)
    masks = tuple(sum(1 << i for i, (_, m) in enumerate(places) if m >> s & 1) for s in range(SUITS))
    caps = tuple(cap for cap, _ in places)
    if _ways(counts, masks, caps) == 0:
        raise ValueError("no deal of the hidden cards respects the voids shown")
    for s in range(SUITS):
        split = _draw_split(counts[s:], masks[s:], caps, rng)
        group = list(by_suit[s])
        rng.shuffle(group)
        start = 0
        for i, x in enumerate(split):
            dealt[i] += group[start : start + x]
            start += x
        caps = tuple(c - x for c, x in zip(caps, split, strict=True))
    return dealt


def _draw_split(counts: tuple[int, ...], masks: tuple[int, ...], caps: tuple[int, ...], rng: Random) -> tuple[int, ...]:
    """How many of the first suit's cards go to each place, drawn in proportion to the deals it completes to."""
    splits, ends = _split_weights(counts, masks, caps)
    return splits[bisect_right(ends, rng.randrange(ends[-1]))]


@functools.lru_cache(maxsize=1 << 12)
def _split_weights(
    counts: tuple[int, ...], masks: tuple[int, ...], caps: tuple[int, ...]
) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
    """The first suit's possible splits and their cumulative weights (deals each completes to)."""
    splits, ends, total = [], [], 0
    for split in _splits(counts[0], masks[0], caps):
        weight = _multinomial(counts[0], split) * _ways(counts[1:], masks[1:], _minus(caps, split))
        if weight:
            total += weight
            splits.append(split)
            ends.append(total)
    return tuple(splits), tuple(ends)


@functools.lru_cache(maxsize=1 << 15)
def _ways(counts: tuple[int, ...], masks: tuple[int, ...], caps: tuple[int, ...]) -> int:
    """Assignments of the suits' cards (``counts[i]`` of suit i, which may go where ``masks[i]`` says) that
    fill places of capacities ``caps`` exactly. Cached: resampling one position again recounts nothing."""
    if not counts:
        return 1 if not any(caps) else 0
    return sum(
        _multinomial(counts[0], split) * _ways(counts[1:], masks[1:], _minus(caps, split))
        for split in _splits(counts[0], masks[0], caps)
    )


def _splits(k: int, mask: int, caps: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
    """Every way to give ``k`` cards to the places, place ``i`` at most ``caps[i]`` and none where ``mask`` bars it."""
    if not caps:
        if k == 0:
            yield ()
        return
    top = min(k, caps[0]) if mask & 1 else 0
    for x in range(top, -1, -1):
        for rest in _splits(k - x, mask >> 1, caps[1:]):
            yield (x, *rest)


def _multinomial(k: int, split: tuple[int, ...]) -> int:
    ways = factorial(k)
    for x in split:
        ways //= factorial(x)
    return ways


def _minus(caps: tuple[int, ...], split: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(c - x for c, x in zip(caps, split, strict=True))


# -- a world of the deal ----------------------------------------------------------


def sample_world(
    seat: int, dealt: HokmView, now: HokmView, decisions: Sequence[Decision], rng: Random
) -> tuple[list[int], list[Any]]:
    """A deck for the deal on the table and the deal's decisions' actions in it, drawn as the module
    docstring says. ``dealt`` and ``now`` are ``seat``'s views after the deck was laid out and now;
    ``decisions`` are the deal's decisions so far: the actions returned are theirs, the other seat's
    hidden ones (2 players) drawn anew."""
    rules = now.rules
    if rules.players == 2:
        return _two_player_world(rules, seat, dealt, now, decisions, rng)
    return _world_of_packets(rules, seat, dealt, now, rng), [action for _, _, action in decisions]


def _played(view: HokmView) -> list[list[int]]:
    played: list[list[int]] = [[] for _ in range(view.rules.players)]
    for plays in plays_of(view):
        for who, card in plays:
            played[who].append(card)
    return played


def _positions(rules: HokmRules, hakem: int) -> tuple[list[list[int]], list[list[int]]]:
    """Per seat, the deck positions of its first packet and of the rest of its cards (3 and 4 players)."""
    first: list[list[int]] = [[] for _ in range(rules.players)]
    rest: list[list[int]] = [[] for _ in range(rules.players)]
    for position, who in enumerate(deal_order(rules, hakem)):
        if who is not None:
            (first if position < PACKET_FIRST * rules.players else rest)[who].append(position)
    return first, rest


def _place(deck: list[int | None], positions: Sequence[int], cards: Sequence[int], rng: Random) -> None:
    """``cards`` at ``positions`` in a random order: nobody sees the order within a packet (hands are sorted)."""
    if len(positions) != len(cards):
        raise AssertionError(f"{len(cards)} cards for {len(positions)} positions")
    shuffled = list(cards)
    rng.shuffle(shuffled)
    for position, card in zip(positions, shuffled, strict=True):
        deck[position] = card


def _world_of_packets(rules: HokmRules, seat: int, dealt: HokmView, now: HokmView, rng: Random) -> list[int]:
    """3 and 4 players: a packet of five to each seat, trump, then the rest of every hand."""
    n, deck_cards = rules.players, rules.deck
    first, rest = _positions(rules, now.hakem)
    others = [s for s in range(n) if s != seat]
    played = _played(now)
    mine = set(now.hand) | set(played[seat])
    hidden = [c for c in deck_cards if c not in mine and not any(c in played[s] for s in others)]
    deck: list[int | None] = [None] * len(deck_cards)
    _place(deck, first[seat], dealt.hand, rng)
    if now.trump is None:  # only the first packets are out; the rest of the deck is still to come
        places = [(PACKET_FIRST, ALL_SUITS) for _ in others] + [(len(deck_cards) - PACKET_FIRST * n, ALL_SUITS)]
        *hands, undealt = deal_hidden(hidden, places, rng)
        for s, cards in zip(others, hands, strict=True):
            _place(deck, first[s], cards, rng)
        _place(deck, sorted(p for s in range(n) for p in rest[s]), undealt, rng)
        return _complete(deck)
    voids = shown_voids(now)
    places = [(now.hand_sizes[s], ALL_SUITS & ~voids[s]) for s in others]
    hands = deal_hidden(hidden, places, rng)
    _place(deck, rest[seat], sorted(mine - set(dealt.hand)), rng)
    for s, cards in zip(others, hands, strict=True):
        held = sorted(cards + played[s])
        packet = rng.sample(held, PACKET_FIRST)  # which of them came first, no one else saw
        _place(deck, first[s], packet, rng)
        _place(deck, rest[s], [c for c in held if c not in packet], rng)
    return _complete(deck)


def _two_player_world(
    rules: HokmRules, seat: int, dealt: HokmView, now: HokmView, decisions: Sequence[Decision], rng: Random
) -> tuple[list[int], list[Any]]:
    """2 players: first packets, discards, then draws in pairs from the stock (docs/rules.md), one card unused."""
    other, hakem = 1 - seat, now.hakem
    deck_cards = rules.deck
    first, _ = _positions(rules, hakem)
    played = _played(now)
    seen = set(now.hand) | set(played[seat]) | set(dealt.hand) | set(now.discarded)
    for step in now.draws:
        seen.add(step.offered)
        if step.second is not None:
            seen.add(step.second)
    if now.offered is not None:
        seen.add(now.offered)
    hidden = [c for c in deck_cards if c not in seen and c not in played[other]]
    held = now.hand_sizes[other]
    voids = shown_voids(now)
    in_hand, out = deal_hidden(hidden, [(held, ALL_SUITS & ~voids[other]), (len(hidden) - held, ALL_SUITS)], rng)
    rng.shuffle(out)  # the cards out of play, taken from the end as the deal needs them

    discarded = any(who == other and kind == DISCARD for who, kind, _ in decisions)
    discards: tuple[int, ...]
    draws = sum(1 for _, kind, _ in decisions if kind == DRAW)
    theirs = sorted(in_hand + played[other])
    deck: list[int | None] = [None] * len(deck_cards)
    _place(deck, first[seat], dealt.hand, rng)
    if discarded:
        kept = rng.sample(theirs, PACKET_FIRST - 2)  # the three of its first five it did not discard
        drawn = [c for c in theirs if c not in kept]
        rng.shuffle(drawn)
        discards = (out.pop(), out.pop())
        _place(deck, first[other], kept + list(discards), rng)
    else:
        drawn, discards = [], ()  # nothing drawn or discarded yet
        _place(deck, first[other], theirs, rng)

    choices: list[str] = []  # the other seat's keep or pass at each of its draws, drawn anew
    mine = iter(now.draws)
    for k in range(draws):
        x = PACKET_FIRST * 2 + 2 * k
        drawer = hakem if k % 2 == 0 else 1 - hakem
        if drawer == seat:
            step = next(mine)
            deck[x] = step.offered
            deck[x + 1] = step.second if step.second is not None else out.pop()  # burned unseen
        else:
            choice = KEEP if rng.random() < 0.5 else PASS
            choices.append(choice)
            card, burned = drawn.pop(), out.pop()
            deck[x], deck[x + 1] = (card, burned) if choice == KEEP else (burned, card)
    stock = PACKET_FIRST * 2 + 2 * draws
    if now.offered is not None:
        deck[stock] = now.offered
        stock += 1
    _place(deck, range(stock, len(deck_cards)), out, rng)

    redrawn = iter(choices)
    actions: list[Any] = []
    for who, kind, action in decisions:
        if who == other and kind == DISCARD:
            action = tuple(sorted(discards))
        elif who == other and kind == DRAW:
            action = next(redrawn)
        actions.append(action)
    return _complete(deck), actions


def _complete(deck: list[int | None]) -> list[int]:
    cards = [c for c in deck if c is not None]
    if len(cards) != len(deck) or len(set(cards)) != len(cards):
        raise AssertionError(f"a world's deck left gaps or repeats: {deck}")
    return cards

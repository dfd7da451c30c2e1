"""The deals consistent with what one seat knows of the Hand deal on the table, and drawing one at random.

A *world* of the current deal is its deck (the order the chance nodes dealt it in) and the
order of each new stock made from the discard pile since. Every move of the deal stays as
it was: moves are public. :func:`sample_runs` draws a world from one seat's information
only (:class:`Facts`, built from the seat's hand as dealt and the deal's story as the seat
saw it: another seat's draw is a draw, its card unknown), so a world cannot carry a hidden
card over.

What that information pins down, and so what every world keeps:

* the seat's own cards where it got them: its hand as dealt at its deal positions (in some
  order: its hand is sorted, the order unseen), each card it drew at the stock position it
  drew from;
* every public card: the discard pile, each new stock's cards (the pile under its top when
  it was made), every card laid on the table, every card taken from the pile and every
  joker won back by a swap, all by the seats that moved them;
* where a card another seat laid, picked or discarded came from: a card that seat held
  without the table seeing it come (not taken from the pile, not won back) was dealt to it
  or drawn by it before it showed it, from the deck if the card had never been seen before
  or from the new stock it was last put into.

The rest is hidden: which of the unseen cards each other seat was dealt or drew, and the
order of the stocks still to be drawn. A taken discard or a won joker is known to be in its
seat's hand until that seat lays it: it is in no deck position, so every world keeps it
there (the moves that put it there are the same).

**Distribution.** Within each run of chance cards (the deck, each new stock), the cards the
seat knows are put where it knows them (its dealt cards in a uniform order over its deal
positions). Then the other seats, one after another in seat order: a seat's hidden cards
are drawn first for the cards it showed, in the order shown, card ``i`` (shown at time
``t_i``) uniformly to one of the seat's free positions of its run received by ``t_i``: those
sets grow with ``t`` and every card placed before is in an earlier (so smaller) one, so card
``i`` always has ``|A_i| - (i - 1)`` choices whatever came before; then the seat's other
positions take cards drawn uniformly from those left. The draw is kept if the seat, holding
those cards, would have been offered the top discard at exactly the turns it was (the
referee's own question, :func:`~waraq.referee.games.hand.discard.has_discard_use`, asked of
the public table of that moment), else drawn again (SEAT_TRIES times, then the world is
begun again). Last, the cards left are shuffled uniformly into the positions left (the
stocks' undrawn cards).

So each seat's hidden cards are uniform over those that keep its facts, given the cards the
seats before it took; the stocks' order is uniform given the hands. With two players (one
other seat) that is the uniform distribution over every world keeping the facts; with
three or four it is the uniform one when the seats' facts leave each other's cards free,
and otherwise close to it (the sequential draw weighs a first seat's choice by its own
consistent hands, not by the completions it leaves the others). Every consistent world has
a positive probability: each seat's part of it is one of the draws allowed at its step.

One kind of fact is not checked here but by replaying the world through the engine and
OpenSpiel's moves (:mod:`waraq.referee.env.hand_openspiel` rejects a world that shows the
seat anything else): that each move of the turn under way, and of each turn before, was
allowed (:mod:`~waraq.referee.env.hand_steps` never steps into a dead end, which can depend on
the cards still hidden). Rejecting keeps the distribution on the worlds kept: a draw from
a set, kept only inside a subset, is the same distribution conditioned on the subset. So
every world returned shows the seat exactly what it saw, and every world that does is
reachable.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from random import Random
from typing import Any

from waraq.referee.env.hand_encoding import DISCARD_BASE, MELD_BASE, PICK_BASE, SWAP_BASE, TAKE_BASE
from waraq.referee.games.hand.dealing import deal_order
from waraq.referee.games.hand.decisions import DISCARD_PILE, TAKES
from waraq.referee.games.hand.discard import has_discard_use
from waraq.referee.games.hand.melds import TableMeld
from waraq.referee.games.hand.rules import HAND_SIZE, HandRules

# The story of a deal as hand_openspiel keeps it, one entry a step: (seat, what, value, extra).
MOVE = 0  # value: the action index; extra: the pile's top for a TAKE, the joker won for a SWAP, else -1
DRAW = 1  # value: the card drawn from the stock (the drawer's eyes only: the sampler never reads another's)
RESTOCK = 2  # seat -1; value: the new stock's size; extra: its cards, sorted (the pile under its top)
START = 3  # a turn that starts with the TAKE question or a draw; value: 1 if the discard was offered;
# extra: (the pile's top or -1, the table, whether the seat had opened), all public
Story = tuple[int, int, int, Any]
TAKEN = TAKE_BASE + TAKES.index(DISCARD_PILE)
SEAT_TRIES = 400  # draws of one seat's hidden cards before the world is begun again

Slot = tuple[int, int]  # (run, position): where a card lies in the world's chance runs


@dataclass
class Start:
    """A turn of another seat that began with the TAKE question or a draw, as everyone saw it."""

    time: int
    offered: bool
    top: int  # the pile's top card, -1 for none
    table: tuple[TableMeld, ...]
    opened: bool


@dataclass
class Seat:
    """What the seat resampling for knows of another seat this deal: where its hidden cards came from
    and when, the cards it showed from its hand (so held from a hidden source by then), and the events
    that change its hand, in order: ``("slot", (run, position))`` a hidden card received, ``("gain",
    card)`` a card received in sight, ``("lose", card)`` a card shown leaving it, ``("start", Start)``."""

    slots: list[tuple[Slot, int]] = field(default_factory=list)  # (slot, time received)
    shown: list[tuple[int, int, int]] = field(default_factory=list)  # (time, run, card)
    events: list[tuple[str, Any]] = field(default_factory=list)


@dataclass
class Facts:
    """What ``seat`` knows of the deal on the table, as the sampler needs it (the module docstring)."""

    seat: int
    hand: tuple[int, ...]  # the seat's hand as dealt
    points: int  # the rules' opening points
    runs: list[tuple[int, ...]]  # each chance run's cards: the deck, then each new stock's
    known: dict[Slot, int]  # the seat's own draws
    mine: list[Slot]  # the seat's dealt positions
    others: dict[int, Seat]

    @classmethod
    def of(cls, rules: HandRules, seat: int, first: int, hand: Sequence[int], story: Sequence[Any]) -> Facts:
        """The facts of a deal dealt from ``first`` that dealt ``seat`` its ``hand`` and whose steps were
        ``story`` (hand_openspiel's entries, another seat's drawn card never read)."""
        n = rules.players
        others = {s: Seat() for s in range(n) if s != seat}
        mine: list[Slot] = []
        for position, who in enumerate(deal_order(rules, first)):
            if who == seat:
                mine.append((0, position))
            elif who is not None:
                others[who].slots.append(((0, position), 0))
                others[who].events.append(("slot", (0, position)))
        runs = [tuple(rules.deck)]
        known: dict[Slot, int] = {}
        at = HAND_SIZE * n + 1  # the stock's next card, in the last run
        origin: dict[int, int] = {}  # a card seen, then put into a new stock: that stock's run
        held: list[set[int]] = [set() for _ in range(n)]  # cards known to be in a seat's hand
        for time, (who, what, value, extra) in enumerate(story, 1):
            if what == RESTOCK:
                runs.append(tuple(extra))
                origin.update((card, len(runs) - 1) for card in extra)
                at = 0
                continue
            if what == DRAW:
                slot = (len(runs) - 1, at)
                at += 1
                if who == seat:
                    known[slot] = value
                else:  # the card drawn: unseen, never read
                    others[who].slots.append((slot, time))
                    others[who].events.append(("slot", slot))
                continue
            if who == seat:
                continue
            other = others[who]
            if what == START:
                top, table, opened = extra
                other.events.append(("start", Start(time, bool(value), top, table, opened)))
                continue
            if value == TAKEN or value >= SWAP_BASE:  # the discard taken, the joker won back: in sight
                held[who].add(extra)
                other.events.append(("gain", extra))
            if not PICK_BASE <= value < MELD_BASE:
                continue
            card = (value - PICK_BASE) % (DISCARD_BASE - PICK_BASE)  # a card picked or discarded
            other.events.append(("lose", card))
            if card in held[who]:
                held[who].discard(card)  # it came in sight: nothing hidden about it
            else:
                other.shown.append((time, origin.pop(card, 0), card))
        return cls(seat, tuple(hand), rules.opening_points, runs, known, mine, others)


def sample_runs(facts: Facts, rng: Random) -> list[list[int]] | None:
    """The deck and each new stock of a world drawn as the module docstring says, or None when some seat's
    hidden cards were drawn SEAT_TRIES times without keeping its facts (the caller begins again)."""
    cards: dict[Slot, int] = dict(facts.known)
    mine = list(facts.hand)
    rng.shuffle(mine)  # the order of its cards in the deck the seat never saw
    cards.update(zip(facts.mine, mine, strict=True))
    # Each run's cards not yet where they lie: not the seat's own, not one another seat showed from it.
    placed: list[set[int]] = [set() for _ in facts.runs]
    for (run, _), card in cards.items():
        placed[run].add(card)
    for other in facts.others.values():
        for _, run, card in other.shown:
            placed[run].add(card)
    pools = [[card for card in cards_ if card not in placed[run]] for run, cards_ in enumerate(facts.runs)]
    for other in facts.others.values():
        for _ in range(SEAT_TRIES):
            chosen = _draw_seat(other, pools, rng)
            if chosen is not None and _keeps_facts(other, chosen, facts.points):
                break
        else:
            return None
        cards.update(chosen)
        for (run, _), card in chosen.items():
            if card not in placed[run]:
                pools[run].remove(card)
    world = []
    for number, run_cards in enumerate(facts.runs):
        rest = pools[number]
        rng.shuffle(rest)
        left = iter(rest)
        world.append([cards[(number, p)] if (number, p) in cards else next(left) for p in range(len(run_cards))])
    return world


def _draw_seat(other: Seat, pools: list[list[int]], rng: Random) -> dict[Slot, int] | None:
    """One seat's hidden cards: each card it showed at one of its positions of the card's run received
    by then (uniformly among those free, in the order shown), the rest from the pools, uniformly."""
    chosen: dict[Slot, int] = {}
    for time, run, card in other.shown:
        free = [slot for slot, got in other.slots if slot[0] == run and got <= time and slot not in chosen]
        if not free:
            return None
        chosen[rng.choice(free)] = card
    for run, pool in enumerate(pools):
        empty = [slot for slot, _ in other.slots if slot[0] == run and slot not in chosen]
        if len(empty) > len(pool):
            return None
        chosen.update(zip(empty, rng.sample(pool, len(empty)), strict=True))
    return chosen


def _keeps_facts(other: Seat, chosen: dict[Slot, int], points: int) -> bool:
    """Whether the seat, holding ``chosen``, is offered the top discard exactly at the turns it was. The
    turns it was offered are asked first: a hand that must hold a use is the rarer fact, so most draws
    that fail, fail there, before the other questions are asked."""
    hand: list[int] = []
    asked: list[tuple[list[int], Start]] = []
    for kind, value in other.events:
        if kind == "slot":
            hand.append(chosen[value])
        elif kind == "gain":
            hand.append(value)
        elif kind == "lose":
            hand.remove(value)
        else:
            asked.append((sorted(hand), value))
    asked.sort(key=lambda question: not question[1].offered)
    for held, start in asked:
        use = start.top >= 0 and has_discard_use(held, start.top, start.table, start.opened, points)
        if use != start.offered:
            return False
    return True

"""A Hand bot that melds well: a real search for its opening, then everything it can lay.

It decides from one seat's :class:`~waraq.referee.games.hand.view.HandView` alone, as a
bot over the wire does, and keeps nothing between calls. It builds each turn
on a :class:`~waraq.bots.hand_turn.TurnBuilder`, which refuses what the
referee would refuse (it asks the engine), so its turns are always legal.

How it plays (docs/rules.md "## Hand": never opening costs 100, so open early;
a card left in hand costs its value, a joker 15):

* **Opening:** the most valuable set of disjoint melds in the hand, found by
  :func:`~waraq.referee.games.hand.meld_search.best_opening` (a branch and bound over
  every meld the hand holds, not a greedy pick), laid as soon as it is worth
  ``opening_points``.
* **Once opened:** every meld the same search finds, every table joker it can
  swap for the card it stands for, every card that fits a table meld; looped
  until nothing more goes down, one card always kept to discard. Should that
  win a taken discard back (a joker, by a swap) and leave it in hand, the
  turn could not end legally: it ends instead as it stood before.
* **The joker** stays in hand for melds: never discarded while another card
  is there, added bare to a table meld only when that lets the bot go out.
* **TAKE:** the top discard when the turn planned with it leaves the bot no
  worse off than the turn planned without drawing at all (opened, fewer
  cards, a cheaper hand): the card goes down and pays for itself, where the
  stock's card only adds one.
* **Discard:** the costliest loose card (in no meld and no near-meld: no card
  of its rank in another suit, none of its suit within two ranks); a tie
  goes to a card that fits no table meld (it would only help an opponent
  who has opened). With no loose card, the costliest card in no meld, then
  the costliest that is not a joker.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from waraq.bots.hand_turn import (
    TurnBuilder,
    ends_for,
    face,
    fits,
    is_joker,
    name,
    places,
    rank,
    suit,
    swaps_for,
)
from waraq.referee.games.hand.decisions import DISCARD_PILE, STOCK, TAKE, Turn
from waraq.referee.games.hand.discard import discard_uses
from waraq.referee.games.hand.engine import IllegalAction
from waraq.referee.games.hand.meld_search import best_opening, melds_in
from waraq.referee.games.hand.melds import Add, Swap, charge
from waraq.referee.games.hand.turn import PartialTurn
from waraq.referee.games.hand.view import HandView


class HandHeuristicPlayer:
    """Plays every Hand decision as the module docstring says."""

    def __init__(self, seed: int | str = 0) -> None:
        self.seed = seed
        self.note = ""

    def __call__(self, view: HandView) -> Any:
        rng = random.Random(self._decision_key(view))
        if view.kind == TAKE:
            take, self.note = choose_take(view)
            return take
        turn, self.note = choose_turn(view, rng)
        return turn

    def _decision_key(self, view: HandView) -> str:
        # The same decision gets the same tie-breaks whenever it is asked.
        return f"hand-heuristic/{self.seed}/{view.seat}/{view.round}/{view.kind}/{view.hand}/{len(view.pile)}"


# -- TAKE -------------------------------------------------------------------------


def choose_take(view: HandView) -> tuple[str, str]:
    """The top discard if the turn planned with it is no worse than the turn without (see the module)."""
    top = view.pile[-1]
    seat_opened = view.opened[view.seat]
    points = view.rules.opening_points
    uses = discard_uses(list(view.hand), top, view.melds, seat_opened, points)
    with_it = TurnBuilder(PartialTurn(view.seat, [*view.hand, top], view.melds, seat_opened, points, took=top), uses)
    plan_turn(with_it)
    if not with_it.can_end:
        return STOCK, f"no use of {name(top)} I can plan"
    without = TurnBuilder(PartialTurn(view.seat, view.hand, view.melds, seat_opened, points))
    plan_turn(without)
    if _standing(with_it) <= _standing(without):
        return DISCARD_PILE, f"{name(top)} goes down: {_describe(with_it)}"
    return STOCK, f"{name(top)} would cost more than it saves"


def _standing(b: TurnBuilder) -> tuple[int, int, int]:
    """How a planned turn leaves the seat, lower better: not opened, cards then charge after the discard."""
    rest = list(b.hand)
    rest.remove(choose_discard(rest, b.table))
    return (0 if b.opened else 1, len(rest), sum(charge(c) for c in rest))


# -- TURN -------------------------------------------------------------------------


def choose_turn(view: HandView, rng: random.Random | None = None) -> tuple[Turn, str]:
    b = TurnBuilder.of(view)
    _lay_taken_and_open(b)
    before = b.copy()
    _lay_the_rest(b)
    if not b.can_end:  # a swap won the taken joker back and nothing laid it again
        b = before
    discard = choose_discard(b.hand, b.table, rng)
    out = ", out" if len(b.hand) == 1 else ""
    return b.finish(discard), f"{_describe(b)}; discard {name(discard)}{out}"


def plan_turn(b: TurnBuilder) -> None:
    """Every step of the turn, on ``b``: the taken discard down, the opening, then all that fits."""
    _lay_taken_and_open(b)
    _lay_the_rest(b)


def _lay_taken_and_open(b: TurnBuilder) -> None:
    """The taken discard down, then the opening."""
    if b.needs_use:
        _use_taken(b)
    if not b.opened:
        value, melds = best_opening(b.hand, keep=1)
        if value >= b.opening_points:
            b.lay(melds)


def _lay_the_rest(b: TurnBuilder) -> None:
    """Once opened, everything else that fits (see :func:`_lay_everything`)."""
    if b.opened:
        _lay_everything(b)


def _use_taken(b: TurnBuilder) -> None:
    """Put the taken discard on the table: in the best melds that hold it, else one of the view's uses."""
    value, melds = best_opening(b.hand, must_include=b.took, keep=1)
    if melds and (b.opened or value >= b.opening_points):
        try:
            b.lay(melds)
            return
        except IllegalAction:
            pass
    for use in b.uses:
        try:
            b.apply(use)
            return
        except IllegalAction:
            continue


def _lay_everything(b: TurnBuilder) -> None:
    """Swaps, melds and additions until none is left (each pass lays or swaps something, so it ends)."""
    changed = True
    while changed:
        changed = _swap_jokers(b)
        value, melds = best_opening(b.hand, keep=1)
        if melds:
            b.lay(melds)
            changed = True
        changed = _add_cards(b) or changed
    _joker_to_go_out(b)


def _swap_jokers(b: TurnBuilder) -> bool:
    swapped = False
    for index, meld in enumerate(b.table):
        card = next((c for c in b.hand if swaps_for(meld, c)), None)
        if card is not None and b.attempt(Swap(index, card)):
            swapped = True
    return swapped


def _add_cards(b: TurnBuilder) -> bool:
    """Each real card that fits a table meld goes there, costliest first."""
    added = False
    for card in sorted((c for c in b.hand if not is_joker(c)), key=lambda c: (-charge(c), c)):
        if card in b.hand and _add_one(b, card):
            added = True
    return added


def _add_one(b: TurnBuilder, card: int) -> bool:
    return any(b.attempt(Add(i, (card,), at)) for i, meld in enumerate(b.table) for at in ends_for(meld))


def _joker_to_go_out(b: TurnBuilder) -> None:
    """A joker and one other card left: the joker onto a table meld, and the discard goes out."""
    if len(b.hand) == 2 and any(is_joker(c) for c in b.hand):
        _add_one(b, next(c for c in b.hand if is_joker(c)))


# -- the discard ------------------------------------------------------------------------


def near(a: int, b: int) -> bool:
    """Two real cards that could be part of one meld: a set (same rank, other suit) or a run
    (same suit, at most two ranks apart, the ace both below the 2 and above the king)."""
    if is_joker(a) or is_joker(b) or face(a) == face(b):
        return False
    if rank(a) == rank(b):
        return True
    if suit(a) != suit(b):
        return False
    return any(abs(p - q) <= 2 for p in places(a) for q in places(b))


def loose_cards(hand: Sequence[int]) -> list[int]:
    """The real cards of ``hand`` in no meld and no near-meld with another card of it."""
    return [c for c in hand if not is_joker(c) and not any(near(c, o) for o in hand)]


def choose_discard(hand: Sequence[int], table: Sequence[Any], rng: random.Random | None = None) -> int:
    """The costliest loose card, a tie going to one that fits no table meld; see the module docstring."""
    if len(hand) == 1:
        return hand[0]
    pool = loose_cards(hand)
    if not pool:
        in_melds = {f for meld in melds_in(hand) for f in meld}
        pool = [c for c in hand if not is_joker(c) and face(c) not in in_melds]
    if not pool:
        pool = [c for c in hand if not is_joker(c)] or list(hand)
    top = max(charge(c) for c in pool)
    best = [c for c in pool if charge(c) == top]
    safe = [c for c in best if not _fits_table(c, table)]
    best = sorted(safe or best)
    return (rng or random.Random(0)).choice(best)


def _fits_table(card: int, table: Sequence[Any]) -> bool:
    """Whether ``card`` could be added to some meld on the table (by a seat that has opened)."""
    return any(fits(meld, card) for meld in table)


# -- notes ---------------------------------------------------------------------------------


def _describe(b: TurnBuilder) -> str:
    kinds = [type(s).__name__.lower() for s in b.steps]
    words = {"meld": ("meld", "melds"), "add": ("addition", "additions"), "swap": ("swap", "swaps")}
    counts = [(kinds.count(k), words[k]) for k in words if k in kinds]
    done = ", ".join(f"{n} {one if n == 1 else many}" for n, (one, many) in counts) or "nothing laid"
    if b.opened and not b.was_open:
        done += f" (opened with {b.laid})"
    return done

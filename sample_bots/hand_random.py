"""Hand's random bot: a random legal action, reproducible from a seed, that still ends rounds.

TAKE is a fair coin between the stock and the discard. A TURN has no list of
legal actions to pick from, so the bot builds one on a
:class:`~waraq.bots.hand_turn.TurnBuilder` from its view alone: the taken
discard down one of the ways the view lists (``view.uses``), then, at
random, its opening (when the hand holds one: a bot that never opened could
never go out, and rounds would not end), melds, additions and joker swaps,
and a random card to discard. Should those random steps win the taken
discard back (a joker, by a swap) and not lay it again, the turn could not
end legally: it ends instead as it stood before them.
"""

from __future__ import annotations

import random
from typing import Any

from waraq.bots.hand_turn import TurnBuilder, cards_of, ends_for, fits_at, swaps_for
from waraq.referee.games.hand.decisions import TAKE
from waraq.referee.games.hand.meld_search import best_opening, melds_in
from waraq.referee.games.hand.melds import Add, Meld, Swap
from waraq.referee.games.hand.view import HandView

# How often each kind of step is tried when it is possible.
OPEN = 0.8
MELD = 0.7
ADD = 0.7
SWAP = 0.5


class HandRandomPlayer:
    def __init__(self, seed: int | str = 0) -> None:
        self._rng = random.Random(seed)

    def __call__(self, view: HandView) -> Any:
        if view.kind == TAKE:
            return view.legal[self.pick(len(view.legal))]
        return random_turn(view, self._rng)

    def pick(self, count: int) -> int:
        """TAKE's choice by index, without the view (waraq.bots.server); a TURN lists no actions."""
        return self._rng.randrange(count)


def random_turn(view: HandView, rng: random.Random) -> Any:
    b = TurnBuilder.of(view)
    if b.needs_use:
        b.apply(rng.choice(b.uses))
    if not b.opened and rng.random() < OPEN:
        value, melds = best_opening(b.hand, keep=1)
        if value >= b.opening_points:
            b.lay(melds)
    if b.opened:
        before = b.copy()
        _random_steps(b, rng)
        if not b.can_end:  # a swap won the taken joker back and nothing laid it again
            b = before
    return b.finish(rng.choice(b.hand))


def _random_steps(b: TurnBuilder, rng: random.Random) -> None:
    """Melds, swaps and additions, each tried in a random order and taken at random."""
    melds = melds_in(b.hand)
    for faces in rng.sample(melds, k=len(melds)):
        cards = cards_of(faces, b.hand)
        if cards is not None and rng.random() < MELD:
            b.attempt(Meld(cards))
    for index, meld in enumerate(b.table):
        card = next((c for c in b.hand if swaps_for(meld, c)), None)
        if card is not None and rng.random() < SWAP:
            b.attempt(Swap(index, card))
    for card in rng.sample(b.hand, k=len(b.hand)):
        places = [(i, at) for i, meld in enumerate(b.table) for at in ends_for(meld) if fits_at(meld, card, at)]
        if places and rng.random() < ADD:
            index, at = rng.choice(places)
            b.attempt(Add(index, (card,), at))

"""A random legal Hand turn: what the referee plays for a seat that faulted on a ``TURN``.

It lays the taken discard by one of its uses, opens when the hand holds an
opening (nine times in ten), then, opened, lays melds it finds and adds
single cards where they fit, and discards a random card: enough for
random-vs-random rounds to end. Every step goes through a
:class:`~waraq.referee.games.hand.turn.PartialTurn`, so the turn is legal by
the referee's own rules.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from waraq.referee.games.hand.decisions import Turn
from waraq.referee.games.hand.meld_search import assign, best_opening, melds_in
from waraq.referee.games.hand.melds import FACES, Add, Meld, Step, Swap, additions
from waraq.referee.games.hand.turn import PartialTurn


def random_turn(turn: PartialTurn, uses: Sequence[tuple[Step, ...]], rng: random.Random) -> Turn:
    """A random legal turn built on ``turn``, a seat's turn before its first step; ``uses``
    are the ways to lay the discard it took (empty when it took none)."""
    return _RandomTurn(turn, rng).build(uses)


class _RandomTurn:
    """Builds a random legal turn on a :class:`PartialTurn` (its own copies of the hand and table)."""

    def __init__(self, turn: PartialTurn, rng: random.Random) -> None:
        self.rng = rng
        self.turn = turn
        self.hand = turn.hand  # the same list, kept sorted (see _step)
        self.table = turn.table

    def build(self, uses: Sequence[tuple[Step, ...]]) -> Turn:
        rng = self.rng
        turn = self.turn
        if turn.took is not None:
            for step in rng.choice(uses):
                self._step(step)  # a use by a seat not open is a whole opening
        if not turn.opened and rng.random() < 0.9:
            value, melds = best_opening(self.hand, keep=1)
            if value >= turn.points:
                for cards in melds:
                    self._step(Meld(cards))
        if turn.opened:
            self._lay_more()
            self._add_singles()
        return turn.finish(rng.choice(self.hand))

    def _step(self, step: Step) -> None:
        self.turn.step(step)
        if type(step) is Swap:
            self.hand.sort()  # the joker won back where the state's sorted hand would hold it

    def _lay_more(self) -> None:
        rng = self.rng
        while rng.random() < 0.8:
            found = [m for m in melds_in(self.hand) if len(m) < len(self.hand)]
            if not found:
                return
            self._step(Meld(assign((rng.choice(found),), self.hand)[0]))

    def _add_singles(self) -> None:
        rng, hand = self.rng, self.hand
        fits = self._fits()
        cards = hand[:]
        rng.shuffle(cards)
        for card in cards:
            if len(hand) < 2:
                return
            options = fits.get(card % FACES)
            if options and rng.random() < 0.8:
                index, at = rng.choice(options)
                self._step(Add(index, (card,), at))
                fits = self._fits()

    def _fits(self) -> dict[int, list[tuple[int, str | None]]]:
        """face -> the (meld, at) where a card of that face can be added alone."""
        fits: dict[int, list[tuple[int, str | None]]] = {}
        for index, meld in enumerate(self.table):
            for face, at in additions(meld):
                fits.setdefault(face, []).append((index, at))
        return fits

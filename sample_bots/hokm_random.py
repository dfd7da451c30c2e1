"""The simplest bot: a uniformly random legal action, reproducible from a seed."""

from __future__ import annotations

import random
from typing import Any

from waraq.referee.games.hokm.engine import HokmView


class RandomPlayer:
    def __init__(self, seed: int | str = 0) -> None:
        self._rng = random.Random(seed)

    def __call__(self, view: HokmView) -> Any:
        return view.legal[self.pick(len(view.legal))]

    def pick(self, count: int) -> int:
        """The index of the legal action to play: all the player needs (see waraq.bots.server)."""
        return self._rng.randrange(count)

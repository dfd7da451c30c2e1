"""What the OpenSpiel games' states share: a match as a pyspiel state over a table, and resampling.

:mod:`waraq.referee.env.hokm_openspiel` and :mod:`waraq.referee.env.hand_openspiel` each keep
their match in a pure-Python *table* (the engine's state, the cards being dealt, the actions
so far). :class:`TableState` is the pyspiel state every method of which reads that table;
a game's state adds its legal actions, chance outcomes, action strings and debugging text.

Resampling plays the world a game's table draws (its ``resampled``) through OpenSpiel's own
``apply_action``, from the match at its current deal's first card (:class:`DealStart`, made
once a deal), so a world's history, clone and serialisation are those of a match played to it.
"""

from __future__ import annotations

from collections.abc import Callable
from random import Random
from typing import Any, Protocol, Self

import pyspiel

from waraq.referee.env.boards import side_reward

CHANCE = int(pyspiel.PlayerId.CHANCE)
TERMINAL = int(pyspiel.PlayerId.TERMINAL)


class Table(Protocol):
    """A game's match as its OpenSpiel state keeps it."""

    rules: Any
    engine: Any  # the engine's state, None before it starts (an ace draw, a first player drawn)
    actions: list[int]
    deal_start: int  # the actions before the current deal's first card

    @property
    def over(self) -> bool: ...
    def apply(self, index: int) -> None: ...
    def resampled(self, seat: int, rng: Random) -> Table: ...


class TableState(pyspiel.State):
    """A match as a pyspiel state: its table, which every method reads, and a cache for resampling."""

    table: Any

    def __init__(self, game: pyspiel.Game, table: Table) -> None:
        super().__init__(game)
        self.table = table
        self.deal_start = DealStart()

    def current_player(self) -> int:
        engine = self.table.engine
        if engine is None:
            return CHANCE
        seat = engine.to_act
        if seat is not None:
            return seat
        return TERMINAL if engine.result is not None else CHANCE

    def _legal_actions(self, player: int) -> list[int]:
        raise NotImplementedError  # the game's: its decision's indices, sorted

    def _chance_actions(self) -> list[int]:
        raise NotImplementedError  # the game's: the outcomes of the chance node, sorted

    # pyspiel's legal_actions and is_chance_node answered in Python for Python callers: the C++ route
    # calls back into Python four times to ask (2.0 us against 0.4 for a Hokm play, bench/openspiel_hokm.py).
    # C++ callers still take it, through _legal_actions; the games' tests check both agree.

    def legal_actions(self, player: int | None = None) -> list[int]:
        current = self.current_player()
        if current == TERMINAL:
            return []
        if current == CHANCE:
            return self._chance_actions()
        if player is None or player == current:
            return self._legal_actions(current)
        if player < 0:
            raise ValueError(f"legal actions asked for pseudo-player {player}")
        return []

    def is_chance_node(self) -> bool:
        return self.current_player() == CHANCE

    def _apply_action(self, action: int) -> None:
        self.table.apply(action)

    def is_terminal(self) -> bool:
        return bool(self.table.over)

    def returns(self) -> list[float]:
        """+1 for each seat of the winning side, -1 for the others; 0 for all before the end or in an abort."""
        table = self.table
        if not table.over:
            return [0.0] * table.rules.players
        winners = table.engine.result.winners
        return [float(side_reward(winners, seat)) for seat in range(table.rules.players)]

    def resample_from_infostate(self, player_id: int, probability_sampler: Callable[[], float]) -> Self:
        """A new state drawn from the worlds consistent with ``player_id``'s information (the game's resampler).

        ``probability_sampler()`` gives floats in [0, 1) (``pyspiel.UniformProbabilitySampler``); four of
        its draws seed the generator that draws the world. The world is played through OpenSpiel's own
        ``apply_action`` from the state at its deal's first card, so its history, clone and
        serialisation are those of a match played to it.
        """
        seed = 0
        for _ in range(4):
            seed = seed << 32 | int(probability_sampler() * 2**32)
        table = self.table
        world = table.resampled(player_id, Random(seed))
        state = self._at_deal_start().clone()
        for action in world.actions[table.deal_start :]:
            state.apply_action(action)
        state.deal_start = self.deal_start  # the same past: the same state at the deal's start
        return state

    def _at_deal_start(self) -> Self:
        """This match at its current deal's first card (its start before any deck), made once per deal:
        every world of the deal is played on from a clone of it."""
        table, cached = self.table, self.deal_start
        if cached.state is None or cached.at != table.deal_start:
            state = self.get_game().new_initial_state()
            for action in table.actions[: table.deal_start]:
                state.apply_action(action)
            self.deal_start = DealStart(table.deal_start, state)
            return state
        return cached.state


class DealStart:
    """A state's match at its current deal's first card, ``at`` actions in: a cache for resampling.

    The state's copies share it (they share that past, and a copy that reaches another deal makes
    its own) and its serialisation leaves it out (it is made again when needed)."""

    __slots__ = ("at", "state")

    def __init__(self, at: int = -1, state: Any = None) -> None:
        self.at = at
        self.state = state

    def __deepcopy__(self, memo: dict[int, Any]) -> DealStart:
        return self

    def __reduce__(self) -> tuple[type[DealStart], tuple[()]]:
        return DealStart, ()

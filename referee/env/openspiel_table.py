"""What the OpenSpiel games share: a match kept as a table, as pyspiel's game, state and observer.

:mod:`waraq.referee.env.hokm_openspiel` and :mod:`waraq.referee.env.hand_openspiel` each keep
their match in a pure-Python *table* (the engine's state, the cards being dealt, the actions
so far). :class:`TableGame` is the pyspiel game of a table's rules; :class:`TableState` the
pyspiel state every method of which reads the table, a game's state adding its legal actions,
chance outcomes, action strings and debugging text; :class:`TableObserver` the Python observer,
a game's adding its tensor's pieces and how its view and its deal's history fill them.

Resampling plays the world a game's table draws (its ``resampled``) through OpenSpiel's own
``apply_action``, from the match at its current deal's first card (:class:`DealStart`, made
once a deal), so a world's history, clone and serialisation are those of a match played to it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from random import Random
from typing import Any, ClassVar, Protocol, Self

import numpy as np
import pyspiel

from waraq.referee.env.boards import side_reward

CHANCE = int(pyspiel.PlayerId.CHANCE)
TERMINAL = int(pyspiel.PlayerId.TERMINAL)


def game_type(short_name: str, long_name: str, parameters: dict[str, Any]) -> pyspiel.GameType:
    """Both games' kind: sequential, chance explicit, imperfect information, rewards at the end only.

    General-sum: +1 for each winner and -1 for each other seat is zero-sum only when the sides are
    even (with 3 players one wins and two lose)."""
    return pyspiel.GameType(
        short_name=short_name,
        long_name=long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=4,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        provides_factored_observation_string=True,
        parameter_specification=parameters,
    )


class TableGame(pyspiel.Game):
    """A game of the rules its parameters ask for (``rules_of``); its subclass names the rest."""

    game_type: ClassVar[pyspiel.GameType]
    state_class: ClassVar[type[TableState]]
    observer_class: ClassVar[type[TableObserver]]
    actions: ClassVar[int]  # the distinct actions of the players
    chance_outcomes: ClassVar[int]  # the most outcomes a chance node has

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        params = dict(params or {})
        rules = self.rules_of(params)
        info = pyspiel.GameInfo(
            num_distinct_actions=self.actions,
            max_chance_outcomes=self.chance_outcomes,
            num_players=rules.players,
            min_utility=-1.0,
            max_utility=1.0,
            max_game_length=self.max_decisions(rules),
        )
        super().__init__(self.game_type, info, params)
        self.rules = rules

    @staticmethod
    def rules_of(params: Mapping[str, Any]) -> Any:
        raise NotImplementedError  # the game's: its parameters as its rules

    @staticmethod
    def max_decisions(rules: Any) -> int:
        raise NotImplementedError  # the game's: the most player actions a match can take

    @staticmethod
    def max_chance_nodes(rules: Any) -> int:
        raise NotImplementedError  # the game's: the most chance outcomes a match can take

    def new_initial_state(self) -> TableState:
        return self.state_class(self)

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: Mapping[str, Any] | None = None
    ) -> TableObserver:
        return self.observer_class(self.rules, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)

    def max_chance_nodes_in_history(self) -> int:
        return self.max_chance_nodes(self.rules)


class Table(Protocol):
    """A game's match as its OpenSpiel state keeps it."""

    rules: Any
    engine: Any  # the engine's state, None before it starts (an ace draw, a first player drawn)
    actions: list[int]
    deal_start: int  # the actions before the current deal's first card
    dealt: Any  # what the current deal showed each seat when it was laid out (empty before one)

    @property
    def over(self) -> bool: ...
    def apply(self, index: int) -> None: ...
    def resampled(self, seat: int, rng: Random) -> Table: ...
    def view(self, seat: int) -> Any: ...
    def information(self, seat: int) -> str: ...
    def observation(self, seat: int, *, public: bool = True, private: bool = True) -> str: ...


class TableState(pyspiel.State):
    """A match as a pyspiel state: its table, which every method reads, and a cache for resampling."""

    table_class: ClassVar[type]  # the game's table, made from its rules
    table: Any

    def __init__(self, game: TableGame) -> None:
        super().__init__(game)
        self.table = self.table_class(game.rules)
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


class TableObserver:
    """OpenSpiel's Python observer (open_spiel/python/observation.py): a tensor with named views and a string.

    Observation (``perfect_recall`` false): the view now, its public part, its private part or
    both, as asked. Information state (``perfect_recall`` true, the seat's own and the public):
    the observation, then what the current deal showed the seat that its view now has lost (the
    game's ``deal_pieces``). Other kinds (every player's private information) are refused.
    """

    game_name: ClassVar[str]

    def __init__(self, rules: Any, iig_obs_type: pyspiel.IIGObservationType, params: Any) -> None:
        name = self.game_name
        if params:
            raise ValueError(f"{name} takes no observation parameters; got {params}")
        private = iig_obs_type.private_info
        if private == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError(f"{name} observes one seat's private information, not every seat's")
        self.rules = rules
        self.recall = iig_obs_type.perfect_recall
        self.public = iig_obs_type.public_info
        self.private = private == pyspiel.PrivateInfoType.SINGLE_PLAYER
        if self.recall and not (self.public and self.private):
            raise ValueError(f"{name}'s information state is a seat's own and the public information together")
        self.tensor: np.ndarray | None = None
        self.dict: dict[str, np.ndarray] = {}
        observed = self.observation_pieces(rules)
        self.size = sum(size for _, size in observed)
        if self.public and self.private:  # a tensor only for a whole seat's observation
            pieces = observed + (self.deal_pieces(rules) if self.recall else [])
            self.tensor = np.zeros(sum(size for _, size in pieces), np.float32)
            start = 0
            for piece, size in pieces:
                self.dict[piece] = self.tensor[start : start + size]
                start += size

    def observation_pieces(self, rules: Any) -> list[tuple[str, int]]:
        raise NotImplementedError  # the game's: its observation tensor's named pieces, in order

    def deal_pieces(self, rules: Any) -> list[tuple[str, int]]:
        raise NotImplementedError  # the game's: the information state's pieces beyond the observation

    def encode(self, table: Any, player: int, view: Any) -> np.ndarray:
        raise NotImplementedError  # the game's: the seat's observation tensor

    def deal_history(self, table: Any, player: int, view: Any) -> None:
        raise NotImplementedError  # the game's: fill ``self.dict``'s deal pieces (a deal is under way)

    def set_from(self, state: TableState, player: int) -> None:
        tensor = self.tensor
        if tensor is None:
            return
        tensor.fill(0.0)
        table = state.table
        view = table.view(player)
        if view is None:  # before the engine starts (the ace draw, the first player drawn): no view yet
            return
        tensor[: self.size] = self.encode(table, player, view)
        if self.recall and table.dealt:
            self.deal_history(table, player, view)

    def string_from(self, state: TableState, player: int) -> str:
        table = state.table
        if self.recall:
            return table.information(player)
        return table.observation(player, public=self.public, private=self.private)

"""Every seat of any game an agent, as a PettingZoo AEC environment over the referee's engine.

The plumbing the games' AEC environments share (:mod:`waraq.referee.env.hokm_pettingzoo`,
:mod:`waraq.referee.env.hand_pettingzoo` say what each offers); a game gives its parts
(:class:`~waraq.referee.env.parts.GameParts`). Agents are ``seat_0`` .. ``seat_{n-1}``;
``agent_selection`` is always the engine's seat to act, which keeps acting while its
decision's steps go on (a Hand turn), and may act again at once (a trick's winner).
Each finished decision is one ``apply`` of the engine's checked door, the referee's.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from waraq.referee.env.boards import board_dealer, board_of, side_reward
from waraq.referee.env.parts import GameParts


def agent_name(seat: int) -> str:
    return f"seat_{seat}"


class TableAEC(AECEnv):
    """The environment of the module docstring, for the game its subclass names in :attr:`game`."""

    game: GameParts

    def __init__(self, rules: Any = "classic", render_mode: str | None = None) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r}: expected None or 'ansi'")
        game = self.game
        self.rules = game.load_rules(rules)
        self.render_mode = render_mode
        n = self.rules.players
        self.possible_agents = [agent_name(s) for s in range(n)]
        self.agents = self.possible_agents[:]
        observation = spaces.Box(game.low, 1.0, (game.observation_size(n),), np.float32)
        mask = spaces.Box(0, 1, (game.actions,), np.int8)
        self.observation_spaces = {
            a: spaces.Dict({"observation": observation, "action_mask": mask}) for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(game.actions) for a in self.possible_agents}
        self._seeds = random.Random()
        self.match: Any = None  # the engine's match in progress, after reset()
        self.progress: Any = None  # the seat to act's decision so far (a Hand turn's moves)
        self._acting_view: Any = None  # the seat to act's view (see _next_decision)

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._seeds = random.Random(seed)
            match_seed: int = seed
        else:
            match_seed = self._seeds.getrandbits(63)
        board = board_of(options)
        if board is None:
            self.match = self.game.new_match(self.rules, match_seed, None)
        else:
            self.match = self.game.new_match(self.rules, board, board_dealer(self.rules, board))
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._next_decision()

    def _next_decision(self) -> None:
        state = self.match
        self.agent_selection = agent_name(state.to_act)
        # The acting seat's view, until the engine moves: its observe and its step read it (a view costs
        # as much as the engine's decision).
        self._acting_view = state.view(state.to_act)
        self.progress = self.game.progress(self._acting_view)

    def _view(self, seat: int) -> Any:
        state = self.match
        return self._acting_view if seat == state.to_act else state.view(seat)

    def _seat(self, agent: str) -> int:
        return self.possible_agents.index(agent)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        assert self.match is not None, "reset() first"
        seat = self._seat(agent)
        view = self._view(seat)
        progress = self.progress if seat == self.match.to_act else None
        return {"observation": self.game.encode(view, progress), "action_mask": self.game.legal_mask(view, progress)}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.match
        assert state is not None
        decided = self.game.decide(action, self._view(self._seat(agent)), self.progress)
        self._cumulative_rewards[agent] = 0
        self.rewards = dict.fromkeys(self.agents, 0)
        if decided is not None:
            state.apply(decided)
            if state.result is not None:
                winners = state.result.winners
                self.rewards = {a: side_reward(winners, self._seat(a)) for a in self.agents}
                self.terminations = dict.fromkeys(self.agents, True)
            else:
                self._next_decision()
        self._accumulate_rewards()

    def render(self) -> str | None:
        """``ansi``: the table as every seat sees it (no hand), one line."""
        if self.render_mode is None or self.match is None:
            return None
        return self.game.describe(self.match.view(0))

    def close(self) -> None:
        pass

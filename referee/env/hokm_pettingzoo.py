"""Hokm as a PettingZoo AEC environment: every seat an agent, the referee's engine the game.

``env(rules="classic")`` gives one (wrapped in PettingZoo's order checker);
:class:`HokmAEC` is the environment itself. Agents are ``seat_0`` .. ``seat_{n-1}``;
``agent_selection`` is always the engine's seat to act, so one agent may act several
times in a row (a hakem redealing then naming trump, a trick's winner leading).

* Observations: ``{"observation": float32 vector, "action_mask": int8 vector}``,
  both of :mod:`waraq.referee.env.hokm_encoding` and both from the agent's own
  :class:`~waraq.referee.games.hokm.engine.HokmView`; the mask is all zeros when the
  agent is not to act.
* Actions: ``Discrete(1388)`` indices (the encoding's table). An index not legal
  now raises ValueError naming it and the legal ones: the engine is the judge,
  and a learner is expected to act through the mask.
* ``reset(seed=s)`` starts the match ``waraq play --seed s`` plays: the engine's
  seeded dealer, keyless. ``reset(options={"board": b})`` deals ladder board ``b`` as
  its rooms are dealt (:mod:`waraq.referee.env.boards`). Without a seed the match's seed is drawn from the
  generator of the last seeded reset (or from the system when there was none).
* The match's end terminates every agent; the rewards are then +1 for each seat
  of the winning side and -1 for the others (0 for everyone in a match the engine
  aborts, which no valid rules reach), and 0 before.

Native, not Shimmy's conversion of an OpenSpiel game: a PettingZoo user needs no
OpenSpiel install, and each step is the same one ``HokmState.apply`` the referee
makes, with no second state machine translating between the two.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from waraq.referee.env.boards import board_dealer, board_of, side_reward
from waraq.referee.env.hokm_encoding import ACTIONS, action_of, encode, legal_mask, observation_size
from waraq.referee.games.cards import CARD_NAMES, SUITS
from waraq.referee.games.hokm.engine import HokmState, HokmView, new_match
from waraq.referee.games.hokm.rules import HokmRules, load_rules


def env(rules: str | dict[str, Any] | HokmRules = "classic", render_mode: str | None = None) -> AECEnv:
    """A Hokm AEC environment for ``rules`` (a preset name, a rules dict or :class:`HokmRules`)."""
    return wrappers.OrderEnforcingWrapper(HokmAEC(rules, render_mode))


def agent_name(seat: int) -> str:
    return f"seat_{seat}"


def match_reward(state: HokmState, seat: int) -> int:
    """+1 for a seat of the winning side, -1 for the others, 0 for all in an aborted match."""
    assert state.result is not None
    return side_reward(state.result.winners, seat)


class HokmAEC(AECEnv):
    """The environment of the module docstring."""

    metadata: dict[str, Any] = {"name": "waraq_hokm_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, rules: str | dict[str, Any] | HokmRules = "classic", render_mode: str | None = None) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r}: expected None or 'ansi'")
        self.rules = load_rules(rules)
        self.render_mode = render_mode
        n = self.rules.players
        self.possible_agents = [agent_name(s) for s in range(n)]
        self.agents = self.possible_agents[:]
        size = observation_size(n)
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, 1.0, (size,), np.float32),
                    "action_mask": spaces.Box(0, 1, (ACTIONS,), np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(ACTIONS) for a in self.possible_agents}
        self._seeds = random.Random()
        self.match: HokmState | None = None  # the engine's match in progress, after reset()

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
            self.match = new_match(self.rules, match_seed)
        else:
            self.match = new_match(self.rules, board, board_dealer(self.rules, board))
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self._selected()

    def _selected(self) -> str:
        assert self.match is not None and self.match.to_act is not None
        return agent_name(self.match.to_act)

    def _seat(self, agent: str) -> int:
        return self.possible_agents.index(agent)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        assert self.match is not None, "reset() first"
        view = self.match.view(self._seat(agent))
        return {"observation": encode(view), "action_mask": legal_mask(view)}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.match
        assert state is not None
        seat = self._seat(agent)
        state.apply(action_of(action, state.view(seat)))
        self._cumulative_rewards[agent] = 0
        self.rewards = dict.fromkeys(self.agents, 0)
        if state.result is not None:
            self.rewards = {a: match_reward(state, self._seat(a)) for a in self.agents}
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = self._selected()
        self._accumulate_rewards()

    def render(self) -> str | None:
        """``ansi``: the table as every seat sees it (no hand), one line."""
        if self.render_mode is None or self.match is None:
            return None
        return describe_table(self.match.view(0))

    def close(self) -> None:
        pass


def describe_table(view: HokmView) -> str:
    """One line of what is public in any seat's view: round, hakem, trump, the trick, the tricks and the score."""
    trump = "-" if view.trump is None else SUITS[view.trump]
    trick = " ".join(f"{seat}:{CARD_NAMES[card]}" for seat, card in view.trick) or "-"
    tricks = "-".join(map(str, view.tricks_won))
    score = "-".join(map(str, view.scores))
    pending = "over" if view.kind is None else f"seat {view.to_act} {view.kind}"
    return f"round {view.round} hakem {view.hakem} trump {trump} trick {trick} tricks {tricks} score {score}: {pending}"

"""Hokm for one learning seat as a Gymnasium environment, the other seats played by house bots.

``HokmSeatEnv(rules="classic", seat=0, bots="random")``: the agent plays ``seat``;
every other seat is a built-in bot (``random``, ``greedy``, ``heuristic``,
``search``), one name for all or one per other seat in seat order. The bots come
from the built-in table (:mod:`waraq.referee.common.built_in`), as ``waraq play``
finds them, so the referee names none; each is seeded ``"{match seed}/{seat}"``.

* ``reset(seed=s)`` deals the match ``waraq play --seed s`` deals (without a seed,
  one drawn from the environment's ``np_random``) and lets the bots play until the
  agent is to act.
* ``step(index)`` applies the agent's action and lets the bots play until the
  agent is to act again or the match ends. An index that is not legal now raises
  ValueError naming it and the legal ones: act through ``info["action_mask"]``
  (an ``int8`` vector over the 1388 indices of
  :mod:`waraq.referee.env.hokm_encoding`).
* The reward is 0 until the match ends, then +1 when the agent's side won and -1
  when it lost (0 in a match the engine aborts, which no valid rules reach).
  Matches are not truncated: the engine's own bound ends every one.
* ``reset``'s ``options`` are accepted and not read yet (a ladder board's deals are
  still to come, docs/research.md).

The observation is the agent's own view encoded (:func:`~waraq.referee.env.hokm_encoding.encode`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import Env, spaces

from waraq.referee.common import built_in
from waraq.referee.env.hokm_encoding import ACTIONS, action_of, encode, legal_mask, observation_size
from waraq.referee.env.hokm_pettingzoo import describe_table, match_reward
from waraq.referee.games.hokm.engine import HokmState, new_match
from waraq.referee.games.hokm.rules import HokmRules, load_rules


class HokmSeatEnv(Env[np.ndarray, np.int64]):
    """The environment of the module docstring."""

    metadata: dict[str, Any] = {"render_modes": ["ansi"]}

    def __init__(
        self,
        rules: str | dict[str, Any] | HokmRules = "classic",
        seat: int = 0,
        bots: str | Sequence[str] = "random",
        render_mode: str | None = None,
    ) -> None:
        self.rules = load_rules(rules)
        n = self.rules.players
        if not 0 <= seat < n:
            raise ValueError(f"seat {seat} is not a seat of {n}-player Hokm: expected 0-{n - 1}")
        names = [bots] * (n - 1) if isinstance(bots, str) else list(bots)
        if len(names) != n - 1:
            raise ValueError(f"{n - 1} bots needed for the other seats, {len(names)} given: {names!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r}: expected None or 'ansi'")
        self.seat = seat
        others = [s for s in range(n) if s != seat]
        self._bot_classes = {s: built_in.get(name).player_class("hokm") for s, name in zip(others, names, strict=True)}
        self.bots = dict(zip(others, names, strict=True))
        self.render_mode = render_mode
        self.observation_space = spaces.Box(0.0, 1.0, (observation_size(n),), np.float32)
        self.action_space = spaces.Discrete(ACTIONS)
        self.match: HokmState | None = None  # the engine's match in progress, after reset()
        self._players: dict[int, Any] = {}

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        match_seed = seed if seed is not None else int(self.np_random.integers(2**63 - 1))
        self.match = new_match(self.rules, match_seed)
        self._players = {s: cls(f"{match_seed}/{s}") for s, cls in self._bot_classes.items()}
        self._play_others()
        return self._observation()

    def step(self, action: np.int64 | int) -> tuple[np.ndarray, float, bool, bool, dict]:
        state = self.match
        assert state is not None, "reset() first"
        state.apply(action_of(action, state.view(self.seat)))
        self._play_others()
        observation, info = self._observation()
        over = state.result is not None
        reward = float(match_reward(state, self.seat)) if over else 0.0
        return observation, reward, over, False, info

    def _play_others(self) -> None:
        state = self.match
        assert state is not None
        while state.result is None and state.to_act != self.seat:
            seat = state.to_act
            assert seat is not None
            state.apply(self._players[seat](state.view(seat)))

    def _observation(self) -> tuple[np.ndarray, dict]:
        assert self.match is not None
        view = self.match.view(self.seat)
        return encode(view), {"action_mask": legal_mask(view)}

    def render(self) -> str | None:
        if self.render_mode is None or self.match is None:
            return None
        return describe_table(self.match)

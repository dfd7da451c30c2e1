"""Hokm for one learning seat as a Gymnasium environment, the other seats played by bots.

``HokmSeatEnv(rules="classic", seat=0, bots="random")``: the agent plays ``seat``;
every other seat is a bot, one spec for all or one per other seat in seat order.

* Built-in bots only (``random``, ``greedy``, ``heuristic``, ``search``), and no
  ``record_dir``: the environment steps the engine and asks the built-in players in
  its own process, nothing between two steps but the rules; this is for training.
* Any other Waraq bot spec among them (a command with ``{port}`` or ``{socket}``, an
  address), or a ``record_dir``: the match is the referee's own,
  :mod:`waraq.referee.env.refereed`, as ``waraq match`` plays it: bots in their
  processes, the clock (``time_control``; the agent keeps it too), the faults and a
  record each match that ``waraq replay --verify`` checks. Built-in bots are then
  their own processes, as ``waraq match`` starts them. Call ``close()`` to stop them.

Either way each match's bots are seeded as ``waraq match`` seeds the built-in bots
(``"{match id}/{seat}"``), so the same seed and the same agent give the same match
both ways.

* ``reset(seed=s)`` deals the match ``waraq play --seed s`` deals (without a seed,
  one drawn from the environment's ``np_random``) and lets the bots play until the
  agent is to act. ``reset(options={"board": b})`` deals the ladder board ``b``
  instead (:mod:`waraq.referee.env.boards`): every seat the cards it holds in each
  room of that board, so an agent evaluated at each seat over the same boards is
  paired as the ladder's bots are.
* ``step(index)`` applies the agent's action and lets the bots play until the
  agent is to act again or the match ends. Act through ``info["action_mask"]``
  (an ``int8`` vector over the 1388 indices of
  :mod:`waraq.referee.env.hokm_encoding`). An index that is not legal now raises
  ValueError naming it and the legal ones; with ``illegal="forfeit"`` it is what it
  is at the referee's table instead, the seat's ILLEGAL fault: the agent's side
  forfeits the match (reward -1), so a learner blind to the mask can be stepped
  too (Gymnasium's ``check_env`` samples actions so).
* The reward is 0 until the match ends, then +1 when the agent's side won and -1
  when it lost (0 in a match aborted). Matches are not truncated: the engine's own
  bound ends every one.

The observation is the agent's own view encoded (:func:`~waraq.referee.env.hokm_encoding.encode`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import Env, spaces

from waraq.referee.common import built_in
from waraq.referee.env.boards import board_dealer, board_of, side_reward
from waraq.referee.env.hokm_encoding import ACTIONS, action_of, encode, legal_mask, observation_size
from waraq.referee.env.hokm_pettingzoo import describe_table
from waraq.referee.games.hokm.engine import HokmState, HokmView, new_match
from waraq.referee.games.hokm.rules import HokmRules, load_rules
from waraq.referee.match.play import TimeControl
from waraq.referee.run.runner import match_id

ILLEGAL = ("raise", "forfeit")  # what an index that is not legal does: a ValueError, or the match lost


class HokmSeatEnv(Env[np.ndarray, np.int64]):
    """The environment of the module docstring."""

    metadata: dict[str, Any] = {"render_modes": ["ansi"]}

    def __init__(
        self,
        rules: str | dict[str, Any] | HokmRules = "classic",
        seat: int = 0,
        bots: str | Sequence[str] = "random",
        render_mode: str | None = None,
        *,
        record_dir: str | Path | None = None,
        time_control: TimeControl | None = None,
        illegal: str = "raise",
    ) -> None:
        if illegal not in ILLEGAL:
            raise ValueError(f"illegal={illegal!r}: expected one of {', '.join(map(repr, ILLEGAL))}")
        self.illegal = illegal
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
        self.bots = dict(zip(others, names, strict=True))
        self.render_mode = render_mode
        self.observation_space = spaces.Box(0.0, 1.0, (observation_size(n),), np.float32)
        self.action_space = spaces.Discrete(ACTIONS)
        self.match: HokmState | None = None  # the engine's match in progress (the direct way), after reset()
        self.view: HokmView | None = None  # the agent's view now
        self.winners: tuple[int, ...] | None = None  # once the match is over
        self._players: dict[int, Any] = {}
        self._bot_classes: dict[int, Any] = {}
        self.refereed = None
        if record_dir is None and all(name in built_in.names() for name in names):
            self._bot_classes = {s: built_in.get(name).player_class("hokm") for s, name in self.bots.items()}
        else:
            from waraq.referee.env.refereed import RefereedMatch  # grpc and the launcher: only when asked for

            record = None if record_dir is None else Path(record_dir)
            self.refereed = RefereedMatch(self.rules, seat, names, time_control=time_control, record_dir=record)

    @property
    def record(self) -> Path | None:
        """The record of the last match played the referee's way (None the direct way)."""
        return None if self.refereed is None else self.refereed.record

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        board = board_of(options)
        if board is not None:
            match_seed, dealer = board, board_dealer(self.rules, board)
        else:
            match_seed = seed if seed is not None else int(self.np_random.integers(2**63 - 1))
            dealer = None
        self.winners = None
        if self.refereed is not None:
            self._arrive(self.refereed.start(match_seed, dealer))
        else:
            self.match = new_match(self.rules, match_seed, dealer)
            mid = match_id(match_seed)
            self._players = {s: cls(f"{mid}/{s}") for s, cls in self._bot_classes.items()}
            self._play_others()
        return self._observation()

    def step(self, action: np.int64 | int) -> tuple[np.ndarray, float, bool, bool, dict]:
        assert self.view is not None and self.winners is None, "reset() first"
        try:
            chosen = action_of(action, self.view)
        except ValueError as refused:
            if self.illegal == "raise":
                raise
            self._forfeit(str(refused))
        else:
            if self.refereed is not None:
                self._arrive(self.refereed.answer(chosen))
            else:
                assert self.match is not None
                self.match.apply(chosen)
                self._play_others()
        observation, info = self._observation()
        over = self.winners is not None
        reward = float(side_reward(self.winners, self.seat)) if self.winners is not None else 0.0
        return observation, reward, over, False, info

    def close(self) -> None:
        if self.refereed is not None:
            self.refereed.close()

    def _forfeit(self, detail: str) -> None:
        """``illegal="forfeit"``: the agent's side loses the match, as the referee's ILLEGAL fault forfeits it."""
        if self.refereed is not None:
            self._arrive(self.refereed.illegal(detail))
            return
        state = self.match
        assert state is not None
        mine = state.team_of(self.seat)
        self.winners = tuple(s for s in range(self.rules.players) if state.team_of(s) != mine)

    def _play_others(self) -> None:
        state = self.match
        assert state is not None
        while state.result is None and state.to_act != self.seat:
            seat = state.to_act
            assert seat is not None
            state.apply(self._players[seat](state.view(seat)))
        self.view = state.view(self.seat)
        if state.result is not None:
            self.winners = tuple(state.result.winners)

    def _arrive(self, view: HokmView | None) -> None:
        """The refereed match's answer: the agent's next view, or None when it is over."""
        assert self.refereed is not None
        if view is not None:
            self.view = view
            return
        outcome = self.refereed.outcome
        assert outcome is not None
        self.winners = tuple(outcome.winners)

    def _observation(self) -> tuple[np.ndarray, dict]:
        if self.winners is not None:
            # Over: nothing to observe or choose, the reward says how it ended. The same both ways (the
            # referee's way never shows the agent the final table, and a forfeit may come before any view).
            return np.zeros(observation_size(self.rules.players), np.float32), {
                "action_mask": np.zeros(ACTIONS, np.int8)
            }
        assert self.view is not None
        return encode(self.view), {"action_mask": legal_mask(self.view)}

    def render(self) -> str | None:
        if self.render_mode is None or self.view is None:
            return None
        return describe_table(self.view)

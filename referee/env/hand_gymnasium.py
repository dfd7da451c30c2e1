"""Hand for one learning seat as a Gymnasium environment, the other seats played by bots.

``HandSeatEnv(rules="classic", seat=0, bots="random")``: the agent plays ``seat``;
every other seat is a bot, one spec for all or one per other seat in seat order. As
:class:`~waraq.referee.env.hokm_gymnasium.HokmSeatEnv`:

* Built-in bots that play Hand (``random``, ``heuristic``) and no ``record_dir``: the
  environment steps the engine and asks the built-in players in its own process; this
  is for training.
* Any other Waraq bot spec among them, or a ``record_dir``: the match is the referee's
  own (:mod:`waraq.referee.env.refereed`), bots in their processes, the clock (the agent
  keeps it too: its whole turn, every move of it, is one answer's time), the faults and
  a record each match. Call ``close()`` to stop the bots.

Either way each match's bots are seeded as ``waraq match`` seeds the built-in bots
(``"{match id}/{seat}"``), so the same seed and the same agent give the same match.

* ``reset(seed=s)`` deals the match ``waraq play --seed s`` deals (without a seed, one
  drawn from the environment's ``np_random``), ``reset(options={"board": b})`` ladder
  board ``b`` (:mod:`waraq.referee.env.boards`), and lets the bots play until the agent
  is to act.
* ``step(index)`` plays one of the agent's moves (:mod:`waraq.referee.env.hand_encoding`'s
  321 indices): a TAKE's answer, or one move of the TURN it is building
  (:mod:`waraq.referee.env.hand_steps`), which goes to the referee only with its discard,
  as the whole turn. Once the agent's decision is made the bots play until the agent is
  to act again or the match ends. Act through ``info["action_mask"]``: an index not
  allowed now raises ValueError naming it and the allowed ones; with
  ``illegal="forfeit"`` it is what an illegal turn is at the referee's table instead,
  the seat's ILLEGAL fault: the agent's side forfeits the match (reward -1), so a
  learner blind to the mask can be stepped too (Gymnasium's ``check_env`` samples so).
* The reward is 0 until the match ends, then +1 when the agent's seat is among the
  winners and -1 when not (0 in a match aborted), as in
  :mod:`waraq.referee.env.hand_pettingzoo`. Matches are not truncated: every allowed move
  keeps the turn finishable, and the engine's bounds end every match.

The observation is the agent's view encoded, with its turn so far
(:func:`~waraq.referee.env.hand_encoding.encode`); zeros once the match is over.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import Env, spaces

from waraq.referee.common import built_in
from waraq.referee.env.boards import board_dealer, board_of, side_reward
from waraq.referee.env.hand_encoding import ACTIONS, Move, StepTurn, action_of, encode, legal_mask, observation_size
from waraq.referee.env.hand_pettingzoo import describe_table
from waraq.referee.games.hand.decisions import TURN
from waraq.referee.games.hand.engine import HandState, new_match
from waraq.referee.games.hand.rules import HandRules, load_rules
from waraq.referee.games.hand.view import HandView
from waraq.referee.match.play import TimeControl
from waraq.referee.run.runner import match_id

ILLEGAL = ("raise", "forfeit")  # what an index not allowed does: a ValueError, or the match lost


class HandSeatEnv(Env[np.ndarray, np.int64]):
    """The environment of the module docstring."""

    metadata: dict[str, Any] = {"render_modes": ["ansi"]}

    def __init__(
        self,
        rules: str | dict[str, Any] | HandRules = "classic",
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
            raise ValueError(f"seat {seat} is not a seat of {n}-player Hand: expected 0-{n - 1}")
        names = [bots] * (n - 1) if isinstance(bots, str) else list(bots)
        if len(names) != n - 1:
            raise ValueError(f"{n - 1} bots needed for the other seats, {len(names)} given: {names!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r}: expected None or 'ansi'")
        self.seat = seat
        others = [s for s in range(n) if s != seat]
        self.bots = dict(zip(others, names, strict=True))
        self.render_mode = render_mode
        self.observation_space = spaces.Box(-1.0, 1.0, (observation_size(n),), np.float32)
        self.action_space = spaces.Discrete(ACTIONS)
        self.match: HandState | None = None  # the engine's match in progress (the direct way), after reset()
        self.view: HandView | None = None  # the agent's view at its decision now
        self.turn: StepTurn | None = None  # the agent's TURN being built, when that is its decision
        self.winners: tuple[int, ...] | None = None  # once the match is over
        self._players: dict[int, Any] = {}
        self._bot_classes: dict[int, Any] = {}
        self.refereed = None
        if record_dir is None and all(name in built_in.names() for name in names):
            self._bot_classes = {s: built_in.get(name).player_class("hand") for s, name in self.bots.items()}
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
            assert board_dealer(self.rules, board) is None  # Hand deals by the seed: a board is its seed's match
            match_seed = board
        else:
            match_seed = seed if seed is not None else int(self.np_random.integers(2**63 - 1))
        self.winners = None
        if self.refereed is not None:
            self._arrive(self.refereed.start(match_seed))
        else:
            self.match = new_match(self.rules, match_seed)
            mid = match_id(match_seed)
            self._players = {s: cls(f"{mid}/{s}") for s, cls in self._bot_classes.items()}
            self._play_others()
        return self._observation()

    def step(self, action: np.int64 | int) -> tuple[np.ndarray, float, bool, bool, dict]:
        assert self.view is not None and self.winners is None, "reset() first"
        try:
            chosen = action_of(action, self.view, self.turn)
        except ValueError as refused:
            if self.illegal == "raise":
                raise
            self._forfeit(str(refused))
        else:
            if isinstance(chosen, Move):
                assert self.turn is not None  # a move is allowed only on a turn being built
                finished = self.turn.play(chosen)
                if finished is None:  # the turn goes on: nothing reaches the referee yet
                    observation, info = self._observation()
                    return observation, 0.0, False, False, info
                self._answer(finished)
            else:
                self._answer(chosen)
        observation, info = self._observation()
        over = self.winners is not None
        reward = float(side_reward(self.winners, self.seat)) if self.winners is not None else 0.0
        return observation, reward, over, False, info

    def _answer(self, action: Any) -> None:
        """The agent's decision, made: to the referee, or to the engine and then the bots."""
        if self.refereed is not None:
            self._arrive(self.refereed.answer(action))
        else:
            assert self.match is not None
            self.match.apply(action)
            self._play_others()

    def close(self) -> None:
        if self.refereed is not None:
            self.refereed.close()

    def _forfeit(self, detail: str) -> None:
        """``illegal="forfeit"``: the agent's side loses the match, as the referee's ILLEGAL fault forfeits it."""
        if self.refereed is not None:
            self._arrive(self.refereed.illegal(detail))
            return
        teams = self.rules.teams
        self.winners = tuple(s for s in range(self.rules.players) if s % teams != self.seat % teams)

    def _play_others(self) -> None:
        state = self.match
        assert state is not None
        while state.result is None and state.to_act != self.seat:
            seat = state.to_act
            assert seat is not None
            state.apply(self._players[seat](state.view(seat)))
        self._asked(state.view(self.seat))
        if state.result is not None:
            self.winners = tuple(state.result.winners)

    def _arrive(self, view: HandView | None) -> None:
        """The refereed match's answer: the agent's next view, or None when it is over."""
        assert self.refereed is not None
        if view is not None:
            self._asked(view)
            return
        outcome = self.refereed.outcome
        assert outcome is not None
        self.winners = tuple(outcome.winners)

    def _asked(self, view: HandView) -> None:
        """The agent's view now, and the turn it is to build when its decision is a TURN."""
        self.view = view
        asked = view.kind == TURN and view.to_act == view.seat
        self.turn = StepTurn.of(view) if asked else None

    def _observation(self) -> tuple[np.ndarray, dict]:
        if self.winners is not None:
            # Over: nothing to observe or choose, the reward says how it ended (as HokmSeatEnv: the
            # referee's way never shows the agent the final table).
            return np.zeros(observation_size(self.rules.players), np.float32), {
                "action_mask": np.zeros(ACTIONS, np.int8)
            }
        assert self.view is not None
        return encode(self.view, self.turn), {"action_mask": legal_mask(self.view, self.turn)}

    def render(self) -> str | None:
        if self.render_mode is None or self.view is None:
            return None
        return describe_table(self.view)

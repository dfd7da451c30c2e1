"""Hand as a PettingZoo AEC environment: every seat an agent, the referee's engine the game.

``env(rules="classic")`` gives one (wrapped in PettingZoo's order checker);
:class:`HandAEC` is the environment itself. Agents are ``seat_0`` .. ``seat_{n-1}``;
``agent_selection`` is always the engine's seat to act, which keeps acting through a
whole turn: a ``TURN`` is built one move at a time (:mod:`waraq.referee.env.hand_steps`:
pick cards, lay, add, swap, then discard), and only its discard reaches the engine, as
the whole :class:`~waraq.referee.games.hand.decisions.Turn`, through the checked door
``HandState.apply``. So the engine's state, and every other agent's observation, change
only when a decision is complete.

* Observations: ``{"observation": float32 vector, "action_mask": int8 vector}`` of
  :mod:`waraq.referee.env.hand_encoding`, from the agent's own view (and, for the agent
  building its turn, that turn so far); the mask is all zeros when the agent is not to act.
* Actions: ``Discrete(321)`` indices (the encoding's table). An index not allowed now
  raises ValueError naming it and the allowed ones: act through the mask. Every allowed
  move keeps the turn finishable, so a walk of allowed moves ends every turn and match.
* ``reset(seed=s)`` starts the match ``waraq play --seed s`` plays (the engine's seeded
  dealer); ``reset(options={"board": b})`` deals ladder board ``b`` as its rooms are
  dealt (:mod:`waraq.referee.env.boards`). Without a seed the match's seed is drawn from
  the generator of the last seeded reset (or from the system when there was none).
* Reward: 0 until the match ends; then +1 to each seat the engine's result names a
  winner (the lowest total; every seat tied for it, both partners of a winning team) and
  -1 to the others; 0 to everyone in a match the engine aborts (a bound of turns or void
  deals no real round reaches). Hand's scores are penalties whose scale depends on the
  rules; the win is what a match is played for, as in the Hokm environments.

Native, as the Hokm one: no OpenSpiel, and each decision is the referee's own call.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from waraq.referee.env.boards import board_dealer, board_of, side_reward
from waraq.referee.env.hand_encoding import ACTIONS, Move, StepTurn, action_of, encode, legal_mask, observation_size
from waraq.referee.games.hand.decisions import TURN
from waraq.referee.games.hand.engine import HandState, new_match
from waraq.referee.games.hand.melds import CARD_NAMES
from waraq.referee.games.hand.rules import HandRules, load_rules
from waraq.referee.games.hand.view import HandView


def env(rules: str | dict[str, Any] | HandRules = "classic", render_mode: str | None = None) -> AECEnv:
    """A Hand AEC environment for ``rules`` (a preset name, a rules dict or :class:`HandRules`)."""
    return wrappers.OrderEnforcingWrapper(HandAEC(rules, render_mode))


def agent_name(seat: int) -> str:
    return f"seat_{seat}"


def pending_turn(state: HandState) -> StepTurn | None:
    """The turn of the seat to act before its first move, when its decision is a TURN; else None."""
    seat = state.to_act
    if seat is None or state.kind != TURN:
        return None
    return StepTurn.of(state.view(seat))


def play_index(state: HandState, turn: StepTurn | None, index: Any) -> StepTurn | None:
    """Play ``index`` for the seat to act, on ``turn``, the turn it is building (None: the
    seat is to TAKE, or its turn is to begin).

    A TAKE's answer and a turn's discard go to the engine (``state.apply``); any other move
    only to the turn. Returns the turn still being built, else the next seat's
    (:func:`pending_turn`). ValueError naming ``index`` when it is not allowed now."""
    seat = state.to_act
    if seat is None:
        raise ValueError(f"action index {index!r} is not allowed: the match is over")
    view = state.view(seat)
    if turn is None:
        turn = pending_turn(state)
    action = action_of(index, view, turn)
    if isinstance(action, Move):
        assert turn is not None  # a move is allowed only on a turn being built
        finished = turn.play(action)
        if finished is None:
            return turn
        state.apply(finished)
    else:
        state.apply(action)
    return pending_turn(state)


class HandAEC(AECEnv):
    """The environment of the module docstring."""

    metadata: dict[str, Any] = {"name": "waraq_hand_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, rules: str | dict[str, Any] | HandRules = "classic", render_mode: str | None = None) -> None:
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
                    "observation": spaces.Box(-1.0, 1.0, (size,), np.float32),
                    "action_mask": spaces.Box(0, 1, (ACTIONS,), np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(ACTIONS) for a in self.possible_agents}
        self._seeds = random.Random()
        self.match: HandState | None = None  # the engine's match in progress, after reset()
        self.turn: StepTurn | None = None  # the turn the seat to act is building, when it is to TURN

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
        if board is not None:
            assert board_dealer(self.rules, board) is None  # Hand deals by the seed: a board is its seed's match
            match_seed = board
        self.match = new_match(self.rules, match_seed)
        self.turn = pending_turn(self.match)
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
        seat = self._seat(agent)
        view = self.match.view(seat)
        turn = self.turn if self.turn is not None and self.turn.turn.seat == seat else None
        return {"observation": encode(view, turn), "action_mask": legal_mask(view, turn)}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.match
        assert state is not None
        self.turn = play_index(state, self.turn, action)
        self._cumulative_rewards[agent] = 0
        self.rewards = dict.fromkeys(self.agents, 0)
        if state.result is not None:
            winners = state.result.winners
            self.rewards = {a: side_reward(winners, self._seat(a)) for a in self.agents}
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


def describe_table(view: HandView) -> str:
    """One line of what is public in any seat's view: the round, the melds, the pile's top, the
    stock, who has opened, the score and who is to decide."""
    top = CARD_NAMES[view.pile[-1]] if view.pile else "-"
    opened = "".join("o" if o else "." for o in view.opened)
    score = "-".join(map(str, view.scores))
    pending = "over" if view.kind is None else f"seat {view.to_act} {view.kind}"
    return (
        f"round {view.round} first {view.first} melds {len(view.melds)} pile {top} stock {view.stock_size} "
        f"opened {opened} score {score}: {pending}"
    )

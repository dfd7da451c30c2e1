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

from typing import Any

from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from waraq.referee.env.hand_encoding import StepTurn
from waraq.referee.env.parts import HAND, describe_hand
from waraq.referee.env.table_aec import TableAEC, agent_name
from waraq.referee.games.hand.rules import HandRules

__all__ = ["HandAEC", "agent_name", "describe_table", "env"]

describe_table = describe_hand  # one line of the table, as render() shows it


def env(rules: str | dict[str, Any] | HandRules = "classic", render_mode: str | None = None) -> AECEnv:
    """A Hand AEC environment for ``rules`` (a preset name, a rules dict or :class:`HandRules`)."""
    return wrappers.OrderEnforcingWrapper(HandAEC(rules, render_mode))


class HandAEC(TableAEC):
    """The environment of the module docstring."""

    game = HAND
    metadata: dict[str, Any] = {"name": "waraq_hand_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    @property
    def turn(self) -> StepTurn | None:
        """The turn the seat to act is building, when its decision is a TURN."""
        return self.progress

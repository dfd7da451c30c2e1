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

from typing import Any

from waraq.referee.env.hand_encoding import StepTurn
from waraq.referee.env.parts import HAND
from waraq.referee.env.seat_env import SeatEnv


class HandSeatEnv(SeatEnv):
    """The environment of the module docstring: ``HandSeatEnv(rules, seat, bots, render_mode, *,
    record_dir, time_control, illegal)``, rules a preset name, a rules dict or a HandRules."""

    game = HAND
    match: Any  # the engine's state, the engine's way

    @property
    def turn(self) -> StepTurn | None:
        """The agent's TURN being built, when that is its decision."""
        return self.progress

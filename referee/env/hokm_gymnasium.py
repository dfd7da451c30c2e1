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

from typing import Any

from waraq.referee.env.parts import HOKM
from waraq.referee.env.seat_env import SeatEnv


class HokmSeatEnv(SeatEnv):
    """The environment of the module docstring: ``HokmSeatEnv(rules, seat, bots, render_mode, *,
    record_dir, time_control, illegal)``, rules a preset name, a rules dict or a HokmRules."""

    game = HOKM
    match: Any  # the engine's state, the engine's way

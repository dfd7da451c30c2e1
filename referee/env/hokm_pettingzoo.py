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

from typing import Any

from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from waraq.referee.env.boards import side_reward
from waraq.referee.env.parts import HOKM, describe_hokm
from waraq.referee.env.table_aec import TableAEC, agent_name
from waraq.referee.games.hokm.engine import HokmState
from waraq.referee.games.hokm.rules import HokmRules

__all__ = ["HokmAEC", "agent_name", "describe_table", "env", "match_reward"]

describe_table = describe_hokm  # one line of the table, as render() shows it


def env(rules: str | dict[str, Any] | HokmRules = "classic", render_mode: str | None = None) -> AECEnv:
    """A Hokm AEC environment for ``rules`` (a preset name, a rules dict or :class:`HokmRules`)."""
    return wrappers.OrderEnforcingWrapper(HokmAEC(rules, render_mode))


class HokmAEC(TableAEC):
    """The environment of the module docstring."""

    game = HOKM
    metadata: dict[str, Any] = {"name": "waraq_hokm_v0", "render_modes": ["ansi"], "is_parallelizable": False}


def match_reward(state: HokmState, seat: int) -> int:
    """+1 for a seat of the winning side, -1 for the others, 0 for all in an aborted match."""
    assert state.result is not None
    return side_reward(state.result.winners, seat)

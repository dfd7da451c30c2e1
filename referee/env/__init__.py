"""Hokm and Hand for researchers: the referee's engines behind the field's standard APIs (docs/research.md).

The optional extras ``waraq[env]`` (gymnasium, pettingzoo, numpy) and ``waraq[openspiel]``
install what these modules import; only the modules here import them, so the referee's
core never does (tests/env/test_layering.py).

* encodings: :mod:`~waraq.referee.env.hokm_encoding` (a view as a tensor, one discrete
  action space, the mask), :mod:`~waraq.referee.env.hand_encoding` and
  :mod:`~waraq.referee.env.hand_steps` (a Hand turn as moves, never into a dead end);
* :mod:`~waraq.referee.env.parts`: each game's parts as the environments need them;
* :mod:`~waraq.referee.env.table_aec` (every seat an agent, PettingZoo AEC) with
  :mod:`~waraq.referee.env.hokm_pettingzoo` and :mod:`~waraq.referee.env.hand_pettingzoo`;
* :mod:`~waraq.referee.env.seat_env` (one seat, Gymnasium) with
  :mod:`~waraq.referee.env.hokm_gymnasium` and :mod:`~waraq.referee.env.hand_gymnasium`;
  :mod:`~waraq.referee.env.refereed` plays the other seats through the referee itself;
  :mod:`~waraq.referee.env.boards`: a ladder board's deal and a side's reward;
* :mod:`~waraq.referee.env.hokm_openspiel` and :mod:`~waraq.referee.env.hand_openspiel` (pyspiel
  games, on :mod:`~waraq.referee.env.openspiel_table`), with
  :mod:`~waraq.referee.env.hokm_resample` and :mod:`~waraq.referee.env.hand_resample` (worlds
  consistent with a seat's information);
* :mod:`~waraq.referee.env.dataset`: ``waraq export --dataset``, training data from records.
"""

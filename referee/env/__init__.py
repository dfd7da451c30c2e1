"""Hokm for researchers: the referee's engine behind the standard environment APIs (docs/research.md).

The optional extra ``waraq[env]`` installs gymnasium, pettingzoo and numpy; only
the modules here import them, so the referee's core never does.

* :mod:`waraq.referee.env.hokm_encoding`: a seat's view as a fixed-length
  ``float32`` tensor, the actions of every decision kind as one discrete
  space, and the legal mask (numpy only);
* :mod:`waraq.referee.env.hokm_pettingzoo`: :class:`HokmAEC`, every seat an
  agent of a PettingZoo AEC environment;
* :mod:`waraq.referee.env.hokm_gymnasium`: :class:`HokmSeatEnv`, one seat a
  Gymnasium agent, the others played by the house bots.
"""

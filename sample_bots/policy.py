"""A policy as a bot: ``waraq bot serve --policy MODULE:CALLABLE`` serves any function of a seat's view.

The callable is given the seat's view (the engine's
:class:`~waraq.referee.games.hokm.engine.HokmView` or Hand's
:class:`~waraq.referee.games.hand.view.HandView`, as every Python bot is) and the
view's legal actions, and returns one of them: ``act(view, legal) -> action``.
So a policy trained in :mod:`waraq.referee.env` enters ``check-bot``, matches and
ladders unchanged; an agent that chooses an action index decodes it with the
encoding it was trained on (docs/research.md, "From a policy to the ladder").
What it returns is checked by the referee as any bot's reply: an action that is
not legal is the seat's ``ILLEGAL`` fault; a callable that raises breaks its
stream, a ``CRASH``.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable
from typing import Any


class PolicyError(ValueError):
    """A ``--policy`` that names no callable: the message says which part and why."""


def load(spec: str) -> Callable[[Any, Any], Any]:
    """The callable ``MODULE:CALLABLE`` names (``CALLABLE`` may be dotted: ``agents.hokm:Agent.act``),
    the module found as ``python -m`` finds one: in the current folder first."""
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    module_name, colon, attribute = spec.partition(":")
    if not colon or not module_name or not attribute:
        raise PolicyError(f"--policy {spec!r}: expected MODULE:CALLABLE, e.g. myagent:act")
    try:
        found: Any = importlib.import_module(module_name)
    except Exception as error:  # the module's own import may fail any way: say so in one line
        raise PolicyError(f"--policy {spec!r}: cannot import {module_name}: {type(error).__name__}: {error}") from None
    for part in attribute.split("."):
        found = getattr(found, part, None)
        if found is None:
            raise PolicyError(f"--policy {spec!r}: {module_name} has no {attribute}")
    if not callable(found):
        raise PolicyError(f"--policy {spec!r}: {attribute} is not callable")
    return found


def players(policy: Callable[[Any, Any], Any]) -> Callable[[str, int, str], Callable[[Any], Any]]:
    """A player factory (:data:`waraq.bots.server.PlayerFactory`) whose players ask ``policy``."""

    def make(match: str, seat: int, game: str = "hokm") -> Callable[[Any], Any]:
        def player(view: Any) -> Any:
            return policy(view, view.legal)

        return player

    return make

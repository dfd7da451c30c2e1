"""The trained policy as a Waraq bot's act(view, legal): the network of train.py, its weights beside it.

Served by ``serve.py`` (``waraq bot serve --policy policy:act`` with this folder on the path),
so check-bot, matches, ``waraq versus`` and ladders take it as any bot. ``WEIGHTS`` is the
file run.py saved (serve.py's ``--weights`` sets it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from waraq.referee.env.hokm_encoding import action_index, action_of, encode, legal_mask

WEIGHTS = Path(__file__).with_name("weights.npz")  # the default; serve.py --weights names another
_net: dict[str, np.ndarray] | None = None


def scores(net: dict[str, np.ndarray], observations: np.ndarray) -> np.ndarray:
    """The network's logits: one hidden layer of ReLUs. train.py trains exactly this function."""
    hidden = np.maximum(observations @ net["w1"] + net["b1"], 0.0)
    return hidden @ net["w2"] + net["b2"]


def act(view: Any, legal: Any) -> Any:
    global _net
    if _net is None:
        with np.load(WEIGHTS) as saved:
            _net = {name: saved[name] for name in saved.files}
    if len(legal) == 1:
        return legal[0]
    logits = scores(_net, encode(view)[None, :])[0]
    logits[legal_mask(view) == 0] = -np.inf
    index = int(np.argmax(logits))
    assert action_index(view.kind, action_of(index, view)) == index
    return action_of(index, view)

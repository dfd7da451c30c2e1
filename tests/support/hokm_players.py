"""What the Hokm house bots' tests share: a player that checks its own legality, and a safe win-rate bound."""

from __future__ import annotations

from math import comb
from typing import Any


class Checked:
    """A player that asserts each action it returns is exactly one of ``view.legal``
    (same type too: the card 1 is not True) and notes the decision kinds it met."""

    def __init__(self, player: Any, kinds: set[str]) -> None:
        self.player = player
        self.kinds = kinds

    def __call__(self, view: Any) -> Any:
        action = self.player(view)
        assert any(action == a and type(action) is type(a) for a in view.legal), (
            f"{view.kind}: {action!r} not in {view.legal!r}"
        )
        self.kinds.add(view.kind)
        return action


def binomial_tail(wins: int, n: int, p: float) -> float:
    """P(X >= wins) for X ~ Binomial(n, p)."""
    return sum(comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(wins, n + 1))


def win_rate_lower_bound(wins: int, n: int, alpha: float) -> float:
    """One-sided exact (Clopper-Pearson) lower bound: the p at which ``wins`` or
    more out of ``n`` would have probability ``alpha``. A test that asserts this bound
    is above a rate fails by chance at most ``alpha`` of the time."""
    if wins == 0:
        return 0.0
    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if binomial_tail(wins, n, mid) < alpha:
            lo = mid
        else:
            hi = mid
    return lo

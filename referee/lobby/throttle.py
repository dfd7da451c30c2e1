"""Slow down a peer that keeps presenting wrong tokens, without slowing anyone else.

Each refusal from one host adds to its count, which halves every
:data:`HALF_LIFE_S`; past :data:`FREE` refusals, the next refusal is answered
only after a delay that doubles with the count, up to :data:`MOST_S`. The
delay is the refused stream's own wait: no other stream, and no match, waits
on it. A host with :data:`MOST_WAITING` refusals already waiting is refused at
once with RESOURCE_EXHAUSTED, so a flood holds no more than that many streams.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

FREE = 3  # wrong tokens a host may present without delay (a typo, a rotated token)
FIRST_S = 0.25  # the delay of the first refusal past FREE
MOST_S = 8.0
HALF_LIFE_S = 60.0
MOST_WAITING = 32
MOST_HOSTS = 10_000  # hosts remembered; past this, the calmest are forgotten


@dataclass
class _Host:
    count: float
    at: float
    waiting: int = 0


class Throttle:
    def __init__(self, clock=time.monotonic) -> None:
        self._clock = clock
        self._hosts: dict[str, _Host] = {}

    def _decayed(self, host: str) -> _Host:
        now = self._clock()
        entry = self._hosts.get(host)
        if entry is None:
            entry = self._hosts[host] = _Host(0.0, now)
        entry.count *= math.pow(0.5, (now - entry.at) / HALF_LIFE_S)
        entry.at = now
        return entry

    def crowded(self, host: str) -> bool:
        """Whether ``host`` already has as many refusals waiting as it may."""
        entry = self._hosts.get(host)
        return entry is not None and entry.waiting >= MOST_WAITING

    def refusal_delay(self, host: str) -> float:
        """Count one refusal of ``host``: the seconds to wait before telling it so."""
        entry = self._decayed(host)
        entry.count += 1
        if len(self._hosts) > MOST_HOSTS:
            self._forget_calmest()
        over = entry.count - FREE
        return 0.0 if over <= 0 else min(MOST_S, FIRST_S * math.pow(2, over - 1))

    def waiting(self, host: str, change: int) -> None:
        entry = self._hosts.get(host)
        if entry is not None:
            entry.waiting += change

    def _forget_calmest(self) -> None:
        for host, _ in sorted(self._hosts.items(), key=lambda item: item[1].count)[: len(self._hosts) // 2]:
            if self._hosts[host].waiting == 0:
                del self._hosts[host]

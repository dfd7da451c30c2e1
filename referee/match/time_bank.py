"""A seat's time bank: the one charge rule, kept by the match and rebuilt by replay alike.

Each seat starts a match with ``bank_ms``
(docs/records.md "### Times: `ms`, `bot_ms` and the time bank"). A question
must be answered within the per-decision deadline plus the bank left. A
reply that came after ``ms`` pays its time beyond the deadline from the bank;
when the bank cannot pay it all, the bank is spent: it is 0 from then on
(only the deadline counts) and that reply was too late, a ``bank_spent``
fault. Replies within the deadline cost nothing; so does a reply that never
came or could not be read (its fault is charged, not its time).

:mod:`waraq.referee.match.play` charges the time it measured;
:mod:`waraq.referee.replay.walk` charges the record's ``ms`` (rounded to the
µs), and empties a bank where the record says the match found it spent.
Nothing here reads a clock.
"""

from __future__ import annotations


class TimeBank:
    """One seat's bank for one match, in ms."""

    __slots__ = ("deadline_ms", "left_ms")

    def __init__(self, deadline_ms: float, bank_ms: float) -> None:
        self.deadline_ms = float(deadline_ms)
        self.left_ms = float(bank_ms)

    def charge(self, ms: float) -> bool:
        """Pay a reply that took ``ms``: its time past the deadline comes out of the bank.

        False when the bank could not pay it: the bank is now spent (0) and the
        reply came too late. Exactly what was left is enough: the bank is then 0,
        and the reply in time.
        """
        overrun = ms - self.deadline_ms
        if overrun <= 0:
            return True
        self.left_ms -= overrun
        if self.left_ms < 0:
            self.left_ms = 0.0
            return False
        return True

    def empty(self) -> None:
        """Spend what is left (replay: the record says this reply found the bank spent)."""
        self.left_ms = 0.0

    def __repr__(self) -> str:
        return f"TimeBank(deadline_ms={self.deadline_ms}, left_ms={self.left_ms})"

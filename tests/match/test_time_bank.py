"""The time bank's one rule, on numbers worked by hand.

docs/records.md "### Times: `ms`, `bot_ms` and the time bank" says it.

A reply pays its time past the deadline from the bank; a bank that cannot pay
is spent (0) and that reply was too late. Replay rebuilds every seat's bank
with the same type, from the record's ``ms``.
"""

from __future__ import annotations

import pytest

from waraq.referee.match.time_bank import TimeBank


def test_replies_within_the_deadline_cost_nothing():
    bank = TimeBank(deadline_ms=100, bank_ms=1_000)
    assert bank.charge(0) and bank.charge(40.5) and bank.charge(100)  # 100: on the deadline, not past it
    assert bank.left_ms == 1_000


def test_overruns_come_out_of_the_bank_until_it_cannot_pay():
    # Deadline 100 ms, bank 1000 ms, 500 ms a reply: each overruns by 400. The first two are paid
    # (600 left, then 200); the third needs 400 with 200 left: the bank is spent, and that reply late.
    bank = TimeBank(100, 1_000)
    assert bank.charge(500) and bank.left_ms == 600
    assert bank.charge(500) and bank.left_ms == 200
    assert not bank.charge(500) and bank.left_ms == 0
    # Spent: from now on only the deadline counts. Any overrun is late, a reply in time is fine.
    assert not bank.charge(100.001) and bank.left_ms == 0
    assert bank.charge(99) and bank.left_ms == 0


def test_exactly_what_is_left_is_enough():
    bank = TimeBank(10, 250)
    assert bank.charge(135) and bank.left_ms == 125  # 125 over
    assert bank.charge(135) and bank.left_ms == 0  # 125 over, 125 left: paid, nothing left
    assert not bank.charge(10.5)  # now half a millisecond over is too late


def test_fractions_of_a_millisecond_are_charged_as_they_are():
    bank = TimeBank(5, 20_000)
    assert bank.charge(12.25) and bank.left_ms == pytest.approx(19_992.75)
    assert bank.charge(5.004) and bank.left_ms == pytest.approx(19_992.746)


def test_emptying_spends_what_is_left():
    # Replay: the record says the match found the bank spent; its rounded ms might just not spend it.
    bank = TimeBank(100, 300)
    assert bank.charge(399.9995) and bank.left_ms == pytest.approx(0.0005)
    bank.empty()
    assert bank.left_ms == 0
    assert bank.charge(100) and not bank.charge(101)

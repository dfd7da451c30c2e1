"""Who the lobby's throttle and the web's sign-in limit count as one guesser: an IPv4 address, an IPv6 /64.

An IPv6 site holds a whole /64: counted per address, a guesser would try each
token or password from a fresh one and never be slowed down.
"""

from __future__ import annotations

import pytest

from waraq.referee.common.networks import network_of
from waraq.referee.lobby import throttle
from waraq.referee.lobby.lobby import _guesser
from waraq.referee.lobby.throttle import Throttle


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("2001:db8:1:2::5", "2001:db8:1:2:ffff:ffff:ffff:fffe"),
        ("[2001:db8:1:2::5]", "2001:DB8:1:2::6"),
        ("::ffff:198.51.100.7", "198.51.100.7"),  # an IPv4 client of a dual-stack socket
    ],
)
def test_addresses_of_one_ipv6_site_or_one_ipv4_host_are_one_guesser(one, other):
    assert network_of(one) == network_of(other)


@pytest.mark.parametrize(
    ("one", "other"),
    [("2001:db8:1:2::5", "2001:db8:1:3::5"), ("198.51.100.7", "198.51.100.8"), ("::1", "127.0.0.1")],
)
def test_other_sites_and_other_ipv4_hosts_are_other_guessers(one, other):
    assert network_of(one) != network_of(other)


def test_what_is_no_address_is_kept_as_it_is():
    assert network_of("/run/waraq/lobby.sock") == "/run/waraq/lobby.sock"
    assert network_of("testclient") == "testclient"


def test_wrong_tokens_from_fresh_addresses_of_one_site_are_slowed_down_together():
    gate = Throttle(lambda: 0.0)
    delays = [gate.refusal_delay(_guesser(f"ipv6:[2001:db8:1:2::{n:x}]")) for n in range(1, 8)]
    assert delays[: throttle.FREE] == [0.0] * throttle.FREE and all(d > 0 for d in delays[throttle.FREE :])
    assert gate.refusal_delay(_guesser("ipv6:[2001:db8:9:9::1]")) == 0.0  # another site is not
    assert _guesser("ipv4:198.51.100.7") == "ipv4:198.51.100.7" and _guesser("unix:/x") == "unix:/x"

"""Who a throttle counts as one guesser: an IPv4 address, or an IPv6 address's /64.

An IPv6 host is given a /64 network by its provider and may use any of its
2**64 addresses: counted per address, a guesser would never be slowed down.
"""

from __future__ import annotations

import ipaddress

IPV6_PREFIX = 64  # the network an IPv6 site is given (RFC 6177): one guesser


def network_of(host: str) -> str:
    """``host`` (an address, ``[v6]`` or bare) as the throttle's key: the address itself for IPv4, its
    /64 for IPv6, and anything else (a Unix socket's path, a name) as it is."""
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:  # an IPv4 client of a dual-stack socket
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/{IPV6_PREFIX}", strict=False))
    return str(address)

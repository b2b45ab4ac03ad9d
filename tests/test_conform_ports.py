"""The ports a conform cluster hands out (``checker.conform.ports``): free, distinct within a
cluster, and below the kernel's ephemeral range, where no outgoing connection can take one
between the check and the broker's bind (CI once saw "Address already in use" for a
listener's port)."""

from __future__ import annotations

import socket
from pathlib import Path

from checker.conform.ports import free_port


def test_a_cluster_s_ports_are_distinct_free_and_below_the_ephemeral_range():
    low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    taken: set[int] = set()
    ports = [free_port(taken) for _ in range(40)]
    assert len(set(ports)) == 40 and taken == set(ports)
    assert all(10_000 <= port < low for port in ports)
    for port in ports[:5]:  # nothing listens there: each can be bound
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", port))


def test_a_port_in_use_is_not_handed_out():
    taken: set[int] = set()
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", free_port(taken)))
        busy.listen()
        held = busy.getsockname()[1]
        assert all(free_port(taken) != held for _ in range(50))

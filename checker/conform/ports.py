"""The TCP ports a conform cluster hands to its brokers, controller and proxies."""

from __future__ import annotations

import random
import socket
from pathlib import Path

_PORTS = random.Random()  # its own generator: seeded schedules draw from theirs


def free_port(taken: set[int] | None = None) -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now and that ``taken`` (the ports a
    cluster already handed out; the port is added) does not hold. It is drawn below the
    kernel's ephemeral range (``/proc/sys/net/ipv4/ip_local_port_range``): a port the kernel
    hands to ``bind(0)`` comes from that range, where any outgoing connection (a broker's to
    the controller, a proxy's) may take it between this check and the broker's own bind, which
    then fails with "Address already in use". Falls back to ``bind(0)`` when no such port is
    found in 200 tries."""
    taken = set() if taken is None else taken
    try:
        low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32768
    for _ in range(200 if low > 11_000 else 0):
        port = _PORTS.randrange(10_000, low)
        if port in taken:
            continue
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
        taken.add(port)
        return port
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    taken.add(port)
    return port

"""Loopback TCP proxies, one per directed link, that the nemesis can cut and heal.

Every connection a broker opens to another broker (replication) or to the controller goes
through a ``Link``: the broker is configured with the proxy's port (``settings``), the proxy
forwards to the real port. ``cut()`` closes the link's connections and black-holes new ones
(accepted, then neither read nor answered: the caller sees a silent peer and times out, as
behind a dropped route), ``heal()`` closes the held ones so the caller reconnects.

Why a proxy and not network namespaces or iptables: they need root; Toxiproxy needs a Go
toolchain or a binary from outside PyPI and Maven Central. A cut here is faithful for what
Kafka sees (no bytes arrive, in either direction, on that link only), but not for the
kernel: a SYN to a cut link is still accepted by the proxy.

All proxies run on one asyncio loop in a daemon thread (``Proxies``).
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass, field

BUFFER = 65536


@dataclass
class Link:
    """``name`` (``2->0``, ``1->controller``), the proxy's ``port`` and the ``target`` port."""

    name: str
    port: int
    target: int
    down: bool = False
    live: set[asyncio.StreamWriter] = field(default_factory=set)
    held: set[asyncio.StreamWriter] = field(default_factory=set)
    server: asyncio.base_events.Server | None = None


class Proxies:
    """The proxies of a cluster; ``add`` before ``start``; ``cut``/``heal`` by link name;
    ``close`` stops the loop (idempotent)."""

    def __init__(self) -> None:
        self.links: dict[str, Link] = {}
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    def add(self, name: str, port: int, target: int) -> Link:
        """A link ``name`` from ``port`` to ``target`` (listening from ``start``)."""
        link = Link(name, port, target)
        self.links[name] = link
        return link

    def start(self) -> None:
        """Listen on every link's port. Raises ``OSError`` when a port is taken."""
        self.thread.start()
        for link in self.links.values():
            self._call(self._listen(link))

    def _call(self, coroutine: object) -> object:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(10)  # type: ignore[arg-type]

    async def _listen(self, link: Link) -> None:
        async def accept(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            if link.down:
                link.held.add(writer)
                return
            try:
                up_reader, up_writer = await asyncio.open_connection("127.0.0.1", link.target)
            except OSError:
                writer.close()
                return
            link.live |= {writer, up_writer}
            try:
                await asyncio.gather(
                    _pump(reader, up_writer), _pump(up_reader, writer), return_exceptions=True
                )
            except asyncio.CancelledError:  # close(): the connection ends with the proxies
                return
            link.live -= {writer, up_writer}

        link.server = await asyncio.start_server(accept, "127.0.0.1", link.port)

    def cut(self, name: str) -> None:
        """Close ``name``'s connections and hold new ones until ``heal``."""
        self._call(self._set(self.links[name], True))

    def heal(self, name: str) -> None:
        """Let ``name`` carry connections again (held ones are closed: callers reconnect)."""
        self._call(self._set(self.links[name], False))

    async def _set(self, link: Link, down: bool) -> None:
        link.down = down
        for writer in list(link.live if down else link.held):
            writer.close()
        (link.live if down else link.held).clear()

    def close(self) -> None:
        """Close every connection and listener and stop the loop (idempotent)."""
        if not self.thread.is_alive():
            self.loop.close()
            return

        async def stop() -> None:
            for link in self.links.values():
                for writer in [*link.live, *link.held]:
                    writer.close()
                if link.server is not None:
                    link.server.close()
            # every connection's task ends here, so none is left pending when the loop stops
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        self._call(stop())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        self.loop.close()


async def _pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(BUFFER):
            writer.write(data)
            await writer.drain()
    finally:
        writer.close()

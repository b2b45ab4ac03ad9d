"""A KRaft cluster of real Kafka JVMs on 127.0.0.1: one controller and N brokers.

Each node is its own ``java kafka.Kafka server.properties`` process with its own folders
under the run folder, so a crash is a real SIGKILL, a restart a real log recovery, and a
pause a real SIGSTOP. Broker ``r`` has node id ``r`` (the model's replica ``r``); the
controller has node id ``N``. Every JVM is started in its own session with a parent-death
signal (SIGKILL), and ``Cluster.close`` kills and reaps every one, so no JVM outlives the
command, even when Python itself is killed.

What each JVM is configured with is ``checker.conform.settings``.
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from checker.conform import jvm
from checker.conform.metadata import MetadataLog
from checker.conform.ports import free_port
from checker.conform.proxy import Proxies
from checker.conform.settings import LOG4J, LOG4J2, cluster_id, properties
from checker.java import JavaRuntime

START_TIMEOUT = 60.0
"""Seconds a JVM may take from exec to "Kafka Server started"."""
ARCHIVE_TIMEOUT = 30.0
"""Seconds the broker writing the class archive may take to stop cleanly and write it."""


class ClusterError(RuntimeError):
    """A node would not format or start (the message names it and quotes its log)."""


@dataclass
class Node:
    """One JVM: ``node_id``, ``role`` (``controller`` or ``broker``), ``folder`` (config,
    data in ``folder/data``, log in ``folder/server.log``), ``port``; ``process`` while it
    runs, ``paused`` while SIGSTOPped."""

    node_id: int
    role: str
    folder: Path
    port: int
    process: subprocess.Popen[bytes] | None = None
    paused: bool = False
    starts: int = 0

    @property
    def data(self) -> Path:
        return self.folder / "data"

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None


@dataclass
class Cluster:
    """A controller and ``replicas`` brokers of Kafka ``version`` under ``root``.

    ``start()`` formats every node and starts them; ``crash``, ``restart``, ``pause``,
    ``resume`` act on broker ``r``; ``freeze``/``thaw`` stop and continue every running JVM
    (a consistent cut); ``close()`` kills every JVM and waits for it."""

    root: Path
    jars: list[Path]
    java: JavaRuntime
    replicas: int = 3
    version: str = "4.1.0"
    heap: str = "256m"
    nodes: list[Node] = field(default_factory=list)
    cluster_id: str = ""
    start_seconds: list[float] = field(default_factory=list)
    proxies: Proxies = field(default_factory=Proxies)
    archive: Path | None = None
    """The class-data-sharing archive the JVMs start from (``checker.conform.jvm``)."""
    _metadata: MetadataLog | None = None

    def metadata(self) -> MetadataLog:
        """The controller's metadata log, read up to now (``MetadataLog.refresh``)."""
        if self._metadata is None:
            self._metadata = MetadataLog(self.controller.data / "__cluster_metadata-0")
        return self._metadata.refresh()

    @property
    def controller(self) -> Node:
        return self.nodes[-1]

    @property
    def brokers(self) -> list[Node]:
        return self.nodes[:-1]

    @property
    def bootstrap(self) -> str:
        return ",".join(f"127.0.0.1:{b.port}" for b in self.brokers)

    def start(self) -> None:
        """Write configs, format storage and start the controller, then every broker.

        Raises ``ClusterError`` when a node fails to format or start within
        ``START_TIMEOUT`` seconds."""
        if (self.root / "cluster-id").exists():  # an earlier run's cluster: start afresh
            shutil.rmtree(self.root)
        elif self.root.exists() and any(self.root.iterdir()):
            raise ClusterError(f"{self.root} holds files that are not a cluster of hwcheck's")
        self.root.mkdir(parents=True, exist_ok=True)
        self.cluster_id = cluster_id(self.root)
        n = self.replicas
        ports: set[int] = set()
        self.nodes = [
            Node(r, "broker", self.root / f"broker-{r}", free_port(ports)) for r in range(n)
        ]
        self.nodes.append(Node(n, "controller", self.root / "controller", free_port(ports)))
        control = self.controller.port
        configs = {
            self.controller.node_id: properties(
                "controller",
                n,
                self.controller.data,
                f"{n}@127.0.0.1:{control}",
                {"CONTROLLER": (control, control)},
            )
        }
        for r, node in enumerate(self.brokers):
            listeners = {"CLIENT": (node.port, node.port)}
            for f in range(n):
                real = free_port(ports)
                shown = (
                    real if f == r else self.proxies.add(f"{f}->{r}", free_port(ports), real).port
                )
                listeners[f"REPL{f}"] = (real, shown)
            to_controller = self.proxies.add(f"{r}->controller", free_port(ports), control).port
            configs[r] = properties(
                "broker", r, node.data, f"{n}@127.0.0.1:{to_controller}", listeners, f"REPL{r}"
            )
        try:
            self.proxies.start()
        except OSError as exc:
            raise ClusterError(f"a link's proxy could not listen: {exc}") from None
        for node in self.nodes:
            node.folder.mkdir(parents=True, exist_ok=True)
            (node.folder / "server.properties").write_text(configs[node.node_id])
            (node.folder / "log4j.properties").write_text(
                LOG4J.format(log=node.folder / "server.log")
            )
            (node.folder / "log4j2.properties").write_text(
                LOG4J2.format(log=node.folder / "server.log")
            )
        self._metadata = None
        self.archive = jvm.archive_path(self.java, self.jars)
        writer = self.brokers[0] if jvm.wanted(self.archive) else None
        self._format()
        for node in [self.controller, *self.brokers]:
            self._launch(node, writes_archive=node is writer)
        for node in [self.controller, *self.brokers]:
            self._await_started(node)
        if writer is not None:
            self._write_archive(writer)

    def _write_archive(self, node: Node) -> None:
        """Stop ``node`` cleanly so that it writes the class archive, and start it again
        from it (once per Java and Kafka: ``checker.conform.jvm``)."""
        node.process.send_signal(signal.SIGTERM)  # type: ignore[union-attr]
        try:
            node.process.wait(ARCHIVE_TIMEOUT)  # type: ignore[union-attr]
        except subprocess.TimeoutExpired:
            node.process.kill()  # type: ignore[union-attr]
            node.process.wait()  # type: ignore[union-attr]
        node.process = None
        assert self.archive is not None
        jvm.settle_written(self.archive)
        self._launch(node)
        self._await_started(node)

    def _java(
        self, main: str, *args: str, node: Node | None = None, writes_archive: bool = False
    ) -> list[str]:
        """``node``'s (or a tool's) command line: ``jvm.command`` with this cluster's Java,
        jars, heap and class archive."""
        return jvm.command(
            self.java,
            self.jars,
            self.heap,
            main,
            *args,
            logs=node.folder if node else None,
            archive=self.archive,
            writes_archive=writes_archive,
        )

    def _format(self) -> None:
        for node in self.nodes:
            done = jvm.run(
                self._java(
                    "kafka.tools.StorageTool",
                    "format",
                    "-t",
                    self.cluster_id,
                    "-c",
                    str(node.folder / "server.properties"),
                    "--ignore-formatted",
                ),
                timeout=120,
            )
            if done.returncode != 0:
                text = (done.stdout + done.stderr).strip().splitlines()
                raise ClusterError(
                    f"formatting {node.role} {node.node_id} failed: {' | '.join(text[-3:])}"
                )

    def _launch(self, node: Node, writes_archive: bool = False) -> None:
        out = open(node.folder / "stdout.log", "ab")  # noqa: SIM115 - the child keeps it
        try:
            node.process = jvm.spawn(
                self._java(
                    "kafka.Kafka",
                    str(node.folder / "server.properties"),
                    node=node,
                    writes_archive=writes_archive,
                ),
                out,
            )
        finally:
            out.close()
        node.paused = False
        node.starts += 1
        node.launched = time.monotonic()  # type: ignore[attr-defined]

    def _await_started(self, node: Node) -> None:
        log = node.folder / "server.log"
        deadline = time.monotonic() + START_TIMEOUT
        wanted = node.starts
        while time.monotonic() < deadline:
            if not node.alive:
                raise ClusterError(f"{node.role} {node.node_id} exited at start: {_tail(node)}")
            if (
                log.exists()
                and log.read_text(errors="replace").count("Kafka Server started") >= wanted
            ):
                self.start_seconds.append(time.monotonic() - node.launched)  # type: ignore[attr-defined]
                return
            time.sleep(0.05)
        raise ClusterError(
            f"{node.role} {node.node_id} did not start within {START_TIMEOUT:.0f} s: {_tail(node)}"
        )

    def crash(self, r: int) -> None:
        """SIGKILL broker ``r`` (a paused one too) and reap it."""
        node = self.brokers[r]
        if node.process is not None:
            node.process.kill()
            node.process.wait()
        node.process, node.paused = None, False

    def restart(self, r: int) -> None:
        """Start broker ``r`` again on its folders (log recovery) and wait until it serves."""
        node = self.brokers[r]
        if node.alive:
            raise ClusterError(f"broker {r} is running: crash it before a restart")
        self._launch(node)
        self._await_started(node)

    def pause(self, r: int) -> None:
        """SIGSTOP broker ``r``: it stops fetching, serving and heartbeating."""
        node = self.brokers[r]
        if node.alive and not node.paused:
            node.process.send_signal(signal.SIGSTOP)  # type: ignore[union-attr]
            node.paused = True

    def resume(self, r: int) -> None:
        """SIGCONT broker ``r``."""
        node = self.brokers[r]
        if node.alive and node.paused:
            node.process.send_signal(signal.SIGCONT)  # type: ignore[union-attr]
            node.paused = False

    def freeze(self) -> None:
        """SIGSTOP every running JVM that is not paused already (a cut's start)."""
        for node in self.nodes:
            if node.alive and not node.paused:
                node.process.send_signal(signal.SIGSTOP)  # type: ignore[union-attr]

    def thaw(self) -> None:
        """SIGCONT every running JVM that the schedule has not paused (a cut's end)."""
        for node in self.nodes:
            if node.alive and not node.paused:
                node.process.send_signal(signal.SIGCONT)  # type: ignore[union-attr]

    def partition(self, a: int, b: int) -> None:
        """Cut the links between brokers ``a`` and ``b``, both ways."""
        self.proxies.cut(f"{a}->{b}")
        self.proxies.cut(f"{b}->{a}")

    def isolate(self, r: int) -> None:
        """Cut broker ``r``'s link to the controller (no heartbeat, no metadata)."""
        self.proxies.cut(f"{r}->controller")

    def heal(self) -> None:
        """Let every link carry connections again."""
        for name, link in self.proxies.links.items():
            if link.down:
                self.proxies.heal(name)

    def close(self) -> None:
        """Kill every JVM and wait for each, and stop the proxies; safe to call twice."""
        self.proxies.close()
        for node in self.nodes:
            if node.process is not None and node.process.poll() is None:
                node.process.kill()
        for node in self.nodes:
            if node.process is not None:
                node.process.wait()
                node.process = None

    def __enter__(self) -> Cluster:  # noqa: PYI034 - a dataclass, never subclassed
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _tail(node: Node, lines: int = 3) -> str:
    for name in ("server.log", "stdout.log"):
        path = node.folder / name
        if path.exists():
            text = [
                line
                for line in path.read_text(errors="replace").splitlines()
                if "ERROR" in line or "Exception" in line
            ]
            if text:
                return " | ".join(text[-lines:])[:500]
    return "no log"

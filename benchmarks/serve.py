"""How fast ``hwcheck serve`` answers: request latency by path length, and the background
"jump to a violation" search.

Usage::

    python benchmarks/serve.py                 # 50 requests per row
    python benchmarks/serve.py --requests 200

Starts ``hwcheck serve --port 0`` as its own process (2 replicas, hw, epoch 1: the gallery's
HW-truncation loss), then over HTTP (httpx, one connection):

- ``GET /api/state`` and the page ``GET /`` at the initial state and at the end of the
  10-step loss path (each request re-executes the path on the model and judges every
  property): median and 90th percentile milliseconds;
- ``POST /api/jump`` from the initial state for NoCommittedLoss, polled every 20 ms: seconds
  until found, and distinct states;
- the server's peak resident memory (``VmHWM`` from /proc) at the end.
"""

from __future__ import annotations

import argparse
import json
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
LOSS = json.loads((ROOT / "reports/gallery/hw-truncation-loss/trace.json").read_text())
PATH = [step["action"] for step in LOSS["steps"][1:]]


def timed(client: httpx.Client, n: int, method: str, url: str, **kwargs) -> tuple[float, float]:
    """Median and 90th percentile of ``n`` requests, milliseconds."""
    times = []
    for _ in range(n):
        start = time.perf_counter()
        client.request(method, url, **kwargs).raise_for_status()
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return statistics.median(times), times[int(0.9 * (n - 1))]


def peak_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=50)
    args = parser.parse_args()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from checker.cli import main; main()",
            "serve",
            "--port",
            "0",
            "--replicas",
            "2",
            "--truncation",
            "hw",
            "--max-epoch",
            "1",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    url = proc.stdout.readline().split()[2]
    try:
        with httpx.Client(base_url=url, timeout=60) as client:
            print(f"{'request':<40} {'median ms':>10} {'p90 ms':>8}")
            for name, path in (("initial state", []), ("after the 10-step loss", PATH)):
                for what, target in (("GET /api/state", "/api/state"), ("GET / (page)", "/")):
                    median, p90 = timed(client, args.requests, "GET", target, params={"step": path})
                    print(f"{what + ', ' + name:<40} {median:>10.1f} {p90:>8.1f}")
            start = time.perf_counter()
            job = client.post("/api/jump", json={"path": [], "invariant": "NoCommittedLoss"})
            while (status := client.get(job.json()["url"]).json())["status"] == "running":
                time.sleep(0.02)
            print(
                f"jump to NoCommittedLoss from the initial state: {status['status']}, "
                f"{len(status['path']) + 1} states long, {status['states']:,} distinct states, "
                f"{time.perf_counter() - start:.2f} s"
            )
        print(f"server peak memory: {peak_mib(proc.pid):.0f} MiB")
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=20)


if __name__ == "__main__":
    main()

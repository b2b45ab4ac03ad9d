"""The Spark driver's memory over a long run: how many MiB a minute the hwcheck process grows.

Usage::

    python benchmarks/spark_driver.py                          # 10 minutes, under a terminal
    python benchmarks/spark_driver.py --minutes 60             # the issue's hour
    python benchmarks/spark_driver.py --checkout ../old --rounds 2   # A B A B against old code
    python benchmarks/spark_driver.py -- --no-progress          # more explore flags

Runs ``hwcheck explore --replicas 4 --max-records 1 --max-epoch 2 --max-crashes 1
--fingerprint-bits 64 --engine spark --master local[2] --partitions 2`` with checkpoints
every 300 s on a ``file://`` URL and ``--time-limit`` set to the minutes asked, as a fresh
process per run whose output goes to a pseudo-terminal (the live progress a person sees: the
growth measured in a terminal was twice that with the output sent to a file). A sampler reads
the driver's resident memory (the Python process alone; the JVM is apart) and its thread count
from ``/proc`` every half second. Printed per run: the RSS at each minute, the peak, and the
growth (MiB a minute: the least-squares slope from the second minute on); then, with
``--checkout``, the median slope and peak of each side. Memory, not speed: the machine may be
busy, but say what ran beside it.
"""

from __future__ import annotations

import argparse
import os
import pty
import select
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODEL = ["--replicas", "4", "--max-records", "1", "--max-epoch", "2", "--max-crashes", "1"]
SPARK = ["--fingerprint-bits", "64", "--engine", "spark", "--master", "local[2]"]


def status(pid: int) -> tuple[float, int]:
    """``(resident MiB, threads)`` of ``pid``; ``(0, 0)`` once it is gone."""
    rss = threads = 0
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1])
            elif line.startswith("Threads:"):
                threads = int(line.split()[1])
    except OSError:
        pass
    return rss / 1024, threads


def one(
    code: Path, minutes: float, folder: Path, extra: list[str]
) -> list[tuple[float, float, int]]:
    """One run of ``code``'s hwcheck with the flags ``extra``: its samples ``(seconds, MiB,
    threads)``. Prints how the run ended: its exit code and the last lines it drew."""
    ck = folder / "ck"
    command = [sys.executable, "-m", "checker.cli", "explore", *MODEL, *SPARK]
    command += ["--partitions", "2", "--checkpoint", ck.as_uri(), "--checkpoint-every", "300"]
    command += ["--time-limit", str(int(minutes * 60)), "--out", str(folder / "out"), *extra]
    env = {**os.environ, "PYTHONPATH": str(code), "COLUMNS": "120"}
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        command, stdin=subprocess.DEVNULL, stdout=follower, stderr=follower, env=env, cwd=folder
    )
    os.close(follower)
    samples, start, screen = [], time.monotonic(), b""
    try:
        while proc.poll() is None:
            ready, _, _ = select.select([leader], [], [], 0.5)
            if ready:
                try:  # the terminal's screen, drained; its last 4 KiB kept
                    screen = (screen + os.read(leader, 65536))[-4096:]
                except OSError:
                    pass
            mib, threads = status(proc.pid)
            if mib:
                samples.append((time.monotonic() - start, mib, threads))
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        os.close(leader)
    last = [line.strip() for line in screen.decode(errors="replace").splitlines() if line.strip()]
    print(f"exit {proc.returncode} after {time.monotonic() - start:.0f} s; last lines:")
    print("\n".join(f"  {line[:160]}" for line in last[-12:]))
    return samples


def slope(samples: list[tuple[float, float, int]]) -> float:
    """MiB a minute: the least-squares slope of RSS over time from the second minute on."""
    later = [(t / 60, mib) for t, mib, _ in samples if t >= 60]
    if len(later) < 2:
        return float("nan")
    return statistics.linear_regression(*zip(*later, strict=True)).slope


def report(name: str, samples: list[tuple[float, float, int]]) -> tuple[float, float]:
    """Print a run's minute marks, peak and slope; return ``(slope, peak)``."""
    marks = []
    for minute in range(1, int(samples[-1][0] // 60) + 1):
        at = min(samples, key=lambda s, m=minute: abs(s[0] - 60 * m))
        marks.append(f"{minute}: {at[1]:.0f} MiB/{at[2]} thr")
    peak, rate = max(mib for _, mib, _ in samples), slope(samples)
    print(f"{name}: peak {peak:.1f} MiB, growth {rate:.2f} MiB/min; " + ", ".join(marks))
    return rate, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0, help="each run's time limit")
    parser.add_argument("--checkout", help="another checkout's code, run in turn with this one")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("flags", nargs="*", help="more hwcheck explore flags (after --)")
    args = parser.parse_args()
    sides = [("this", ROOT)] + ([("other", Path(args.checkout).resolve())] if args.checkout else [])
    got: dict[str, list[tuple[float, float]]] = {name: [] for name, _ in sides}
    for round_ in range(args.rounds):
        for name, code in sides:
            with tempfile.TemporaryDirectory() as folder:
                samples = one(code, args.minutes, Path(folder), args.flags)
            got[name].append(report(f"round {round_ + 1} {name}", samples))
    for name, runs in got.items():
        rates, peaks = zip(*runs, strict=True)
        print(
            f"{name}: median growth {statistics.median(rates):.2f} MiB/min, "
            f"median peak {statistics.median(peaks):.1f} MiB over {len(runs)} runs"
        )


if __name__ == "__main__":
    main()

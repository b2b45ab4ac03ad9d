"""What liveness costs: ``hwcheck explore`` with and without ``--liveness``, side by side.

Usage::

    python benchmarks/liveness.py                          # kafka, 2 replicas; tla, 2 replicas
    python benchmarks/liveness.py --repeat 5
    python benchmarks/liveness.py -- --replicas 2 --truncation hw   # your own explore flags

Each run is its own ``hwcheck explore --json`` process (its peak memory is its own: the
summary's ``peak_rss_mb``, the liveness pass included, since it runs in the driver). The two
runs of a pair are interleaved (A B A B ...) over ``--repeat`` rounds and medians printed,
because the machine is shared and noisy: quote the ratios. Columns: the run, distinct states
(or orbits) of the safety search, the liveness graph's size (from the liveness line: orbits
under symmetry, ``o``, else plain states, ``s``), median seconds, median peak RSS (MiB), and
the time and memory ratios of ``--liveness`` over safety alone.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time

CASES = {
    "kafka r2": ["--replicas", "2"],
    "kafka r2 hw": ["--replicas", "2", "--truncation", "hw"],
    "tla r2": ["--model", "tla"],
}


def once(flags: list[str]) -> tuple[float, float, int, str]:
    """``(seconds, peak MiB, distinct, the liveness graph's size)`` of one explore process."""
    with tempfile.TemporaryDirectory() as out:
        start = time.monotonic()
        done = subprocess.run(
            ["hwcheck", "explore", "--json", "--no-progress", "--out", out, *flags],
            capture_output=True,
            text=True,
            check=False,
        )
        seconds = time.monotonic() - start
    summary = json.loads(done.stdout)
    size = re.search(r"(?:plain|orbit) graph \(([\d,]+) (states|orbits)", done.stderr)
    graph = f"{size.group(1)} {size.group(2)[0]}" if size else "-"
    return seconds, summary["stats"]["peak_rss_mb"], summary["stats"]["distinct"], graph


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="rounds (default 3)")
    parser.add_argument("flags", nargs="*", help="explore flags (after --): one case")
    args = parser.parse_args()
    cases = {"yours": args.flags} if args.flags else CASES
    print(f"{'run':<28} {'distinct':>10} {'graph':>12} {'s':>7} {'MiB':>7} {'time':>6} {'mem':>6}")
    for name, flags in cases.items():
        runs: dict[str, list[tuple[float, float, int, str]]] = {"safety": [], "liveness": []}
        for _ in range(args.repeat):
            runs["safety"].append(once(flags))
            runs["liveness"].append(once([*flags, "--liveness"]))
        base_s = statistics.median(r[0] for r in runs["safety"])
        base_m = statistics.median(r[1] for r in runs["safety"])
        for kind, done in runs.items():
            seconds = statistics.median(r[0] for r in done)
            memory = statistics.median(r[1] for r in done)
            print(
                f"{name + ', ' + kind:<28} {done[0][2]:>10,} {done[-1][3]:>12} "
                f"{seconds:>7.2f} {memory:>7.0f} {seconds / base_s:>5.2f}x {memory / base_m:>5.2f}x"
            )
    sys.stdout.flush()


if __name__ == "__main__":
    main()

"""Throughput and memory of the local engine on the Kafka model.

Usage::

    python benchmarks/explore.py                 # every variant, 2 and 3 replicas, defaults
    python benchmarks/explore.py --replicas 2    # only 2 replicas
    python benchmarks/explore.py --profile kip320 --replicas 3   # where the time goes

Each configuration runs in its own process, so the peak RSS column is that run's own peak.
All properties are checked (as ``hwcheck explore`` does); the run ends when the state space
is exhausted or every safety property is violated, as with the CLI.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

VARIANTS = ("hw", "kip101", "kip279", "kip320")


def one(variant: str, replicas: int) -> dict:
    """Run one configuration in this process and return its numbers."""
    import invariants
    from checker.bfs import explore
    from spec.kafka import Config, KafkaSpec

    spec = KafkaSpec(Config(replicas=replicas, truncation=variant))
    result = explore(spec, invariants.catalog(spec))
    stats = result.stats
    return {"variant": variant, "replicas": replicas, "status": result.status.value,
            "distinct": stats.distinct, "generated": stats.generated, "depth": stats.depth,
            "seconds": round(stats.seconds, 2), "per_second": round(stats.states_per_second),
            "peak_rss_mb": round(stats.peak_rss_mb)}


def profile(variant: str, replicas: int) -> None:
    """Print the 25 functions with the most own time for one configuration."""
    profiler = cProfile.Profile()
    profiler.enable()
    row = one(variant, replicas)
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(25)
    print(json.dumps(row))
    print(out.getvalue())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicas", type=int, action="append")
    parser.add_argument("--variant", action="append", choices=VARIANTS)
    parser.add_argument("--profile", choices=VARIANTS)
    parser.add_argument("--one", nargs=2, metavar=("VARIANT", "REPLICAS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(args.one[0], int(args.one[1]))))
        return
    if args.profile:
        profile(args.profile, (args.replicas or [3])[0])
        return
    header = ("variant", "replicas", "status", "distinct", "generated", "depth", "seconds",
              "per_second", "peak_rss_mb")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for replicas in args.replicas or [2, 3]:
        for variant in args.variant or VARIANTS:
            proc = subprocess.run([sys.executable, __file__, "--one", variant, str(replicas)],
                                  capture_output=True, text=True, check=True)
            row = json.loads(proc.stdout)
            print("| " + " | ".join(f"{row[key]:,}" if isinstance(row[key], int) else
                                    str(row[key]) for key in header) + " |", flush=True)


if __name__ == "__main__":
    main()

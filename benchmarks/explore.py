"""Throughput and memory of the local engine on both models.

Usage::

    python benchmarks/explore.py                 # kafka model: every variant, 2 and 3 replicas
    python benchmarks/explore.py --model tla     # the TLA+ port: every variant, 2 and 3 replicas
    python benchmarks/explore.py --replicas 2    # only 2 replicas
    python benchmarks/explore.py --profile kip320 --replicas 3   # where the time goes

Each configuration runs in its own process, so the peak RSS column is that run's own peak.
The kafka model is run as ``hwcheck explore`` runs it (default bounds, every property; the run
ends when the space is exhausted or every safety property is violated). The tla model is run
as TLC is timed on it: LogSize = MaxRecords = MaxLeaderEpoch = 2, checking only HwLeLeo, so the
whole reachable graph is explored.
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

VARIANTS = {"kafka": ("hw", "kip101", "kip279", "kip320"),
            "tla": ("hw", "kip101", "kip279", "kip320-first-try", "kip320", "kip320-kip279")}


def one(model: str, variant: str, replicas: int) -> dict:
    """Run one configuration in this process and return its numbers."""
    from checker.bfs import explore
    from checker.cli import build_model
    from spec.kafka import Config
    from spec.tla import TlaConfig

    if model == "kafka":
        spec, props = build_model(model, Config(replicas=replicas, truncation=variant))
    else:
        spec, props = build_model(model, TlaConfig(replicas=replicas, truncation=variant))
        props = [p for p in props if p.name == "HwLeLeo"]
    result = explore(spec, props)
    stats = result.stats
    return {"model": model, "variant": variant, "replicas": replicas, "status": result.status.value,
            "distinct": stats.distinct, "generated": stats.generated, "depth": stats.depth,
            "seconds": round(stats.seconds, 2), "per_second": round(stats.states_per_second),
            "peak_rss_mb": round(stats.peak_rss_mb)}


def profile(model: str, variant: str, replicas: int) -> None:
    """Print the 25 functions with the most own time for one configuration."""
    profiler = cProfile.Profile()
    profiler.enable()
    row = one(model, variant, replicas)
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(25)
    print(json.dumps(row))
    print(out.getvalue())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=sorted(VARIANTS), default="kafka")
    parser.add_argument("--replicas", type=int, action="append")
    parser.add_argument("--variant", action="append")
    parser.add_argument("--profile", metavar="VARIANT")
    parser.add_argument("--one", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(args.one[0], args.one[1], int(args.one[2]))))
        return
    if args.profile:
        profile(args.model, args.profile, (args.replicas or [3])[0])
        return
    header = ("model", "variant", "replicas", "status", "distinct", "generated", "depth", "seconds",
              "per_second", "peak_rss_mb")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for replicas in args.replicas or [2, 3]:
        for variant in args.variant or VARIANTS[args.model]:
            proc = subprocess.run([sys.executable, __file__, "--one", args.model, variant,
                                   str(replicas)],
                                  capture_output=True, text=True, check=True)
            row = json.loads(proc.stdout)
            print("| " + " | ".join(f"{row[key]:,}" if isinstance(row[key], int) else
                                    str(row[key]) for key in header) + " |", flush=True)


if __name__ == "__main__":
    main()

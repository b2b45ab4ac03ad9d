"""``hwcheck simulate``: throughput, and how many walks it takes to find the old protocols' holes.

Usage::

    python benchmarks/simulate.py                     # both tables
    python benchmarks/simulate.py --only throughput --rounds 3
    python benchmarks/simulate.py --only hunt --seeds 5 --cap 20000

**Throughput.** kip320 with 3 and 5 replicas at simulate's default bounds (4 records, epoch 6,
3 crashes, depth 50), on both cores (``--core compiled`` and ``reference``): one local
worker, every core, and Spark (``local[N]``, N = cores), each run its own ``hwcheck simulate
--json`` process, the configurations interleaved over ``--rounds`` rounds; printed: median
steps/s while walking, the ratio to the reference core on one worker, and the median peak
memory of the hwcheck process (MiB; workers and the JVM not counted).

**Hunt.** kip101 and kip279 with 3, 4 and 5 replicas at simulate's default bounds, checking
NoCommittedLoss and NoDivergence: for each of ``--seeds`` seeds, walks run (every core) until
both are found or ``--cap`` walks; printed per property: the mean number of walks until the
first violation (walk index + 1; a seed that found nothing counts as ``--cap`` and is shown as
a miss), and the mean shrunk length in states next to the walk's own length at the violation.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

BOUNDS = {"max_records": 4, "max_epoch": 6, "max_crashes": 3}
PROPS = ("NoCommittedLoss", "NoDivergence")


def throughput(rounds: int, walks: int) -> None:
    cores = os.cpu_count() or 1
    engines = {
        f"{core}, {name}": [*flags, "--core", core]
        for core in ("compiled", "reference")
        for name, flags in (
            ("1 worker", ["--workers", "1"]),
            (f"{cores} workers", ["--workers", str(cores)]),
            (f"spark local[{cores}]", ["--engine", "spark", "--master", f"local[{cores}]"]),
        )
    }
    numbers: dict[tuple[int, str], list[tuple[float, float]]] = {}
    for _ in range(rounds):
        for replicas in (3, 5):
            for name, flags in engines.items():
                out = subprocess.run(
                    [
                        sys.executable,
                        "-m",
                        "checker.cli",
                        "simulate",
                        "--replicas",
                        str(replicas),
                        "--walks",
                        str(walks),
                        "--json",
                        "--no-progress",
                        "--out",
                        "/tmp/hwcheck-bench-simulate",
                        *flags,
                    ],
                    capture_output=True,
                    text=True,
                    check=False,
                )
                stats = json.loads(out.stdout)["stats"]
                numbers.setdefault((replicas, name), []).append(
                    (stats["steps_per_second"], stats["peak_rss_mb"])
                )
    print(f"throughput: kip320, {walks:,} walks of at most 50 states, medians of {rounds} rounds")
    print(
        f"{'replicas':>8}  {'core, engine':<30} {'steps/s':>10} {'vs reference, 1 worker':>23} "
        f"{'peak MiB':>9}"
    )
    for replicas in (3, 5):
        base = statistics.median(r for r, _ in numbers[(replicas, "reference, 1 worker")])
        for name in engines:
            rate = statistics.median(r for r, _ in numbers[(replicas, name)])
            memory = statistics.median(m for _, m in numbers[(replicas, name)])
            print(f"{replicas:>8}  {name:<30} {rate:>10,.0f} {rate / base:>22.2f}x {memory:>9,.0f}")


def hunt(seeds: int, cap: int) -> None:
    from checker.composition.compose import Recipe, make_config
    from checker.simulate.simulation import simulate
    from checker.simulate.walks import WalkPlan

    cores = os.cpu_count() or 1
    print(
        f"hunt: walks until the first violation (mean of {seeds} seeds, at most {cap:,} "
        f"walks; simulate's default bounds, depth 50, {cores} workers)"
    )
    print(
        f"{'variant':<8} {'replicas':>8}  {'property':<16} {'walks':>8} {'missed':>7} "
        f"{'walk len':>9} {'shrunk':>7}"
    )
    for variant in ("kip101", "kip279"):
        for replicas in (3, 4, 5):
            config = make_config("kafka", {"replicas": replicas, "truncation": variant, **BOUNDS})
            recipe = Recipe("kafka", config, PROPS)
            found: dict[str, list[tuple[int, int, int]]] = {name: [] for name in PROPS}
            for seed in range(seeds):
                result = simulate(
                    recipe,
                    WalkPlan(seed=seed, depth=50),
                    walks=cap,
                    workers=cores,
                    until=lambda b: len(b.first) == len(PROPS),
                )
                for shrunk in result.shrunk:
                    name = shrunk.violation.prop.name
                    found[name].append(
                        (result.batch.first[name][0] + 1, shrunk.walk, shrunk.violation.length)
                    )
            for name in PROPS:
                hits = found[name]
                missed = seeds - len(hits)
                walks = statistics.mean([w for w, _, _ in hits] + [cap] * missed)
                walk_len = statistics.mean(w for _, w, _ in hits) if hits else float("nan")
                shrunk_len = statistics.mean(s for _, _, s in hits) if hits else float("nan")
                print(
                    f"{variant:<8} {replicas:>8}  {name:<16} {walks:>8,.0f} {missed:>7} "
                    f"{walk_len:>9.1f} {shrunk_len:>7.1f}",
                    flush=True,
                )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=["throughput", "hunt"], default=None)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--walks", type=int, default=4000, help="walks per throughput run")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--cap", type=int, default=20_000)
    args = parser.parse_args()
    if args.only in (None, "throughput"):
        throughput(args.rounds, args.walks)
    if args.only in (None, "hunt"):
        hunt(args.seeds, args.cap)


if __name__ == "__main__":
    main()

"""Liveness on the orbit graph against the plain graph, on the reference core, side by side.

Usage::

    python benchmarks/orbit_liveness.py                    # kafka, 3 replicas, 1 record, epoch 1
    python benchmarks/orbit_liveness.py --rounds 3
    python benchmarks/orbit_liveness.py --replicas 2 --max-records 2 --max-epoch 2

Each side is its own process (its peak memory is its own, ``ru_maxrss``): ``plain`` builds
the plain graph and judges the model's liveness properties on it (``checker.liveness.check``),
``orbits`` builds the orbit graph and judges them on the annotated quotient
(``checker.liveness.orbit_check``). The sides alternate (A B A B) over ``--rounds``, and the
medians and ratios are printed with the graph sizes and the verdicts (which must agree).
Say what else ran on the machine.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time


def side(kind: str, bounds: dict[str, int]) -> dict[str, object]:
    """One side's run in this process: its graph size, seconds, peak MiB and verdicts."""
    from checker import symmetry
    from checker.composition.compose import build_model
    from checker.liveness import orbit_check, orbits
    from checker.liveness import run as live
    from checker.liveness.check import judge_all
    from checker.liveness.fair import Constraints
    from checker.liveness.graph import build
    from spec.kafka import Config

    config = Config(bounds["replicas"], bounds["max_records"], bounds["max_epoch"])
    spec, _ = build_model("kafka", config)
    props, fairness = live.liveness_of(spec), live.fairness_of(spec)
    start = time.monotonic()
    if kind == "plain":
        graph = build(spec, 50_000_000)
        rules = Constraints.over(graph, fairness, spec.conditions())
        verdicts = [v.verdict for v in judge_all(graph, props, rules, spec.cut)]
        size = len(graph)
    else:
        orbit_graph = orbits.build(spec, symmetry.for_spec(spec), 50_000_000)
        setting = orbit_check.Setting(spec, orbit_graph, fairness, spec.replica_args)
        verdicts = [orbit_check.judge(setting, p, spec.cut)[0].verdict for p in props]
        size = len(orbit_graph)
    seconds = time.monotonic() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"size": size, "seconds": seconds, "peak": peak, "verdicts": verdicts}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--replicas", type=int, default=3)
    parser.add_argument("--max-records", type=int, default=1)
    parser.add_argument("--max-epoch", type=int, default=1)
    parser.add_argument("--side", help=argparse.SUPPRESS)
    args = parser.parse_args()
    bounds = {
        "replicas": args.replicas,
        "max_records": args.max_records,
        "max_epoch": args.max_epoch,
    }
    if args.side:
        print(json.dumps(side(args.side, bounds)))
        return
    runs: dict[str, list[dict[str, object]]] = {"plain": [], "orbits": []}
    for _ in range(args.rounds):
        for kind, results in runs.items():
            flags = [f"--{k.replace('_', '-')}={v}" for k, v in bounds.items()]
            done = subprocess.run(
                [sys.executable, __file__, "--side", kind, *flags],
                capture_output=True,
                text=True,
                check=True,
            )
            results.append(json.loads(done.stdout))
    medians = {}
    for kind, results in runs.items():
        seconds = statistics.median(float(r["seconds"]) for r in results)  # type: ignore[arg-type]
        peak = statistics.median(float(r["peak"]) for r in results)  # type: ignore[arg-type]
        medians[kind] = (seconds, peak)
        print(
            f"{kind:7} {results[0]['size']:>12,} nodes  {seconds:8.1f} s  {peak:8.0f} MiB  "
            f"{' '.join(results[0]['verdicts'])}"  # type: ignore[arg-type]
        )
    (ps, pm), (os_, om) = medians["plain"], medians["orbits"]
    agree = runs["plain"][0]["verdicts"] == runs["orbits"][0]["verdicts"]
    print(f"plain / orbits: {ps / os_:.2f}x time, {pm / om:.2f}x memory; verdicts agree: {agree}")


if __name__ == "__main__":
    main()

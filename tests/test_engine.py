"""Engine behaviour that no Kafka test pins down: Ctrl-C, spec errors, determinism."""

import json
import os
import subprocess
import sys

from conftest import check, kafka, props_of

from checker.result import Status
from checker.search.reference.bfs import explore


class Interrupting:
    """Wraps a spec; raises KeyboardInterrupt on the n-th call to successors."""

    def __init__(self, spec, n, exc=KeyboardInterrupt):
        self.spec, self.n, self.calls, self.exc = spec, n, 0, exc
        self.name = spec.name

    def __getattr__(self, name):
        return getattr(self.spec, name)

    def successors(self, state):
        self.calls += 1
        if self.calls == self.n:
            raise self.exc("boom")
        return self.spec.successors(state)


def test_ctrl_c_ends_incomplete_with_partial_statistics():
    spec = kafka(replicas=2)
    result = explore(Interrupting(spec, 500), props_of(spec))
    assert result.status == Status.INCOMPLETE and result.exit_code == 3
    assert "interrupted" in result.reason
    assert 0 < result.stats.distinct < 4230 and result.stats.depth > 1


def test_exception_in_spec_is_error_75():
    spec = kafka(replicas=2)
    result = explore(Interrupting(spec, 50, ZeroDivisionError), props_of(spec))
    assert result.status == Status.ERROR and result.exit_code == 75
    assert "ZeroDivisionError" in result.reason


def test_two_runs_give_identical_counts_and_traces():
    first, second = (check(kafka(replicas=2, truncation="hw")) for _ in range(2))
    assert first.stats.distinct == second.stats.distinct
    assert first.stats.actions == second.stats.actions
    for a, b in zip(first.violations, second.violations, strict=True):
        assert [(str(s.label), s.fingerprint) for s in a.trace] == [
            (str(s.label), s.fingerprint) for s in b.trace
        ]


def test_other_hash_seed_gives_identical_summary_and_traces(tmp_path):
    def run(seed):
        out = tmp_path / seed
        env = dict(os.environ, PYTHONHASHSEED=seed)
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "checker.cli",
                "explore",
                "--replicas",
                "2",
                "--truncation",
                "hw",
                "--json",
                "--out",
                str(out),
            ],
            check=False,
            env=env,
            capture_output=True,
            text=True,
        )
        assert proc.returncode == 12, proc.stderr
        summary = json.loads(proc.stdout)
        for key in ("seconds", "distinct_per_second", "peak_rss_mb"):
            summary["stats"].pop(key)
        for verdict in summary["properties"].values():
            verdict.pop("trace", None)
        traces = {
            p.parent.name: [
                (s["action"], s["fingerprint"]) for s in json.loads(p.read_text())["steps"]
            ]
            for p in out.glob("*/trace.json")
        }
        return summary, traces

    assert run("1") == run("4242")

"""The project's own gate (pyproject.toml) notices a weakened protocol.

Each test changes the Kafka model the way a careless protocol change would (a KIP-320 fence
removed, an older truncation rule, a wrong HW, an election outside the ISR) and runs
``hwcheck gate --fail-fast`` on the project's pyproject.toml in this process: the gate must
fail (exit 1). The unchanged model passes the same gate in ``.ci/run``. The changes are made to
the reference model's Python code, so the gate runs on ``--core reference`` (the compiled
core is proven equal to the unchanged reference in ``tests/test_compiled.py``).
"""

from __future__ import annotations

import dataclasses
from xml.etree import ElementTree

import pytest
from click.testing import CliRunner

from checker.cli import cli
from spec.kafka import membership, model, variants
from spec.kafka.state import ALIVE, C_EPOCH, CONTROLLER, REPLICAS
from tests.test_gate_compare import ROOT

pytestmark = pytest.mark.usefixtures("fresh_models")


def _variant(monkeypatch, **changes) -> None:
    """Change the kip320 variant (the protocol the gate says must hold)."""
    weakened = dataclasses.replace(variants.PRESETS["kip320"], **changes)
    monkeypatch.setitem(variants.PRESETS, "kip320", weakened)


def _without(switch: str) -> frozenset:
    return variants.PRESETS["kip320"].switches - {switch}


def _gate_fails(tmp_path) -> set[str]:
    """Run the project gate with --fail-fast; assert it fails on a check that says KIP-320
    holds (not on some unrelated check). Returns the failed checks' names."""
    junit = tmp_path / "gate.xml"
    result = CliRunner().invoke(
        cli,
        [
            "gate",
            "--config",
            str(ROOT / "pyproject.toml"),
            "--core",
            "reference",
            "--fail-fast",
            "--junit-xml",
            str(junit),
            "--out",
            str(tmp_path / "reports"),
        ],
    )
    assert result.exit_code == 1, result.output
    failed = {
        case.get("classname")
        for case in ElementTree.parse(junit).getroot()
        if case.find("failure") is not None or case.find("error") is not None
    }
    assert failed and all(name.startswith("kafka kip320 holds") for name in failed), failed
    return failed


def test_removing_the_fetch_epoch_fence_fails_the_gate(monkeypatch, tmp_path):
    """KIP-320's fence on Fetch (a follower in another epoch is refused) deleted."""
    _variant(monkeypatch, switches=_without("fenced-fetch"))
    _gate_fails(tmp_path)


def test_unfenced_offsets_for_leader_epoch_fails_the_gate(monkeypatch, tmp_path):
    """Truncation asks a leader of any epoch (KIP-279's rule), not one in the request's epoch."""
    _variant(monkeypatch, switches=_without("fenced-lookup"))
    _gate_fails(tmp_path)


def test_truncating_to_the_high_watermark_fails_the_gate(monkeypatch, tmp_path):
    """Back to the pre-KIP-101 rule: a new follower truncates to its own HW."""
    _variant(monkeypatch, rule=variants.RULES["hw-truncation"])
    _gate_fails(tmp_path)


def test_kip101_truncation_fails_the_gate(monkeypatch, tmp_path):
    """KIP-101's epoch lookup with KIP-320's fences kept."""
    _variant(monkeypatch, rule=variants.RULES["leader-epoch-truncation"])
    _gate_fails(tmp_path)


def test_a_leader_hw_over_any_isr_member_fails_the_gate(monkeypatch, tmp_path):
    """The leader's HW taken as the *largest* ISR LEO instead of the smallest."""

    def wrong_hw(log_len, hw, me, isr, remote, min_isr=1):
        return max([hw, log_len] + [remote[m] for m in isr if m != me and remote[m] >= 0])

    for module in ("spec.kafka.actions", "spec.kafka.membership"):
        monkeypatch.setattr(f"{module}.leader_hw", wrong_hw)
    _gate_fails(tmp_path)


def test_electing_outside_the_isr_fails_the_gate(monkeypatch, tmp_path):
    """A clean election that picks any live replica, in the ISR or not."""

    def elect_any(ctx, s, out):
        ctrl, replicas = s[CONTROLLER], s[REPLICAS]
        if ctrl[C_EPOCH] >= ctx.config.max_epoch:
            return
        live = tuple(r for r, rep in enumerate(replicas) if rep[ALIVE])
        for c in live:
            if c != ctrl[1]:
                decision, requests = membership._decide(s, c, live)
                out.append((ctx.labels.elect[c], (replicas, decision, requests, s[3])))

    actions = tuple((name, elect_any if name == "Elect" else fn) for name, fn in model.ACTIONS)
    monkeypatch.setattr(model, "ACTIONS", actions)
    _gate_fails(tmp_path)

"""A gate check of ``mode = "conform"``: real Kafka brokers through seeded schedules
(``checker.conform.campaign``), passing when every cut is safe and explained by the model.

A team that patches Kafka holds its build to the model in CI with ``kafka_libs`` (its
distribution's ``libs/`` folder, relative to the gate file) or ``kafka`` naming a version
Maven finds in its local repository (``4.1.0-acme``). The check's folder under ``--out``
keeps the brokers' folders, ``conform.json`` and ``conform.html``. Such a check has no pins:
its verdict is the whole of it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from checker.commands.conform import model, write_reports
from checker.conform import campaign, jars, report
from checker.conform.cluster import Cluster, ClusterError
from checker.conform.records import LogFormatError
from checker.gate import policy as gate
from checker.java import JavaNotFound
from checker.renderers import conform_terminal


def run(
    check: gate.Check, given: dict[str, Any], config: Path, folder: Path, board: Any
) -> gate.Outcome:
    """Run ``check`` (``given``: its model options, ``config``: the gate file) with its
    reports under ``folder``; ``board`` shows the schedule and cut. An environment problem
    (no Java, no Maven, a broker that will not start) is an ERROR outcome naming it."""
    plan = {**campaign.DEFAULTS, **check.plan}
    spec = model(plan["kafka"], given)
    chosen = campaign.Plan(plan["seed"], plan["schedules"], plan["steps"], plan["depth"])
    libs = plan.get("kafka_libs")
    try:
        java, classpath = campaign.prepare(plan["kafka"], config.parent / libs if libs else None)
    except (JavaNotFound, jars.KafkaUnavailable) as exc:
        return gate.Outcome(check, gate.ERROR, str(exc))
    cluster = Cluster(folder / "cluster", classpath, java, spec.config.replicas, plan["kafka"])
    done: list[Any] = []
    try:
        cluster.start()
        campaign.run(
            cluster,
            spec,
            chosen,
            lambda seed, cut: board.note(f"seed {seed}: cut {cut.index} ({cut.after})"),
            done.append,
        )
    except (ClusterError, LogFormatError, OSError) as exc:
        return gate.Outcome(check, gate.ERROR, str(exc), report=str(folder))
    finally:
        cluster.close()
    doc = report.document(campaign.header(plan["kafka"], spec, chosen), done, False)
    write_reports(folder, doc)
    return judge(check, doc["schedules"], str(folder))


def judge(check: gate.Check, schedules: list[dict[str, Any]], where: str) -> gate.Outcome:
    """PASS when every cut is safe and explained; FAIL naming the first cut that is not;
    INCOMPLETE when a cut went beyond the model's bounds (and none failed)."""
    n = conform_terminal.counts(schedules)
    for s in schedules:
        for cut in s["cuts"]:
            if cut["check"] in ("reachable", "unreachable") or cut["unsafe"]:
                why = "; ".join(cut["differences"] + cut["unsafe"])
                verdict = "unsafe" if cut["unsafe"] else cut["check"]
                return gate.Outcome(
                    check,
                    gate.FAIL,
                    f"seed {s['seed']}, cut {cut['index']} after {cut['after']}: {verdict} ({why})",
                    report=where,
                )
    if n["beyond"]:
        return gate.Outcome(
            check, gate.INCOMPLETE, f"{n['beyond']} cuts beyond the model's bounds", report=where
        )
    plural = "" if len(schedules) == 1 else "s"
    return gate.Outcome(
        check,
        gate.PASS,
        f"{len(schedules)} schedule{plural}, {n['cuts']} cuts, each safe and explained",
    )

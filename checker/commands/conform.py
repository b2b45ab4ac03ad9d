"""``hwcheck conform``: run real Kafka brokers through seeded schedules and hold every
consistent cut against the model (``checker.conform``; docs/explanation/conformance.md).

Exit codes: 0 every cut explained and safe; 14 a cut the model does not explain (no step from
the previous cut's states, or no reachable state at all); 12 a safety violation on the real
cluster; 3 a cut beyond the model's bounds, or Ctrl-C / SIGTERM (partial results marked; a
failure already seen still gives 14 or 12); 5 no Java, no Maven, no jar, or a broker that would
not start. No JVM outlives the command.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, NoReturn

import click
from click.core import ParameterSource
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from checker.commands.options import build
from checker.commands.values import Integer
from checker.conform import campaign, jars, report, schedule
from checker.conform.cluster import Cluster, ClusterError
from checker.conform.records import LogFormatError
from checker.conform.run import CutReport, ScheduleReport
from checker.formats import tracefile
from checker.java import JavaNotFound
from checker.renderers import conform_page, conform_terminal
from checker.result import (
    EXIT_ENVIRONMENT,
    EXIT_INCOMPLETE,
    EXIT_NONCONFORMING,
    EXIT_OK,
    EXIT_USAGE,
    EXIT_VIOLATED,
)
from spec.kafka import Config, versions
from spec.kafka.config import ACKS
from spec.kafka.model import KafkaSpec


def _fail(code: int, message: str) -> NoReturn:
    click.echo(f"Error: {message}", err=True)
    raise SystemExit(code)


def model(kafka: str, given: dict[str, Any]) -> KafkaSpec:
    """The model a campaign holds Kafka ``kafka`` to: ``given``'s options (``hwcheck
    explore``'s names, None for a default) over ``campaign.MODEL_DEFAULTS``, with the
    preset that models ``kafka`` unless ``given`` names a truncation. Raises
    ``click.BadParameter`` for a version of no release line, or bounds the model rejects."""
    given = {**given, **{k: v for k, v in campaign.MODEL_DEFAULTS.items() if given.get(k) is None}}
    if not given.get("truncation"):
        try:  # a team's build, 4.1.0-acme, builds on 4.1.0
            given["truncation"] = versions.preset_for(kafka.split("-")[0])
        except versions.UnknownVersion as exc:
            raise click.BadParameter(str(exc), param_hint="'--kafka'") from None
    spec: KafkaSpec = build("kafka", given)[1]
    return spec


def write_reports(folder: Path, doc: dict[str, Any]) -> tuple[Path, Path]:
    """``conform.json`` and its timeline ``conform.html`` under ``folder``, each whole or not
    at all. Raises ``OSError``."""
    text = json.dumps(doc, indent=1) + "\n"
    return report.write(folder, "conform.json", text), report.write(
        folder, "conform.html", conform_page.page(doc)
    )


D = campaign.DEFAULTS
MODEL = Config()


@click.command("conform")
@click.option(
    "--kafka",
    "kafka",
    default=D["kafka"],
    show_default=True,
    help="The Kafka release to run (3.3.0 or later), its jars fetched from Maven "
    "Central into hwcheck's cache.",
)
@click.option(
    "--kafka-libs",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Run the jars of this folder (a Kafka distribution's libs/, a team's own build) "
    "instead of Maven Central's; --kafka still names the release it builds on.",
)
@click.option(
    "--replicas",
    type=Integer(min=2, max=5),
    default=3,
    show_default=True,
    help="Brokers, each a replica of the one partition.",
)
@click.option(
    "--schedules",
    type=Integer(min=1, max=100_000),
    default=D["schedules"],
    show_default=True,
    help="Random schedules to run, each on a fresh partition (with --schedule: the times "
    "its file is played, 1 unless given).",
)
@click.option(
    "--seed",
    type=Integer(min=0),
    default=D["seed"],
    show_default=True,
    help="Schedule i uses seed SEED+i: the same seed gives the same schedules.",
)
@click.option(
    "--steps",
    type=Integer(min=1, max=40),
    default=D["steps"],
    show_default=True,
    help="Operations per schedule before the closing resumes and restarts.",
)
@click.option(
    "--max-records",
    type=Integer(min=0),
    default=MODEL.max_records,
    show_default=True,
    help="Produce calls per schedule, and the model's record bound.",
)
@click.option(
    "--max-crashes",
    type=Integer(min=0),
    default=MODEL.max_crashes,
    show_default=True,
    help="SIGKILLs per schedule, and the model's crash bound.",
)
@click.option(
    "--max-unclean-shutdowns",
    type=Integer(min=0),
    default=0,
    show_default=True,
    help="Power losses per schedule (power_loss: SIGKILL, then the unflushed tail cut off), "
    "and the model's unclean-shutdown bound.",
)
@click.option(
    "--schedule",
    "schedule_file",
    type=click.Path(path_type=Path, exists=True, dir_okay=False),
    default=None,
    help="Play this schedule instead of seeded ones: a text file, one "
    "operation a line (produce, crash(1), restart(1), power_loss(0), pause(2), resume(2), "
    "partition(0,1), isolate(2), heal, wait), or a trace.json or model scenario, whose "
    "Produce, Crash, Restart and UncleanShutdown steps are played in order.",
)
@click.option(
    "--max-epoch",
    type=Integer(min=0),
    default=campaign.MODEL_DEFAULTS["max_epoch"],
    show_default=True,
    help="The model's leader-epoch bound (Kafka's first epoch is 0).",
)
@click.option(
    "--min-isr",
    type=Integer(min=1),
    default=campaign.MODEL_DEFAULTS["min_isr"],
    show_default=True,
    help="The topic's min.insync.replicas, and the model's.",
)
@click.option(
    "--acks",
    type=click.Choice(ACKS),
    default=MODEL.acks,
    show_default=True,
    help="The producer's acks, and the model's.",
)
@click.option(
    "--truncation",
    default=None,
    help="The model preset to hold Kafka to [default: the one that models --kafka].",
)
@click.option(
    "--depth",
    type=Integer(min=1, max=64),
    default=D["depth"],
    show_default=True,
    help="Model actions a step between two cuts may take.",
)
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=None,
    help="Folder for conform.json and the brokers' folders [default: reports/conform-<time>].",
)
@click.option("--no-progress", is_flag=True, help="No progress display.")
def conform_cmd(**given: Any) -> None:
    """Run real Kafka brokers through seeded schedules and check each cut against the model.

    hwcheck starts a KRaft controller and --replicas brokers (each its own JVM on 127.0.0.1),
    creates a fresh one-partition topic per schedule, and applies the schedule's operations:
    produce, crash (SIGKILL), power loss (SIGKILL, then the unflushed tail cut off; with
    --max-unclean-shutdowns), restart, pause (SIGSTOP), resume, partition (two brokers),
    isolate (a broker from the controller) and heal; seeded at random, or from --schedule's
    file. After each it freezes every
    JVM, reads each broker's log, HW checkpoint and epoch cache and the controller's metadata
    log (a consistent cut), and judges it: safe on the real cluster, explained by a model
    state reached from the previous cut's states (trace validation), or at least reachable.
    """
    console = Console()
    try:
        jars.release(given["kafka"])
    except jars.KafkaUnavailable as exc:
        _fail(EXIT_USAGE, str(exc))
    keys: tuple[str, ...] = ("replicas", "max_records", "max_epoch", "max_crashes", "min_isr")
    keys += ("acks", "max_unclean_shutdowns")
    spec = model(given["kafka"], {"truncation": given["truncation"], **{k: given[k] for k in keys}})
    preset = spec.variant.name
    ops = _schedule_file(given["schedule_file"], spec) if given["schedule_file"] else []
    context = click.get_current_context()
    once = ops and context.get_parameter_source("schedules") == ParameterSource.DEFAULT
    plan = campaign.Plan(
        given["seed"],
        1 if once else given["schedules"],
        given["steps"],
        given["depth"],
        tuple(ops),
        str(given["schedule_file"] or ""),
    )
    out = given["out"] or Path("reports") / time.strftime("conform-%Y%m%d-%H%M%S")
    console.print(
        f"Kafka {given['kafka']} against the model's preset {preset} "
        f"({versions.covers(preset) or 'a preset'}); report in {out}"
    )
    try:
        with console.status("Resolving Kafka's jars (Maven Central, cached)"):
            java, classpath = campaign.prepare(given["kafka"], given["kafka_libs"])
    except (JavaNotFound, jars.KafkaUnavailable) as exc:
        _fail(EXIT_ENVIRONMENT, str(exc))
    cluster = Cluster(out / "cluster", classpath, java, given["replicas"], given["kafka"])
    header = campaign.header(given["kafka"], spec, plan)
    done: list[ScheduleReport] = []
    partial, error = False, None
    try:
        with console.status(f"Starting a controller and {given['replicas']} brokers"):
            cluster.start()
        console.print(f"Cluster up: broker start {max(cluster.start_seconds):.1f} s")
        _campaign(console, cluster, spec, plan, done, not given["no_progress"])
    except (ClusterError, LogFormatError, OSError) as exc:  # OSError: the run folder
        partial, error = True, str(exc)
    except KeyboardInterrupt:
        partial = True
        console.print("[yellow]Interrupted: the results so far are partial.[/]")
    finally:
        cluster.close()
    header["broker_start_seconds"] = [round(s, 2) for s in cluster.start_seconds]
    if done or partial:
        doc = report.document(header, done, partial)
        try:
            path, timeline = write_reports(out, doc)
        except OSError as exc:
            _fail(EXIT_ENVIRONMENT, f"the report folder {out} cannot be written: {exc}")
        console.print(f"Report: {path} and the timeline {timeline}")
    if error:
        _fail(EXIT_ENVIRONMENT, error)
    schedules = [report.schedule(s) for s in done]
    conform_terminal.summary(console, schedules, partial)
    raise SystemExit(_exit_code(schedules, partial))


def _schedule_file(path: Path, spec: KafkaSpec) -> list[schedule.Operation]:
    """``--schedule``'s operations: a text file (``schedule.parse``) or a trace.json's steps
    (``schedule.from_labels``), within the model's bounds; else exit 2 saying why."""
    try:
        if path.suffix == ".json":
            labels = [str(step["action"]) for step in tracefile.load(path)["steps"][1:]]
            ops = schedule.from_labels(labels)
        else:
            ops = schedule.parse(path.read_text(), spec.config.replicas, str(path))
        return schedule.check(ops, spec.config, str(path))
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as exc:
        _fail(EXIT_USAGE, f"--schedule: {exc}")


def _campaign(
    console: Console,
    cluster: Cluster,
    spec: KafkaSpec,
    plan: campaign.Plan,
    done: list[Any],
    shown: bool = True,
) -> None:
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total} schedules"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, transient=True, disable=not shown) as progress:
        task = progress.add_task("schedules", total=plan.schedules)

        def on_cut(seed: int, cut: CutReport) -> None:
            progress.update(task, description=f"seed {seed}: cut {cut.index} ({cut.after})")

        def on_schedule(schedule: ScheduleReport) -> None:
            done.append(schedule)
            conform_terminal.schedule_line(console, report.schedule(schedule))
            progress.advance(task)

        campaign.run(cluster, spec, plan, on_cut, on_schedule)


def _exit_code(schedules: list[dict[str, Any]], partial: bool) -> int:
    n = conform_terminal.counts(schedules)
    if n["reachable"] or n["unreachable"]:
        return EXIT_NONCONFORMING
    if n["unsafe"]:
        return EXIT_VIOLATED
    if partial or n["beyond"]:
        return EXIT_INCOMPLETE
    return EXIT_OK

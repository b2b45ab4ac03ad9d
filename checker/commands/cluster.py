"""``--cluster FILE`` and ``--kafka-version VERSION`` (``hwcheck explore``), and the gate's
``cluster`` / ``kafka_version`` keys: a cluster's settings read (``checker.formats.cluster``),
mapped to the model's options (``checker.composition.cluster``), shown, and answered with the
bounds the verdict holds within (``checker.renderers.cluster``).

A file that cannot be read or a value in it the model cannot take is one line and exit 4 (a
bad input file); a bad ``--kafka-version``, or ``--cluster`` without it, is exit 2.
"""

from __future__ import annotations

import re
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from checker.composition.cluster import ClusterError, Mapping, map_cluster
from checker.formats.cluster import ClusterFileError, read
from checker.renderers import cluster as view
from checker.renderers.terminal import stdout_console
from checker.result import EXIT_BAD_INPUT

CLUSTER_FLAGS = (
    click.option(
        "--cluster",
        "cluster_files",
        multiple=True,
        type=click.Path(path_type=Path, dir_okay=False),
        metavar="FILE",
        help="Your cluster's settings (kafka): a broker's server.properties, then optionally a "
        "topic's settings file (repeat the flag: a later file overrides, as a topic config "
        "overrides the broker's). Sets --truncation, --replicas, --min-isr, --unclean, "
        "--flush and --acks from them (flags you give win) and prints the mapping. Needs "
        "--kafka-version.",
    ),
    click.option(
        "--kafka-version",
        default=None,
        metavar="VERSION",
        callback=lambda ctx, param, value: _version_text(value),
        help="The Kafka version your brokers run, e.g. 3.6.1 (with --cluster): it picks the "
        "release preset. A 4.1 cluster upgraded from an older release runs 4.0's rules until "
        "eligible.leader.replicas.version is raised: give it in the file.",
    ),
)
"""The flags; they arrive as ``cluster_files`` and ``kafka_version``."""


def _version_text(value: str | None) -> str | None:
    """``--kafka-version`` as given, when it is written as a version can be (letters, digits,
    dots and dashes); otherwise ``click.BadParameter`` (exit 2) naming it by ``repr``, so
    no control character of it reaches the terminal in a later message."""
    if value is not None and not re.fullmatch(r"[A-Za-z0-9.\-]{1,40}", value):
        raise click.BadParameter(f"{value!r} is not a Kafka version (e.g. 3.6.1 or kafka-3.6.1)")
    return value


OVERRIDABLE = ("replicas", "min_isr", "unclean_election", "flush", "acks")
"""Model options a cluster file sets and the command line may set instead."""


def mapped(files: tuple[Path, ...], version: str | None, given: dict[str, Any]) -> Mapping:
    """Read ``files`` and map them for Kafka ``version`` with the options ``given`` on the
    command line winning. Raises ``ClusterFileError`` or ``ClusterError``."""
    settings = read(files)
    return map_cluster(version or "", settings, {k: given.get(k) for k in OVERRIDABLE})


def merged(mapping: Mapping, given: dict[str, Any]) -> dict[str, Any]:
    """``given`` (``compose.make_config``'s keys) with the mapping's options: the preset, the
    mapped values where the command line gave none, the mechanisms a ZooKeeper cluster
    lacks added to any ``--without``."""
    out = dict(given)
    for key, value in mapping.options.items():
        if key == "without_mechanisms":
            out[key] = tuple(sorted({*(given.get(key) or ()), *value}))
        elif out.get(key) is None or key == "truncation":
            out[key] = value
    return out


def from_flags(
    model: str, files: tuple[Path, ...], version: str | None, given: dict[str, Any], quiet: bool
) -> tuple[dict[str, Any], Mapping | None]:
    """``(given, mapping)`` for ``explore``: ``given`` as it was when no ``--cluster``, else
    with the cluster's options merged, the mapping table printed (unless ``quiet``: JSON on
    stdout). Exits 2 for a bad or missing ``--kafka-version``, or ``--truncation`` or a
    ``model`` other than kafka beside ``--cluster``; 4 for a file that cannot be read or a
    value the model cannot take."""
    if not files:
        if version is not None:
            raise click.UsageError(
                "--kafka-version goes with --cluster; without a cluster file, --truncation "
                f"{version} runs the preset that models that release"
            )
        return given, None
    if version is None:
        raise click.UsageError(
            "--cluster needs --kafka-version (the version your brokers run, e.g. 3.6.1): a "
            "server.properties does not say it"
        )
    if given.get("truncation") is not None:
        raise click.UsageError("--cluster picks the preset from --kafka-version: drop --truncation")
    if model != "kafka":
        raise click.UsageError("--cluster maps a cluster's settings to the kafka model, not tla")
    try:
        mapping = mapped(files, version, given)
    except ClusterFileError as exc:
        fail(str(exc))
    except ClusterError as exc:
        if not exc.where:
            hint = "--" + exc.option.replace("_", "-")
            raise click.BadParameter(str(exc), param_hint=f"'{hint}'") from None
        fail(str(exc))
    if not quiet:
        stdout_console(120).print(view.mapping_table(mapping))
    return merged(mapping, given), mapping


def fail(message: str) -> None:
    """One line on stderr and exit 4 (a bad input file)."""
    click.echo(f"Error: {message}", err=True)
    sys.exit(EXIT_BAD_INPUT)


def print_answer(mapping: Mapping | None, spec: Any, result: Any, quiet: bool) -> None:
    """After the run: the verdict with its bounds (``view.answer``), when ``--cluster``."""
    if mapping is not None and not quiet:
        console = stdout_console(120)
        console.print()
        console.print(view.answer(mapping, spec.config, result))


def gate_bounds(
    bounds: dict[str, Any], folder: Path
) -> tuple[str | None, dict[str, Any], Mapping | None]:
    """A gate check's ``(truncation, bounds, mapping)``: unchanged without a ``cluster`` key;
    else the preset and the bounds the cluster file gives (files relative to ``folder``, the
    gate file's), the check's own keys winning, ``cluster`` and ``kafka_version`` kept (they
    name what the pins were taken of). Raises ``ClusterFileError`` or ``ClusterError``."""
    if "cluster" not in bounds:
        return None, bounds, None
    files = bounds["cluster"]
    paths = tuple(folder / f for f in ([files] if isinstance(files, str) else files))
    keys = {"unclean": "unclean_election"}
    given = {keys.get(k, k): v for k, v in bounds.items()}
    mapping = mapped(paths, bounds.get("kafka_version"), given)
    out = dict(bounds)
    for key, value in merged(mapping, given).items():
        name = {v: k for k, v in keys.items()}.get(key, key)
        if key in OVERRIDABLE:
            out[name] = value
        elif key == "without_mechanisms":
            out["without"] = list(value)
    return mapping.preset, out, mapping


def gate_check(check: Any, folder: Path) -> Any:
    """The check with a ``cluster`` key's preset and bounds in place (``gate_bounds``)."""
    truncation, bounds, _ = gate_bounds(check.bounds, folder)
    if truncation is None:
        return check
    return replace(check, truncation=truncation, bounds=bounds)

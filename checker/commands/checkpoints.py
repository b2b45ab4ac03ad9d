"""What the checkpoint flags of ``explore``, ``compare``, ``gate`` and ``simulate``
(``checkpoint_flags.CHECKPOINT_FLAGS``: ``--checkpoint``, ``--checkpoint-every``,
``--checkpoint-required``, ``--resume``) decide: where each search writes its checkpoints,
which checkpoint it goes on from, and the lines a person reads at the end (how to resume). The files themselves are ``checker.checkpoint``'s.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import os
import re
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from checker.checkpoint.format import DEFAULT_EVERY, MANIFEST, CheckpointError
from checker.checkpoint.read import load
from checker.checkpoint.saving import SaveOptions
from checker.checkpoint.write import Checkpointer
from checker.limits import CANCELLED, Limits, interrupted
from checker.native import certificate
from checker.native.layout import compiled_model
from checker.result import EXIT_BAD_INPUT, CheckResult
from checker.search import CoreName

RUN_FOLDER = "run-folder.txt"
"""Beside a checkpoint kept to resume: its run's report folder (relative to it), where the
resumed run writes its reports too, so they stay with the checkpoint they go on from."""


@dataclass
class Plan:
    """Where the searches of one command save and resume. ``base``: the checkpoint folder
    (None: ``<run folder>/checkpoint``, decided per run); ``every`` (seconds, 0: off);
    ``required``; ``resuming``: go on from ``base``; ``explicit``: the folder was named on
    the command line (kept at the end). ``used``: the folders written, by run key."""

    base: Path | None = None
    every: float = DEFAULT_EVERY
    required: bool = False
    resuming: bool = False
    explicit: bool = False
    used: dict[str, Checkpointer] = field(default_factory=dict)
    root: Path | None = None  # the folder --resume takes (set by ``folder``)
    created: Path | None = None
    url: str | None = None  # a Hadoop URL given instead (explore: ``url_plan.UrlPlan``)
    spark: Any = None  # the command's ``SparkOptions``: the JVM a URL is reached through

    def folder(self, run_folder: Path, key: str = "", work_dir: str | None = None) -> Path:
        """The checkpoint folder of the run ``key`` ("" for a lone search)."""
        base = self.base or (
            Path(work_dir) / "checkpoint" if work_dir else run_folder / "checkpoint"
        )
        if self.root is None:  # the outermost folder this plan creates, removed if left empty
            self.created = next(
                (p for p in reversed([base, *base.parents]) if not p.exists()), None
            )
        self.root = base
        return base / key if key else base

    def earlier(self) -> Path | None:
        """Resuming: the report folder of the run cut short (``RUN_FOLDER``; None: none noted)."""
        base = self.base if self.resuming else None
        with contextlib.suppress(OSError, UnicodeDecodeError):
            noted = (base / RUN_FOLDER).read_text(encoding="utf-8").strip() if base else ""
            return Path(os.path.normpath(base / noted)) if base and noted else None
        return None

    def options(
        self, folder: Path, identity: dict[str, Any], spec: Any, fresh_ok: bool = False
    ) -> SaveOptions:
        """``SaveOptions`` for one search whose checkpoints live in ``folder``; with
        ``fresh_ok`` (a run of compare or gate not reached before) a folder without a
        checkpoint starts afresh.

        Raises ``CheckpointError`` when resuming from a checkpoint that is missing, damaged
        or written for something else; ``click.UsageError`` when a new search would write
        over a checkpoint already in ``folder`` (``url_plan.UrlPlan`` for a URL)."""
        if not self.resuming and self.every > 0 and (folder / MANIFEST).exists():
            if self.explicit:
                raise click.UsageError(
                    f"{folder} holds a checkpoint already: go on from it "
                    f"with --resume {_quote(self.root or folder)}, or "
                    "delete it"
                )
            shutil.rmtree(folder, ignore_errors=True)  # a default place, of a run now gone
        loaded = None
        if self.resuming and not (fresh_ok and not (folder / MANIFEST).exists()):
            loaded = load(folder, identity)
        writer = None
        if self.every > 0:
            writer = Checkpointer(folder, identity, self.every, self.required, warn, loaded)
            writer.keep_final = self.explicit or fresh_ok  # a folder named, or compare's cells
            self.used[str(folder)] = writer
        return SaveOptions(writer, loaded, compiled_model(spec)[0])


def save_options(
    plan: Plan | None, checkpoint_at: Any, spec: Any, what: tuple[Any, ...]
) -> SaveOptions:
    """The ``SaveOptions`` of one search of ``spec``: none without a ``plan``, else in the
    folder ``checkpoint_at(spec)`` gives (with whether a missing checkpoint there starts
    afresh); ``what`` is ``identity``'s arguments. Exits 4 when the checkpoint to resume is
    refused."""
    if plan is None or checkpoint_at is None:
        return SaveOptions()
    folder, fresh_ok = checkpoint_at(spec)
    try:
        return plan.options(folder, identity(*what), spec, fresh_ok)
    except CheckpointError as exc:
        refuse(exc)
    raise AssertionError  # refuse exits


def local_core(save: SaveOptions, core: CoreName) -> CoreName:
    """The core the local engine resumes on: the reference core when the checkpoint has no
    compiled seen set (a partitioned engine wrote it), saying so once on stderr."""
    if (
        core == "compiled"
        and save.resume is not None
        and "seen" not in save.resume.manifest["files"]
        and save.resume.manifest["frontier_size"]
    ):
        if not _noted:
            _noted.append(True)
            click.echo(
                "Note: the checkpoint holds no compiled-core seen set (the reference "
                "core or a partitioned engine wrote it), so the local engine goes on "
                "from it on the reference core.",
                err=True,
            )
        return "reference"
    return core


_noted: list[bool] = []


def plan_from(kwargs: dict[str, Any], urls: bool = False) -> Plan:
    """Pop the checkpoint flags from a command's ``kwargs``; ``urls``: the command takes a
    URL for them (explore). Raises ``click.UsageError`` for ``--checkpoint`` with
    ``--resume`` naming another place, or a URL where the command takes none."""
    folder, resume = kwargs.pop("checkpoint_dir"), kwargs.pop("resume_dir")
    every, required = kwargs.pop("checkpoint_every"), kwargs.pop("checkpoint_required")
    if resume is not None and folder is not None and str(folder) != str(resume):
        raise click.UsageError(
            "--resume goes on writing checkpoints in its own folder; leave --checkpoint out"
        )
    base = resume or folder
    url = base if isinstance(base, str) else None
    if url and not urls:
        raise click.UsageError(
            f"{url}: only explore keeps checkpoints at a URL; give a folder here"
        )
    folder_base = None if url else base
    return Plan(folder_base, every, required, resume is not None, base is not None, url=url)


def warn(message: str) -> None:
    """Say on stderr (once per failure) that a checkpoint could not be written."""
    click.echo(message, err=True)


def identity(
    model: str,
    config: Any,
    names: tuple[Any, ...],
    chosen: list[Any],
    symmetry: bool,
    limits: Limits,
) -> dict[Any, Any]:
    """What a checkpoint must match to be resumed, as JSON: the model, the digest of its
    Python code (``certificate.model_digest``: spec, invariants, fingerprint, canonical
    form), its bounds (every config field), the ``--invariant`` names and the properties
    checked, symmetry, the depth bound and ``stop_on_first`` (which change the answers).
    Time limits may differ. ``core_code``, the certificate's digest of both cores and the
    engines, is matched only by a checkpoint holding the compiled core's rows or row
    hashes (``checker.checkpoint.identity.holds_core_parts``): an engine edit leaves every
    other checkpoint resumable, and a docstring edit none orphaned."""
    identity = {
        "tool": "hwcheck",
        "code": certificate.model_digest(),
        "core_code": certificate.digest(),
        "model": model,
        "config": dataclasses.asdict(config),
        "invariants": sorted(names),
        "properties": sorted(p.name for p in chosen),
        "symmetry": bool(symmetry),
        "max_depth": limits.max_depth,
        "stop_on_first": limits.stop_on_first,
    }
    as_json: dict[str, Any] = json.loads(json.dumps(identity))  # tuples become lists
    return as_json


def refusing(function: Any) -> Any:
    """Decorate a command's helper so a ``CheckpointError`` (a file found damaged while a
    search resumes) ends the command as ``refuse`` does."""

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except CheckpointError as exc:
            refuse(exc)

    return wrapper


class Refused(click.ClickException):
    """A checkpoint that cannot be resumed: click prints "Error: cannot resume: ..." once the
    command has unwound (after any progress display is gone), exit 4."""

    exit_code = EXIT_BAD_INPUT


def refuse(exc: CheckpointError) -> None:
    """End the command: one line on stderr, exit 4 (raises ``Refused``)."""
    raise Refused(f"cannot resume: {exc}")


def partial(result: CheckResult) -> bool:
    """Whether the search was cut short (Ctrl-C, SIGTERM, a time limit, a cancel or a failed
    required checkpoint): its checkpoint is what resumes it."""
    reason = result.reason
    return (
        interrupted(reason)
        or reason == CANCELLED
        or reason.startswith(("time limit", "cannot write the checkpoint"))
    )


def finish(
    plan: Plan, cut: bool, command: str, same_flags: bool = False, reports: Path | None = None
) -> None:
    """At the end of a command: when ``cut``, say on stderr (the last line) how to resume
    from the checkpoint written (``same_flags``: the command's flags must be given again)
    and note its run's report folder ``reports`` beside it (``RUN_FOLDER``); else delete
    checkpoints in the default place."""
    written = [w for w in plan.used.values() if w.saved_level]
    if cut:
        where: Any = plan.url or plan.root
        if written and where is not None:
            if reports is not None and plan.root is not None:
                with contextlib.suppress(OSError, ValueError):  # then --resume makes a new one
                    relative = os.path.relpath(reports, plan.root)
                    (plan.root / RUN_FOLDER).write_text(relative + "\n", encoding="utf-8")
            sys.stdout.flush()
            if plan.url is None:  # the disk it takes, and how to free it (issue 64)
                click.echo(
                    f"Checkpoint kept: {where} ({_size(where)}); if you will not resume, "
                    f"delete it: rm -r {_quote(where)}",
                    err=True,
                )
            again = f"--resume {_quote(where)}"
            click.echo(
                f"Resume with: the same hwcheck {command} command and {again}"
                if same_flags
                else f"Resume with: hwcheck {command} {again}",
                err=True,
            )
        elif plan.used:
            click.echo("No checkpoint was written, so this run cannot be resumed.", err=True)
        return
    if not plan.explicit:
        for writer in plan.used.values():
            shutil.rmtree(writer.folder, ignore_errors=True)
        if plan.root is not None and plan.created is not None:
            for folder in [plan.root, *plan.root.parents]:  # the empty folders it made
                try:
                    folder.rmdir()
                except OSError:
                    break
                if folder == plan.created:
                    break


def _size(folder: Path) -> str:
    """The bytes under ``folder`` in MiB (KiB below one), each file once however many links
    it has (a run of the disk tier is linked into checkpoints, not copied)."""
    sizes: dict[tuple[int, int], int] = {}
    for top, _, files in os.walk(folder):
        for name in files:
            with contextlib.suppress(OSError):
                info = os.stat(os.path.join(top, name))
                sizes[(info.st_dev, info.st_ino)] = info.st_size
    total = sum(sizes.values())
    return f"{total / 2**20:,.0f} MiB" if total >= 2**20 else f"{total / 2**10:,.0f} KiB"


def _quote(path: Path) -> str:
    text = str(path)
    return (
        text
        if re.fullmatch(r"[A-Za-z0-9_./:@+-]+", text)
        else "'" + text.replace("'", "'\\''") + "'"
    )

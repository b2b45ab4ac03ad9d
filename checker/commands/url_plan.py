"""``explore --checkpoint URL`` / ``--resume URL``: a checkpoint on a Hadoop URL
(``checker.spark.checkpoints``), reached through the Spark JVM, which is started here, with
the command's Spark options, before the search (the local engine uses it only to read and
write the checkpoint).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from checker.checkpoint.format import CheckpointError
from checker.checkpoint.saving import SaveOptions
from checker.commands import checkpoints, engines
from checker.native.layout import compiled_model


def plan_from(flags: dict[str, Any], spark: Any) -> checkpoints.Plan:
    """``checkpoints.plan_from`` for explore, whose flags may name a URL (then a ``UrlPlan``
    whose JVM starts with the ``SparkOptions`` ``spark``)."""
    plan = checkpoints.plan_from(flags, urls=True)
    if plan.url is None:
        return plan
    fields = {f.name: getattr(plan, f.name) for f in dataclasses.fields(plan) if f.init}
    return UrlPlan(**{**fields, "spark": spark})


def place(url: str, spark: Any = None) -> Any:
    """The ``checker.spark.hadoop.Place`` of ``url``, the Spark context started with the
    ``SparkOptions`` ``spark`` (None: the defaults). Exits 5 when Spark cannot run; raises
    ``OSError`` when Hadoop has no file system for the URL."""
    from checker.spark import hadoop, session

    try:
        sc = session.context(spark or session.SparkOptions())
    except session.SparkUnavailable as exc:
        engines._cannot_run(exc)
    return hadoop.Place(sc, url)


def manifest(url: str, spark: Any = None) -> dict[str, Any]:
    """The newest manifest at ``url``. Raises ``CheckpointError`` when there is none or it
    cannot be read."""
    from checker.spark import checkpoints as at_url

    try:
        return at_url.read_manifest(place(url, spark))
    except OSError as exc:
        raise CheckpointError(f"{url} cannot be read: {exc}") from None


@dataclass
class UrlPlan(checkpoints.Plan):
    """A ``Plan`` whose one search saves and resumes at ``url``."""

    def folder(self, run_folder: Path, key: str = "", work_dir: str | None = None) -> Path:
        return Path(run_folder)  # (no folder: the URL is the place)

    def options(
        self, folder: Path, identity: dict[str, Any], spec: Any, fresh_ok: bool = False
    ) -> SaveOptions:
        """Resume from the checkpoint at ``url`` and write the next ones there
        (``UrlCheckpointer``). Raises ``CheckpointError`` as ``Plan.options`` does,
        ``click.UsageError`` when a new search would write over a checkpoint at the URL or
        Hadoop cannot reach it."""
        from checker.spark import checkpoints as at_url

        url = str(self.url)
        try:
            where = place(url, self.spark)
            loaded = at_url.load(where, identity) if self.resuming else None
            if not self.resuming and self.every > 0 and at_url.newest(where):
                raise click.UsageError(
                    f"{url} holds a checkpoint already: go on from it with --resume {url}, "
                    "or delete it"
                )
        except OSError as exc:
            if self.resuming:
                raise CheckpointError(f"{url} cannot be read: {exc}") from None
            raise click.UsageError(f"--checkpoint {url}: {exc}") from None
        writer = None
        if self.every > 0:
            writer = at_url.UrlCheckpointer(
                where, identity, self.every, self.required, checkpoints.warn, loaded
            )
            self.used[url] = writer
        return SaveOptions(writer, loaded, compiled_model(spec)[0])

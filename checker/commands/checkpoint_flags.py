"""The checkpoint flags every searching command shares (``--checkpoint``,
``--checkpoint-every``, ``--checkpoint-required``, ``--resume``) and what a checkpoint's place
may be: a folder, or a Hadoop URL (``checker.commands.checkpoints`` plans the run from them)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import click

from checker.checkpoint.format import DEFAULT_EVERY
from checker.commands.values import Seconds

URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")


def is_url(text: str | None) -> bool:
    """Whether ``text`` is a URL with a scheme (``file:///x``, ``hdfs://nn/x``), not a
    plain path (a Windows drive letter is not a scheme: it has no ``//``)."""
    return bool(text) and URL.match(str(text)) is not None


class FolderOrUrl(click.Path):
    """A folder (a ``pathlib.Path``, as ``click.Path(file_okay=False)`` checks it), or a URL
    with a scheme (``file:///x``, ``hdfs://nn/x``: ``is_url``), kept as
    the text given."""

    name = "folder_or_url"

    def __init__(self) -> None:
        super().__init__(file_okay=False, path_type=Path)

    def convert(self, value: Any, param: Any, ctx: Any) -> Any:
        if isinstance(value, str) and is_url(value):
            return value
        return super().convert(value, param, ctx)


CHECKPOINT_FLAGS = (
    click.option(
        "--checkpoint",
        "checkpoint_dir",
        default=None,
        metavar="DIR|URL",
        type=FolderOrUrl(),
        help="Folder for checkpoints [<run folder>/checkpoint; Spark with --work-dir: "
        "<work dir>/checkpoint]. Kept when the run is cut short, deleted when "
        "it finishes (unless given here). explore also takes a Hadoop URL (file://, "
        "hdfs://, s3a://): Spark's tasks write the checkpoint there.",
    ),
    click.option(
        "--checkpoint-every",
        type=Seconds(min=0),
        default=DEFAULT_EVERY,
        show_default=True,
        metavar="SECONDS",
        help="Seconds between checkpoints, taken at level boundaries; one more is "
        "taken when the run ends or is interrupted (0: none at all).",
    ),
    click.option(
        "--checkpoint-required",
        is_flag=True,
        help="Stop (INCOMPLETE, exit 3) when a checkpoint cannot be written "
        "(default: say so once and go on).",
    ),
    click.option(
        "--resume",
        "resume_dir",
        default=None,
        metavar="DIR|URL",
        type=FolderOrUrl(),
        help="Go on from the checkpoint in DIR (explore: or at a URL): the same answers as one run. Any "
        "engine, worker or partition count (a search spilled past --memory: the local engine "
        "on the compiled core only); the model, bounds and properties "
        "are the checkpoint's (flags that differ are refused, exit 4).",
    ),
)
"""The flags; they arrive as keyword arguments (``checkpoints.plan_from`` takes them)."""

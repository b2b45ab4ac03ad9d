"""``explore --resume``: the options a checkpoint (a folder, or at a URL: ``url_plan``) was
written with, which the command takes where its own flags leave them out.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from checker.checkpoint.format import FORMAT, MANIFEST, CheckpointError, check_seal
from checker.commands import url_plan
from checker.commands.checkpoints import refuse
from checker.composition import compose
from checker.jsontext import Unusable, parse, unreadable
from checker.limits import Limits
from spec.kafka import plugins


def resumed(
    saved: dict[str, Any],
    model: str | None,
    given: dict[str, Any],
    names: tuple[Any, ...],
    limits: Limits,
    symmetry: bool | None,
) -> tuple[Any, ...]:
    """``explore --resume``: the options the checkpoint was written with (``saved``, from
    ``saved_options``), where the command left them out: ``(model, given, names, limits,
    symmetry)``. ``model`` None: not given. An option given that differs is kept, and
    refused by ``load`` with a message naming it."""
    config = saved["config"]
    name = model or saved["model"]
    truncation = given.get("truncation") or config.get("truncation")

    def filled(key: str, value: Any) -> Any:
        # a saved field the model's module does not have (the tla model's KafkaReplication
        # writes AsyncIsr's max_offset too) stays unset, as it was on the command line
        if value is not None or not compose.applies(name, key, truncation):
            return value
        return config.get(key)

    given = {key: filled(key, value) for key, value in given.items()}
    limits = dataclasses.replace(
        limits,
        max_depth=saved["max_depth"] if limits.max_depth is None else limits.max_depth,
        stop_on_first=limits.stop_on_first or saved["stop_on_first"],
    )
    return (
        model or saved["model"],
        given,
        tuple(names) or tuple(saved["invariants"]),
        limits,
        saved["symmetry"] if symmetry is None else symmetry,
    )


def saved_options(folder: Path | str, spark: Any = None) -> dict[str, Any]:
    """The model, config, ``--invariant`` names, symmetry and depth bound a checkpoint was
    written with (``folder``: a folder, or a URL reached through Spark started with the
    ``SparkOptions`` ``spark``). Exits 4 when there is no readable manifest (the full check
    is ``checker.checkpoint.read.load``), or when it names a variant file the user did not
    name on the command line (``spec.kafka.plugins.require_trusted``)."""
    try:
        if isinstance(folder, str):
            manifest = url_plan.manifest(folder, spark)
        else:
            manifest = parse((Path(folder) / MANIFEST).read_text(encoding="utf-8"))
        if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
            raise CheckpointError(f"{folder}: its manifest is not an hwcheck checkpoint's")
        check_seal(manifest, str(Path(folder) / MANIFEST) if isinstance(folder, Path) else folder)
        if manifest.get("kind") == "simulate":
            refuse(
                CheckpointError(
                    f"{folder} holds a simulation's checkpoint: resume it "
                    "with hwcheck simulate --resume"
                )
            )
        config = manifest.get("config")
        named = config.get("variant_file") if isinstance(config, dict) else None
        if named is not None:  # a checkpoint can be shared: it never vouches for code
            try:
                plugins.require_trusted(str(named))
            except plugins.UntrustedFile as exc:
                refuse(CheckpointError(f"{folder}: its manifest {exc}"))
        try:  # a bound out of range or of the wrong type is the file's fault: exit 4, not 2
            model, truncation = str(manifest.get("model")), (config or {}).get("truncation")
            own = {k: v for k, v in (config or {}).items() if compose.applies(model, k, truncation)}
            compose.make_config(model, own).validate()
        except (ValueError, TypeError) as exc:
            refuse(
                CheckpointError(f"{folder}: its manifest's config is not one hwcheck runs: {exc}")
            )
        return {
            key: manifest[key]
            for key in (
                *("model", "config", "invariants", "symmetry", "max_depth", "stop_on_first"),
                *("search", "frontier_size"),
            )
        }
    except CheckpointError as exc:
        refuse(exc)
    except FileNotFoundError:
        refuse(CheckpointError(f"{folder} holds no checkpoint (no {MANIFEST})"))
    except (json.JSONDecodeError, UnicodeDecodeError, Unusable) as exc:
        refuse(CheckpointError(f"{Path(folder) / MANIFEST}: {unreadable(exc)}"))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        refuse(
            CheckpointError(
                f"{Path(folder) / MANIFEST} is not an hwcheck checkpoint ({type(exc).__name__})"
            )
        )
    raise AssertionError  # refuse exits

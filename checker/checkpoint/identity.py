"""Whether a checkpoint is the one a command may resume: its manifest's format, version and
seal, the files its parts need, and its identity (``checker.commands.checkpoints.identity``:
the model and its code, the bounds, the properties, symmetry, the depth bound) field by
field, each difference said in one sentence (the CLI exits 4)."""

from __future__ import annotations

from typing import Any

from checker.checkpoint.format import FORMAT, VERSION, CheckpointError, check_seal


def check_manifest(manifest: Any, identity: dict[str, Any], where: str) -> None:
    """Raise ``CheckpointError`` unless ``manifest`` (read from ``where``) is an hwcheck
    checkpoint of this format version, sealed as written (``format.check_seal``), for this
    command's ``identity``."""
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise CheckpointError(f"{where} is not an hwcheck checkpoint")
    if manifest.get("version") != VERSION:
        raise CheckpointError(
            f"{where} is format version {manifest.get('version')}; this "
            f"hwcheck reads version {VERSION}"
        )
    check_seal(manifest, where)
    _check_parts(manifest, where)
    for key, want in identity.items():
        if key == "core_code" and not holds_core_parts(manifest):
            continue
        have = manifest.get(key)
        if have != want:
            raise CheckpointError(differs(key, have, want))


def holds_core_parts(manifest: dict[str, Any]) -> bool:
    """Whether a checkpoint holds files in the compiled core's own layout (its frontier as
    rows, its seen set as row hashes, levels as parent tables), which only the same core's
    code reads back; level files of fingerprints and a frontier of marshalled states are
    the reference's format (``checker.fingerprint``)."""
    return (
        manifest.get("frontier_kind") == "rows"
        or "frontier_rows" in manifest.get("files", {})
        or "seen" in manifest.get("files", {})
        or bool(manifest.get("seen_runs"))
        or bool(manifest.get("key_levels"))
    )


def _check_parts(manifest: dict[str, Any], where: str) -> None:
    """Raise ``CheckpointError`` when a search's manifest (typed by its schema) lacks a part
    the files it names need: a level from 1 to ``level`` with no file, or a frontier with no
    file or checksum (a Spark checkpoint names its frontier as an entry of its own)."""
    if manifest.get("kind") == "simulate":
        return
    kept = set(manifest["levels"]) | set(manifest.get("key_levels", {}))
    missing = [k for k in range(1, manifest["level"] + 1) if str(k) not in kept]
    if missing:
        raise CheckpointError(f"{where}: field levels: level {missing[0]} has no file named")
    files = manifest["files"]
    needed = [] if "layout" in manifest else ["frontier", "frontier_sum"]
    needed += ["frontier_rows_sum"] if "frontier_rows" in files else []
    needed += ["seen_sum"] if "seen" in files else []
    absent = [name for name in needed if name not in files]
    if absent:
        raise CheckpointError(f"{where}: field files: no {absent[0]}")


def differs(key: str, have: Any, want: Any) -> str:
    """One sentence saying that the checkpoint's ``key`` is ``have`` and this command's
    ``want`` (for a dict, the first field that differs)."""
    if key == "code":
        return (
            "the model's code changed since the checkpoint was written (its digest was "
            f"{str(have)[:12]}…, now {str(want)[:12]}…); a changed model is never resumed"
        )
    if key == "core_code":
        return (
            "the compiled core's code changed since the checkpoint was written (its digest "
            f"was {str(have)[:12]}…, now {str(want)[:12]}…), and the checkpoint holds the "
            "core's rows, which only the same code reads back"
        )
    if isinstance(have, dict) and isinstance(want, dict):
        for field in sorted(set(have) | set(want)):
            if have.get(field) != want.get(field):
                return (
                    f"the checkpoint was written with {field} = {have.get(field)!r}, this "
                    f"command has {want.get(field)!r}"
                )
    return f"the checkpoint's {key} is {have!r}, this command's {want!r}"

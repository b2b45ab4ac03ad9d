"""Reference answers pinned by the certificate: the Python core's answer to a differential
test's question, computed by ``python -m checker.commands.certify`` and read back by the suite
while the sources are the ones certified.

A differential test asks ``reference(key, compute)`` for the reference engine's answer (its
summary as JSON: lists, numbers, strings) to the question ``key``, a string naming everything
the answer depends on that is not certified code (the test's model options, symmetry,
limits). The answer comes from ``tests/data/reference_answers.json`` when that file's digest is
the digest of the sources as they are (``checker.native.certificate.digest``: the model, the
invariants, the reference engine and the C, by their code) and it holds ``key``; otherwise
``compute()`` runs, as before pins. So an edit to certified code makes every answer live
again until the next ``certify``, and an edited question (new options) is a new key.

Certify runs the differential tests with ``$HWCHECK_PIN_REFERENCE`` set to a folder: each
answer is then computed and written there (one file per key, from any xdist worker), and once
the tests pass ``certify`` gathers them into the pin file under the new digest (``collect``).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

PINS = Path(__file__).with_name("data") / "reference_answers.json"
RECORD = "HWCHECK_PIN_REFERENCE"
"""When set: the folder where each computed answer is written (certify), none is read."""


def plain(value: Any) -> Any:
    """``value`` as JSON gives it back: tuples become lists, enums their values."""
    return json.loads(json.dumps(value, default=lambda v: getattr(v, "value", str(v))))


@cache
def _pinned() -> dict[str, Any]:
    """The pin file's answers when its digest is the sources' ({} otherwise)."""
    from checker.native import certificate

    try:
        document = json.loads(PINS.read_text(encoding="utf-8"))
        if document.get("digest") == certificate.digest():
            answers: dict[str, Any] = document["answers"]
            return answers
    except (OSError, ValueError, KeyError, AttributeError):
        pass
    return {}


def reference(key: str, compute: Callable[[], Any]) -> Any:
    """The reference answer to ``key`` (``plain`` JSON): pinned, or ``compute()``'s."""
    folder = os.environ.get(RECORD)
    if not folder:
        pinned = _pinned()
        if key in pinned:
            return pinned[key]
        return plain(compute())
    answer = plain(compute())
    name = hashlib.sha256(key.encode()).hexdigest()[:24]
    Path(folder, f"{name}.json").write_text(json.dumps({key: answer}), encoding="utf-8")
    return answer


def recorded() -> str:
    """The digest the pin file's answers were computed on ("" when there is none)."""
    try:
        digest: str = json.loads(PINS.read_text(encoding="utf-8")).get("digest", "")
        return digest
    except (OSError, ValueError, AttributeError):
        return ""


def collect(folder: Path, digest: str) -> int:
    """Write the answers recorded in ``folder`` to the pin file under ``digest``; return
    how many. Raises ``OSError`` when the file cannot be written."""
    answers: dict[str, Any] = {}
    for path in sorted(folder.glob("*.json")):
        answers.update(json.loads(path.read_text(encoding="utf-8")))
    lines = [
        f"{json.dumps(k)}: {json.dumps(v, separators=(',', ':'))}"
        for k, v in sorted(answers.items())
    ]
    text = f'{{"digest": "{digest}", "answers": {{\n' + ",\n".join(lines) + "\n}}\n"
    PINS.write_text(text, encoding="utf-8")  # an answer a line: a re-issue's diff reads
    return len(answers)

"""Schedule files for ``hwcheck scenario``: a hand-written run of the model, one action label
per line.

An example:

    # hwcheck: --replicas 2 --truncation hw --max-records 3
    # Any other line starting with # is a comment; so is anything after a # on a label line.
    Elect(leader=0)
    BecomeLeader(replica=0, epoch=0)
    Produce(leader=0)          # m0 at offset 0

- The header, ``# hwcheck:`` and the command-line flags that set the model and its bounds
  (those of ``hwcheck explore``), may appear once, before the first label. Without it the
  model's defaults apply.
- Every other non-blank line is one action label as ``hwcheck list`` names the actions and
  traces print them (``checker.model.Label``): named literal arguments only.

``load`` reads a file; ``parse`` reads text. Both raise ``ScheduleError`` naming the file and
line for anything they cannot read: no such file, a second header, a header after the first
label, a line that is not an action label, or no label at all.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path

from checker.model import Label

HEADER = "# hwcheck:"
"""How the header line starts (then the model's command-line flags)."""

DESCRIPTION = """\
A schedule is a run of the model written by hand, one action a line, for `hwcheck scenario
FILE` and `hwcheck serve --scenario FILE`. hwcheck plays it from the model's initial state,
each line's action in turn, and judges every invariant and transition property at every step.

```text
# hwcheck: --replicas 2 --truncation hw --max-records 3
# Any other line that starts with # is a comment,
Elect(leader=0)
BecomeLeader(replica=0, epoch=0)
Produce(leader=0)   # and so is the rest of a line after a #.
```

- **The header**, `# hwcheck:` and the flags of `hwcheck explore` that set the model and its
  bounds, may appear once, before the first action. Without it the model's defaults apply;
  flags given on the command line override the header's.
- **Every other line** that is neither blank nor a comment is one action, written as traces
  print it and `hwcheck list` names it: the action, then its arguments by name,
  `Fetch(follower=1, leader=0)`.
- A schedule hwcheck cannot play ends the command with one message naming the file and line,
  exit 4: no such file, a second header or one after the first action, a line that is not an
  action or names one the model does not have, no action at all, or an action that is not
  enabled where the schedule takes it.
"""
"""The file format as the documentation's File formats page shows it (Markdown)."""


class ScheduleError(ValueError):
    """A schedule file that cannot be read; the message names the file and line."""


@dataclass(frozen=True)
class Step:
    """One label line: ``line`` (1-based line number in the file), ``text`` as written (without
    its comment) and the parsed ``label``."""

    line: int
    text: str
    label: Label


@dataclass(frozen=True)
class Schedule:
    """A parsed schedule: ``path`` it was read from, ``header`` (the flags after ``# hwcheck:``,
    split as a shell would; ``()`` without a header) and ``header_line`` (0 without one), and
    ``steps`` in file order (at least one)."""

    path: Path
    header: tuple[str, ...]
    header_line: int
    steps: tuple[Step, ...]

    def where(self, line: int) -> str:
        """``"FILE line N"`` for messages."""
        return f"{self.path} line {line}"


def load(path: Path) -> Schedule:
    """The schedule in the file at ``path``. Raises ``ScheduleError`` when the file cannot be
    read (missing, a folder, not UTF-8) or ``parse`` rejects it."""
    try:
        text = path.read_text(encoding="utf-8-sig")  # a byte-order mark, as editors write
    except UnicodeDecodeError:
        raise ScheduleError(f"{path}: not a text file (UTF-8)") from None
    except OSError as exc:
        raise ScheduleError(f"{path}: cannot read it: {exc.strerror or exc}") from None
    return parse(text, path)


def parse(text: str, path: Path) -> Schedule:
    """The schedule written in ``text`` (read from ``path``, named in messages). Raises
    ``ScheduleError`` for a second header, a header after a label, a header that is not valid
    shell words, a line that is not an action label, or no label at all."""
    header: tuple[str, ...] = ()
    header_line = 0
    steps: list[Step] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if line.startswith(HEADER):
            where = f"{path} line {number}"
            if header_line:
                raise ScheduleError(f"{where}: a second header (the first is line {header_line})")
            if steps:
                raise ScheduleError(f"{where}: the header must come before the first action")
            try:
                header = tuple(shlex.split(line[len(HEADER) :]))
            except ValueError as exc:
                raise ScheduleError(f"{where}: the header is not valid flags ({exc})") from None
            header_line = number
            continue
        body = line.split("#", 1)[0].strip()
        if not body:
            continue
        try:
            label = Label.parse(body)
        except ValueError as exc:
            raise ScheduleError(
                f"{path} line {number}: {exc}; an action is written as in traces, "
                "e.g. Fetch(follower=1, leader=0)"
            ) from None
        steps.append(Step(number, body, label))
    if not steps:
        raise ScheduleError(f"{path}: no action in it (one action label per line)")
    return Schedule(path, header, header_line, tuple(steps))

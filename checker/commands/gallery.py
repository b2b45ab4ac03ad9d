"""``reports/gallery/``: the canonical counterexamples, each as ``trace.json`` + ``trace.html``.

Regenerate with ``python -m checker.commands.gallery`` (a test fails when the committed files are
out of date), then ``hwcheck gate --update``: the gate replays every gallery trace against its
pins in ``hwcheck-gate.lock``. Each entry is a search, not a hand-written trace: the shortest
counterexample the local engine finds for a property under a configuration; except the
flagship, ``hw-truncation-loss``, which is the seed articles' own schedule
(``spec.kafka.seeds.LOSS``: a follower restarts with a lagging HW, truncates to it, and is
elected), cut where NoCommittedLoss first fails, so the first trace a learner opens tells
the story they read about.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from checker.bfs import explore
from checker.fingerprint import fingerprint
from checker.formats import report
from checker.limits import interrupted
from checker.model import Label
from checker.models import compose
from checker.models.compose import build_model, choose, make_config
from checker.renderers import html
from checker.result import EXIT_INCOMPLETE, Violation
from checker.trace import replay
from spec.kafka import seeds

ROOT = Path(__file__).resolve().parents[2] / "reports" / "gallery"


@dataclass(frozen=True)
class Entry:
    """One gallery item: ``folder`` name, ``title``, the model ``options`` (``MODEL_OPTIONS``
    names), the violated ``prop`` to show and the ``model`` (``kafka`` or ``tla``). A bug-zoo
    entry also names its Kafka ``ticket``, the ``fixed`` options (changed from ``options``)
    under which ``prop`` holds at the same bounds, and ``fix``: what the fix changed (the
    story's last sentence). An entry with a ``schedule`` (action labels) is that
    hand-written schedule up to the first state violating ``prop``, not a search."""

    folder: str
    title: str
    options: tuple[tuple[str, Any], ...]
    prop: str
    model: str = "kafka"
    ticket: str = ""
    fixed: tuple[tuple[str, Any], ...] = ()
    fix: str = ""
    schedule: tuple[str, ...] = ()

    def fixed_options(self) -> dict[str, Any]:
        """The options of the fixed variant (empty when the entry has none)."""
        return {**dict(self.options), **dict(self.fixed)} if self.fixed else {}


_R2 = (("replicas", 2), ("max_epoch", 1))

ENTRIES = (
    Entry("hw-truncation-loss", "HW truncation loses a committed record: a follower restarts "
          "with a lagging HW, truncates to it, and is elected (2 replicas)",
          (("replicas", 2), ("truncation", "hw"), ("max_records", 2), ("max_epoch", 1),
           ("max_crashes", 2)), "NoCommittedLoss",
          ticket="KAFKA-1211", fixed=(("truncation", "kip101"),),
          fix="KIP-101 (kip101) truncates to the leader's end offset for the follower's "
              "latest epoch instead of the follower's own HW, so the follower keeps m1.",
          schedule=seeds.LOSS),
    Entry("hw-truncation-divergence", "HW truncation forks the committed log (2 replicas)",
          (("replicas", 2), ("truncation", "hw"), ("max_epoch", 1)), "NoDivergence",
          ticket="KIP-101", fixed=(("truncation", "kip101"),),
          fix="KIP-101 (kip101) asks the new leader where the follower's epoch ends, so the "
              "follower drops the record the leader does not hold instead of keeping it "
              "below its HW."),
    Entry("kip101-hole", "KIP-101's epoch lookup still diverges after fast leader changes "
          "(2 replicas, 3 records, epoch 2, 2 crashes)",
          (("replicas", 2), ("truncation", "kip101"), ("max_records", 3), ("max_epoch", 2),
           ("max_crashes", 2)), "NoDivergence",
          ticket="KAFKA-6361", fixed=(("truncation", "kip279"),),
          fix="KIP-279 (kip279) truncates after the last record both logs share, not at the "
              "end offset of an epoch, so records of different epochs at the same offset "
              "are never kept."),
    Entry("kip279-hole", "KIP-279 matches against a stale leader and loses a committed record "
          "(3 replicas, 1 record, epoch 3, no crash)",
          (("replicas", 3), ("truncation", "kip279"), ("max_records", 1), ("max_epoch", 3),
           ("max_crashes", 0)), "NoCommittedLoss",
          ticket="KIP-320", fixed=(("truncation", "kip320"),),
          fix="KIP-320 (kip320) fences OffsetsForLeaderEpoch with the current leader epoch: "
              "a leader not yet in the request's epoch does not answer, so no follower "
              "truncates against a stale leader."),
    Entry("kip279-divergence", "KIP-279 without fenced fetch forks the committed log "
          "(3 replicas, 2 records, epoch 2, no crash)",
          (("replicas", 3), ("truncation", "kip279"), ("max_records", 2), ("max_epoch", 2),
           ("max_crashes", 0)), "NoDivergence"),
    Entry("zombie-follower", "A zombie follower's unfenced fetch forks the committed log "
          "(kip320 without fenced-fetch; 3 replicas, 2 records, epoch 2, no crash)",
          (("replicas", 3), ("truncation", "kip320"), ("without_mechanisms", ("fenced-fetch",)),
           ("max_records", 2), ("max_epoch", 2), ("max_crashes", 0)), "NoDivergence",
          ticket="KAFKA-6880", fixed=(("without_mechanisms", ()),),
          fix="KIP-320's fetch fence (fenced-fetch) rejects a fetch whose leader epoch is not "
              "the leader's, so a follower of an old epoch cannot count towards the HW."),
    Entry("kip279-hole-tla", "The same KIP-279 hole in the public TLA+ spec: StrongIsr fails "
          "(tla model, 3 replicas)",
          (("replicas", 3), ("truncation", "kip279")), "StrongIsr", model="tla"),
    Entry("unclean-election", "Unclean leader election loses committed data even with KIP-320 "
          "(2 replicas)",
          (("replicas", 2), ("truncation", "kip320"), ("unclean_election", True), ("max_epoch", 1)),
          "NoCommittedLoss", ticket="unclean.leader.election.enable",
          fixed=(("unclean_election", False),),
          fix="With unclean.leader.election.enable=false the controller waits for an ISR "
              "member instead of electing a replica that lacks committed records."),
    Entry("acks-1-loss", "acks=1 loses an acknowledged write (kip320, 2 replicas)",
          (*_R2, ("truncation", "kip320"), ("acks", "1")), "NoAckedLoss",
          ticket="acks=1", fixed=(("acks", "all"),),
          fix="With acks=all the leader acknowledges a write only once it is committed, on "
              "every ISR member."),
    Entry("unclean-shutdown-loss", "The last ISR member loses its unflushed tail in a power "
          "loss (kip320, 2 replicas, 1 unclean shutdown)",
          (*_R2, ("truncation", "kip320"), ("max_unclean_shutdowns", 1)), "NoCommittedLoss",
          ticket="unflushed data", fixed=(("flush", "always"),),
          fix="With an fsync on every append (flush always) a power loss keeps the whole log. "
              "KIP-966 (kip966) does not help here: with min.insync.replicas 1 it tolerates "
              "min ISR - 1 = 0 unclean shutdowns."),
    Entry("last-replica-standing", "KIP-966's last replica standing: below min ISR the last "
          "ISR member commits alone and loses it in a power loss (kip320, 2 replicas, "
          "min ISR 2, 1 unclean shutdown)",
          (*_R2, ("truncation", "kip320"), ("max_records", 1), ("max_crashes", 0),
           ("min_isr", 2), ("max_unclean_shutdowns", 1)), "NoCommittedLoss",
          ticket="KIP-966", fixed=(("truncation", "kip966"),),
          fix="KIP-966 (kip966) lets the HW advance only while the ISR has min.insync.replicas "
              "members, so m0 is not committed on one copy; a replica dropped from an ISR "
              "below min ISR stays electable in the ELR, and one back from an unclean "
              "shutdown leaves ISR and ELR until it catches up."),
)
"""The gallery and the bug zoo (the entries with a ``ticket``), oldest problem first."""


def _search(entry: Entry, options: dict[str, Any]):
    """``(spec, result)`` of exploring ``entry``'s property under ``options``. Raises
    ``KeyboardInterrupt`` again when Ctrl-C cut the search (the engine turns it into a partial
    result; here one Ctrl-C ends the whole script)."""
    spec, props = build_model(entry.model, make_config(entry.model, options))
    result = explore(spec, choose(props, (entry.prop,)))
    if interrupted(result.reason):
        raise KeyboardInterrupt
    return spec, result


def _scenario(entry: Entry):
    """``(spec, violation)``: ``entry.schedule`` played from the initial state, cut at the
    first state that violates ``entry.prop``. Raises ``RuntimeError`` when the schedule ends
    with the property holding, ``NondeterministicSpec`` when a label is not enabled."""
    spec, props = build_model(entry.model, make_config(entry.model, dict(entry.options)))
    prop = choose(props, (entry.prop,))[0]
    init = spec.init_states()[0]
    steps = replay(spec, fingerprint(init), [Label.parse(text) for text in entry.schedule])
    for index, step in enumerate(steps):
        if not prop.predicate(step.state):
            return spec, Violation(prop, tuple(steps[:index + 1]))
    raise RuntimeError(f"{entry.folder}: {entry.prop} holds along its schedule")


def holds_when_fixed(entry: Entry) -> tuple[bool, int, float, str]:
    """Explore ``entry``'s fixed variant for its property: ``(holds, distinct states,
    seconds, the fixed variant's name)``. Raises ``ValueError`` for an entry without a fix."""
    if not entry.fixed:
        raise ValueError(f"{entry.folder} has no fixed variant")
    spec, result = _search(entry, entry.fixed_options())
    holds = not any(v.prop.name == entry.prop for v in result.violations)
    return holds and result.status.value != "INCOMPLETE", result.stats.distinct, \
        result.stats.seconds, compose.variant_of(spec)


def build(folder: Path = ROOT, entries: tuple[Entry, ...] = ENTRIES) -> list[Path]:
    """Search every entry of ``entries`` and write its ``trace.json`` and ``trace.html`` under
    ``folder``; return the files written. Raises ``RuntimeError`` if an entry's property
    holds."""
    written = []
    for entry in entries:
        if entry.schedule:
            spec, violation = _scenario(entry)
        else:
            spec, result = _search(entry, dict(entry.options))
            found = [v for v in result.violations if v.prop.name == entry.prop]
            if not found:
                raise RuntimeError(f"{entry.folder}: {entry.prop} holds; the gallery is wrong")
            violation = found[0]
        document = report.trace_document(spec, violation)
        if entry.fix:
            document["story"].append(f"The fix ({entry.ticket}): {entry.fix}")
        path = folder / entry.folder / "trace.json"
        report.write_json(path, document)
        report.write_text(path.with_name("trace.html"), html.render(document))
        written += [path, path.with_name("trace.html")]
    return written


def zoo_table() -> Iterator[str]:
    """Markdown rows ``| ticket | entry | property | fixed | holds | states | seconds |`` for
    every zoo entry, each fixed variant explored now (the seconds are this machine's), one
    row as each search ends. Raises ``KeyboardInterrupt`` on Ctrl-C."""
    yield "| ticket | gallery entry | property | fixed by | fixed holds | states | seconds |"
    yield "|---|---|---|---|---|---|---|"
    for entry in ENTRIES:
        if entry.fixed:
            holds, states, seconds, name = holds_when_fixed(entry)
            change = ", ".join([name] + [f"{k}={v}" for k, v in entry.fixed
                                         if k not in ("truncation", "without_mechanisms")])
            yield (f"| {entry.ticket} | {entry.folder} | {entry.prop} | {change} | "
                   f"{'yes' if holds else 'NO'} | {states:,} | {seconds:.1f} |")


@click.command()
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path), default=ROOT)
@click.option("--zoo", is_flag=True,
              help="Explore every bug-zoo fix again and print the table instead.")
def main(folder: Path, zoo: bool) -> None:
    """Regenerate the gallery's traces and pages under FOLDER [reports/gallery]. One Ctrl-C
    stops it (exit 3); what was printed is complete, the rest was not run."""
    try:
        if zoo:
            for row in zoo_table():
                click.echo(row)
            return
        for path in build(folder):
            click.echo(path)
    except KeyboardInterrupt:
        click.echo("Interrupted (Ctrl-C): the output above is partial; the rest was not run.",
                   err=True)
        sys.exit(EXIT_INCOMPLETE)


if __name__ == "__main__":
    main()

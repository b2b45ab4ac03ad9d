"""Pages of the documentation site generated from the code (run by mkdocs-gen-files on every
``mkdocs build``), so the reference cannot drift from what hwcheck does:

- ``reference/catalog.md``: the Kafka release presets, every model's variants, mechanisms,
  actions, properties and default bounds (the sections ``hwcheck list`` prints), and each
  action's whole docstring;
- ``reference/formats.md``: the trace file, the run summary, the gate's lock file and the
  catalog (``hwcheck list --json``), from their JSON Schemas;
- ``gallery/``: the gallery's trace files and pages, so the tutorials link to them;
- ``changelog.md`` and ``contributing.md``: the repository's CHANGELOG.md and CONTRIBUTING.md.
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

import mkdocs_gen_files

from checker.composition.compose import build_model
from checker.formats import catalog as catalog_format
from checker.formats import pins, report, schedule, tracefile
from checker.renderers import listing
from spec.kafka import Config, releases, versions
from spec.tla import TlaConfig

ROOT = Path(__file__).resolve().parents[1]


def cell(text: Any) -> str:
    """A table cell: one line, pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def table(columns: tuple[str, ...], rows: Any) -> list[str]:
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return lines + [""]


def catalog() -> str:
    intro = (
        "Generated from the code on every build: the tables are the ones `hwcheck list all` "
        "prints, and each action's section is its docstring, with the rule's source."
    )
    out = ["# Models, actions, properties and mechanisms", "", intro, ""]
    out += [
        "## Kafka releases",
        "",
        "One preset per Kafka release that changed the modelled replication behaviour "
        "(`--truncation kafka-X.Y`; `hwcheck list --json` has the same data). Any other "
        "version, `kafka-X.Y.Z`, `X.Y.Z` or `X.Y`, names the preset that models it; the "
        "release lines and the versions at each boundary: "
        + ", ".join(f"`{k}` is `{v}`" for k, v in versions.VERSIONS.items())
        + ".",
        "",
    ]
    out += table(
        ("preset", "Kafka versions", "mechanisms", "what it does"),
        [
            (r.name, r.kafka, ", ".join((r.rule, *r.switches)), r.description)
            for r in releases.RELEASES
        ],
    )
    out += ["Each preset's sources, and what of its releases the model leaves out:", ""]
    out += [
        f"- **{r.name}**: {r.source}. Left out: {r.left_out or 'nothing'}."
        for r in releases.RELEASES
    ] + [""]
    for model, config in (("kafka", Config()), ("tla", TlaConfig())):
        spec, props = build_model(model, config)
        out += [f"## The {model} model", ""]
        for section in listing.sections(spec, props):
            out += [f"### {section.title[len(model) + 8 :].capitalize()}", ""]
            out += table(section.columns, section.rows)
        out += [f"### Every {model} action in full", ""]
        for name, func in listing.actions(spec):
            out += [f"#### {name}", "", "```text", inspect.cleandoc(func.__doc__ or ""), "```", ""]
    return "\n".join(out)


def schema_rows(schema: dict[str, Any], prefix: str = "") -> list[tuple[str, str, str, str]]:
    """``(field, type, required, description)`` for every field, nested ones dotted."""
    rows = []
    required = set(schema.get("required", ()))
    for name, field in schema.get("properties", {}).items():
        path = prefix + name
        kind = field.get("type", "")
        if "const" in field:
            kind = f"`{json.dumps(field['const'])}`"
        elif "enum" in field:
            kind = " / ".join(f"`{json.dumps(v)}`" for v in field["enum"])
        elif isinstance(kind, list):
            kind = " or ".join(kind)
        rows.append(
            (f"`{path}`", kind, "yes" if name in required else "", field.get("description", ""))
        )
        if field.get("type") == "object":
            rows += schema_rows(field, path + ".")
        extra = field.get("additionalProperties")
        if isinstance(extra, dict) and extra.get("type") == "object":
            rows += schema_rows(extra, path + ".<name>.")
        items = field.get("items", {})
        if isinstance(items, dict) and items.get("type") == "object":
            rows += schema_rows(items, path + "[].")
    return rows


def formats() -> str:
    intro = (
        "Generated from the JSON Schemas hwcheck validates against (JSON Schema 2020-12). "
        "Offsets are 0-based; LEO and HW are exclusive."
    )
    out = ["# File formats", "", intro, ""]
    for title, schema, source in (
        ("Trace file (`trace.json`)", tracefile.schema(), "checker/formats/trace.schema.json"),
        (
            "Run summary (`summary.json`)",
            json.loads(report.SUMMARY_SCHEMA_PATH.read_text()),
            "checker/formats/summary.schema.json",
        ),
        ("Gate lock file (`hwcheck-gate.lock`)", pins.LOCK_SCHEMA, "checker/formats/pins.py"),
        (
            "Catalog (`hwcheck list --json`)",
            catalog_format.schema(),
            "checker/formats/catalog.schema.json",
        ),
    ):
        out += [f"## {title}", "", schema.get("description", ""), "", f"Schema: `{source}`.", ""]
        out += table(("field", "type", "required", "meaning"), schema_rows(schema))
    out += ["## Schedule file (`hwcheck scenario FILE`)", "", schedule.DESCRIPTION, ""]
    out += ["Examples in `examples/scenarios/`.", ""]
    return "\n".join(out)


with mkdocs_gen_files.open("reference/catalog.md", "w") as page:
    page.write(catalog())
with mkdocs_gen_files.open("reference/formats.md", "w") as page:
    page.write(formats())
for path in sorted((ROOT / "reports" / "gallery").glob("*/trace.*")):
    with mkdocs_gen_files.open(f"gallery/{path.parent.name}/{path.name}", "wb") as copy:
        copy.write(path.read_bytes())
for name in ("CHANGELOG.md", "CONTRIBUTING.md"):
    with mkdocs_gen_files.open(name.lower(), "w") as page:
        page.write((ROOT / name).read_text())

"""``hwcheck serve``: the explorer as a local web app (Flask, served by waitress on 127.0.0.1).

Registered by ``checker/cli.py``. Exit codes: 0 after Ctrl-C (the way to stop a server),
2 for a usage mistake (``--trace`` with model flags or with ``--scenario``), 4 for a trace file
that cannot be read or does not replay on this model, or a schedule file (``--scenario``) that
cannot be read or played, 5 when the port cannot be bound (in use, or not allowed).
"""

from __future__ import annotations

import errno
import sys
import webbrowser
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from checker.commands import scenario as scenario_command
from checker.commands.options import bounds, build, model_options, protocol_from
from checker.commands.values import Integer, Seconds
from checker.composition import compose
from checker.composition.compose import SPELLING
from checker.formats import report, tracefile
from checker.renderers import lasso
from checker.renderers import scenario as scenario_view
from checker.result import EXIT_BAD_INPUT, EXIT_ENVIRONMENT, EXIT_OK
from checker.simulate import scenario
from checker.web.app import create_app
from checker.web.explorer import Explorer
from checker.web.jump import Jumps

HOST = "127.0.0.1"
"""The only address the server binds: loopback, so nothing outside this machine reaches it."""

DEFAULT_PORT = 8765


@click.command(name="serve")
@model_options
@click.option(
    "--trace",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Start from this trace.json (its model and bounds; /trace branches from "
    "any of its states).",
)
@click.option(
    "--scenario",
    "scenario_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Start at the end of this schedule file (as hwcheck scenario plays it: its header's "
    "model and bounds, the model flags given here over them).",
)
@click.option(
    "--port",
    type=Integer(0, 65535),
    default=DEFAULT_PORT,
    show_default=True,
    help="TCP port on 127.0.0.1 (0: any free port).",
)
@click.option("--open", "open_browser", is_flag=True, help="Open the page in a browser.")
@click.option(
    "--jump-time-limit",
    type=Seconds(min=0, min_open=True),
    default=300.0,
    show_default=True,
    metavar="SECONDS",
    help='Cut a "jump to a violation" search after this many seconds.',
)
@click.pass_context
def serve_cmd(
    ctx: click.Context,
    /,
    model: str,
    replicas: int | None,
    truncation: str | None,
    max_records: int | None,
    max_epoch: int | None,
    max_crashes: int | None,
    min_isr: int | None,
    unclean: bool | None,
    log_size: int | None,
    names: tuple[str, ...],
    trace: Any,
    scenario_file: Path | None,
    port: Any,
    open_browser: Any,
    jump_time_limit: Any,
    **flags: Any,
) -> None:
    """Explore the state space in the browser: step through actions, branch, jump to a
    violation."""
    path: list[str] = []
    if scenario_file is not None:
        if trace is not None:
            raise click.UsageError("--trace and --scenario both say where to start: give one")
        model, config, path = _from_scenario(ctx, scenario_file)
    given = bounds(
        replicas,
        truncation,
        max_records,
        max_epoch,
        max_crashes,
        min_isr,
        unclean,
        log_size,
        **protocol_from(flags),
    )
    document = None
    if trace is not None:
        named = [  # but the variant file: a trace that names one needs the user to name it
            SPELLING.get(k, f"--{k.replace('_', '-')}")
            for k, v in given.items()
            if v is not None and k != "variant_file"
        ]
        if ctx.get_parameter_source("model") != ParameterSource.DEFAULT:
            named.insert(0, "--model")
        if named:
            raise click.UsageError(
                f"--trace takes the model and bounds from the trace; drop {', '.join(named)}"
            )
        document, explorer = _from_trace(trace, names, given["variant_file"])
    else:
        if scenario_file is None:
            config, _, _ = build(model, given)
        explorer = _explorer(model, config, names)
    jumps = Jumps(jump_time_limit)
    app = create_app(explorer, jumps, document, path if scenario_file is not None else None)
    server = _bind(app, port)
    url = f"http://{HOST}:{server.effective_port}/"
    start, about = url, ""  # one short URL: the app redirects it to the last state
    if document is not None:
        start = f"{url}trace/last"
        about = f"; the trace's last state, state {len(document['steps'])}"
    elif scenario_file is not None:
        start = f"{url}scenario"
        about = f"; {scenario_file.name}'s last state, state {len(path) + 1}"
    click.echo(
        f"hwcheck explorer: {start}  (model {explorer.model}, {explorer.variant}{about}; "
        "Ctrl-C stops it)"
    )
    if document is not None:
        click.echo(f"  the trace page: {url}trace")
        if document.get("loop"):
            click.echo(f"  then: {lasso.loop_line(document['loop'], document['length'])}")
    sys.stdout.flush()
    if open_browser and not webbrowser.open(start):
        click.echo("  (no browser to open here: open the URL yourself)")
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        jumps.stop_all()
        server.close()
    click.echo("hwcheck explorer stopped.", err=True)
    sys.exit(EXIT_OK)


def _explorer(model: str, config: Any, names: Any) -> Explorer:
    try:
        return Explorer(model, config, tuple(names))
    except KeyError as exc:
        raise click.BadParameter(
            f"unknown property {exc.args[0]!r}; see 'hwcheck list properties'",
            param_hint="'--invariant'",
        ) from None


def _from_trace(
    path: Path, names: Any, variant_file: str | None
) -> tuple[dict[Any, Any], Explorer]:
    """The trace's document (a lasso's ``loop.enabled`` told again from the model, as
    ``show`` does) and an explorer on its model; a trace that cannot be read, does
    not replay here (edited, or another hwcheck version) or draws a state otherwise than the
    model (``tracefile.check_pictures``: the trace page draws the file) ends in one message,
    exit 4."""
    try:
        document = tracefile.load(path, variant_file)
        spec, violation = tracefile.replay(path, document)
        tracefile.check_pictures(path, document, spec, violation)  # the trace page draws them
    except tracefile.TraceFileError as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(EXIT_BAD_INPUT)
    if violation.loop is not None:  # the model's own answer on what the loop leaves undone
        drawn = report.loop_document(violation, spec)
        document = {**document, "loop": {**document["loop"], "enabled": drawn["enabled"]}}
    config = compose.make_config(document["model"], dict(document["config"]))
    return document, _explorer(document["model"], config, names)


def _from_scenario(ctx: click.Context, file: Path) -> tuple[str, Any, list[str]]:
    """``(model, config, label texts)`` of the schedule in ``file`` (the model flags of
    ``ctx`` over its header), played to check that every step is enabled; ends the command as
    ``hwcheck scenario`` would (exit 4 for a file that cannot be read or played, 2 for wrong
    flags)."""
    prepared = scenario_command.prepare(ctx, file)
    labels = [step.label for step in prepared.schedule.steps]
    played = scenario.play(prepared.spec, prepared.chosen, labels)
    if played.disabled is not None:
        source = prepared.source(file)
        click.echo(f"Error: {scenario_view.disabled_message(source, played.disabled)}", err=True)
        sys.exit(EXIT_BAD_INPUT)
    return prepared.model, prepared.config, [str(label) for label in labels]


def _bind(app: Any, port: int) -> Any:
    """A waitress server for ``app`` on ``HOST:port``; a port in use or refused is one
    message, exit 5."""
    from waitress.server import create_server

    try:
        return create_server(app, host=HOST, port=port, threads=4, ident="hwcheck")
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            why = "is in use (another hwcheck serve?)"
        else:
            why = f"cannot be bound: {exc.strerror or exc}"
        click.echo(
            f"Error: port {port} on {HOST} {why}; choose another with --port N, or "
            "--port 0 for any free port.",
            err=True,
        )
        sys.exit(EXIT_ENVIRONMENT)

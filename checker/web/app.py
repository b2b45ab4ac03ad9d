"""The explorer's web app (Flask): one page, the trace page with "branch here" links, and the
JSON API under ``/api/`` that README.md documents.

The page and the API take the path as repeated ``step`` query parameters, each an action
label (``/?step=Elect(leader=1)&step=BecomeLeader(replica=1,epoch=0)``), so a URL names a
state and reloading or sharing it lands on the same state. Every text from the model is
escaped by Jinja's autoescaping or ``html.escape`` (``checker.renderers.html``). Errors are one
message, as a page or as ``{"error": ...}`` under ``/api/``, never a traceback.
"""

from __future__ import annotations

import json
import sys
from typing import Any
from urllib.parse import quote

import jsonschema
from flask import Flask, jsonify, redirect, render_template, request
from flask.json.provider import DefaultJSONProvider
from markupsafe import Markup
from werkzeug.exceptions import HTTPException

from checker import __version__
from checker.fingerprint import fingerprint, fp_hex
from checker.jsontext import Unusable, Validator, not_json, not_text, parse
from checker.renderers import html, page
from checker.renderers.steps import config_text
from checker.web import lassoview
from checker.web.explorer import Explorer, Walk, compact
from checker.web.jump import Jumps

MAX_STEPS, MAX_LABEL = 500, 200
"""The longest path the explorer follows, in steps, and the longest label, in characters."""
PATH_SCHEMA = {
    "type": "array",
    "items": {"type": "string", "maxLength": MAX_LABEL},
    "maxItems": MAX_STEPS,
}
STEP_SCHEMA = {
    "type": "object",
    "required": ["action"],
    "additionalProperties": False,
    "properties": {"path": PATH_SCHEMA, "action": {"type": "string"}},
}
JUMP_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "properties": {"path": PATH_SCHEMA, "invariant": {"type": ["string", "null"]}},
}


MAX_BODY = 1 << 20
"""The largest request body the API reads, in bytes (a path of 500 labels is under 100 KiB);
a larger one is answered 413."""


class BadRequest(ValueError):
    """A request the API refuses (HTTP 400); the message says why."""


def path_url(texts: list[str]) -> str:
    """The explorer's URL of the state at the end of ``texts`` (label texts)."""
    if not texts:
        return "/"
    return "/?" + "&".join("step=" + quote(compact(t), safe="(),=") for t in texts)


class _InOrder(DefaultJSONProvider):
    """Flask's JSON, keys kept in the order the explorer builds them (not sorted)."""

    sort_keys = False


class _App(Flask):
    json_provider_class = _InOrder


def create_app(
    explorer: Explorer,
    jumps: Jumps,
    trace: dict[str, Any] | None = None,
    scenario: list[str] | None = None,
) -> Flask:
    """The app for ``explorer``'s model; ``trace`` (a ``trace.json`` document that replays on
    it) adds ``/trace``, its page with a "branch here" link on every state (a lasso's page
    shows its loop), ``/trace/last``, a short URL that redirects to the page of its last
    state, and ``/api/trace``, the document itself (a lasso's with its ``loop``);
    ``scenario`` (a schedule's label texts, ``serve --scenario``) adds ``/scenario``, a
    short URL that redirects to the page of the schedule's last state."""
    app = _App(__name__)
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY

    def walk_of(texts: list[str], strict: bool) -> Walk:
        if len(texts) > MAX_STEPS or any(len(text) > MAX_LABEL for text in texts):
            raise BadRequest(
                f"a path is at most {MAX_STEPS} steps of at most {MAX_LABEL} characters"
            )
        walk = explorer.walk(texts)
        if strict and walk.error is not None:
            raise BadRequest(str(walk.error))
        return walk

    def body(schema: dict[str, Any]) -> dict[str, Any]:
        try:
            data = parse(request.get_data().decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise BadRequest(f"the body is {not_text(exc)}") from None
        except json.JSONDecodeError as exc:
            raise BadRequest(f"the body is {not_json(exc)}") from None
        except Unusable as exc:
            raise BadRequest(f"the body is refused: {exc}") from None
        if not isinstance(data, dict):
            raise BadRequest("the body must be a JSON object")
        try:
            Validator(schema).validate(data)
        except jsonschema.ValidationError as exc:
            where = "/".join(map(str, exc.absolute_path)) or "(top level)"
            raise BadRequest(f"field {where}: {exc.message}") from None
        return data

    @app.get("/")
    def page() -> Any:
        walk = walk_of(request.args.getlist("step"), strict=False)
        return render_template(
            "explorer.html", **_page(explorer, walk, trace)
        ), 400 if walk.error else 200

    @app.get("/trace")
    def trace_page() -> Any:
        if trace is None:
            return _message("No trace loaded: start the server with --trace TRACE.json.", 404)
        texts = [
            s["action"]
            for s in trace["steps"][1:] + (trace.get("aftermath") or {}).get("steps", [])
        ]
        return html.render(trace, branch=lambda i: path_url(texts[:i]))

    @app.get("/trace/last")
    def trace_last() -> Any:
        if trace is None:
            return _message("No trace loaded: start the server with --trace TRACE.json.", 404)
        return redirect(path_url([step["action"] for step in trace["steps"][1:]]))

    @app.get("/scenario")
    def scenario_page() -> Any:
        if scenario is None:
            return _message("No scenario loaded: start the server with --scenario FILE.", 404)
        return redirect(path_url(scenario))  # the state's own URL: reload and Back work there

    @app.get("/api/trace")
    def api_trace() -> Any:
        if trace is None:
            return jsonify({"error": "no trace loaded: start the server with --trace"}), 404
        return jsonify(trace)

    @app.get("/api/model")
    def api_model() -> Any:
        return jsonify({"hwcheck_version": __version__, **explorer.model_document()})

    @app.get("/api/state")
    def api_state() -> Any:
        return jsonify(explorer.state_document(walk_of(request.args.getlist("step"), True)))

    @app.get("/api/actions")
    def api_actions() -> Any:
        walk = walk_of(request.args.getlist("step"), True)
        return jsonify({"path": walk.texts, "enabled": explorer.enabled(walk)})

    @app.get("/api/check")
    def api_check() -> Any:
        walk = walk_of(request.args.getlist("step"), True)
        return jsonify(
            {"path": walk.texts, "number": len(walk.states), "properties": explorer.verdicts(walk)}
        )

    @app.post("/api/step")
    def api_step() -> Any:
        data = body(STEP_SCHEMA)
        walk = walk_of(list(data.get("path", [])) + [data["action"]], True)
        return jsonify(explorer.state_document(walk))

    @app.post("/api/jump")
    def api_jump() -> Any:
        data = body(JUMP_SCHEMA)
        path, name = list(data.get("path", [])), data.get("invariant")
        walk_of(path, True)
        known = [p.name for p in explorer.props]
        if name and name not in known:
            raise BadRequest(f"no property {name!r} here; known: {', '.join(known)}")
        job = jumps.start(explorer, path, [name] if name else [])
        return jsonify({**job.document(), "url": f"/api/jump/{job.id}"}), 202

    @app.get("/api/jump/<int:job_id>")
    def api_jump_status(job_id: int) -> Any:
        job = jumps.get(job_id)
        if job is None:
            return jsonify({"error": f"no search {job_id}"}), 404
        document = job.document()
        if document["path"] is not None:
            document["page"] = path_url(document["path"])
        return jsonify(document)

    @app.delete("/api/jump/<int:job_id>")
    def api_jump_cancel(job_id: int) -> Any:
        job = jumps.get(job_id)
        if job is None:
            return jsonify({"error": f"no search {job_id}"}), 404
        job.cancel()
        return jsonify({"id": job_id, "status": "cancelling"}), 202

    @app.errorhandler(BadRequest)
    def bad_request(exc: BadRequest) -> Any:
        return jsonify({"error": str(exc)}), 400

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> Any:
        if request.path.startswith("/api/"):
            return jsonify({"error": f"{exc.code} {exc.name}: {exc.description}"}), exc.code
        return _message(f"{exc.code} {exc.name}: {exc.description}", exc.code or 500)

    @app.errorhandler(Exception)
    def internal_error(exc: Exception) -> Any:  # a bug: one line on the terminal and in the reply
        line = f"hwcheck serve: {request.method} {request.path}: {type(exc).__name__}: {exc}"
        print(line, file=sys.stderr, flush=True)
        if request.path.startswith("/api/"):
            return jsonify({"error": line}), 500
        return _message(line, 500)

    return app


def _message(text: str, status: int) -> Any:
    return render_template("message.html", text=text, style=Markup(page.STYLE)), status


def _page(explorer: Explorer, walk: Walk, trace: Any) -> dict[str, Any]:
    """The template's values for the state at the end of ``walk``."""
    texts = walk.texts
    views = walk.views
    width = html.width_of([{"view": v} for v in views])
    number = len(views)
    section = html.state_section(
        number,
        texts[-1] if texts else None,
        views[-1],
        views[-2] if number > 1 else None,
        width,
        hidden=False,
    )
    enabled = explorer.enabled(walk)
    for entry in enabled:
        entry["url"] = path_url(texts + [entry["label"]])
    verdicts = explorer.verdicts(walk)
    config = config_text(explorer.spec.config_dict())
    at = lassoview.position(trace, texts)  # a state of a loaded lasso: what it does here
    if at is not None:
        lassoview.tags(trace, at, enabled)
    return {
        "explorer": explorer,
        "config": config,
        "style": Markup(page.STYLE),
        "section": Markup(section),
        "enabled": enabled,
        "verdicts": verdicts,
        "violated": [v for v in verdicts if not v["holds"]],
        "path": [
            {"number": i + 2, "label": t, "url": path_url(texts[: i + 1])}
            for i, t in enumerate(texts)
        ],
        "back": path_url(texts[:-1]) if texts else None,
        "number": number,
        "error": None if walk.error is None else str(walk.error),
        "texts": texts,
        "trace": trace is not None,
        "lasso": None if at is None else lassoview.banner(trace, at),
        "version": __version__,
        "fingerprint": fp_hex(fingerprint(walk.states[-1])),
    }

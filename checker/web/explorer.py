"""The state space one step at a time, for ``hwcheck serve``: follow a path of action labels
from the initial state, list what is enabled next, and judge every property on the state.

A path is a list of label texts (``Fetch(follower=1, leader=0)``, spaces optional), the form
the explorer's URL and its JSON API carry. Walking it re-executes each action on the model,
as ``hwcheck replay`` does, so a shared URL always lands on the same state. Works on any
model of ``checker.composition.compose`` (kafka or tla); the states are concrete (no symmetry).
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from typing import Any

from checker.composition import compose, fixes
from checker.fingerprint import fingerprint, fp_hex
from checker.model import Label, refusal
from checker.properties import INVARIANT, SOMETIMES, TRANSITION
from checker.renderers.listing import first_paragraph
from checker.web import effects
from invariants import story


class PathError(ValueError):
    """A path that leaves the model: ``index`` (0-based) is the label that is not a label or
    not enabled; the message says which and in which state."""

    def __init__(self, message: str, index: int) -> None:
        super().__init__(message)
        self.index = index


@dataclass
class Walk:
    """A walked path: ``labels`` (``None`` first, for the initial state), ``states`` and their
    ``views`` (``spec.view``), one per state; ``error``, a ``PathError`` when the path given
    left the model (the walk then stops at the last state it reached)."""

    labels: list[Label | None]
    states: list[Any]
    views: list[dict[str, Any]] = field(default_factory=list)
    error: PathError | None = None

    @property
    def texts(self) -> list[str]:
        """The path's label texts, without the initial state's ``None``."""
        return [str(label) for label in self.labels[1:]]


def compact(text: str) -> str:
    """A label text without spaces (``Fetch(follower=1,leader=0)``), as URLs carry it."""
    return text.replace(" ", "")


def action_summary(func: Any) -> str:
    """An action function's docstring's first sentence, on one line, without ``\\`\\``
    marks and without a leading ``Name(args):`` signature ('' when it has no docstring)."""
    text = _SIGNATURE.sub("", first_paragraph(func), count=1)
    end = text.find(". ")
    text = text if end < 0 else text[: end + 1]
    return text[:1].upper() + text[1:]


_SIGNATURE = re.compile(r"^[A-Za-z_]\w*(\([^)]*\))?:\s*")


class Explorer:
    """One model (``model``: kafka or tla; ``config``: its ``Config``) and the safety
    properties ``names`` to judge (empty: all). Thread-safe: the web server calls it from
    several threads; the model's small caches are guarded by one lock.

    Raises what ``compose.build_model`` / ``compose.choose`` raise (``ConfigError``,
    ``KeyError`` for an unknown property name).
    """

    def __init__(self, model: str, config: Any, names: tuple[str, ...] = ()) -> None:
        self.model, self.config, self.names = model, config, tuple(names)
        self.spec, every = compose.build_model(model, config)
        self.props = [p for p in compose.choose(every, self.names) if p.kind != SOMETIMES]
        self.variant = compose.variant_of(self.spec)
        self.summaries = {name: action_summary(func) for name, func in self.spec.actions}
        self._lock = threading.Lock()

    def walk(self, texts: list[str]) -> Walk:
        """Follow ``texts`` from the initial state, stopping at the first label that is not a
        label or not enabled (``Walk.error`` then says which; never raises for that)."""
        with self._lock:
            state = self.spec.init_states()[0]
            walk = Walk([None], [state], [self.spec.view(state)])
            for index, text in enumerate(texts):
                try:
                    label = Label.parse(text)
                except ValueError:
                    walk.error = PathError(
                        f"step {index + 1}: {text!r} is not an action "
                        "label such as Fetch(follower=1, leader=0)",
                        index,
                    )
                    break
                nxt = next((s for lab, s in self.spec.successors(state) if lab == label), None)
                if nxt is None:
                    why = refusal(self.spec, state, label)
                    walk.error = PathError(
                        f"step {index + 1}: {label} is not enabled in state {index + 1} of "
                        f"this {self.model} model ({self.variant})"
                        + (f": {why.reason}" if why is not None else "")
                        + "; the path stops there",
                        index,
                    )
                    break
                state = nxt
                walk.labels.append(label)
                walk.states.append(state)
                walk.views.append(self.spec.view(state))
            return walk

    def enabled(self, walk: Walk) -> list[dict[str, Any]]:
        """Every action enabled in the walk's last state, in the model's order: ``label``
        (its text), ``action`` (its name), ``summary`` (the action's docstring's first
        sentence) and ``effect`` (what it would change, ``effects.describe``)."""
        with self._lock:
            now = walk.views[-1]
            out = []
            for label, succ in self.spec.successors(walk.states[-1]):
                out.append(
                    {
                        "label": str(label),
                        "action": label.action,
                        "summary": self.summaries.get(label.action, ""),
                        "effect": effects.describe(now, self.spec.view(succ)),
                    }
                )
            return out

    def verdicts(self, walk: Walk) -> list[dict[str, Any]]:
        """Every safety property judged on the walk's last state (an invariant) or its last
        step (a transition property): ``name``, ``kind``, ``description``, ``holds``; for a
        violated one also ``explanation``, ``since`` (the 1-based state from which it has
        been violated without a break), ``story`` (``invariants.story.tell`` over the
        path, [] when it tells none) and ``tickets`` (the KIP or ticket behind a release
        preset's violation and the versions that fixed it, ``checker.composition.fixes``)."""
        with self._lock:
            out = []
            for prop in self.props:
                entry = {
                    "name": prop.name,
                    "kind": prop.kind,
                    "description": prop.description,
                    "holds": self._holds(prop, walk, len(walk.states) - 1),
                }
                if not entry["holds"]:
                    entry.update(self._violation(prop, walk))
                out.append(entry)
            return out

    def _holds(self, prop: Any, walk: Walk, k: int) -> bool:
        if prop.kind == INVARIANT:
            return bool(prop.predicate(walk.states[k]))
        if prop.kind == TRANSITION and k > 0:
            return bool(prop.predicate(walk.states[k - 1], walk.labels[k], walk.states[k]))
        return True

    def _violation(self, prop: Any, walk: Walk) -> dict[str, Any]:
        last = len(walk.states) - 1
        since = last
        while since > 0 and not self._holds(prop, walk, since - 1):
            since -= 1
        if prop.explain is None:
            why = ""
        elif prop.kind == TRANSITION:
            why = prop.explain(walk.states[-2], walk.labels[-1], walk.states[-1]) or ""
        else:
            why = prop.explain(walk.states[-1]) or ""
        actions = [None] + walk.texts
        try:
            told = story.tell(prop.name, self.variant, actions, walk.views)
        except (LookupError, ValueError, TypeError):  # a path no story template covers
            told = []
        named = fixes.trace_lines(self.model, self.variant, prop.name, self.spec.config_dict())
        return {"explanation": why, "since": since + 1, "story": list(told), "tickets": named}

    def state_document(self, walk: Walk) -> dict[str, Any]:
        """What ``GET /api/state`` returns: the ``path`` (label texts), ``number`` (1-based
        state number), ``fingerprint`` (16 hex digits), ``view``, ``enabled``, ``properties``
        (``verdicts``) and ``error`` (the path's problem, or None)."""
        return {
            "path": walk.texts,
            "number": len(walk.states),
            "fingerprint": fp_hex(fingerprint(walk.states[-1])),
            "view": walk.views[-1],
            "enabled": self.enabled(walk),
            "properties": self.verdicts(walk),
            "error": None if walk.error is None else str(walk.error),
        }

    def model_document(self) -> dict[str, Any]:
        """What ``GET /api/model`` returns: ``model``, ``variant``, ``config``, the
        ``actions`` (name and summary) and the judged ``properties``."""
        return {
            "model": self.model,
            "variant": self.variant,
            "config": self.spec.config_dict(),
            "actions": [{"name": n, "summary": s} for n, s in self.summaries.items()],
            "properties": [
                {"name": p.name, "kind": p.kind, "description": p.description} for p in self.props
            ],
        }

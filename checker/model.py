"""The generic ``Spec`` protocol that every model gives the checker, and action ``Label``s.

The checker knows nothing about Kafka: a model is anything with ``init_states``,
``successors`` and ``properties`` (the shape follows Stateright's ``Model`` trait, with the
action and the next state produced in one pass as TLC's ``Next`` does).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Protocol, runtime_checkable

from checker.properties import Property

State = Hashable
"""A model state: an immutable value built only from tuples, ints, bools, str and None."""


@dataclass(frozen=True, slots=True)
class Label:
    """One action instance: ``action`` (PascalCase name) and ``args`` as ``(name, value)`` pairs.

    ``str(label)`` is ``Fetch(follower=2, leader=0)``; ``Label.parse`` turns that back into an
    equal ``Label``. Argument values are ints, bools, None or str (Python literals). Two
    labels are equal when their texts are: ``Elect(leader=True)`` is not ``Elect(leader=1)``
    (Python's ``True == 1`` would let a file's boolean stand for a replica id).
    """

    action: str = field(compare=False)
    args: tuple[tuple[str, Any], ...] = field(default=(), compare=False)
    text: str = field(init=False, compare=True, repr=False)
    """``str(label)``, built once (the engines compare label texts in their tie-breaks)."""

    def __post_init__(self) -> None:
        inner = ", ".join(f"{name}={value!r}" for name, value in self.args)
        object.__setattr__(self, "text", f"{self.action}({inner})")

    def __str__(self) -> str:
        return self.text

    def arg(self, name: str) -> Any:
        """The value of argument ``name``; raises ``KeyError`` if the label has none."""
        for key, value in self.args:
            if key == name:
                return value
        raise KeyError(name)

    _PATTERN = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\((.*)\)\s*$", re.DOTALL)
    _ARGUMENT = re.compile(
        r"""\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*"""
        r"""(-?[0-9]+|True|False|None|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")\s*(,|$)"""
    )
    _UNNAMED = re.compile(r"\s*[^=,]*(,|$)")
    _CONSTANTS: ClassVar[dict[str, Any]] = {"True": True, "False": False, "None": None}

    @classmethod
    def parse(cls, text: str) -> Label:
        """Parse ``Action(a=1, b=None)``: named arguments whose values are integers (ASCII
        digits), ``True``, ``False``, ``None`` or quoted strings, as ``str(label)`` writes them.
        Reads the text left to right, once (no Python parser, so no nesting to exhaust).

        Raises ``ValueError`` on anything else: no ``Name(...)``, an argument without a name
        or named twice, or a value that is not one of those literals."""
        match = cls._PATTERN.match(text)
        if not match:
            raise ValueError(f"not an action label: {_clip(text)}")
        action, inner = match.groups()
        args: list[tuple[str, Any]] = []
        at = 0
        while inner[at:].strip():
            argument = cls._ARGUMENT.match(inner, at)
            if argument is None and cls._UNNAMED.match(inner, at):
                raise ValueError(f"label arguments must be named: {_clip(text)}")
            if argument is None:
                raise ValueError(
                    f"not an action label: {_clip(text)} (arguments are written name=value, "
                    "each value an integer, True, False, None or a quoted string)"
                )
            name, value = argument.group(1), argument.group(2)
            if any(name == seen for seen, _ in args):
                raise ValueError(f"not an action label: {_clip(text)} (argument {name} twice)")
            args.append((name, cls._value(value, text)))
            at = argument.end()
        return cls(action, tuple(args))

    @classmethod
    def _value(cls, token: str, text: str) -> Any:
        if token in cls._CONSTANTS:
            return cls._CONSTANTS[token]
        try:
            return int(token) if token[0] not in "'\"" else ast.literal_eval(token)
        except (ValueError, SyntaxError):  # more digits than int() reads; a bad escape
            raise ValueError(
                f"not an action label: {_clip(text)} (a value it cannot read)"
            ) from None


def _clip(text: str, width: int = 80) -> str:
    """``repr(text)``, cut to about ``width`` characters with ``…`` (a message names the
    label it refuses, and a label from a file can be any length)."""
    shown = repr(text)
    return shown if len(shown) <= width else shown[: width - 1] + "…"


class Spec(Protocol):
    """What a model must provide to be explored.

    - ``name``: short model name (``"kafka"``), written into reports.
    - ``init_states()``: the initial states (usually one).
    - ``successors(state)``: every enabled action with its next state, as ``(Label, State)``
      pairs, in a fixed order (the checker relies on it for deterministic traces). Guards are
      evaluated first; a disabled action yields nothing.
    - ``properties()``: every property the model offers (invariants, transition properties and
      "sometimes" vacuity guards); the user picks a subset.
    - ``action_names()``: every action name, for coverage statistics and ``hwcheck list``.
    - ``view(state)``: a JSON-friendly rendering of a state for people (trace viewers).
    - ``config_dict()``: the model's bounds, JSON-friendly, written into reports.

    Optional: ``why_disabled(state, label)``, a ``Refusal`` saying which guard of ``label``'s
    action is false in ``state``, or None when the label is enabled there or the model cannot
    tell (``hwcheck scenario`` and ``replay`` print it after "is not enabled");
    ``compiled_model(layout)``, ``(its CompiledModel, "")`` when the model has a compiled core at
    these bounds, else ``(None, why not)`` in a few words (``compiled_model`` below).
    """

    name: str

    def init_states(self) -> Sequence[State]: ...

    def successors(self, state: State) -> Sequence[tuple[Label, State]]: ...

    def properties(self) -> Sequence[Property]: ...

    def action_names(self) -> Sequence[str]: ...

    def view(self, state: State) -> Any: ...

    def config_dict(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Refusal:
    """Why an action label is not enabled in a state: ``reason``, the false guard in the
    model's words ("2 records already produced (max_records=2)"), and ``bound``, the config
    field whose limit that guard is (``"max_records"``), or None when no bound is to blame."""

    reason: str
    bound: str | None = None


def refusal(spec: Any, state: State, label: Label) -> Refusal | None:
    """Why ``label`` is not enabled in ``state``: the model's ``why_disabled`` answer, or None
    when the model has no ``why_disabled`` (the TLA+ port) or cannot tell. Raises nothing of
    its own; the model's exceptions pass through."""
    why = getattr(spec, "why_disabled", None)
    answer: Refusal | None = why(state, label) if why is not None else None
    return answer


@runtime_checkable
class CompiledModel(Protocol):
    """What the engine uses of a model's compiled core (``checker.native``): the C sources to
    build, the bounds to run them at, and the codec between the model's states and the core's
    rows. ``spec.kafka.native.Codec`` and ``spec.tla.native``'s codecs are the ones there are.

    - ``name``: the library's name in the build cache (``"kafka"``, ``"tla"``).
    - ``sources`` / ``headers``: the model's C files (``checker.native.build.load``).
    - ``params``: the bounds ``model_new`` takes, by the names of its ``ModelParams`` struct
      (C ``int32`` values; ``checker.native.core.model_params``).
    - ``width``: bytes per row, as ``model_width`` computes it.
    - ``labels``: label code (``uint16``) to the ``Label`` it stands for.
    - ``action_names``: action index to name (at most ``checker.native.core.MAX_ACTIONS``).
    - ``property_bits``: property name to its bit in the core's masks (at most 32 bits); a
      property missing here has no compiled form.
    - ``liveness_names``: the liveness properties ``model_liveness`` evaluates, in its order
      (possibly none); ``condition_names``: the named conditions ``model_conditions`` does.
    - ``encode(state)``: the row (``width`` bytes) of a state of the model; raises
      ``ValueError`` when the state does not fit the row. ``decode(row)``: the state again.

    Optional (``checker.liveness.compiled``): ``liveness_key(prop, bit)``, the Python
    obligation key of key bit ``bit`` of liveness property number ``prop``, and
    ``liveness_unfit()``, why the key bits do not fit 64 at these bounds (or None).
    """

    @property
    def name(self) -> str: ...

    @property
    def sources(self) -> Sequence[Path]: ...

    @property
    def headers(self) -> Sequence[Path]: ...

    @property
    def params(self) -> Mapping[str, int]: ...

    @property
    def width(self) -> int: ...

    @property
    def labels(self) -> Mapping[int, Label]: ...

    @property
    def action_names(self) -> Sequence[str]: ...

    @property
    def property_bits(self) -> Mapping[str, int]: ...

    @property
    def liveness_names(self) -> Sequence[str]: ...

    @property
    def condition_names(self) -> Sequence[str]: ...

    def encode(self, state: State) -> bytes: ...

    def decode(self, row: bytes) -> State: ...


class Recipe(Protocol):
    """How a worker process builds a run's model again (the process pool, Spark executors):
    a small picklable, hashable value (``checker.composition.compose.Recipe``) whose ``build()``
    gives ``(spec, the properties to check)``; it raises what building the model raises."""

    def build(self) -> tuple[Spec, list[Property]]: ...

    def __hash__(self) -> int: ...


class LabelLayout(Protocol):
    """How a label code holds an action and its arguments (``checker.native.layout.Layout``,
    read from ``checker/native/labels.h``): a codec builds its label table with it."""

    @property
    def arg_bits(self) -> int:
        """Bits per argument."""
        ...

    def code(self, action: int, *args: int) -> int:
        """The code of ``action`` with up to three arguments."""
        ...


def compiled_model(spec: Spec, layout: LabelLayout) -> tuple[CompiledModel | None, str]:
    """``(compiled model, "")`` when ``spec`` has a compiled core at its bounds (its optional
    ``compiled_model(layout)``, its label codes laid out by ``layout``:
    ``checker.native.layout.LAYOUT``), else ``(None, why not)`` in a few words. Whether that core may run
    here (its certificate, a compiler) is the engine's question: ``checker.search.choose_core``.
    Raises nothing of its own."""
    offered = getattr(spec, "compiled_model", None)
    if offered is None:
        return None, f"the {spec.name} model has no compiled core"
    found: tuple[CompiledModel | None, str] = offered(layout)
    return found


class ActionSpec:
    """A base for specs whose next-state relation is a list of actions, each a function
    ``action(spec, state, out)`` that appends ``(Label, next state)`` for every way it is
    enabled. Subclasses call ``set_actions`` with ``(name, function)`` pairs in a fixed order."""

    actions: tuple[tuple[str, Any], ...] = ()
    _functions: tuple[Any, ...] = ()

    def set_actions(self, actions: Any) -> None:
        """Install the ``(name, function)`` pairs, in generation order."""
        self.actions = tuple(actions)
        self._functions = tuple(function for _, function in self.actions)

    def successors(self, state: State) -> list[tuple[Label, State]]:
        """Every enabled ``(label, next state)``, action by action in ``actions`` order."""
        out: list[Any] = []
        for action in self._functions:
            action(self, state, out)
        return out

    def action_names(self) -> list[str]:
        """The action names, in generation order."""
        return [name for name, _ in self.actions]


class NondeterministicSpec(RuntimeError):
    """Replaying a trace did not reach the fingerprint recorded during the search.

    The usual causes: iteration over a set or dict inside the spec, hidden global or random
    state, or a state that holds something whose encoding is not canonical.
    """

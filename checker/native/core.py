"""One compiled core, loaded for one model: the engine handle and single-state calls.

``Core(model)`` builds (or finds in the cache) the library for ``model``, a compiled model's
description (for the kafka model ``spec.kafka.native.Codec``: ``name``, ``sources``,
``headers``, ``params``, ``labels``, ``action_names``, ``property_bits``, ``width``,
``encode`` and ``decode``). The single-state methods serve the differential tests and the
trace code; the search itself runs level by level in C (``checker.search.compiled.search``).
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from checker.limits import LimitReached
from checker.model import CompiledModel, Label
from checker.native.build import NativeUnavailable, load
from checker.native.layout import LAYOUT

NLABELS = LAYOUT.codes
ALL = 0xFFFFFFFF
MAX_ACTIONS = LAYOUT.max_actions
"""The most action indices a compiled model may use (``MODEL_MAX_ACTIONS`` in ``labels.h``):
the length of the per-action counts the engine and the walks fill."""


def _glibc(name: str) -> Any:
    """glibc's function ``name`` through ctypes, or None where the C library has none."""
    try:
        return getattr(ctypes.CDLL(None), name)
    except (AttributeError, OSError):
        return None


def give_back() -> None:
    """Hand the heap this process has freed back to the system (glibc's ``malloc_trim(0)``;
    nothing elsewhere). glibc keeps freed blocks below its mmap threshold, which grows to
    32 MiB as large blocks are freed, so a finished search's tables or a judged property's
    arrays would otherwise still count in the resident memory of what runs next."""
    trim = _glibc("malloc_trim")
    if trim is not None:
        trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
        trim(0)


MAP_FROM = 4 << 20
"""``map_large``'s threshold: the bytes from which a block gets a mapping of its own."""


def map_large(threshold: int = MAP_FROM) -> None:
    """Have glibc give every block of ``threshold`` bytes or more a mapping of its own
    (``mallopt(M_MMAP_THRESHOLD)``; nothing elsewhere), so that a freed large array goes
    back to the system at once instead of staying in the heap for the next, smaller ones.
    Fixing the threshold also stops glibc raising it, up to 32 MiB, as large blocks are
    freed. Process-wide and kept: the liveness judge, whose numpy arrays of megabytes come
    and go, holds about 50 MiB less at 3 replicas this way."""
    mallopt = _glibc("mallopt")
    if mallopt is not None:
        mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
        mallopt(-3, threshold)  # M_MMAP_THRESHOLD (malloc.h)


NO_MEMORY, OVERFLOW, LIMIT, MISMATCH = -1, -2, -3, -4
"""The engine's errors (``engine.h``: ``ENG_NO_MEMORY``, ``ENG_OVERFLOW``, ``ENG_LIMIT``,
``ENG_MISMATCH``)."""
BROKEN_BOUND = (
    "past its own bounds (a state with more successors, or a longer encoding, than it declares)"
)

LEVEL_LIMIT = 2**32 - 2
"""The most states one BFS level may hold in the compiled core (``LEVEL_MAX`` in
``tables.h``): a state's parent is its 32-bit index in the frontier, and a level table's
index stores entry + 1 in 32 bits. The seen set, the runs on disk and the state counts have
no such bound. Tests lower it (``Core`` passes it to ``eng_set_level_limit``)."""


class CoreLimit(LimitReached):
    """The compiled core reached a bound it has (``LEVEL_LIMIT``) or ran out of memory: the
    search ends INCOMPLETE (exit 3) with this message, its last checkpoint kept."""


def level_limit_reached(states: int | None = None) -> CoreLimit:
    """The error for a level past ``LEVEL_LIMIT`` (``states``: how many it had, when known)."""
    had = f" ({states:,} states)" if states is not None else ""
    return CoreLimit(
        f"a level passed the compiled core's limit of {LEVEL_LIMIT:,} states{had}: a state's "
        "parent is its 32-bit position in the level before (a named limit of the compiled "
        "core; the seen set and the counts have none)"
    )


def check(code: int) -> int:
    """``code``, an engine call's result, when it is no error. Raises ``CoreLimit`` for
    ``NO_MEMORY`` (C could not allocate) and ``LIMIT`` (a level past ``LEVEL_LIMIT``), and
    ``OverflowError`` for ``OVERFLOW``: a model call went past the room its bounds give
    (``model_max_successors``, ``model_max_marshal``), a bug in the compiled model that
    stopped the search; ``RuntimeError`` for ``MISMATCH``: a streamed level's successor,
    made again from its parent (``eng_regen``), was not the state its flush named, so the
    compiled model's successors are not a function of the state (a bug in it)."""
    if code == NO_MEMORY:
        raise CoreLimit(
            "the compiled core ran out of memory: give --memory a budget under what the "
            "machine has free, so the seen set spills to disk sooner"
        )
    if code == LIMIT:
        raise level_limit_reached()
    if code == OVERFLOW:
        raise OverflowError(f"the compiled core went {BROKEN_BOUND}")
    if code == MISMATCH:
        raise RuntimeError(
            "the compiled core made a successor again from its parent and got another state: "
            "its successors are not a function of the state (a bug in the compiled model)"
        )
    return code


def label_ranks(labels: Mapping[int, Label]) -> np.ndarray[Any, Any]:
    """Per label code, the label's position in the order of label texts (``uint16``; codes
    the model never produces get 65535). The engines' tie-break compares label texts; the
    compiled loop compares these ranks instead."""
    ranks = np.full(NLABELS, 0xFFFF, dtype=np.uint16)
    for rank, code in enumerate(sorted(labels, key=lambda c: str(labels[c]))):
        ranks[code] = rank
    return ranks


def model_params(lib: ctypes.CDLL, model: CompiledModel) -> ctypes.Structure:
    """``model_new``'s parameters for ``model`` (``model.params``: name to int): a
    ``ctypes.Structure`` of int32 fields in the order the library names them
    (``eng_param_names``). Raises ``NativeUnavailable`` when the names differ."""
    names = tuple(lib.eng_param_names().decode().split())
    given = dict(model.params)
    if sorted(names) != sorted(given):
        extra = sorted(set(names) ^ set(given))
        raise NativeUnavailable(
            f"the compiled {model.name} core's parameters are not its codec's ({extra[0]})"
        )
    struct = _STRUCTS.get(names)
    if struct is None:
        fields = [(name, ctypes.c_int32) for name in names]
        struct = _STRUCTS[names] = type("ModelParams", (ctypes.Structure,), {"_fields_": fields})
    return struct(**{name: int(given[name]) for name in names})


_STRUCTS: dict[tuple[str, ...], type[ctypes.Structure]] = {}


def refused(model: CompiledModel, why: ctypes.Array[ctypes.c_char]) -> NativeUnavailable:
    """The error for an engine or graph the library would not make: ``why`` is the reason it
    wrote (a ``ctypes`` string buffer)."""
    reason = why.value.decode(errors="replace") or "no reason given"
    return NativeUnavailable(f"the compiled {model.name} core does not take this run: {reason}")


def view(address: int, dtype: Any, count: int, width: int = 0) -> np.ndarray[Any, Any]:
    """A numpy view of ``count`` items (rows of ``width`` items when given) at ``address``,
    memory the C side owns: valid until the engine call that changes it; copy to keep."""
    if not count:
        return np.empty((0, width) if width else 0, dtype=dtype)
    size = np.dtype(dtype).itemsize * count * (width or 1)
    array = np.frombuffer((ctypes.c_char * size).from_address(address), dtype=dtype)
    return array.reshape(count, width) if width else array


class Core:
    """The compiled core of ``model`` with the property masks ``inv``, ``trans`` and
    ``guards`` (bits from ``model.property_bits``), ``symmetry`` on or off and ``threads``
    expanding each level.

    Raises ``NativeUnavailable`` when the library cannot be built or loaded, or when the
    model's bounds are outside what it was compiled for. ``on_compile(seconds)`` is called
    when the library had to be built first. ``key_bits``: the width of the key its seen set
    dedups on (64, or 128: ``checker.native.build.KEY_BITS``; a library of its own)."""

    def __init__(
        self,
        model: CompiledModel,
        inv: int = 0,
        trans: int = 0,
        guards: int = 0,
        symmetry: bool = False,
        threads: int = 1,
        on_compile: Callable[[float], None] | None = None,
        key_bits: int = 64,
    ) -> None:
        self.model = model
        self.handle = None
        self.lib = load(model.name, model.sources, model.headers, on_compile, key_bits)
        self.key_bits = key_bits
        if self.lib.eng_key_bytes() * 8 != key_bits:
            raise NativeUnavailable(
                f"the compiled {model.name} core's keys are {self.lib.eng_key_bytes() * 8} "
                f"bits, not {key_bits}"
            )
        numbers = np.zeros(5, dtype=np.int32)
        self.lib.eng_label_layout(numbers.ctypes.data)
        if tuple(numbers.tolist()) != LAYOUT.numbers():
            raise NativeUnavailable(
                f"the compiled {model.name} core's label layout is {numbers.tolist()}, "
                f"hwcheck's {list(LAYOUT.numbers())}"
            )
        self.actions = np.zeros(NLABELS, dtype=np.uint8)
        """Per label code, its action index (``model_action_of``)."""
        self.lib.eng_action_table(self.actions.ctypes.data)
        params = model_params(self.lib, model)
        self.ranks = label_ranks(model.labels)
        why = ctypes.create_string_buffer(200)
        self.handle = self.lib.eng_new(
            ctypes.byref(params),
            self.ranks.ctypes.data,
            inv,
            trans,
            guards,
            int(symmetry),
            threads,
            why,
            len(why),
        )
        if not self.handle:
            raise refused(model, why)
        self.width = self.lib.eng_width(self.handle)
        if self.width != model.width:
            self.close()
            raise NativeUnavailable(
                f"the compiled {model.name} core's row is {self.width} "
                f"bytes, its codec's {model.width}"
            )
        self.lib.eng_set_level_limit(self.handle, LEVEL_LIMIT)
        self.max_marshal = self.lib.eng_max_marshal(self.handle)
        self.max_successors = self.lib.eng_max_successors(self.handle)

    def close(self) -> None:
        """Free the engine's memory (the library stays loaded)."""
        if self.handle:
            self.lib.eng_free(self.handle)
            self.handle = None

    def __del__(self) -> None:
        self.close()

    # -- single states (tests, traces) ------------------------------------------------------
    def successors(self, state: Any) -> list[tuple[Any, Any, int]]:
        """``(label, next state, bits)`` for every successor of a reference ``state``, in the
        compiled core's order; ``bits`` has the transition properties it violates and the
        guards it reaches (``model.property_bits``). Raises ``OverflowError`` when the state
        has more than ``max_successors`` (``model_max_successors``)."""
        row = self.model.encode(state)
        cap = self.max_successors
        out = np.zeros(cap * self.width, dtype=np.uint8)
        labels = np.zeros(cap, dtype=np.uint16)
        bits = np.zeros(cap, dtype=np.uint32)
        count = check(
            self.lib.eng_successors(
                self.handle, row, cap, out.ctypes.data, labels.ctypes.data, bits.ctypes.data
            )
        )
        rows: Any = out[: count * self.width].reshape(count, self.width) if count else []
        return [
            (self.model.labels[int(labels[i])], self.model.decode(rows[i].tobytes()), int(bits[i]))
            for i in range(count)
        ]

    def canonical(self, state: Any) -> Any:
        """The orbit representative of a reference ``state``, as a reference state. Raises
        ``OverflowError`` when an encoding outgrew ``max_marshal``."""
        out = ctypes.create_string_buffer(self.width)
        check(self.lib.eng_canonical(self.handle, self.model.encode(state), out))
        return self.model.decode(out.raw)

    def invariants(self, state: Any, mask: int = ALL) -> int:
        """The bits of the invariants in ``mask`` that ``state`` violates."""
        failed: int = self.lib.eng_invariants(self.handle, self.model.encode(state), mask)
        return failed

    def marshal(self, state: Any) -> bytes:
        """The marshal encoding the compiled core computes for ``state`` (at most
        ``max_marshal`` bytes; ``OverflowError`` past them)."""
        buf = ctypes.create_string_buffer(self.max_marshal)
        size = check(self.lib.eng_row_marshal(self.handle, self.model.encode(state), buf))
        return buf.raw[:size]

"""The compiled liveness graph (``checker/native/lgraph.c``, ``lwalk.c``) seen from Python.

``CompiledGraph(model, init_rows, max_states)`` builds the whole plain graph of a compiled
model in C, numbered exactly as ``checker.liveness.graph.build`` numbers the reference graph,
and exposes it as numpy views of the C memory (valid until ``close``): CSR out-edges
(``off``, ``dst``, ``lab`` label codes), breadth-first ``parent`` / ``plabel`` / ``depth``,
and the rows. The walks the liveness check needs run in C over it.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from checker.liveness.graph import GraphTooLarge
from checker.model import CompiledModel
from checker.native.build import NativeUnavailable, load
from checker.native.core import BROKEN_BOUND, NLABELS, model_params, refused, view

Array = np.ndarray[Any, Any]
NO_PARENT = 0xFFFFFFFF
SCC_OVERFLOW = -3
"""``lg_scc``'s refusal of a node with 2^32 out-edges or more (``LG_OVERFLOW``)."""
GRAPH_LIMIT = NO_PARENT - 1
"""The most states the compiled graph holds whatever ``max_states`` says (``lg_build``):
states are numbered in 32 bits, ``NO_PARENT`` excepted (a named limit)."""


class CompiledGraph:
    """The graph of ``model`` (a compiled model's codec) from ``init_rows``. With ``folder``
    its per-state and per-edge arrays are files there (``checker/native/lfiles.c``: unlinked,
    mapped, gone with the graph), not heap memory. Raises ``GraphTooLarge`` past
    ``max_states``, ``NativeUnavailable`` when the library cannot be built or does not take
    these bounds, ``MemoryError`` when C runs out of memory, ``OSError`` when the folder
    takes no file or its disk fills."""

    def __init__(
        self,
        model: CompiledModel,
        init_rows: list[bytes],
        max_states: int,
        folder: str | None = None,
    ) -> None:
        self.handle = None
        self.lib = load(model.name, model.sources, model.headers)
        params = model_params(self.lib, model)
        why = ctypes.create_string_buffer(200)
        self.handle = self.lib.lg_new(ctypes.byref(params), why, len(why))
        if not self.handle:
            raise refused(model, why)
        self.width = int(self.lib.lg_width(self.handle))
        if self.width != model.width:
            self.close()
            raise NativeUnavailable(f"the compiled {model.name} core's row is not its codec's")
        if folder is not None and self.lib.lg_set_dir(self.handle, os.fsencode(folder)) != 0:
            self._disk_failed(folder)
        init = b"".join(init_rows)
        count = self._build(init, len(init_rows), max_states)
        if count < 0:
            if count == -2 and folder is not None and self.lib.lg_disk_error(self.handle):
                self._disk_failed(folder)
            depth = int(self.lib.lg_error_depth(self.handle))
            self.close()
            if count == -1:
                numbers = f" (the most its 32-bit {self.unit} numbers allow)"
                raise GraphTooLarge(
                    f"the liveness {self.kind} passed {min(max_states, GRAPH_LIMIT):,} "
                    f"{self.unit}{numbers if max_states > GRAPH_LIMIT else ''} at depth {depth} "
                    f"(liveness holds the whole {self.held} in memory; lower the bounds)"
                )
            if count == -2:
                raise MemoryError("the compiled liveness graph ran out of memory")
            raise NativeUnavailable(f"the compiled {model.name} core went {BROKEN_BOUND}")
        lib, h = self.lib, self.handle
        self.n = count
        self.edges = int(lib.lg_edges(h))
        self.off: Array = view(lib.lg_off(h), np.int64, count + 1)
        self.dst: Array = view(lib.lg_dst(h), np.uint32, self.edges)
        self.lab: Array = view(lib.lg_lab(h), np.uint16, self.edges)
        self.parent: Array = view(lib.lg_parent(h), np.uint32, count)
        self.plabel: Array = view(lib.lg_plabel(h), np.uint16, count)
        self.depth: Array = view(lib.lg_depth(h), np.uint32, count)
        rows = lib.lg_rows(h)  # None for an orbit graph sealed as it was built
        self.rows: Array = view(rows, np.uint8, count, self.width) if rows else None  # type: ignore[assignment]
        self._came: Array | None = None
        self._conditions: Array | None = None
        self._local: Array | None = None

    def _disk_failed(self, folder: str) -> None:
        """Close the graph and raise ``OSError`` for the file operation in ``folder`` that
        failed (``lg_disk_error``'s errno)."""
        code = int(self.lib.lg_disk_error(self.handle))
        self.close()
        raise OSError(code, os.strerror(code), folder)

    kind, unit, held = "graph", "states", "plain graph"
    """What the build makes, in ``GraphTooLarge``'s text."""

    def _build(self, init: bytes, count: int, max_states: int) -> int:
        """Build from the ``count`` rows ``init``: the state count, or ``lg_build``'s
        negative error (``lgraph.h``)."""
        return int(self.lib.lg_build(self.handle, init, count, max_states))

    def close(self) -> None:
        """Free the C graph (every view dies with it)."""
        if self.handle:
            self.lib.lg_free(self.handle)
            self.handle = None

    def __del__(self) -> None:
        self.close()

    def row(self, node: int) -> bytes:
        """State ``node``'s row (a copy)."""
        return bytes(self.rows[node].tobytes())

    def atoms(self, prop: int) -> tuple[Array, Array, int]:
        """``(opened, goal, opened pairs)`` of every state for liveness property number
        ``prop`` (``model_liveness``): ``uint64`` key bit masks, and how many (state, key)
        pairs are opened."""
        opened = np.zeros(self.n, dtype=np.uint64)
        goal = np.zeros(self.n, dtype=np.uint64)
        count = self.lib.lg_atoms(self.handle, prop, opened.ctypes.data, goal.ctypes.data)
        return opened, goal, int(count)

    def key(self, opened: Array, goal: Array, bit: int) -> tuple[Array, Array]:
        """``(allowed, seeds)`` (bool) for key number ``bit``: the states where its ``Q``
        is false, and those of them that open it."""
        allowed = np.empty(self.n, dtype=np.uint8)
        seeds = np.empty(self.n, dtype=np.uint8)
        self.lib.lg_key(
            self.handle,
            opened.ctypes.data,
            goal.ctypes.data,
            1 << bit,
            allowed.ctypes.data,
            seeds.ctypes.data,
        )
        return allowed.view(bool), seeds.view(bool)

    def conditions(self) -> Array:
        """Every state's ``model_conditions`` bits (``uint32``; computed once)."""
        if self._conditions is None:
            self._conditions = np.zeros(self.n, dtype=np.uint32)
            self.lib.lg_conditions(self.handle, self._conditions.ctypes.data)
        return self._conditions

    def codes(self) -> Array:
        """The label codes in label id order: first kept along the edges, in state order."""
        first = np.zeros(NLABELS, dtype=np.int64)
        self.lib.lg_first_codes(self.handle, first.ctypes.data)
        present = np.flatnonzero(first >= 0)
        return present[np.argsort(first[present])]

    def enabled(self, of_code: Array, covered: Array, first: int = 0) -> Array:
        """Per state of ``first`` to ``first + len(covered) - 1``, the OR of
        ``of_code[label]`` over its out-edges, within ``covered`` (one mask per such state)."""
        if not 0 <= first <= first + len(covered) <= self.n:
            raise IndexError(f"states {first} to {first + len(covered) - 1} (there are {self.n:,})")
        out = np.zeros(len(covered), dtype=np.uint64)
        codes = np.ascontiguousarray(of_code, dtype=np.uint64)
        cover = np.ascontiguousarray(covered, dtype=np.uint64)
        self.lib.lg_enabled(
            self.handle, codes.ctypes.data, cover.ctypes.data, first, len(cover), out.ctypes.data
        )
        return out

    def reach(self, inside: Array, seeds: Array, backward: bool = False) -> Array:
        """The states of ``inside`` (bool) reachable from ``seeds`` (bool, within it)
        through ``inside``, or with ``backward`` the ones reaching them (bool)."""
        mark = seeds.astype(np.uint8)
        within = np.ascontiguousarray(inside).view(np.uint8)
        found = self.lib.lg_reach(self.handle, within.ctypes.data, mark.ctypes.data, backward)
        if found < 0:
            raise MemoryError("the compiled liveness graph ran out of memory")
        return mark.view(bool)

    def subgraph(self, nodes: Array) -> tuple[Array, Array, Array]:
        """The CSR ``(indptr, indices, global edge numbers)`` of the graph induced by the
        sorted states ``nodes`` (``int64``), in their positions."""
        nodes = np.ascontiguousarray(nodes, dtype=np.int64)
        if self._local is None:
            self._local = np.full(self.n, -1, dtype=np.int32)
        local = self._local  # all -1 between calls
        local[nodes] = np.arange(len(nodes), dtype=np.int32)
        k = len(nodes)
        count = int(self.lib.lg_sub_count(self.handle, nodes.ctypes.data, k, local.ctypes.data))
        indptr = np.zeros(k + 1, dtype=np.int64)
        indices = np.zeros(count, dtype=np.int32)
        eids = np.zeros(count, dtype=np.int64)
        self.lib.lg_sub_fill(
            self.handle,
            nodes.ctypes.data,
            k,
            local.ctypes.data,
            indptr.ctypes.data,
            indices.ctypes.data,
            eids.ctypes.data,
        )
        local[nodes] = -1
        return indptr, indices, eids

    def strong_components(self, indptr: Array, indices: Array, k: int) -> Array:
        """The strong component of each of ``k`` nodes of the CSR graph ``(indptr: int64,
        indices: int32)`` (as ``subgraph`` returns it; edges may repeat and loop), ``int32``,
        numbered from 0 in the order Tarjan's algorithm completes them (``scc.c``). Raises
        ``MemoryError`` when C runs out of memory, ``ValueError`` for a node of 2^32
        out-edges or more."""
        indptr = np.ascontiguousarray(indptr, dtype=np.int64)
        indices = np.ascontiguousarray(indices, dtype=np.int32)
        comp = np.empty(k, dtype=np.int32)
        found = int(self.lib.lg_scc(k, indptr.ctypes.data, indices.ctypes.data, comp.ctypes.data))
        if found == SCC_OVERFLOW:
            raise ValueError("a node of the liveness graph has 2^32 out-edges or more")
        if found < 0:
            raise MemoryError("the compiled liveness graph ran out of memory")
        return comp

    def reverse(
        self, k: int, parts: Callable[[], Iterable[tuple[Array, Array]]]
    ) -> tuple[Array, Array]:
        """The reverse of a graph of ``k`` nodes whose edges ``parts()`` gives in parts, each
        ``(sources, targets)`` (positions below ``k``, ``int32``), sources never decreasing
        from edge to edge, the same edges each call: ``(indptr: int64, indices: int32)``,
        each node's sources in increasing order, once per edge. A counting sort in C
        (``scc.c``) that calls ``parts`` twice (the edges counted, then placed), so that the
        forward edges need never all be held: 8 bytes a node and 4 an edge."""
        rptr = np.zeros(k + 1, dtype=np.int64)
        for _, dst in parts():
            dst = np.ascontiguousarray(dst, dtype=np.int32)
            self.lib.lg_transpose_count(len(dst), dst.ctypes.data, rptr.ctypes.data)
        np.cumsum(rptr, out=rptr)  # rptr[t]: where t's sources begin
        rsrc = np.empty(int(rptr[k]), dtype=np.int32)
        for src, dst in parts():
            src = np.ascontiguousarray(src, dtype=np.int32)
            dst = np.ascontiguousarray(dst, dtype=np.int32)
            args = (src.ctypes.data, dst.ctypes.data, rptr.ctypes.data, rsrc.ctypes.data)
            self.lib.lg_transpose_place(len(dst), *args)
        rptr[1:] = rptr[:-1].copy()  # each had moved on to its end
        rptr[0] = 0
        return rptr, rsrc

    def bfs(self, start: int, inside: Array, goal: Array) -> list[int] | None:
        """``lasso.bfs`` in C: the edges of the shortest path from ``start`` to a ``goal``
        state (uint8 masks) through ``inside``; ``[]`` when ``start`` is one, ``None`` when
        none is reachable."""
        if self._came is None:
            self._came = np.full(self.n, -1, dtype=np.int64)
        cap = 1 << 20
        path = np.zeros(cap, dtype=np.int64)
        steps = int(
            self.lib.lg_bfs(
                self.handle,
                start,
                inside.ctypes.data,
                goal.ctypes.data,
                self._came.ctypes.data,
                path.ctypes.data,
                cap,
            )
        )
        if steps == -2:
            raise MemoryError("the compiled liveness graph ran out of memory")
        return None if steps < 0 else [int(e) for e in path[:steps]]

    def source(self, edge: int) -> int:
        """The state edge ``edge`` leaves."""
        return int(np.searchsorted(self.off, edge, side="right")) - 1

    def out(self, node: int) -> range:
        """State ``node``'s edge numbers, in successor order."""
        return range(int(self.off[node]), int(self.off[node + 1]))

"""The compiled orbit graph (``checker/native/ograph.c``) seen from Python.

``CompiledOrbitGraph(model, init_rows, max_states)`` builds, in C, the orbit graph of a
compiled model with interchangeable replicas: one node per orbit of the replica renamings,
standing for its representative (the canonical form), every edge annotated with the
renaming that took its concrete target to the target's representative. This is Emerson and
Sistla's annotated quotient ("Utilizing symmetry when model-checking under fairness
assumptions", TOPLAS 1997; ``checker.liveness.annotated``), numbered exactly as
``checker.liveness.orbits.build`` numbers it: orbits breadth first, edges in the model's
successor order, renamings as ``itertools.permutations(range(n))`` orders them (0 is the
identity). A concrete stutter (a step from the representative to itself) is dropped; a step
to another member of the same orbit is kept, as an edge from the orbit to itself.

Everything ``CompiledGraph`` offers (atoms, conditions, reachability, subgraphs, components,
shortest paths) works on it, over orbits instead of states.
"""

from __future__ import annotations

import ctypes

import numpy as np

from checker.liveness.cgraph import Array, CompiledGraph
from checker.model import CompiledModel
from checker.native.build import NativeUnavailable
from checker.native.core import view

TOO_MANY_IDS = -4
"""``lg_build_orbits``' refusal of more than ``MAX_PERMS`` renamings (``LG_TOO_MANY_IDS``)."""
CODES = -5
"""A sealed ``lg_build_orbits``' refusal of a property whose atoms take more than
``MAX_CODES`` distinct values (``LG_CODES``): the graph is then built again, whole."""
MAX_CODES = 65535
"""The most distinct atoms a property may have in a sealed graph (its codes are 16-bit:
``LG_MAX_CODES``); a test lowers it to send a graph down the whole build."""


class _Unsealable(Exception):
    """A sealed build refused (``CODES``): build the graph whole instead."""


MAX_PERMS = 24
"""The most renamings the compiled orbit graph numbers (``LG_MAX_PERMS``): 4 replicas, so
that a renaming number fits a byte and a stabilizer a 32-bit mask."""


class CompiledOrbitGraph(CompiledGraph):
    """The orbit graph of ``model`` (a compiled model's codec) from ``init_rows`` (rows of
    any members of the initial orbits). Besides ``CompiledGraph``'s arrays, where ``n`` now
    counts orbits and ``rows`` holds their representatives, with ``E`` edges:

    - ``nperms``: how many renamings there are (``n!`` for ``n`` interchangeable replicas;
      1 for a model without symmetry).
    - ``ren`` (``uint8``, ``E``): per edge ``A -> B``, the number of the first renaming
      ``g`` with ``g . t == r_B``, ``t`` the concrete successor of ``r_A`` the edge stands
      for (so ``t == g^-1 . r_B``).
    - ``stab`` (``uint32``, ``n``): per orbit, bit ``k`` set when renaming ``k`` leaves its
      representative as it is (bit 0 always).
    - ``pren`` (``uint8``, ``n``): the ``ren`` of the edge from the orbit's breadth-first
      parent (0 for an initial orbit).
    - ``entry`` (``uint8``, ``n``): for an initial orbit (``parent == NO_PARENT``), the
      renaming taking the first initial row in it to its representative; 0 elsewhere.

    With ``folder``, its arrays are files there (``CompiledGraph``). Raises ``GraphTooLarge``
    past ``max_states`` orbits, ``NativeUnavailable`` when the library cannot be built or
    does not take these bounds, or for more than 4 replicas (``MAX_PERMS``), ``MemoryError``
    when C runs out of memory, ``OSError`` when the folder takes no file or its disk fills."""

    kind, unit, held = "orbit graph", "orbits", "graph"  # orbits.build's words

    def __init__(
        self,
        model: CompiledModel,
        init_rows: list[bytes],
        max_states: int,
        folder: str | None = None,
    ) -> None:
        self._props = len(model.liveness_names)
        try:
            super().__init__(model, init_rows, max_states, folder)
        except _Unsealable:
            self._props = -1
            super().__init__(model, init_rows, max_states, folder)
        lib, h, count = self.lib, self.handle, self.n
        self.nperms = int(lib.lg_nperms(h))
        self.ren: Array = view(lib.lg_ren(h), np.uint8, self.edges)
        self.stab: Array = view(lib.lg_stab(h), np.uint32, count)
        self.pren: Array = view(lib.lg_pren(h), np.uint8, count)
        self.entry: Array = view(lib.lg_entry(h), np.uint8, count)
        self.sealed = self.rows is None
        """Whether the graph was sealed as it was built (``oseal.c``): no row is held, ``row``
        replays a representative from its breadth-first path, and ``rows`` is None. A graph
        is built whole when a property's atoms take more than 65,535 distinct values."""

    def _build(self, init: bytes, count: int, max_states: int) -> int:
        """``lg_build_orbits``: the orbit count, or its negative error; raises
        ``NativeUnavailable`` (closing the graph) for too many renamings, ``_Unsealable``
        (closing it) for atoms past the codes."""
        lib, props = self.lib, self._props
        found = int(lib.lg_build_orbits(self.handle, init, count, max_states, props, MAX_CODES))
        if found == CODES:
            self.close()
            raise _Unsealable
        if found == TOO_MANY_IDS:
            self.close()
            raise NativeUnavailable(
                f"the compiled orbit graph renames at most {MAX_PERMS} ways (4 replicas); "
                "this model has more"
            )
        return found

    def row(self, node: int) -> bytes:
        """Orbit ``node``'s representative (``width`` bytes). Raises ``IndexError`` for no
        such orbit, ``MemoryError`` when C runs out of memory replaying it."""
        if not 0 <= node < self.n:
            raise IndexError(f"no orbit {node} (there are {self.n:,})")
        out = ctypes.create_string_buffer(self.width)
        if int(self.lib.lg_row(self.handle, node, out)) != 0:
            raise MemoryError("the compiled orbit graph could not replay a representative")
        return out.raw

    def find(self, row: bytes) -> int:
        """The orbit whose representative is ``row`` (``width`` bytes), -1 when no orbit's
        is (a row that is not canonical, or not reached). Raises ``ValueError`` for a row of
        another width."""
        if len(row) != self.width:
            raise ValueError(f"a row of {len(row)} bytes; this model's are {self.width}")
        return int(self.lib.lg_find(self.handle, row))

    def stabilizer(self, node: int) -> tuple[int, ...]:
        """The renaming numbers that leave orbit ``node``'s representative as it is, in
        order (``orbits.OrbitGraph.stabilizer``)."""
        mask = int(self.stab[node])
        return tuple(k for k in range(self.nperms) if mask >> k & 1)

    def orbit_size(self, node: int) -> int:
        """How many concrete states orbit ``node`` holds."""
        return self.nperms // len(self.stabilizer(node))

    def atom_codes(self, prop: int) -> tuple[Array, Array, Array]:
        """Liveness property number ``prop``'s atoms (``CompiledGraph.atoms``) as ``(codes,
        opened, goal)``: orbit ``i``'s are ``opened[codes[i]]`` and ``goal[codes[i]]``
        (``uint64`` key bit masks). On a sealed graph the codes are its own ``uint16`` array
        and the tables hold the distinct values, nothing copied; on a whole one the codes are
        the orbit numbers and the tables the atoms."""
        if not self.sealed:
            opened, goal, _ = super().atoms(prop)
            return np.arange(self.n), opened, goal
        codes = view(self.lib.lg_acode(self.handle, prop), np.uint16, self.n)
        table = view(self.lib.lg_atab(self.handle, prop), np.uint64, int(codes.max()) + 1, 2)
        return codes, table[:, 0], table[:, 1]

    def atoms(self, prop: int) -> tuple[Array, Array, int]:
        """``CompiledGraph.atoms``; on a sealed graph, decoded from ``atom_codes``."""
        if not self.sealed:
            return super().atoms(prop)
        codes, opened, goal = self.atom_codes(prop)
        return opened[codes], goal[codes], int(np.bitwise_count(opened)[codes].sum())

    def conditions(self) -> Array:
        """``CompiledGraph.conditions``; on a sealed graph, its own array (nothing copied)."""
        if self.sealed:
            return view(self.lib.lg_cond(self.handle), np.uint32, self.n)
        return super().conditions()

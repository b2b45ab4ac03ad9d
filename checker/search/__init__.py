"""The search: the library's door to it (``door``: ``explore`` and ``choose_core``, re-exported
here), the local engine (``bfs``), its seen set (``seen``), the level functions the partitioned
engines share (``job``, ``level``, ``partitioned``, ``store``, ``pool``) and the compiled core's
level loop (``compiled``, ``compiled_level``)."""

from checker.search.door import ASKED, CoreChoice, CoreName, choose_core, explore, stale

__all__ = ["ASKED", "CoreChoice", "CoreName", "choose_core", "explore", "stale"]

"""The search: the library's door to it (``door``: ``explore`` and ``choose_core``, re-exported
here) and its engines, a room each: the reference engine (``reference``), the compiled core's
(``compiled``), its disk tier (``tier``) and the partitioned engine that the worker pool and
Spark run (``partitioned``)."""

from checker.search.door import ASKED, CoreChoice, CoreName, choose_core, explore, stale

__all__ = ["ASKED", "CoreChoice", "CoreName", "choose_core", "explore", "stale"]

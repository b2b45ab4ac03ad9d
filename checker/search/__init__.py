"""The search: the local engine (``bfs``), its seen set (``seen``), the level functions the
partitioned engines share (``level``, ``partitioned``, ``store``, ``pool``) and the compiled
core's level loop (``compiled``, ``compiled_level``)."""

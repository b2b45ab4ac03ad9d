"""Checkpoints: a search's state at a BFS level boundary, on disk (``--checkpoint DIR``,
``--resume DIR``). ``format`` holds what writing and reading share, ``write`` writes a
checkpoint, ``read`` reads one back, and ``saving`` is what every engine's search does for
them. Imports flow format <- write, read <- saving; no cycle."""

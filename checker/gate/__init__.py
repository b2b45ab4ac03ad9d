"""The CI invariant gate's policy: checks, expectations and outcomes (``policy``) and the
schema of a ``[[tool.hwcheck.gate]]`` table (``schema``); ``hwcheck gate`` is its command."""

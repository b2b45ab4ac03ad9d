"""The compiled engine's disk tier, for a search past its memory budget (``--memory``): when
and what it spills (``spill``), the seen set as sorted runs on disk (``runs``), a level
streamed through disk (``stream``, ``flush``) and the frontier's file (``rows_file``)."""

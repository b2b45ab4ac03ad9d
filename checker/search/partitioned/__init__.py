"""The partitioned engine: the BFS split into fingerprint partitions (``driver``), each level
two functions over files (``level``, ``compiled_level`` on the compiled core, the task's
interface in ``job``), the files a partition owns between levels (``level_files``), run in
this process, on a pool of local processes (``pool``) or as Spark jobs (``checker.spark``)."""

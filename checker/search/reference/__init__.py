"""The reference engine: the local level-synchronous BFS over fingerprints on the model's
Python source (``bfs``), and the seen set and parent tables every local engine keeps
(``seen``)."""

"""How what the checker found is drawn for a person: terminal tables and panels (rich), the
self-contained HTML page of a trace, and the state graph (networkx)."""

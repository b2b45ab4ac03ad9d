"""An independent, deliberately naive enumerator used to cross-check the engine's counts.

It keeps the *states themselves* in a Python set (no fingerprints, no parent pointers, no
tie-breaks) and walks level by level with plain lists, so a bug in fingerprinting, de-duplication or
level accounting in ``checker.search.reference.bfs`` would show up as a different count.
"""


def enumerate_states(spec):
    """Return ``(distinct states, depth)``; depth counts the initial level as 1."""
    seen, depth = reachable(spec)
    return len(seen), depth


def reachable(spec):
    """Return ``(set of every reachable state, depth)``."""
    seen = set(spec.init_states())
    level = list(seen)
    depth = 1 if level else 0
    while level:
        nxt = []
        for state in level:
            for _, succ in spec.successors(state):
                if succ not in seen:
                    seen.add(succ)
                    nxt.append(succ)
        if nxt:
            depth += 1
        level = nxt
    return seen, depth

"""Routes: the algorithms that solve a compiled problem (vertex LP, column generation, cvxpy, closed forms)."""

"""Slow, readable pure-Python referees of the rules in docs/rules.md.

Each module implements one game from RULES.md alone (never from the numba kernels), with
explicit phases and lists of legal actions, so that the fast engine can be checked against
it action by action (DESIGN.md principle 7).
"""

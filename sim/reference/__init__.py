"""Slow, readable pure-Python referees of the rules in docs/rules.md.

Each module implements one game from RULES.md alone (never from the numba kernels), with
explicit phases and lists of legal actions, so that the fast engine can be checked against
it action by action (DESIGN.md principle 7). What RULES.md says once they share:
``common`` (section C's vocabulary, the replay scaffolding, a game's totals) and
``contract`` (Bridgette's and Draw Bridge's calls, C-4 auction and C-5 game flow).
"""

"""Orchestration of the simulator: rules, policies, runs, replays and the reference referee."""

__version__ = "0.1.0"

# Moves only when a rule or policy change changes simulated outcomes (DESIGN point 10).
RULES_VERSION = 1

"""Orchestration of the simulator: rules, policies, runs, replays and the reference referee.

``sim.simulate(...)`` plays a run as ``python -m sim.run`` does; ``sim.estimate(...)``
makes a multilevel estimate as ``sim.run --deals N --control LEVEL`` does; ``sim.load_run(path)``
opens a finished run folder (summary and records as pandas); ``analysis.interval(run,
metric, by=None)`` gives a metric of it with its 95% interval (analysis sits above sim, so
it is not imported here).
"""

__version__ = "0.1.0"

# Moves only when a rule or policy change changes simulated outcomes (DESIGN point 10).
RULES_VERSION = 2  # 2: heuristic defaults re-tuned on game wins, Draw Bridge bids by expected score


def __getattr__(name):
    # The API pulls in numba and pyarrow; load it only when asked for.
    if name in ("simulate", "estimate", "load_run"):
        from sim import api

        return getattr(api, name)
    raise AttributeError(f"module 'sim' has no attribute {name!r}")

"""Analyses of run folders (pandas, matplotlib; never numba): reports, comparisons, metrics.

``analysis.interval(run_or_frame, metric, by=None)`` gives a metric's value with its 95%
interval by the summaries' estimator (analysis.intervals.metric_interval).
"""

import sim  # noqa: F401 - first, so Ctrl-C while a command starts ends it in one line (sim's docstring)
from sim.cli import quiet_matplotlib

quiet_matplotlib()  # before any analysis imports matplotlib


def __getattr__(name):
    # Loaded when asked for, so that importing a submodule stays light.
    if name == "interval":
        from analysis.intervals import metric_interval

        return metric_interval
    raise AttributeError(f"module 'analysis' has no attribute {name!r}")

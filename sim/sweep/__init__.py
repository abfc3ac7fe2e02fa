"""Sweeps: a grid of rule settings played on common random numbers, each setting's answers
beside its difference from the first setting, balance points, tables and a plot
(``python -m sim.sweep``, documented in ``sim.sweep.cli``).

The package keeps its concerns apart, a file per concern:

- ``grid``: the settings of the --vary grid, their options and folder names;
- ``balance``: where a metric crosses its even value, and the settings that bracket it;
- ``play``: every setting played (a run, or a multilevel estimate) and the result;
- ``output``: the tables, the report and the plot, and what a sweep's folder holds;
- ``cli``: the command.

Every name other modules use is importable from ``sim.sweep`` itself.
"""

from sim.sweep.grid import SweepError, folder_name, numeric_axis, parse_vary, setting_options, settings_of  # noqa: F401
from sim.sweep.balance import balance_bracket, balance_point  # noqa: F401
from sim.sweep.play import default_sweep_out, sweep  # noqa: F401
from sim.placement import PNG_SIGNATURE, is_sweep_folder  # noqa: F401 (where every command's folders are told)
from sim.sweep.output import TABLE_COLUMNS, check_plot_path, format_report, plot, save_tables  # noqa: F401
from sim.sweep.cli import build_parser, main  # noqa: F401

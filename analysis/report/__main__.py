"""python -m analysis.report: see the package's docstring."""

from analysis.report import main
from sim.cli import exit_with

exit_with(main, "python -m analysis.report")

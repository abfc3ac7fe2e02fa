"""``python -m sim.sweep`` (sim.sweep.cli)."""

from sim.cli import exit_with
from sim.sweep.cli import main

exit_with(main, "python -m sim.sweep")

"""What every command shares: one line and exit status 2 for bad input, quiet ends for a
closed pipe and Ctrl-C, and the checks of numbers that the Python API makes too. A file per
concern: how numbers are read (``counts``), the argument parser (``parser``), how a command
ends (``signals``) and the files it reads and the folder it writes (``paths``).

Importing this package is cheap (no numba), so the analyses use it as well.
"""

from sim.cli.counts import (  # noqa: F401
    DEFAULT_BLOCK_SIZE, LARGEST_BLOCK, LARGEST_COUNT, block_size, deal_index, decimal_text, exact_number, game_index,
    quoted, seed_number, shown_count, whole_count)
from sim.cli.parser import (  # noqa: F401
    OneLineParser, deal_number, flag_type, one_line, path_text, plural, thread_count, whole_number)
from sim.cli.paths import (  # noqa: F401
    MAX_TEXT_FILE, TOO_DEEP, TOO_LONG, claim_folder, differing, file_in_the_way, make_folders, quiet_matplotlib,
    read_toml, refuse_another, remove_made, shell_word, toml_problem, why_not_made)
from sim.cli.signals import (  # noqa: F401
    BROKEN_PIPE_STATUS, INTERRUPTED_STATUS, TERMINATED_STATUS, Terminated, exit_with, interruptible, say, stopped)

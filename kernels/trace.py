"""Plumbing every game shares: trace rows and why a replayed deal stopped.

A trace row is (kind, seat, action, legal set); each game names its kinds. Every game's
outcome row keeps the error code, the list it is in and the index in the same columns.
"""

import numpy as np
from numba import njit

TRACE_WIDTH = 4
O_ERROR = 7  # the game's error code, 0 when the deal completed
O_ERROR_AT = 8  # which list of the replay the error is in (each game names them)
O_ERROR_INDEX = 9


@njit(cache=True)
def trace_nb(trace, tcur, kind, seat, action, legal):
    """Append one action and its legal set; count past the end so the caller can grow."""
    i = tcur[0]
    if i < trace.shape[0]:
        trace[i, 0] = kind
        trace[i, 1] = seat
        trace[i, 2] = action
        trace[i, 3] = np.int64(legal)
    tcur[0] = i + 1


@njit(cache=True)
def stop_nb(out, err, at, index):
    """Record why a replayed deal stopped."""
    out[O_ERROR] = err
    out[O_ERROR_AT] = at
    out[O_ERROR_INDEX] = index

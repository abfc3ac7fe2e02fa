"""Record types: the kernels' named fields, shared by every kernel module, and plain views
of their array fields."""

import numpy as np
from numba import njit


def record_dtype(fields) -> np.dtype:
    """An aligned record type whose rows read and write by field name (``row.contract``) in
    the kernels and, with NUMBA_DISABLE_JIT=1, in Python too (numpy's record scalars)."""
    return np.dtype((np.record, np.dtype(fields, align=True)))


@njit(cache=True, inline="always")
def plain_nb(field):
    """A record's array field as a plain C-ordered view of the same memory.

    numba types a field read in a kernel as a nested array, a type of its own; passed on to
    a kernel that is also called from Python (with a NumPy array), the callee and its whole
    call tree would compile twice. Kernels that call a search kernel pass it plain views, so
    a call from Python finds the compiled code in the cache (docs/engine.md, Numba facts)."""
    return field.reshape(field.shape)

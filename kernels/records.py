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


@njit(cache=True)
def move_rows_nb(dst, dst_starts, src, src_starts, counts):
    """Copy ``counts[i]`` rows of ``src`` from row ``src_starts[i]`` to ``dst`` from row
    ``dst_starts[i]``, for each ``i`` in order; the rows are 2-D views of records as words
    (one row a record). Each row is copied first to last, so ``dst`` may be ``src`` itself
    when no row moves up (``dst_starts[i] <= src_starts[i]``, each ``i``'s rows below the
    next ``i``'s): a block's games packed in place (sim.blocks)."""
    width = dst.shape[1]
    flat_dst, flat_src = dst.reshape(-1), src.reshape(-1)
    for i in range(counts.shape[0]):
        d, s = dst_starts[i] * width, src_starts[i] * width
        if d == s and flat_dst.ctypes.data == flat_src.ctypes.data:
            continue
        for k in range(counts[i] * width):
            flat_dst[d + k] = flat_src[s + k]

"""Record types: the kernels' named fields, shared by every kernel module."""

import numpy as np


def record_dtype(fields) -> np.dtype:
    """An aligned record type whose rows read and write by field name (``row.contract``) in
    the kernels and, with NUMBA_DISABLE_JIT=1, in Python too (numpy's record scalars)."""
    return np.dtype((np.record, np.dtype(fields, align=True)))

"""Arrow columns of the run records, made from numpy arrays' buffers.

pyarrow's own conversion of numpy arrays (``pa.array``, ``pa.table``) and of lists of
names imports pandas the first time (a third of a second of a run's start), to ask whether
they are pandas objects; the records need nothing of pandas: their columns are integers,
booleans and names coded as dictionaries.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa


def _bits(flags) -> pa.Buffer:
    """Booleans packed as Arrow packs them: one bit each, the first in the lowest bit."""
    return pa.py_buffer(np.packbits(np.asarray(flags, dtype=bool), bitorder="little"))


def array(values, mask=None) -> pa.Array:
    """An Arrow array of a numpy array of integers or booleans; True in ``mask`` is null."""
    values = np.ascontiguousarray(values)
    valid = None if mask is None else _bits(~np.asarray(mask, dtype=bool))
    nulls = 0 if mask is None else -1  # -1 (counted when asked) keeps the bits even where none is null
    if values.dtype == np.bool_:
        return pa.Array.from_buffers(pa.bool_(), len(values), [valid, _bits(values)], nulls)
    return pa.Array.from_buffers(pa.from_numpy_dtype(values.dtype), len(values), [valid, pa.py_buffer(values)], nulls)


def strings(names) -> pa.Array:
    """An Arrow string array of ``names``."""
    data = [str(name).encode() for name in names]
    offsets = np.zeros(len(data) + 1, dtype=np.int32)
    np.cumsum([len(d) for d in data], out=offsets[1:])
    return pa.Array.from_buffers(pa.string(), len(data), [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(data))])


def categorical(indices, names, mask=None) -> pa.DictionaryArray:
    """A dictionary column: int32 codes into ``names``; True in ``mask`` is null."""
    return pa.DictionaryArray.from_arrays(array(np.asarray(indices, dtype=np.int32), mask), strings(names))


def constant(name: str, rows: int) -> pa.DictionaryArray:
    """A dictionary column holding ``name`` in every row."""
    return categorical(np.zeros(rows, dtype=np.int32), [name])


def table(columns: dict) -> pa.Table:
    """An Arrow table of named columns (numpy arrays or Arrow arrays), each field
    nullable only where its column was made with a mask: every block of a run has the
    same schema, and Parquet stores no definition levels for the others (an eighth of the
    time it takes to write a block)."""
    arrays = [c if isinstance(c, pa.Array) else array(c) for c in columns.values()]
    fields = [pa.field(name, a.type, nullable=_masked(a)) for name, a in zip(columns, arrays)]
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields))


def _masked(column: pa.Array) -> bool:
    """Whether ``column`` has validity bits (a dictionary column: its codes')."""
    return (column.indices if isinstance(column, pa.DictionaryArray) else column).buffers()[0] is not None

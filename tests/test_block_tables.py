"""What a block's writer builds on the way to its files, checked against plain numpy,
pyarrow and Counter: the records split into columns, the Arrow columns made from buffers,
the histograms and tallies of the aggregates; and a run's Parquet schema, null only where
docs/columns.md says a column can be."""

import subprocess
import sys
from collections import Counter

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sim import arrow
from sim.activity import tally
from sim.blocks import Columns
from sim.summary import histogram


def test_columns_hold_each_field_of_the_records():
    dtype = np.dtype((np.record, np.dtype([("game", "<i8"), ("deal", "<i2"), ("dealer", "i1"), ("score0", "<i4")],
                                          align=True)))
    records = np.zeros(Columns.ROWS * 2 + 5, dtype=dtype)  # two whole slices of rows and a part
    rng = np.random.default_rng(1)
    for name in dtype.names:
        records[name] = rng.integers(-100, 100, len(records))
    columns = Columns(records)
    assert len(columns) == len(records) and columns.dtype == dtype
    for name in dtype.names:
        assert columns[name].flags.c_contiguous and columns[name].dtype == records[name].dtype
        assert np.array_equal(columns[name], records[name])


def test_arrow_columns_equal_pyarrows_own():
    rng = np.random.default_rng(2)
    mask = rng.random(100) < 0.3
    for values in (rng.integers(-5, 5, 100).astype(np.int8), rng.integers(0, 1 << 40, 100),
                   rng.random(100) < 0.5, rng.integers(0, 9, 100).astype(np.uint16)):
        assert arrow.array(values).equals(pa.array(values))
        assert arrow.array(values, mask).equals(pa.array(values, mask=mask))
    names = ["pass", "1S", "Grand Colon", "é"]
    codes = rng.integers(0, 4, 100)
    expected = pa.DictionaryArray.from_arrays(pa.array(codes.astype(np.int32), mask=mask), pa.array(names))
    assert arrow.categorical(codes, names, mask).equals(expected)
    assert arrow.constant("heuristic", 3).to_pylist() == ["heuristic"] * 3
    table = arrow.table({"a": codes, "b": arrow.categorical(codes, names, mask),
                         "c": arrow.array(codes > 1, codes > 2)})
    assert table.to_pydict() == {"a": codes.tolist(), "b": expected.to_pylist(),
                                 "c": [None if k > 2 else bool(k > 1) for k in codes]}
    assert [f.nullable for f in table.schema] == [False, True, True]


def test_a_run_writes_its_records_without_importing_pandas(tmp_path):
    code = ("import sys, sim; sim.simulate(game='bridgette', games=20, out=sys.argv[1]); "
            "print('pandas' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code, str(tmp_path / "run")], capture_output=True, text=True,
                            check=True)
    assert result.stdout == "False\n"
    assert pq.read_table(tmp_path / "run" / "records" / "deals-000000.parquet").num_rows > 0


@pytest.mark.parametrize("values", [
    np.array([3, -2, 3, 7, -2, 3], dtype=np.int8), np.array([0, 1 << 40, 5], dtype=np.int64),  # a range too wide
    np.array([], dtype=np.int32), np.array([65535, 1], dtype=np.uint16), np.array([True, False, True]),
    np.random.default_rng(3).integers(-3000, 3000, 10_000).astype(np.int32),
])
def test_histogram_counts_as_unique_does(values):
    vals, counts = np.unique(values, return_counts=True)
    got = histogram(values)
    assert got == {"values": vals.tolist(), "counts": counts.tolist()}
    assert [type(v) for v in got["values"]] == [type(v) for v in vals.tolist()]


def test_tally_counts_every_combination():
    rng = np.random.default_rng(4)
    a, b, c = rng.integers(0, 37, 5000).astype(np.int8), rng.integers(0, 14, 5000), rng.random(5000) < 0.2
    *values, rows = tally(a, b, c)
    counted = dict(zip(zip(*(v.tolist() for v in values)), rows.tolist()))
    assert counted == Counter(zip(a.tolist(), b.tolist(), c.astype(int).tolist()))


@pytest.mark.parametrize("game, nullable", [("bridgette", {"strain", "declarer_is_dealer"}),
                                            ("bid-euchre", {"trump", "made", "bidder_is_dealer_team"})])
def test_only_the_columns_that_can_be_null_are_nullable(tmp_path, game, nullable):
    import sim

    run = sim.simulate(game=game, games=300, seed=5, out=tmp_path / "run")
    deals = pq.read_table(next((tmp_path / "run" / "records").glob("deals-*.parquet")))
    assert {f.name for f in deals.schema if f.nullable} == nullable
    assert {name for name in deals.column_names if deals.column(name).null_count} <= nullable
    games = pq.read_schema(next((tmp_path / "run" / "records").glob("games-*.parquet")))
    assert not any(f.nullable for f in games)
    assert run.deals().shape[0] == deals.num_rows

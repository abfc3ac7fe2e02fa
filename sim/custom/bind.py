"""A custom metric bound to the columns of runs: the checks a run's schema allows before
any block is read, and the per-game sums of y and n."""

from __future__ import annotations

import ast
import difflib
from dataclasses import dataclass

import numpy as np

from sim.custom.evaluate import Evaluator, as_number, empty, value_kind
from sim.custom.parse import Custom


@dataclass(frozen=True)
class Bound:
    """A custom metric checked against the runs' columns: which records it reads and how."""

    custom: Custom
    records: str          # the rows: "deals" or "games"
    row_columns: tuple    # columns of those rows it reads
    game_columns: tuple   # game columns it reads onto deal rows (the deal's game)
    columns: dict         # name -> Column of every column it reads
    percent: bool         # a rate: the mean of a condition, or a ratio of two counts
    share: bool = False   # the mean of a condition (sum(COND) / sum(1) too): every value from 0 to 1

    def rows(self, env: dict, null):
        """(rows kept, y, n) per row, for columns ``env`` (name -> array or Text) and the
        rows where a column read is null (``null``)."""
        ev = Evaluator(self.custom, self.columns)
        keep = ~np.asarray(null, dtype=bool)
        if self.custom.where is not None:
            keep &= np.broadcast_to(ev.condition(self.custom.where, env), keep.shape)
        env = {name: value[keep] for name, value in env.items()}
        size = int(keep.sum())
        y = _whole(ev.summed(self.custom.numerator, env), size)
        n = np.ones(size, np.int64) if self.custom.denominator is None else \
            _whole(ev.summed(self.custom.denominator, env), size)
        return keep, y, n


def _whole(value, size: int):
    return np.broadcast_to(np.asarray(as_number(value), dtype=np.int64), (size,))


def bind(custom: Custom, schema: dict, unknown_note: str = "") -> Bound:
    """``custom`` against ``schema`` ({"deals"/"games": {name: Column}}): a column is a deal
    column where the deal records have it, else a game column; every type checked by
    evaluating the metric on no rows. ``unknown_note`` ends the message of an unknown column
    (why a run has fewer columns)."""
    deals, games = schema.get("deals", {}), schema.get("games", {})
    for name in custom.columns:
        if name not in deals and name not in games:
            known = [*deals, *(c for c in games if c not in deals)]
            close = difflib.get_close_matches(name, known, n=1)
            hint = (f"; did you mean '{close[0]}'?" if close else
                    "" if unknown_note or not known else f" (columns: {', '.join(known)})")
            raise custom.error(f"no column '{name}' in the {'game ' if not deals else ''}records{hint}"
                               f"{'; ' + unknown_note if unknown_note else ''}")
    on_deals = [c for c in custom.columns if c in deals]
    records = "deals" if on_deals else "games"
    game_columns = tuple(c for c in custom.columns if c not in deals) if on_deals else ()
    row_columns = tuple(on_deals) if on_deals else custom.columns
    columns = {c: (deals if c in deals else games)[c] for c in custom.columns}
    for name, column in columns.items():
        if column.kind is None:
            raise custom.error(f"column '{name}' holds values a metric cannot read")
    ev = Evaluator(custom, columns)
    env = {c: empty(col) for c, col in columns.items()}
    bound = Bound(custom, records, row_columns, game_columns, columns, False)
    bound.rows(env, np.zeros(0, bool))  # every type error, before any block is read
    kinds = [value_kind(ev.eval(node, env)) for node in (custom.numerator, custom.denominator) if node is not None]
    per_row = custom.denominator is None or (isinstance(custom.denominator, ast.Constant)
                                             and custom.denominator.value == 1)
    share = kinds[0] == "bool" and per_row
    return Bound(custom, records, row_columns, game_columns, columns, share or all(k == "bool" for k in kinds), share)

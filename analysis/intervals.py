"""analysis.interval: a metric's value with its 95% interval, from a run folder or from a
pandas DataFrame of its records, by the summaries' estimator (sim.ratio)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np

from sim.custom import Custom, CustomError, parse_custom
from sim.games import GAMES
from sim.metrics import METRICS, Metric, MetricsError, custom_metrics
from sim.ratio import interval, ratio_estimate
from sim.run_records import RunRecords, run_ratio_sums, table_columns


class FrameRecords(RunRecords):
    """A pandas DataFrame of deal or game records (with a ``game`` column) read as a run of
    one block: its games, renumbered 0.. in order, are the units of the intervals."""

    def __init__(self, frame, game: str | None = None):
        import pyarrow as pa

        if frame.columns.nlevels > 1:
            raise MetricsError("the DataFrame's columns have several levels (a MultiIndex): give one name per "
                               "column, as run.deals() does")
        if "game" not in frame.columns:
            raise MetricsError("the DataFrame has no 'game' column: intervals are over games, so keep it "
                               "(run.deals() and run.games() have it)")
        games = frame["game"]
        missing = int(games.isna().sum()) if games.ndim == 1 else 0
        if games.ndim != 1 or missing or not (games.dtype.kind in "iu" or games.dtype.kind == "f"
                                               and bool((games % 1 == 0).all())):
            raise MetricsError("the DataFrame's 'game' column must hold each row's game number, a whole number "
                               "in every row (as run.deals() gives it)" + (f": {missing} rows have none" if missing
                                                                           else ""))
        try:
            table = pa.Table.from_pandas(frame, preserve_index=False)
        except (pa.ArrowException, ValueError, TypeError) as exc:
            raise MetricsError(f"cannot read the DataFrame: {_unread(frame, exc)}") from None
        ids, local = np.unique(table.column("game").to_numpy(), return_inverse=True)
        self.table = table.set_column(table.column_names.index("game"), "game", pa.array(local, pa.int64()))
        self.path, self.records, self.dealing, self._schema = "the DataFrame", "deals", None, None
        self.game, self.games, self.block_size, self.seed = game, len(ids), max(len(ids), 1), None
        self.info = GAMES.get(game) if game is not None else None

    def has(self, kind: str) -> bool:
        return True  # deal and game metrics alike read the frame's rows

    def schema(self) -> dict:
        if self._schema is None:
            self._schema = {"deals": table_columns(self.table.schema, self.table)}
        return self._schema

    def read_table(self, kind: str, index: int, columns):
        missing = [c for c in columns if c not in self.table.column_names]
        if missing:
            raise MetricsError(f"the DataFrame has no column '{missing[0]}'")
        return self.table.select(["game", *dict.fromkeys(c for c in columns if c != "game")])


def _unread(frame, exc) -> str:
    """Why pyarrow cannot read ``frame``, by the first column it cannot read alone."""
    import pyarrow as pa

    if not frame.columns.is_unique:
        twice = frame.columns[frame.columns.duplicated()][0]
        return f"it has two columns named {twice!r}"
    for name in frame.columns:
        try:
            pa.array(frame[name], from_pandas=True)
        except (pa.ArrowException, ValueError, TypeError):
            return f"column {name!r} mixes kinds of values (numbers, text, true/false): keep one kind per column"
    return str(exc).splitlines()[0]


def metric_interval(source, metric: str, by: str | None = None, game: str | None = None) -> dict:
    """A metric's value with its 95% interval, by the estimator of the summaries and
    analysis.compare: R = sum(y) / sum(n) over games, linearised over games (sim.ratio).

    ``source``: a run folder (its path, or the Run of sim.simulate / sim.load_run), or a
    pandas DataFrame of its deal or game records with their ``game`` column (e.g.
    ``run.deals()`` filtered), whose games are the units. ``metric``: a builtin name
    (METRICS; over a DataFrame it needs ``game``, whose seats and columns it reads) or an
    expression ``mean(EXPR) [where COND]`` / ``sum(A) / sum(B) [where COND]`` over the
    columns (sim.custom; ``NAME =`` may lead). ``by``: a column; then one result per
    value it holds, {value: result}. A result is {"value", "ci95", "games", "n"} (n: the
    sum of the denominator, e.g. the rows counted); a builtin metric of a run that kept no
    records comes from its summary (``n`` None). Bad input is a MetricsError in one line."""
    if by is not None and not (isinstance(by, str) and by.strip().isidentifier()):  # as the grammar reads a name
        raise MetricsError(f"by takes one column's name, e.g. by='upcard_class', got {by!r:.60} (a condition goes "
                           f"in the metric: mean(EXPR) where COND)")
    if isinstance(metric, str) and metric.strip() in METRICS:
        if by is not None:
            raise MetricsError(f"by groups an expression, not the builtin '{metric.strip()}' (the dealer's "
                               f"advantage is mean(score_dealer - score_nondealer), contract_made mean(made))")
        chosen = METRICS[metric.strip()]
    else:
        text = str(metric)
        if re.fullmatch(r"\s*[A-Za-z_]\w*\s*", text):  # a name alone: a builtin's, misspelt
            import difflib

            close = difflib.get_close_matches(text.strip(), list(METRICS), n=1)
            raise MetricsError(f"unknown metric '{text.strip()}'" + (f"; did you mean '{close[0]}'?" if close else "")
                               + f" (builtin: {', '.join(METRICS)}; or an expression, mean(EXPR) [where COND])")
        if not re.match(r"\s*[A-Za-z_]\w*\s*=(?!=)", text):
            text = f"value = {text}"
        try:
            chosen = parse_custom(text if by is None else f"{text} by {by}")
        except CustomError as exc:
            raise MetricsError(str(exc)) from None
    frame = not isinstance(source, (str, Path)) and hasattr(source, "columns")
    if not frame and not isinstance(getattr(source, "path", source), (str, os.PathLike)):
        raise MetricsError(f"the source is a run folder's path, a Run or a DataFrame of its records, got {source!r}")
    if frame and isinstance(chosen, Metric) and game not in GAMES:
        raise MetricsError(f"the builtin metric '{chosen.name}' over a DataFrame needs game= one of "
                           f"{', '.join(GAMES)}, whose seats it reads")
    if frame and len(source) == 0:
        raise MetricsError("the DataFrame holds no records (a filter that kept none?): no interval to give")
    run = FrameRecords(source, game or next(iter(GAMES))) if frame else RunRecords(getattr(source, "path", source))
    if isinstance(chosen, Metric) and not run.has(chosen.records):
        read = chosen.from_summary(run.info, run.summary()) if chosen.from_summary else None
        if read is None:
            raise MetricsError(f"{run.path} kept no {chosen.records[:-1]} records for '{chosen.name}', nor its summary")
        value, se = read
        return {"value": value, "ci95": interval(value, se * se, chosen.within), "games": run.games, "n": None}
    metrics = custom_metrics(chosen, [run]) if isinstance(chosen, Custom) else [chosen]
    sums = run_ratio_sums(run, metrics)
    results = {}
    for m in metrics:
        estimate = ratio_estimate(sums[m.name], m.within)
        results[m.name] = {"value": estimate["value"], "ci95": estimate["ci95"], "games": estimate["games"],
                           "n": estimate["deals"]}
    if by is None and getattr(chosen, "by", None) is None:
        return results[metrics[0].name]
    return {m.group[1]: results[m.name] for m in metrics}

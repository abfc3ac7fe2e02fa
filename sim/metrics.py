"""The metrics of a run: each a ratio of per-game sums over the games g of a run,
R = sum(y_g) / sum(n_g), estimated with its interval by sim.ratio:

    dealer_advantage   y = the dealer's deal score minus the non-dealer's, summed over the
                       game's deals (Bid Euchre: the dealer's team minus the other team);
                       n = deals (passed-out and void deals included, scoring 0 - 0)
    first_dealer_wins  y = 1 when the first dealer (Bid Euchre: the first dealer's team)
                       wins the game; a drawn or abandoned game counts 0; n = 1
    contract_made      y = contracts made (Bid Euchre: bids made); n = contracts played
                       (passed-out deals and void hands are not contracts)
    mean_score         y = both seats' (teams') deal scores summed; n = 2 x deals, so R is
                       the mean deal score of one seat
    deals_per_game     y = deals counted in the game (B-15, D-7, E-9); n = 1

Beside the builtin METRICS, a metric can be written as an expression over the deal or game
columns (sim.custom: ``made4 = mean(made) where level == 4``); it reduces to the same
per-game sums y and n, so it gets the same intervals and the same pairing, but only from
records (a summary cannot answer it), and a zero sum of n is an error, not a blank.

Each metric reads its per-game sums from one block's records (sim.run_records), and,
where it can, its value from summary.json for runs without the needed records
(``--records none`` or ``games``). What differs between games (which column says a
contract was played, the summary's names, the words) comes from the game's declaration
(sim/games.py). Never imports numba, so the analyses stay light.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Callable

import numpy as np

from sim.cli import one_line
from sim.custom import Column, Custom, CustomError, bind, decode, group, parse_custom, short, split_items
from sim.games import GameInfo, game_info
from sim.ratio import SHARE, ratio_estimate, ratio_sums
from sim.summary import Z95


class MetricsError(ValueError):
    """A run folder or metric request the metrics cannot use: one line for the user, a
    value it quotes shown with its control characters escaped (sim.cli.one_line)."""

    def __str__(self) -> str:
        return one_line(super().__str__())


def _sum_exact(local, values, count: int):
    """Per-game sums of whole numbers in int64, exact whatever their size (custom metrics)."""
    out = np.zeros(count, dtype=np.int64)
    np.add.at(out, local, np.asarray(values, dtype=np.int64))
    return out


# --- Per-game values from one block's records ---------------------------------------------

def _local(cols, first: int, count: int):
    local = np.asarray(cols["game"], dtype=np.int64) - first
    if len(local) and (local.min() < 0 or local.max() >= count):
        raise MetricsError("records hold games outside their block; the run folder is corrupt")
    return local


def _sum_by_game(local, values, count: int):
    # Integer values: float64 bincount is exact far beyond any block's sums.
    return np.rint(np.bincount(local, weights=np.asarray(values, dtype=np.float64), minlength=count)).astype(np.int64)


def _dealer_differences(info, deals, first, count):
    """Per deal: its game's place in the block, and the dealer's side's score minus the other's."""
    local = _local(deals, first, count)
    s0, s1 = deals["score0"].astype(np.int64), deals["score1"].astype(np.int64)
    dealer_side = np.asarray(info.seat_sides)[deals["dealer"].astype(np.int64)]
    return local, np.where(dealer_side == 0, s0 - s1, s1 - s0)


def _dealer_advantage(info, deals, games, first, count):
    local, diff = _dealer_differences(info, deals, first, count)
    return _sum_by_game(local, diff, count), np.bincount(local, minlength=count).astype(np.int64)


def _contract_made(info, deals, games, first, count):
    local = _local(deals, first, count)
    played = np.asarray(deals[info.contract_column]) >= 0
    made = played & np.asarray(deals["made"], dtype=bool)  # Bid Euchre's void hands: null, None
    return _sum_by_game(local, made, count), _sum_by_game(local, played, count)


def _mean_score(info, deals, games, first, count):
    local = _local(deals, first, count)
    points = deals["score0"].astype(np.int64) + deals["score1"]
    return _sum_by_game(local, points, count), 2 * np.bincount(local, minlength=count).astype(np.int64)


def _by_game(games, first, count, values):
    local = _local(games, first, count)
    if len(local) != count or len(np.unique(local)) != count:
        raise MetricsError("a block's game records do not hold each of its games once; the run folder is corrupt")
    out = np.zeros(count, dtype=np.int64)
    out[local] = values
    return out


def _first_dealer_wins(info, deals, games, first, count):
    first_side = np.asarray(info.seat_sides)[np.asarray(games["first_dealer"], dtype=np.int64)]
    won = np.asarray(games["winner"], dtype=np.int64) == first_side
    return _by_game(games, first, count, won), np.ones(count, dtype=np.int64)


def _deals_per_game(info, deals, games, first, count):
    return _by_game(games, first, count, games["deals"]), np.ones(count, dtype=np.int64)


# --- The same metrics from summary.json (runs kept without the records) ---------------------

def _rate_from(statistic):
    """A rate the summary holds under ``statistic`` (the game's own name for it)."""
    def read(info, summary):
        r = summary[info.summary_key(statistic)]
        if not r["n"] or r["rate"] is None:
            return None
        p, n = r["rate"], r["n"]
        return p, math.sqrt(p * (1 - p) / n)
    return read


def _mean_score_summary(info, summary):
    # The two sides' scores per deal are not independent and their covariance is not in
    # the summary: the standard error assumes perfect correlation, which bounds it above.
    sides = list(summary[info.summary_key("deal_score")].values())
    if not all(s.get("n") for s in sides):
        return None
    n = sides[0]["n"]
    return sum(s["mean"] for s in sides) / 2, sum(s["sd"] for s in sides) / 2 / math.sqrt(n)


def _dealer_advantage_summary(info, summary):
    adv = summary.get("dealer_advantage")  # summaries of runs made before it was kept have none
    if not adv or adv["value"] is None or adv["ci95"] is None:
        return None
    return adv["value"], (adv["ci95"][1] - adv["value"]) / Z95


def _deals_per_game_summary(info, summary):
    d = summary["deals_per_game"]
    return (d["mean"], d["sd"] / math.sqrt(d["n"])) if d.get("n") else None


@dataclass(frozen=True)
class Metric:
    """One metric: how to read it per game from records and, if it can be, from a summary.

    ``label`` and ``unit`` are in the game's words: ``{deal}``, ``{side}`` and ``{contract}``
    are filled from its declaration ("hand", "team" and "bid" in Bid Euchre); a column
    written ``{contract_column}`` is the game's column that marks a contract played."""

    name: str
    label: str                      # words for tables and plots
    unit: str                       # axis label's unit
    records: str                    # "deals" or "games": the Parquet records it needs
    columns: tuple                  # columns read (beside ``game``)
    per_game: Callable              # (GameInfo, deals, games, first, count) -> (y, n) per game
    from_summary: Callable | None   # (GameInfo, summary) -> (value, standard error) or None
    balance: float | None = None    # the value at which the rules are even between the sides
    percent: bool = False           # a rate, shown in per cent
    digits: int = 2                 # decimals shown (of the per cent for rates)
    definition: str | None = None   # a custom metric's expression (sim.custom); None: builtin
    game_columns: tuple = ()        # game columns a custom metric reads onto its deal rows
    deal_label: str | None = None   # the words in a deal run, whose games are single deals
    group: tuple | None = None      # (column, value): one group of a custom metric's ``by COLUMN``
    within: tuple | None = None     # the range every value lies in (a share: 0 to 1); intervals are cut to it

    def words(self, game: str, deal_run: bool = False) -> str:
        return _in_words(self.deal_label if deal_run and self.deal_label else self.label, game_info(game))

    def unit_for(self, game: str, deal_run: bool = False) -> str:
        """The unit; a deal run's games are its deals, and are called so."""
        unit = self.unit.replace("games", "{deal}s").replace("game", "{deal}") if deal_run else self.unit
        return _in_words(unit, game_info(game))

    def columns_for(self, game: str) -> tuple:
        info = game_info(game)
        return tuple(c.format(contract_column=info.contract_column) for c in self.columns)

    def format(self, value, signed: bool = False) -> str:
        if value is None:
            return "-"
        spec = f"{'+' if signed else ''}z.{self.digits}f"  # z: a value that rounds to zero prints 0, never -0
        return f"{100 * value:{spec}}%" if self.percent else f"{value:{spec}}"


def _in_words(text: str, info: GameInfo) -> str:
    return text.format(deal=info.deal, side=info.side, contract=info.contract)


METRICS = {m.name: m for m in (
    Metric("dealer_advantage", "dealer's advantage per {deal}", "points per {deal}", "deals",
           ("dealer", "score0", "score1"), _dealer_advantage, _dealer_advantage_summary, balance=0.0),
    Metric("first_dealer_wins", "first dealer's game win rate", "share of games", "games",
           ("first_dealer", "winner"), _first_dealer_wins, _rate_from("first_dealer_wins"),
           balance=0.5, percent=True, digits=2, deal_label="dealer's {deal} win rate", within=SHARE),
    Metric("contract_made", "{contract}s made", "share of {contract}s", "deals", ("{contract_column}", "made"),
           _contract_made, _rate_from("contracts_made"), percent=True, digits=2, within=SHARE),
    Metric("mean_score", "mean {deal} score per {side}", "points per {deal}", "deals",
           ("score0", "score1"), _mean_score, _mean_score_summary),
    Metric("deals_per_game", "{deal}s per game", "{deal}s", "games", ("deals",), _deals_per_game,
           _deals_per_game_summary, digits=3),
)}


def parse_metrics(text) -> list[str]:
    """The metrics of a --metrics list (None: every builtin metric), each a builtin name or
    a custom metric ``NAME = mean(EXPR) [where COND]`` (sim.custom), separated by the
    commas outside parentheses, brackets and quotes; a list of such texts (a repeated
    flag) is joined. Returns the items, checked: builtin names and custom definitions."""
    if text is None:
        return list(METRICS)
    texts = [text] if isinstance(text, str) else list(text)
    items = [item for t in texts for item in split_items(t)]
    if not all(items):
        raise MetricsError(f"--metrics needs comma-separated metric names or NAME = EXPRESSION, got "
                           f"'{', '.join(texts)}'")
    return [m.text if isinstance(m, Custom) else m.name for m in resolve_metrics(items)]


def resolve_metrics(metrics=None, deal_run: bool = False) -> list:
    """Builtin Metrics and parsed custom metrics (sim.custom.Custom) from names,
    definitions, a --metrics text, or those objects themselves (None: every builtin, less
    ``deals_per_game`` for a deal run, where it is always 1)."""
    if metrics is None:
        return [m for m in METRICS.values() if not (deal_run and m.name == "deals_per_game")]
    if isinstance(metrics, str):
        metrics = split_items(metrics)
    elif isinstance(metrics, (Metric, Custom)) or not hasattr(metrics, "__iter__"):
        metrics = [metrics]
    out = []
    for item in metrics:
        if isinstance(item, (Metric, Custom)):
            out.append(item)
        elif not isinstance(item, str) or not item.strip():
            raise MetricsError(f"a metric is a builtin name or NAME = EXPRESSION, got {short(repr(item))}")
        elif item.strip() == "deals_per_game" and deal_run:
            raise MetricsError("deals_per_game is 1 in a run of single deals (--deals): each deal is its own game")
        elif item.strip() in METRICS:
            out.append(METRICS[item.strip()])
        elif item.strip().isidentifier():
            import difflib

            known = [name for name in METRICS if not (deal_run and name == "deals_per_game")]
            close = difflib.get_close_matches(item.strip(), known, n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise MetricsError(f"unknown metric '{item.strip()}'{hint} (metrics: {', '.join(known)}, "
                               f"or NAME = mean(EXPR) [where COND])")
        elif "=" not in item.replace("==", "").replace("!=", "").replace("<=", "").replace(">=", ""):
            raise MetricsError(f"a custom metric needs a name: NAME = {short(item.strip())}")
        else:
            try:
                custom = parse_custom(item)
            except CustomError as exc:
                raise MetricsError(str(exc)) from None
            if custom.name in METRICS:
                raise MetricsError(f"custom metric '{custom.name}' has a builtin metric's name; give it another")
            out.append(custom)
    names = [m.name for m in out]
    twice = next((n for n in names if names.count(n) > 1), None)
    if twice is not None:
        raise MetricsError(f"--metrics lists the metric '{twice}' twice")
    return out


def custom_metric(custom: Custom, runs) -> Metric:
    """``custom`` bound to the columns of ``runs`` (RunRecords): a Metric like the builtin
    ones. A column no run has, a type that does not fit, or records a run did not keep is a
    MetricsError."""
    bare = [r for r in runs if r.records == "none"]
    if bare:
        raise MetricsError(f"metric '{custom.name}' reads the records, which {bare[0].path} did not keep "
                           f"(--records none)")
    schemas = [run.schema() for run in runs]
    schema = {}
    for run_schema in schemas:
        for kind, columns in run_schema.items():
            mine = schema.setdefault(kind, {})
            for name, column in columns.items():
                old = mine.get(name)
                if old is None:
                    mine[name] = column
                elif old.values is not None and column.values is not None:
                    mine[name] = Column(old.kind, tuple(dict.fromkeys(old.values + column.values)))
                else:
                    mine[name] = Column(old.kind, None)
    dealless = [r for r in runs if not r.has("deals")]
    note = (f"{dealless[0].path} kept no deal records (--records {dealless[0].records}), and deal columns "
            f"need --records deals" if dealless else "")
    try:
        bound = bind(custom, schema, note)
    except CustomError as exc:
        raise MetricsError(str(exc)) from None
    for run, held in zip(runs, schemas):
        for kind in (bound.records, *(["games"] if bound.game_columns else [])):
            if not run.has(kind):
                raise MetricsError(f"metric '{custom.name}' needs {kind[:-1]} records, which {run.path} did "
                                   f"not keep (--records {run.records})")
        for kind, names in ((bound.records, bound.row_columns), ("games", bound.game_columns)):
            absent = next((c for c in names if c not in held.get(kind, {})), None)
            if absent is not None:  # another run has it: pyarrow's "No match for FieldRef" from its file before
                why = " (a run without --dd keeps no double-dummy columns)" if absent.startswith("dd_") else ""
                raise MetricsError(f"metric '{custom.name}' reads the column '{absent}', which the records of "
                                   f"{run.path} do not hold{why}")
    what = "{deal}s" if bound.records == "deals" else "games"
    if custom.denominator is not None:
        unit = "ratio of counts" if bound.percent else "ratio"
    else:
        unit = f"share of {what}" if bound.percent else f"per {what[:-1]}"
    return Metric(custom.name, _escape(custom.label), unit, bound.records, bound.row_columns,
                  lambda info, deals, games, first, count: _custom_per_game(bound, deals, games, first, count),
                  None, balance=custom.balance, percent=bound.percent, definition=custom.definition,
                  game_columns=bound.game_columns,
                  within=SHARE if bound.share else None)


MAX_GROUPS = 60  # values a by COLUMN may take: a table per group beyond that is no longer read


def custom_metrics(custom: Custom, runs) -> list[Metric]:
    """``custom`` bound to the columns of ``runs`` (custom_metric); with ``by COLUMN``, one
    Metric per value COLUMN holds in the runs' records (null aside), in the column's order
    (a text column's names as its dictionary lists them, the rest ascending), each over
    the rows of its value."""
    whole = custom_metric(custom, runs)
    if custom.by is None:
        return [whole]
    kind = "deals" if all(custom.by in run.schema().get("deals", {}) for run in runs) else "games"
    column = next(run.schema()[kind][custom.by] for run in runs)
    found = set()
    for run in runs:
        for index, _, _ in run.blocks():
            found.update(v for v in run.read_table(kind, index, [custom.by]).column(custom.by).unique().to_pylist()
                         if v is not None)
            if len(found) > MAX_GROUPS:
                raise MetricsError(f"metric '{custom.name}': '{custom.by}' takes more than {MAX_GROUPS} values in "
                                   f"{run.path}; group by a column with fewer (a class, a level, a seat)")
    order = [v for v in column.values or () if v in found]
    order += sorted(found - set(order))
    return [replace(custom_metric(group(custom, value, column.kind), runs), group=(custom.by, value))
            for value in order]


def _escape(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


def _custom_per_game(bound, deals, games, first: int, count: int):
    """(y, n) per game of a bound custom metric from one block's Arrow tables."""
    table = deals if bound.records == "deals" else games
    local = _local({"game": table.column("game").to_numpy()}, first, count)
    env, null = {}, np.zeros(table.num_rows, dtype=bool)
    for name in bound.row_columns:
        env[name], missing = decode(table.column(name), bound.columns[name].kind)
        null |= missing
    if bound.game_columns:
        at = _local({"game": games.column("game").to_numpy()}, first, count)
        if len(at) != count or len(np.unique(at)) != count:
            raise MetricsError("a block's game records do not hold each of its games once; the run folder is corrupt")
        where = np.empty(count, dtype=np.int64)
        where[at] = np.arange(count)
        rows = where[local]  # each deal row's game row
        for name in bound.game_columns:
            value, missing = decode(games.column(name), bound.columns[name].kind)
            env[name] = value[rows]
            null |= missing[rows]
    try:
        keep, y, n = bound.rows(env, null)
    except CustomError as exc:  # a zero divisor in the records
        raise MetricsError(str(exc)) from None
    return _sum_exact(local[keep], y, count), _sum_exact(local[keep], n, count)


def shown(name: str, entry: dict | None = None) -> Metric:
    """The metric ``name`` for tables and plots: a builtin, or a custom one as a result
    describes it (``entry``: its label, unit, percent and balance)."""
    if name in METRICS:
        return METRICS[name]
    entry = entry or {}
    return Metric(name, _escape(entry.get("label", name)), _escape(entry.get("unit", "")), "deals", (), None, None,
                  balance=entry.get("balance"), percent=bool(entry.get("percent")),
                  definition=entry.get("definition"))


def dealer_advantage_sums(info: GameInfo, deals, first: int, count: int, groups=None, n_groups: int = 0) -> dict:
    """A block's aggregate of the dealer's advantage (METRICS["dealer_advantage"]) from its
    deal rows: over all deals and, in ``by_upcard``, over the deals of each of ``n_groups``
    groups (``groups``: each deal's group, as the game's ``advantage_groups`` gives it)."""
    local, diff = _dealer_differences(info, deals, first, count)
    out = {"all": ratio_sums(_sum_by_game(local, diff, count), np.bincount(local, minlength=count))}
    if groups is not None:
        # Every group's per-game sums in one pass: game g of group k at k * count + g.
        cell = np.asarray(groups, dtype=np.int64) * count + local
        y = _sum_by_game(cell, diff, n_groups * count).reshape(n_groups, count)
        n = np.bincount(cell, minlength=n_groups * count).reshape(n_groups, count)
        out["by_upcard"] = [ratio_sums(y[k], n[k]) for k in range(n_groups)]
    return out


def dealer_advantage_summary(sums: dict, names=()) -> dict:
    """summary.json's dealer_advantage: the overall estimate, and ``by_upcard`` (a list in
    the order of ``names``) where the game groups its deals (Bridgette: the up-card's class,
    the Colons apart)."""
    out = ratio_estimate(sums["all"])
    if "by_upcard" in sums:
        out["by_upcard"] = [{"upcard": name, **ratio_estimate(s)} for name, s in zip(names, sums["by_upcard"])]
    return out

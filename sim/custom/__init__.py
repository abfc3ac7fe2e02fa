"""Custom metrics: a ratio of sums over games of an expression over a run's records.

    NAME = mean(EXPR) [where COND] [balance V]             y = sum of EXPR, n = rows counted
    NAME = sum(EXPR) / sum(EXPR) [where COND] [balance V]  y and n = the two sums

The rows are the deal records (Bid Euchre: hands) when the metric names any deal column,
else the game records; a game column named beside deal columns is the value of the deal's
game. ``where`` keeps only the rows where COND holds, and a row where a column the metric
reads is null (Bid Euchre's ``made`` and ``trump`` on a void hand, ``strain`` on a
passed-out deal) counts in neither sum. y and n are summed per game, so a custom metric is
one more R = sum(y) / sum(n) for sim.metrics: the same intervals over games, paired
game by game between runs of one seed. ``balance V`` is the value at which the rules are
even (a rate's as a fraction), for sim.sweep's balance point.

Expressions are read with ``ast`` and evaluated with numpy, never with ``eval``: column
names; whole numbers; quoted values, compared with text columns (``upcard_group ==
'ace'``, ``bid in ('4', '5')``); + - * // %; comparisons (chained too); and, or, not
(also &, |, ~); ``A if COND else B``; abs, min and max. Values stay whole numbers so the
sums stay exact (a ratio is ``sum(A) / sum(B)``, never ``/`` inside an expression), and
true and false count as 1 and 0: ``mean(made)`` is a rate.

The package keeps its concerns apart, a file per concern:

- ``parse``: reading a definition and checking its expression;
- ``evaluate``: the records' columns and an expression evaluated over them;
- ``bind``: a metric bound to the columns of runs, and its per-game sums.

Every name other modules use is importable from ``sim.custom`` itself.
"""

from sim.custom.parse import (  # noqa: F401
    Custom, CustomError, FUNCTIONS, MAX_DEPTH, SHAPE, group, parse_custom, same_definition, short, split_items,
)
from sim.custom.evaluate import Column, Evaluator, Text, as_number, column_kind, decode, empty, value_kind  # noqa: F401
from sim.custom.bind import Bound, bind  # noqa: F401

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
"""

from __future__ import annotations

import ast
import difflib
import io
import tokenize
from dataclasses import dataclass, replace

import numpy as np

FUNCTIONS = ("abs", "min", "max")
SHAPE = ("a custom metric is NAME = mean(EXPR) or NAME = sum(EXPR) / sum(EXPR), then optionally where CONDITION "
         "and by COLUMN")
MAX_DEPTH = 200  # nesting an expression may have: far beyond any metric, well within Python's recursion


class CustomError(ValueError):
    """A custom metric that cannot be read or evaluated (one line; sim.metrics raises
    it as its MetricsError)."""


def split_items(text: str) -> list[str]:
    """A --metrics list (or sim.sweep's values) split at the commas outside parentheses,
    brackets and quotes, so ``m = mean(made) where bid in ('4', '5')`` stays one item."""
    items, depth, quote, start = [], 0, None, 0
    for i, ch in enumerate(text):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append(text[start:i].strip())
            start = i + 1
    items.append(text[start:].strip())
    return items


# --- Reading a definition -----------------------------------------------------------------

@dataclass(frozen=True)
class Custom:
    """A parsed custom metric, not yet checked against any run's columns."""

    name: str
    definition: str          # the text after "NAME ="
    numerator: ast.expr
    denominator: ast.expr | None  # None: mean(), n counts the rows
    where: ast.expr | None
    balance: float | None
    columns: tuple           # every column named, each once
    label: str = ""          # NAME = the expression and its condition: the words of tables and plots
    where_text: str = ""     # the condition and the denominator's expression as written
    denominator_text: str = ""
    by: str | None = None    # the column whose values group the rows: one value of the metric each
    aggregate_text: str = ""  # mean(EXPR) or sum(EXPR) / sum(EXPR) as written

    @property
    def text(self) -> str:
        return f"{self.name} = {self.definition}"

    def error(self, message: str) -> CustomError:
        return CustomError(f"metric '{self.name}': {message}")


def parse_custom(text: str) -> Custom:
    """``NAME = AGGREGATE [where COND] [balance V]`` read and checked for its grammar only
    (which columns exist is known from a run: see Bound)."""
    text = text.strip()
    if "\n" in text or "\r" in text:
        raise CustomError(f"a custom metric is one line, got {text!r}")
    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(text).readline)
                  if t.type not in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER, tokenize.COMMENT)]
    except tokenize.TokenError:
        raise CustomError(f"cannot read the metric '{short(text)}': a parenthesis or a quote is not closed") from None
    except SyntaxError as exc:
        raise CustomError(f"cannot read the metric '{short(text)}': {_first_line(exc)}") from None
    if len(tokens) < 3 or tokens[0].type != tokenize.NAME or tokens[1].string != "=":
        raise CustomError(f"cannot read the metric '{short(text)}': {SHAPE}")
    name = tokens[0].string
    if not name.isidentifier():
        raise CustomError(f"metric name '{name}' must be a plain name (letters, digits, _)")
    depth, cuts = 0, {}
    for tok in tokens[2:]:
        if tok.string in "([{" and tok.type == tokenize.OP:
            depth += 1
        elif tok.string in ")]}" and tok.type == tokenize.OP:
            depth -= 1
        elif depth == 0 and tok.type == tokenize.NAME and tok.string in ("where", "by", "balance"):
            if tok.string in cuts:
                raise CustomError(f"metric '{name}': '{tok.string}' is given twice")
            cuts[tok.string] = tok
    if "where" in cuts and "balance" in cuts and cuts["where"].start > cuts["balance"].start:
        raise CustomError(f"metric '{name}': write where CONDITION before balance VALUE")
    ends = sorted([t.start[1] for t in cuts.values()] + [len(text)])
    start = tokens[1].end[1]
    head = text[start:ends[0]].strip()
    parts = {word: text[tok.end[1]:min(e for e in ends if e > tok.start[1])].strip() for word, tok in cuts.items()}
    custom = Custom(name, text[start:].strip(), None, None, None, None, ())
    if not head:
        raise custom.error(SHAPE)
    numerator, denominator = _aggregate(custom, _parse(custom, head))
    denominator_text = "" if denominator is None else ast.get_source_segment(head, denominator) or ""
    where = None
    if "where" in cuts:
        if not parts["where"]:
            raise custom.error("'where' needs a condition, e.g. where level == 4")
        where = _parse(custom, parts["where"])
        _check(custom, where)
    balance = None
    if "balance" in cuts:
        balance = _balance(custom, parts["balance"])
    by = parts.get("by")
    if by is not None and not (by.isidentifier() and by not in ("where", "by", "balance", "and", "or", "not")):
        raise custom.error(f"'by' takes one column name, e.g. by upcard_class (got '{short(by)}')")
    functions = {id(n.func) for node in (numerator, denominator, where) if node is not None
                 for n in ast.walk(node) if isinstance(n, ast.Call)}
    names = [n.id for node in (numerator, denominator, where) if node is not None
             for n in ast.walk(node) if isinstance(n, ast.Name) and id(n) not in functions]
    shown = text[start:cuts["balance"].start[1]] if "balance" in cuts else text[start:]
    return Custom(name, custom.definition, numerator, denominator, where, balance,
                  tuple(dict.fromkeys(names + ([by] if by else []))), f"{name} = {shown.strip()}",
                  parts.get("where", ""), denominator_text, by, head)


def group(custom: Custom, value, kind: str) -> Custom:
    """The metric over the rows whose ``by`` column holds ``value`` (of a column of ``kind``
    num, bool or text): its condition joined to the metric's own, named NAME[VALUE]."""
    literal = repr(value) if kind == "text" else str(int(value))
    condition = f"{custom.by} == {literal}"
    if custom.where is not None:
        condition = f"({custom.where_text}) and {condition}"
    balance = "" if custom.balance is None else f" balance {custom.balance!r}"
    plain = parse_custom(f"{custom.name} = {custom.aggregate_text} where {condition}{balance}")
    return replace(plain, name=f"{custom.name}[{value}]", label=f"{custom.label}: {value}")


def short(text: str, width: int = 80) -> str:
    """``text`` for a one-line message: at most ``width`` characters."""
    return text if len(text) <= width else text[:width - 3] + "..."


def _first_line(exc) -> str:
    message = getattr(exc, "msg", None) or (exc.args[0] if exc.args else "") or type(exc).__name__
    return str(message).splitlines()[0]


def _parse(custom: Custom, text: str) -> ast.expr:
    """An expression's tree, refused when nested deeper than MAX_DEPTH (so that evaluating
    it never meets Python's recursion limit)."""
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError as exc:
        raise custom.error(f"cannot read '{short(text)}': {_first_line(exc)}") from None
    except (RecursionError, MemoryError):
        node = None
    if node is None or _depth(node) > MAX_DEPTH:
        raise custom.error(f"'{short(text)}' is nested too deeply (more than {MAX_DEPTH} levels)")
    return node


def _depth(node: ast.AST) -> int:
    """How deep the tree under ``node`` goes, counted without recursion."""
    deepest, stack = 0, [(node, 1)]
    while stack:
        n, d = stack.pop()
        deepest = max(deepest, d)
        stack.extend((child, d + 1) for child in ast.iter_child_nodes(n))
    return deepest


def _balance(custom: Custom, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise custom.error(f"balance needs a number (a rate's as a fraction, e.g. 0.5), got '{text}'") from None
    if not np.isfinite(value):
        raise custom.error(f"balance needs a finite number, got '{text}'")
    return value


def _aggregate(custom: Custom, node: ast.expr):
    """(numerator, denominator or None) of mean(EXPR) or sum(EXPR) / sum(EXPR)."""
    def call(n, fname):
        return (isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == fname
                and len(n.args) == 1 and not n.keywords and not isinstance(n.args[0], ast.Starred))

    if call(node, "mean"):
        parts = (node.args[0], None)
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and call(node.left, "sum") \
            and call(node.right, "sum"):
        parts = (node.left.args[0], node.right.args[0])
    else:
        raise custom.error(f"{SHAPE} (got '{ast.unparse(node)}')")
    for part in parts:
        if part is not None:
            _check(custom, part)
    return parts


_ALLOWED = (ast.Name, ast.Constant, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.IfExp, ast.Call,
            ast.Tuple, ast.List, ast.Load, ast.operator, ast.unaryop, ast.boolop, ast.cmpop)


def _check(custom: Custom, node: ast.expr) -> None:
    """Only the nodes the grammar allows; numbers whole; functions abs, min, max."""
    for n in ast.walk(node):
        if not isinstance(n, _ALLOWED) or isinstance(n, ast.Call) and not isinstance(n.func, ast.Name):
            raise custom.error(f"'{ast.unparse(n)}' is not allowed in a metric (columns, whole numbers, quoted "
                               f"values, + - * // %, comparisons, and/or/not, A if C else B, abs/min/max)")
        if isinstance(n, ast.Constant) and not isinstance(n.value, (bool, int, str)):
            if isinstance(n.value, float):
                raise custom.error(f"numbers in a metric are whole ({n.value!r}), so its sums stay exact; "
                                   f"write a ratio as sum(A) / sum(B)")
            raise custom.error(f"'{ast.unparse(n)}' is not allowed in a metric")
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Div):
            raise custom.error(f"'/' inside an expression ('{ast.unparse(n)}') would leave whole numbers; "
                               f"write a ratio as sum(A) / sum(B), or use // for whole division")
        if isinstance(n, ast.BinOp) and not isinstance(n.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod,
                                                             ast.BitAnd, ast.BitOr)):
            raise custom.error(f"operator in '{ast.unparse(n)}' is not allowed (+ - * // %, and & | for conditions)")
        if isinstance(n, ast.Call):
            fname = n.func.id
            if fname in ("mean", "sum"):
                raise custom.error(f"{fname}() goes around the whole expression: {SHAPE}")
            if fname not in FUNCTIONS or n.keywords or any(isinstance(a, ast.Starred) for a in n.args):
                raise custom.error(f"unknown function '{fname}' (functions: {', '.join(FUNCTIONS)})")
            if len(n.args) != 1 if fname == "abs" else len(n.args) < 2:
                raise custom.error(f"{fname}() takes {'one value' if fname == 'abs' else 'two values or more'}")
        if isinstance(n, (ast.Tuple, ast.List)) and not all(isinstance(e, ast.Constant) for e in n.elts):
            raise custom.error(f"the list in '{ast.unparse(n)}' must hold numbers or quoted values only")
        if isinstance(n, ast.Compare):
            for op, right in zip(n.ops, n.comparators):
                if isinstance(op, (ast.In, ast.NotIn)) != isinstance(right, (ast.Tuple, ast.List)):
                    raise custom.error(f"in '{ast.unparse(n)}': 'in' takes a list of values, e.g. "
                                       f"level in (1, 2), and a list goes only after 'in'")
                if isinstance(op, (ast.Is, ast.IsNot)):
                    raise custom.error(f"'is' is not allowed in '{ast.unparse(n)}'; use ==")


# --- Columns and evaluation ---------------------------------------------------------------

@dataclass(frozen=True)
class Column:
    """A record column as a metric sees it: ``kind`` num, bool or text; a text column's
    ``values`` where the records name them (a dictionary column's values), else None."""

    kind: str
    values: tuple | None = None


def column_kind(arrow_type) -> str | None:
    import pyarrow as pa

    if pa.types.is_boolean(arrow_type):
        return "bool"
    if pa.types.is_integer(arrow_type):
        return "num"
    if pa.types.is_dictionary(arrow_type) or pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type):
        return "text"
    return None


class Text:
    """A text column's rows: ``codes`` into ``values`` (-1 where null)."""

    __slots__ = ("codes", "values")

    def __init__(self, codes, values):
        self.codes, self.values = codes, tuple(values)

    def __getitem__(self, keep):
        return Text(self.codes[keep], self.values)


def decode(column, kind: str):
    """(values as the evaluator takes them, null mask) of one Arrow column."""
    import pyarrow as pa
    import pyarrow.compute as pc

    null = np.asarray(column.is_null().to_numpy(zero_copy_only=False), dtype=bool)
    if kind == "text":
        if pa.types.is_dictionary(column.type):
            array = column.unify_dictionaries().combine_chunks()
        else:
            array = column.combine_chunks().dictionary_encode()
        codes = np.asarray(pc.fill_null(array.indices, -1).to_numpy(zero_copy_only=False), dtype=np.int64)
        return Text(codes, array.dictionary.to_pylist()), null
    fill = False if kind == "bool" else 0
    values = pc.fill_null(column, fill).to_numpy(zero_copy_only=False)
    return (np.asarray(values, dtype=bool) if kind == "bool" else np.asarray(values, dtype=np.int64)), null


def empty(column: Column):
    """No rows of a column: evaluating on these checks an expression's types."""
    if column.kind == "text":
        return Text(np.zeros(0, np.int64), column.values or ())
    return np.zeros(0, dtype=bool if column.kind == "bool" else np.int64)


def _kind(value) -> str:
    if isinstance(value, Text):
        return "text"
    if isinstance(value, str):
        return "str"
    if isinstance(value, tuple):
        return "list"
    if isinstance(value, (bool, np.bool_)) or getattr(value, "dtype", None) == bool:
        return "bool"
    return "num"


class Evaluator:
    """Evaluates one metric's expressions over rows of columns (name -> array or Text)."""

    def __init__(self, custom: Custom, columns: dict):
        self.custom, self.columns = custom, columns  # columns: name -> Column, for the words of errors

    def error(self, message):
        return self.custom.error(message)

    def number(self, node, env):
        """A whole-number (or true/false) value: an array, or a Python int for a constant."""
        value = self.eval(node, env)
        kind = _kind(value)
        if kind in ("num", "bool"):
            return value
        raise self.error(self._not_a_number(node, kind))

    def _not_a_number(self, node, kind) -> str:
        what = ast.unparse(node)
        if kind == "text":
            example = self._example(node)
            return f"'{what}' holds text: compare it with a quoted value, e.g. {what} == '{example}'"
        if kind == "str":
            return f"the quoted value '{node.value}' can only be compared with a text column"
        return f"a list ('{what}') goes only after 'in'"

    def _example(self, node) -> str:
        column = self.columns.get(node.id) if isinstance(node, ast.Name) else None
        return column.values[0] if column and column.values else "..."

    def condition(self, node, env):
        value = self.eval(node, env)
        if _kind(value) != "bool":
            raise self.error(f"'{ast.unparse(node)}' is not a condition; compare it, e.g. "
                             f"{ast.unparse(node)} > 0")
        return value

    def eval(self, node, env):
        if isinstance(node, ast.Name):
            return env[node.id]
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, (ast.Tuple, ast.List)):
            return tuple(e.value for e in node.elts)
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, (ast.Not, ast.Invert)):
                return np.logical_not(self.condition(node.operand, env))
            value = _int(self.number(node.operand, env))
            return -value if isinstance(node.op, ast.USub) else value
        if isinstance(node, ast.BoolOp):
            values = [self.condition(v, env) for v in node.values]
            join = np.logical_and if isinstance(node.op, ast.And) else np.logical_or
            out = values[0]
            for v in values[1:]:
                out = join(out, v)
            return out
        if isinstance(node, ast.BinOp):
            return self._binop(node, env)
        if isinstance(node, ast.Compare):
            out, left = True, node.left
            for op, right in zip(node.ops, node.comparators):
                out = np.logical_and(out, self._compare(op, left, right, env))
                left = right
            return out
        if isinstance(node, ast.IfExp):
            test = self.condition(node.test, env)
            body, orelse = self.number(node.body, env), self.number(node.orelse, env)
            both_bool = _kind(body) == "bool" and _kind(orelse) == "bool"
            out = np.where(test, body, orelse)
            return out.astype(bool) if both_bool else out.astype(np.int64)
        if isinstance(node, ast.Call):
            args = [_int(self.number(a, env)) for a in node.args]
            if node.func.id == "abs":
                return np.abs(args[0])
            join = np.minimum if node.func.id == "min" else np.maximum
            out = args[0]
            for a in args[1:]:
                out = join(out, a)
            return out
        raise self.error(f"'{ast.unparse(node)}' is not allowed in a metric")  # _check keeps these out

    def _binop(self, node, env):
        if isinstance(node.op, (ast.BitAnd, ast.BitOr)):
            sides = [self.eval(s, env) for s in (node.left, node.right)]
            if not all(_kind(s) == "bool" for s in sides):
                raise self.error(f"& and | join conditions; put comparisons in parentheses, e.g. "
                                 f"(level == 4) & made, or use and/or (in '{ast.unparse(node)}')")
            return (np.logical_and if isinstance(node.op, ast.BitAnd) else np.logical_or)(*sides)
        left, right = _int(self.number(node.left, env)), _int(self.number(node.right, env))
        if isinstance(node.op, ast.Add):
            return left + right
        if isinstance(node.op, ast.Sub):
            return left - right
        if isinstance(node.op, ast.Mult):
            return left * right
        if np.any(np.asarray(right) == 0):
            raise self.error(f"division by zero in '{ast.unparse(node)}' (leave those rows out with where)")
        return left // right if isinstance(node.op, ast.FloorDiv) else left % right

    def _compare(self, op, left_node, right_node, env):
        left, right = self.eval(left_node, env), self.eval(right_node, env)
        lk, rk = _kind(left), _kind(right)
        if isinstance(op, (ast.In, ast.NotIn)):
            items = right
            if lk == "text":
                if not all(isinstance(i, str) for i in items):
                    raise self.error(f"'{ast.unparse(left_node)}' holds text: list quoted values after 'in'")
                for item in items:
                    self._known(left_node, left, item)
                out = np.isin(left.codes, [left.values.index(i) for i in items if i in left.values])
            elif lk in ("num", "bool"):
                if not all(isinstance(i, int) for i in items):  # bool is an int too
                    raise self.error(f"'{ast.unparse(left_node)}' holds numbers: list numbers after 'in'")
                out = np.isin(left, [int(i) for i in items])
            else:
                raise self.error(self._not_a_number(left_node, lk))
            return np.logical_not(out) if isinstance(op, ast.NotIn) else out
        if lk == "text" or rk == "text":
            text, text_node, other, other_node = ((left, left_node, right, right_node) if lk == "text"
                                                  else (right, right_node, left, left_node))
            if _kind(other) != "str":
                raise self.error(self._not_a_number(text_node, "text") if _kind(other) != "text" else
                                 f"compare a text column with a quoted value, not with another column "
                                 f"('{ast.unparse(other_node)}')")
            if not isinstance(op, (ast.Eq, ast.NotEq)):
                raise self.error(f"text compares only with == != in ('{ast.unparse(text_node)}')")
            self._known(text_node, text, other)
            code = text.values.index(other) if other in text.values else -2
            out = text.codes == code
            return np.logical_not(out) if isinstance(op, ast.NotEq) else out
        for node, kind in ((left_node, lk), (right_node, rk)):
            if kind not in ("num", "bool"):
                if kind == "str":
                    other = right_node if node is left_node else left_node
                    raise self.error(f"'{ast.unparse(other)}' holds numbers: compare it with a number, "
                                     f"not the quoted '{node.value}'")
                raise self.error(self._not_a_number(node, kind))
        left, right = _int(left), _int(right)
        ops = {ast.Eq: np.equal, ast.NotEq: np.not_equal, ast.Lt: np.less, ast.LtE: np.less_equal,
               ast.Gt: np.greater, ast.GtE: np.greater_equal}
        return ops[type(op)](left, right)

    def _known(self, node, text: Text, value: str) -> None:
        """A quoted value that the column's records cannot hold is a misspelling."""
        column = self.columns.get(node.id) if isinstance(node, ast.Name) else None
        if column is None or column.values is None or value in column.values:
            return
        close = difflib.get_close_matches(value, column.values, n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        raise self.error(f"'{node.id}' has no value '{value}'{hint} (values: {', '.join(column.values)})")


def _int(value):
    """True and false as 1 and 0 in arithmetic."""
    if isinstance(value, (bool, np.bool_)):
        return int(value)
    if isinstance(value, np.ndarray) and value.dtype == bool:
        return value.astype(np.int64)
    return value


# --- A metric bound to the columns of runs ------------------------------------------------

@dataclass(frozen=True)
class Bound:
    """A custom metric checked against the runs' columns: which records it reads and how."""

    custom: Custom
    records: str          # the rows: "deals" or "games"
    row_columns: tuple    # columns of those rows it reads
    game_columns: tuple   # game columns it reads onto deal rows (the deal's game)
    columns: dict         # name -> Column of every column it reads
    percent: bool         # a rate: the mean of a condition, or a ratio of two counts

    def rows(self, env: dict, null):
        """(rows kept, y, n) per row, for columns ``env`` (name -> array or Text) and the
        rows where a column read is null (``null``)."""
        ev = Evaluator(self.custom, self.columns)
        keep = ~np.asarray(null, dtype=bool)
        if self.custom.where is not None:
            keep &= np.broadcast_to(ev.condition(self.custom.where, env), keep.shape)
        env = {name: value[keep] for name, value in env.items()}
        size = int(keep.sum())
        y = _whole(ev.number(self.custom.numerator, env), size)
        n = np.ones(size, np.int64) if self.custom.denominator is None else \
            _whole(ev.number(self.custom.denominator, env), size)
        return keep, y, n


def _whole(value, size: int):
    return np.broadcast_to(np.asarray(_int(value), dtype=np.int64), (size,))


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
    kinds = [_kind(ev.eval(node, env)) for node in (custom.numerator, custom.denominator) if node is not None]
    return Bound(custom, records, row_columns, game_columns, columns, all(k == "bool" for k in kinds))

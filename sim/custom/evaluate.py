"""Columns and evaluation: each record column's kind, text columns decoded, and an
expression evaluated with numpy over a block's columns, whole numbers throughout."""

from __future__ import annotations

import ast
import difflib
from dataclasses import dataclass

import numpy as np

from sim.custom.parse import Custom

# The largest whole number a metric's values may reach either way: a block's sums of a
# million rows stay exact in 64-bit integers.
LARGEST = 2**40


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


def value_kind(value) -> str:
    """The kind of an evaluated value: text (a decoded column), str, list, bool or num."""
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
        kind = value_kind(value)
        if kind in ("num", "bool"):
            return value
        raise self.error(self._not_a_number(node, kind))

    def summed(self, node, env):
        """A value the metric sums (its numerator or denominator): a whole number no larger
        than ``LARGEST`` either way, a column read alone included."""
        return self._in_range(self.number(node, env), node)

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
        if value_kind(value) != "bool":
            raise self.error(f"'{ast.unparse(node)}' is not a condition; compare it, e.g. "
                             f"{ast.unparse(node)} > 0")
        return value

    def eval(self, node, env):
        if isinstance(node, ast.Name):
            return env[node.id]
        if isinstance(node, ast.Constant):
            return self._in_range(node.value, node)
        if isinstance(node, (ast.Tuple, ast.List)):
            return tuple(self._in_range(e.value, e) for e in node.elts)
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, (ast.Not, ast.Invert)):
                return np.logical_not(self.condition(node.operand, env))
            value = as_number(self.number(node.operand, env))
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
            both_bool = value_kind(body) == "bool" and value_kind(orelse) == "bool"
            out = np.where(test, body, orelse)
            return out.astype(bool) if both_bool else out.astype(np.int64)
        if isinstance(node, ast.Call):
            args = [as_number(self.number(a, env)) for a in node.args]
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
            if not all(value_kind(s) == "bool" for s in sides):
                raise self.error(f"& and | join conditions; put comparisons in parentheses, e.g. "
                                 f"(level == 4) & made, or use and/or (in '{ast.unparse(node)}')")
            return (np.logical_and if isinstance(node.op, ast.BitAnd) else np.logical_or)(*sides)
        left, right = as_number(self.number(node.left, env)), as_number(self.number(node.right, env))
        sides = np.asarray(left, dtype=float), np.asarray(right, dtype=float)  # in range: no int64 overflow
        if isinstance(node.op, ast.Add):
            return self._in_range(left + right, node, sides[0] + sides[1])
        if isinstance(node.op, ast.Sub):
            return self._in_range(left - right, node, sides[0] - sides[1])
        if isinstance(node.op, ast.Mult):
            if np.any(np.abs(sides[0] * sides[1]) > LARGEST):
                raise self.error(self._too_large(node))
            return left * right
        if np.any(np.asarray(right) == 0):
            raise self.error(f"division by zero in '{ast.unparse(node)}' (leave those rows out with the metric's "
                             f"own where, mean(...) where COND: every row of an expression is worked out, so a "
                             f"condition inside it does not guard it)")
        return left // right if isinstance(node.op, ast.FloorDiv) else left % right

    def _in_range(self, value, node, approx=None):
        """``value``, a whole number (or array) no larger than ``LARGEST`` either way
        (``approx``: the same in floating point, where the exact one may have wrapped)."""
        if isinstance(value, (bool, str, np.bool_)) or (isinstance(value, np.ndarray) and value.dtype == bool):
            return value
        check = value if approx is None else approx
        try:
            beyond = np.any(np.abs(np.asarray(check, dtype=float)) > LARGEST)
        except OverflowError:  # a whole number past the floats (about 1.8e308)
            beyond = True
        if beyond:
            raise self.error(self._too_large(node))
        return value

    @staticmethod
    def _too_large(node) -> str:
        return (f"'{ast.unparse(node)}' goes beyond the whole numbers a metric keeps exact "
                f"(up to 2**40, about 10**12, either way)")

    def _compare(self, op, left_node, right_node, env):
        left, right = self.eval(left_node, env), self.eval(right_node, env)
        lk, rk = value_kind(left), value_kind(right)
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
            if value_kind(other) != "str":
                raise self.error(self._not_a_number(text_node, "text") if value_kind(other) != "text" else
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
        left, right = as_number(left), as_number(right)
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


def as_number(value):
    """True and false as 1 and 0 in arithmetic."""
    if isinstance(value, (bool, np.bool_)):
        return int(value)
    if isinstance(value, np.ndarray) and value.dtype == bool:
        return value.astype(np.int64)
    return value

"""Reading a definition: ``NAME = mean(EXPR) [where COND] [balance V]`` (or a ratio of
sums) read with ``ast`` and checked against the expressions allowed, with one-line errors."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass, replace

import numpy as np

from sim.cli import decimal_text, one_line, quoted

FUNCTIONS = ("abs", "min", "max")
SHAPE = ("a custom metric is NAME = mean(EXPR) or NAME = sum(EXPR) / sum(EXPR), then optionally where CONDITION "
         "and by COLUMN")
MAX_DEPTH = 200  # nesting an expression may have: far beyond any metric, well within Python's recursion


class CustomError(ValueError):
    """A custom metric that cannot be read or evaluated (one line, its quoted values'
    control characters escaped; sim.metrics raises it as its MetricsError)."""

    def __str__(self) -> str:
        return one_line(super().__str__())


def split_items(text: str) -> list[str]:
    """A --metrics list (or sim.sweep's values) split at the commas outside parentheses,
    brackets and quotes, so ``m = mean(made) where bid in ('4', '5')`` stays one item."""
    cuts = [i for i, ch, depth in _unquoted(text) if ch == "," and depth == 0]
    return [text[start + 1:end].strip() for start, end in zip([-1, *cuts], [*cuts, len(text)])]


def _unquoted(text: str):
    """(index, character, depth) of each character of ``text`` outside quotes, ``depth``
    counting the parentheses and brackets open once it is read."""
    depth, quote = 0, None
    for i, ch in enumerate(text):
        if quote or ch in "\"'":
            quote = None if ch == quote else quote or ch
            continue
        depth += (ch in "([{") - (ch in ")]}")
        yield i, ch, depth


def _unbalanced(text: str) -> str:
    """What the tokenizer's "EOF in multi-line statement" means in ``text``: a parenthesis
    closed that was never opened, or one (or a quote) left open."""
    extra = next((ch for _, ch, depth in _unquoted(text) if depth < 0), None)
    return f"a '{extra}' closes a parenthesis that was never opened" if extra else \
        "a parenthesis or a quote is not closed"


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
        raise CustomError(f"cannot read the metric '{short(text)}': {_unbalanced(text)}") from None
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


def same_definition(name: str, first: str, second: str) -> bool:
    """Whether two definitions of metric ``name`` (the text after "NAME =") say the same,
    written alike or not (spaces, parentheses, quotes): the same expressions, condition,
    group and balance."""
    if first == second:
        return True
    try:
        a, b = parse_custom(f"{name} = {first}"), parse_custom(f"{name} = {second}")
    except CustomError:
        return False

    def shape(c: Custom) -> tuple:
        return tuple(None if n is None else ast.dump(n) for n in (c.numerator, c.denominator, c.where)) + (
            c.balance, c.by)
    return shape(a) == shape(b)


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
    long = re.search(r"\d{4000,}", text)  # Python reads none past 4,300 digits, in its own words
    if long:
        raise custom.error(f"'{short(text)}' holds a number of {len(long[0]):,} digits: no metric's value "
                           f"reaches it")
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError as exc:
        raise custom.error(f"cannot read '{short(text)}': {_first_line(exc)}") from None
    except (RecursionError, MemoryError):
        node = None
    if node is None or _depth(node) > MAX_DEPTH:
        raise custom.error(f"'{short(text)}' is nested too deeply (more than {MAX_DEPTH} levels)")
    _check_numbers(custom, text, node)
    return node


def _check_numbers(custom: Custom, text: str, node: ast.expr) -> None:
    """Whole numbers written in decimal: Python would also read 0x1f, 0o17 and 0b11."""
    raw = text.encode()
    starts = [0] + [m.end() for m in re.finditer(b"\n", raw)]  # each line's first byte, as ast counts them
    for n in ast.walk(node):
        if isinstance(n, ast.Constant) and type(n.value) is int:
            written = raw[starts[n.lineno - 1] + n.col_offset:starts[n.end_lineno - 1] + n.end_col_offset].decode()
            if not written.replace("_", "").isdigit():
                raise custom.error(f"'{written}' is no number as a metric writes one: decimal digits "
                                   f"(1_000 may group them)")


def _depth(node: ast.AST) -> int:
    """How deep the tree under ``node`` goes, counted without recursion."""
    deepest, stack = 0, [(node, 1)]
    while stack:
        n, d = stack.pop()
        deepest = max(deepest, d)
        stack.extend((child, d + 1) for child in ast.iter_child_nodes(n))
    return deepest


def _balance(custom: Custom, text: str) -> float:
    exact = decimal_text(text)
    if exact is None:
        raise custom.error(f"balance needs a number (a rate's as a fraction, e.g. 0.5), got {quoted(text)}")
    value = float(exact)
    if not np.isfinite(value):
        raise custom.error(f"balance needs a finite number, got {quoted(text)}")
    if value == 0 and exact != 0:  # never rounded into another value: 1e-400 is no 0
        raise custom.error(f"balance needs 0 or a number of at least 1e-300 in size, got {quoted(text)}")
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
            if fname not in FUNCTIONS:
                raise custom.error(f"unknown function '{fname}' (functions: {', '.join(FUNCTIONS)})")
            if n.keywords or any(isinstance(a, ast.Starred) for a in n.args):
                raise custom.error(f"{fname}() takes its values as written, in order: '{ast.unparse(n)}' names or "
                                   f"unpacks them")
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

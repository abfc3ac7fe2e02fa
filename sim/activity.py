"""Rule activity: in how many deals of a run each rule option decided something.

Every option of docs/rules.md has one row here: the deals where its value changed what was
legal or what was scored (docs/rules.md, Rule activity, words each row). Some rows read the
kernels' ``activity`` bits of the deal records (kernels.activity), the others what the
records hold already (passed-out deals, redeals, tie-break deals, contracts made or failed,
void hands); options that shape every deal (the deck, the draws, the game's length) are
"always" active, or never where they are switched off. A block keeps one count per row,
which merge as sim.summary merges; the summary words them, and a comparison or sweep warns
when the rule it varies applied in under 1% of deals: then the players, not the rule,
decide the answer.
"""

from __future__ import annotations

import functools

import numpy as np

from kernels.activity import ACTIVITY
from kernels.calls import BID_LEVEL, BID_STRAIN

RARE = 0.01  # a compared or swept rule that applied in fewer deals than this is flagged


class _Block:
    """One block's records as the rows read them, the contract outcomes worked out once."""

    def __init__(self, rules, deals, games):
        self.rules, self.deals, self.games = rules, deals, games
        # Deals dealt: the deal records, and the passed-out deals redealt, which keep none
        # (C-5), with the last of a game abandoned at its redeal limit.
        self.dealt = len(deals) + (int(games["redeals"].sum()) + redeal_limit(self)
                                   if "redeals" in games.dtype.names else 0)
        self._values = {}

    @functools.cached_property
    def activity(self):
        """Deals by their whole ``activity`` value (one pass over the column)."""
        return np.bincount(self.deals["activity"], minlength=1 << len(ACTIVITY))

    def values(self, name):
        """Deals by the value of a small non-negative column."""
        if name not in self._values:
            self._values[name] = np.bincount(self.deals[name].astype(np.int64), minlength=3)
        return self._values[name]

    def once(self, name, work):
        """``work(self)``, worked out once per block under ``name`` (a game's own figures)."""
        if name not in self._values:
            self._values[name] = work(self)
        return self._values[name]

    @functools.cached_property
    def contract(self):
        """The contracts played, counted by contract, declarer's tricks and doubling:
        (level, strain (4 no-trump), tricks over the tricks bid (negative: short), doubling
        (0-2), deals), one entry per combination played. A row's test then reads a few
        hundred entries instead of every deal."""
        deals = self.deals
        tricks = np.where(deals["declarer"] == 0, deals["tricks0"], deals["tricks1"])
        contract, tricks, doubled, n = tally(deals["contract"] % (len(BID_LEVEL) + 1), tricks, deals["doubled"])
        played = contract < len(BID_LEVEL)  # a passed-out deal's -1 is the last
        contract, tricks, doubled, n = contract[played], tricks[played], doubled[played], n[played]
        level = BID_LEVEL[contract]
        return level, BID_STRAIN[contract], tricks - 6 - level, doubled, n


def tally(*columns):
    """The combinations of values of whole-number columns (each at least 0) that occur, and
    in how many rows: (each column's value in each combination, ..., rows per combination)."""
    key = np.zeros(len(columns[0]), dtype=np.int64)
    sizes = []
    for column in columns:
        size = int(column.max(initial=0)) + 1
        key *= size
        key += column
        sizes.append(size)
    rows = np.bincount(key)
    present = np.flatnonzero(rows)
    values, key = [], present
    for size in reversed(sizes):
        key, value = np.divmod(key, size)
        values.append(value)
    return (*reversed(values), rows[present])


def bit(name):
    """A row counting the deals whose ``activity`` has the kernels' bit ``name``."""
    mask = 1 << ACTIVITY.index(name)
    having = np.arange(1 << len(ACTIVITY)) & mask != 0
    return lambda b: int(b.activity[having].sum())


def always(on=lambda rules: True):
    """A row active in every deal dealt while ``on(rules)``, in none otherwise."""
    def count(b):
        return b.dealt if on(b.rules) else 0
    count.always = True
    return count


def contracts(test, on=lambda rules: True):
    """A row counting, while ``on(rules)``, the contracts played whose level, strain (4
    no-trump), tricks over the bid (negative: short) and doubling (0-2) pass ``test``."""
    def count(b):
        if not on(b.rules):
            return 0
        level, strain, over, doubled, n = b.contract
        return int(n[test(level, strain, over, doubled)].sum())
    return count


def made(doubled=None, strains=range(5)):
    """Contracts made in ``strains`` at a doubling (None: any)."""
    def test(lv, st, over, x):
        hit = (over >= 0) & np.isin(st, strains)
        return hit if doubled is None else hit & (x == doubled)
    return contracts(test)


def failed(doubled, on=lambda rules: True):
    return contracts(lambda lv, st, over, x: (over < 0) & (x == doubled), on)


def passed_out(b):
    """C-5: passed-out deals, kept (next_deal), redealt, or the last of a game abandoned at
    its redeal limit."""
    return int((b.deals["contract"] < 0).sum()) + int(b.games["redeals"].sum()) + redeal_limit(b)


def redeal_limit(b):
    """C-5: the games abandoned at a passed-out deal after ``max_redeals`` redeals."""
    if b.rules.auction.passed_out != "redeal":
        return 0
    return int(((b.games["abandoned"] != 0) & (b.games["redeals"] == b.rules.auction.max_redeals)).sum())


def deal_limit(b):
    """D-7, E-9: the games abandoned at their deal (hand) limit, not at C-5's."""
    return int((b.games["abandoned"] != 0).sum()) - (redeal_limit(b) if "redeals" in b.games.dtype.names else 0)


def column(name, value):
    return lambda b: int(b.values(name)[value])


_OPENING_PASS_BIT = bit("opening_pass")


def opening_pass(b):
    """C-4: deals whose first call was a pass: the deal records' bit, and every passed-out
    deal redealt (C-5), which keeps no record but was passed out, so began with a pass."""
    return _OPENING_PASS_BIT(b) + b.dealt - len(b.deals)


# The rows of C-4 and C-5, which the two contract games share (rows(game)).
CONTRACT_AUCTION = [
    ("auction.opening_pass", "C-4", "the first call was a pass", opening_pass),
    ("auction.passed_out", "C-5", "the deal was passed out", passed_out),
    ("auction.max_redeals", "C-5", "a game was abandoned at its redeal limit", redeal_limit),
]


def rows(game: str) -> list:
    """The game's rows, (option or None for a rule without one, rule id, what counts, count),
    in its own module (``ACTIVITY_ROWS``); the order is the blocks' order of counts."""
    from sim.games import game_module

    return game_module(game).ACTIVITY_ROWS


def aggregate(game: str, rules, deals, games) -> dict:
    """A block's counts: deals dealt, and per row of rows(game) the deals it applied in."""
    block = _Block(rules, deals, games)
    return {"dealt": block.dealt, "deals": [count(block) for *_, count in rows(game)]}


def summarize(game: str, agg: dict) -> list[dict]:
    """The summary's ``rule_activity``: per row its option (null: a rule without one), rule,
    what was counted, the deals it applied in, of the deals dealt, their share, and
    whether the option shapes every deal rather than deciding in some."""
    dealt = agg["dealt"]
    return [{"option": option, "rule": rule, "what": what, "deals": n, "of": dealt,
             "share": n / dealt if dealt else None, "always": getattr(count, "always", False)}
            for (option, rule, what, count), n in zip(rows(game), agg["deals"])]


def format_lines(rows: list[dict]) -> list[str]:
    """sim.run's block: the rows that decide in some deals, with their shares; the options
    active in every deal on one line."""
    if not rows:
        return []
    lines = ["", f"rule activity (deals of {rows[0]['of']:,} dealt where the rule decided something; "
                 f"docs/rules.md, Rule activity):"]
    for r in rows:
        if not r["always"]:
            share = "-" if r["share"] is None else f"{100 * r['share']:.2f}%"
            lines.append(f"  {r['rule']:5s} {r['option'] or '(no option)':30s} {share:>8s}  {r['what']}")
    always = [r["option"] for r in rows if r["always"] and r["deals"]]
    if always:
        lines.append(f"  active in every deal: {', '.join(always)}")
    return lines


def rare(option: str, summaries, policies) -> str | None:
    """A warning when ``option`` applied in under 1% of the deals of every run in
    ``summaries`` (runs without rule activity are skipped); None otherwise."""
    shares = [r["share"] for s in summaries for r in s.get("rule_activity", ())
              if r["option"] == option and r["share"] is not None]
    if not shares or max(shares) >= RARE:
        return None
    row = next(r for s in summaries for r in s.get("rule_activity", ()) if r["option"] == option)
    return (f"warning: {option} ({row['rule']}: {row['what']}) applied in {100 * max(shares):.2f}% of deals at "
            f"most, under 1%: the players ({', '.join(map(str, policies))}) rarely reach the case it decides, so "
            f"the runs say little about the rule itself")

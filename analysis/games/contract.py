"""What the two contract games (Bridgette, Draw Bridge) share in their analyses: contracts
by level, strain and declarer, and the section of the report that shows them."""

from __future__ import annotations

import matplotlib
import numpy as np

from analysis.report import COLORS, Report, Table, figure, inline, rate_bars, source_line
from analysis.tables import Batch, Hist, count, seat_value
from sim.summary import rate

STRAINS = ("C", "D", "H", "S", "NT")
LEVELS = tuple(range(8))
# Contract ids of the C-4 ladder (B-5, D-3): 0NT, then 1C 1D 1H 1S 1NT ... 7NT.
BID_LEVEL = np.array([0] + [1 + i // 5 for i in range(35)])
BID_STRAIN = np.array([4] + [i % 5 for i in range(35)])
FEW = 30  # heatmap cells with fewer contracts are grey: a rate of 3 of 5 is no colour to read


class ContractTally:
    """Contracts played and made by level and strain (B-5, D-3), by declarer (the dealer or
    not), and the declarer's tricks over or under the contract (B-11, B-14, D-5, D-6)."""

    kind = "deals"
    columns = ("dealer", "level", "strain", "declarer", "made", "tricks0", "tricks1")

    def __init__(self):
        self.deals = 0
        self.played = np.zeros((8, 5), dtype=np.int64)
        self.made = np.zeros((8, 5), dtype=np.int64)
        self.by_declarer = np.zeros((2, 2), dtype=np.int64)  # [dealer, non-dealer] x [played, made]
        self.result: Hist | None = Hist()  # declarer's tricks - (6 + level); None: needs records

    def add(self, b: Batch) -> None:
        self.deals += b.n
        level = b["level"].astype(np.int64)
        played = level >= 0
        made = b["made"] & played
        strain = b.codes("strain", STRAINS)
        self.played += count((8, 5), level[played], strain[played])
        self.made += count((8, 5), level[made], strain[made])
        dealer_declares = b["declarer"] == b["dealer"]
        for row, sel in ((0, dealer_declares), (1, ~dealer_declares)):
            self.by_declarer[row] += [(played & sel).sum(), (made & sel).sum()]
        tricks = seat_value(b["declarer"], b["tricks0"], b["tricks1"])
        self.result.add((tricks - 6 - level)[played])

    @classmethod
    def from_aggregates(cls, agg: dict) -> ContractTally:
        t = cls()
        t.deals = agg["deals"]
        np.add.at(t.played, (BID_LEVEL, BID_STRAIN), agg["contracts_played"])
        np.add.at(t.made, (BID_LEVEL, BID_STRAIN), agg["contracts_made"])
        t.by_declarer = np.array(agg["declarer_dealer"], dtype=np.int64)
        t.result = None
        return t

    def cell(self, level: int, strain: int) -> dict:
        return rate(self.made[level, strain], self.played[level, strain])

    def by_level(self, level: int) -> dict:
        return rate(self.made[level].sum(), self.played[level].sum())

    def by_strain(self, strain: int) -> dict:
        return rate(self.made[:, strain].sum(), self.played[:, strain].sum())

    def overall(self) -> dict:
        return rate(self.made.sum(), self.played.sum())

    def passed_out(self) -> dict:
        return rate(self.deals - self.played.sum(), self.deals)

    def declarer(self, dealer: bool) -> dict:
        played, made = self.by_declarer[0 if dealer else 1]
        return rate(made, played)



def heat_cell(r: dict, exists: bool = True) -> tuple[str, str]:
    """A heatmap cell's text and its colour: the rate, its interval and n (white on the
    colour map's dark ends); with fewer than FEW contracts (a grey cell) the counts alone;
    "never bid", or nothing for 0C .. 0S."""
    if r["n"] >= FEW:
        lo, hi = r["ci95"]
        dark = not 0.15 <= r["rate"] <= 0.85
        return f"{100 * r['rate']:.0f}%\n[{100 * lo:.0f}, {100 * hi:.0f}]\nn={r['n']:,}", "white" if dark else "black"
    if r["n"]:
        return f"few:\n{r['successes']} of {r['n']}\nmade", "#555"
    return ("never bid" if exists else ""), "#777"


def contract_section(rep: Report, t: ContractTally, from_records: bool, lowest: int) -> None:
    """Bid success: contracts made by level (``lowest`` up) and strain, by declarer, and
    the declarer's over- and undertricks."""
    rep.section("contracts", "Bid success", source_line(from_records))
    levels = [lv for lv in LEVELS if lv >= lowest]
    rep.para(f"Contracts made: <b>{inline(t.overall())}</b> of {t.played.sum():,} played; "
             f"passed out {inline(t.passed_out())} of {t.deals:,} deals. Intervals are 95% Wilson "
             "score intervals. A contract is made when the declarer takes 6 + level tricks.")
    fig, ax = figure(10, 7.6, "Contracts made by level and strain")
    ax = ax[0, 0]
    grid = np.full((len(levels), 5), np.nan)  # NaN: never bid, or too few contracts to colour (grey)
    for i, lv in enumerate(levels):
        for s in range(5):
            if t.played[lv, s] >= FEW:
                grid[i, s] = 100 * t.made[lv, s] / t.played[lv, s]
    cmap = matplotlib.colormaps["RdYlGn"].with_extremes(bad="#e4e4e4")
    im = ax.imshow(np.ma.masked_invalid(grid), cmap=cmap, vmin=0, vmax=100, aspect="auto")
    for i, lv in enumerate(levels):
        for s in range(5):
            text, colour = heat_cell(t.cell(lv, s), bool(lv) or s == 4)
            ax.text(s, i, text, ha="center", va="center", fontsize=9, color=colour)
    ax.set_xticks(range(5), STRAINS)
    ax.set_yticks(range(len(levels)), [str(lv) for lv in levels])
    ax.set_xlabel("strain")
    ax.set_ylabel("level (tricks over six)")
    fig.colorbar(im, ax=ax, label="contracts made (%)")
    rep.figure(fig, "contracts_heatmap", f"Contracts made (%) by level and strain; each cell shows the rate, "
               f"its 95% Wilson interval and the number of contracts played. Grey: fewer than {FEW} contracts, "
               "too few to colour; the cell gives the counts.")
    rows = []
    for lv in levels:
        rows.append([str(lv)] + [t.cell(lv, s) if (lv or s == 4) else None for s in range(5)] + [t.by_level(lv)])
    rows.append(["all"] + [t.by_strain(s) for s in range(5)] + [t.overall()])
    rep.table(Table("contracts_made", "Contracts made by level (rows) and strain (columns), 95% intervals",
                    ["level"] + list(STRAINS) + ["all"], rows))

    rows = [["dealer", t.by_declarer[0, 0], t.declarer(True)],
            ["non-dealer", t.by_declarer[1, 0], t.declarer(False)]]
    rep.table(Table("made_by_declarer", "Contracts made by declarer", ["declarer", "contracts", "made"], rows))
    fig, ax = figure(8, 3.6, "Contracts made by level")
    ax = ax[0, 0]
    rate_bars(ax, [t.by_level(lv) for lv in levels], color=COLORS[0])
    ax.set_xticks(range(len(levels)), [str(lv) for lv in levels])
    ax.set_xlabel("level (tricks over six)")
    ax.set_ylabel("contracts made (%)")
    ax.set_ylim(0, 105)
    ax.grid(axis="y", alpha=0.3)
    rep.figure(fig, "made_by_level", "Contracts made (%) by level, all strains together; error bars are 95% "
               "Wilson intervals. By declarer: the table above.")

    if t.result is None:
        rep.needs_records("The over- and undertrick distribution")
        return
    res = t.result.as_dict()
    n = t.result.n
    if not n:
        return
    values = list(range(min(res["values"]), max(res["values"]) + 1))
    table = dict(zip(res["values"], res["counts"]))
    rates = [rate(table.get(v, 0), n) for v in values]
    fig, ax = figure(9, 3.8, "Declarer's tricks against the contract")
    ax = ax[0, 0]
    rate_bars(ax, rates, color=[COLORS[2] if v >= 0 else COLORS[1] for v in values])
    ax.set_xticks(range(len(values)), [f"{v:+d}" if v else "0" for v in values])
    ax.set_xlabel("tricks over (+) or under (-) the contract; 0 = made exactly")
    ax.set_ylabel("% of contracts played")
    ax.grid(axis="y", alpha=0.3)
    rep.figure(fig, "over_under", "Overtricks (green) and undertricks (red) as a share of contracts played, "
               "with 95% Wilson intervals.")
    rep.table(Table("over_under", "Over- and undertricks", ["tricks against the contract", "contracts", "share"],
                    [[f"{v:+d}" if v else "0 (exactly)", table.get(v, 0), r] for v, r in zip(values, rates)]))

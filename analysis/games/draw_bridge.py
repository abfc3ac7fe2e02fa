"""Draw Bridge's own analyses: draw-phase tricks (D-2) against the contract, as a tally of its
deal records and a section of its report; contracts are shared with Bridgette."""

from __future__ import annotations

from functools import partial

import numpy as np

from analysis.games.contract import ContractTally, contract_section
from analysis.report import COLORS, Report, Section, Table, figure, pct, pct_err, source_line
from analysis.tables import Batch, RunData
from sim.summary import rate


def report_sections(data: RunData, agg: dict | None, scores: Section) -> list[Section]:
    """Bid success (contracts start at level 1, D-3), scores, and the draw phase."""
    from_records = data.has("deals")
    if from_records:
        contracts, draw = ContractTally(), DrawTrickTally()
    else:
        contracts, draw = ContractTally.from_aggregates(agg), DrawTrickTally.from_aggregates(agg)
    return [Section(partial(contract_section, t=contracts, from_records=from_records, lowest=1), (contracts,)),
            scores,
            Section(partial(draw_section, t=draw, from_records=from_records), (draw,))]


class DrawTrickTally:
    """Draw-phase tricks a seat won (D-2) against the contract it then declared and made:
    ``table[k] = [seat-deals, declared, declared and made]`` for k tricks won."""

    kind = "deals"
    columns = ("draw_tricks0", "draw_tricks1", "level", "declarer", "made")

    def __init__(self):
        self.table = np.zeros((14, 3), dtype=np.int64)

    def add(self, b: Batch) -> None:
        played = b["level"] >= 0
        made = b["made"] & played
        for seat in (0, 1):
            won = b[f"draw_tricks{seat}"].astype(np.int64)
            declared = played & (b["declarer"] == seat)
            self.table[:, 0] += np.bincount(won, minlength=14)
            self.table[:, 1] += np.bincount(won[declared], minlength=14)
            self.table[:, 2] += np.bincount(won[declared & made], minlength=14)

    @classmethod
    def from_aggregates(cls, agg: dict) -> DrawTrickTally:
        t = cls()
        t.table = np.array(agg["draw_tricks"], dtype=np.int64)
        return t


def draw_section(rep: Report, t: DrawTrickTally, from_records: bool) -> None:
    rep.section("draw", "Draw phase (Draw Bridge)", source_line(from_records))
    rep.para("Each seat in each deal counts once: the tricks it won in the draw phase (D-2), whether it then "
             "became declarer (D-3), and whether it made its contract (D-4, D-5).")
    ks = [k for k in range(14) if t.table[k, 0]]
    declares = [rate(t.table[k, 1], t.table[k, 0]) for k in ks]
    makes = [rate(t.table[k, 2], t.table[k, 1]) for k in ks]
    both = [rate(t.table[k, 2], t.table[k, 0]) for k in ks]
    rep.table(Table("draw_tricks", "Draw-phase tricks won against the contract",
                    ["draw tricks won", "seat-deals", "declares", "makes (of declared)", "declares and makes"],
                    [[k, int(t.table[k, 0]), d, m, b] for k, d, m, b in zip(ks, declares, makes, both)]))
    fig, ax = figure(9, 4, "Draw-phase tricks won vs contract obtained and made")
    ax = ax[0, 0]
    for k, (name, rates) in enumerate((("declares", declares), ("makes, of contracts declared", makes),
                                       ("declares and makes", both))):
        ax.errorbar(ks, [pct(r) for r in rates], yerr=pct_err(rates), fmt="o-", capsize=3, color=COLORS[k],
                    label=name)
    ax.set_xticks(ks)
    ax.set_xlabel("tricks the seat won in the draw phase (of 13)")
    ax.set_ylabel("% of seat-deals / contracts")
    ax.set_ylim(0, 105)
    ax.legend()
    ax.grid(alpha=0.3)
    rep.figure(fig, "draw_tricks", "How often a seat that won k draw-phase tricks then declares, makes its "
               "contract, and both; 95% Wilson intervals.")

"""Bid Euchre's own analyses: bids and void hands (E-3, E-10), the all-trick bids (E-4, E-5,
E-7) and the seats counted from the dealer, as a tally of its hand records and sections
of its report."""

from __future__ import annotations

from functools import partial

import numpy as np

from analysis.report import COLORS, Report, Section, Table, blank, figure, grouped_rates, inline, mean_points, \
    rate_bars, source_line
from analysis.tables import Batch, Hist, RunData, seat_value
from sim.summary import rate

VOIDS = ("no", "all passed", "ace no face")  # E-3, E-10
SEATS_FROM_DEALER = ("dealer", "dealer's left", "dealer's partner", "dealer's right")  # seat - dealer mod 4


def report_sections(data: RunData, agg: dict | None, scores: Section) -> list[Section]:
    """Bids, the all-trick bids and the seats from the dealer, then scores."""
    from_records = data.has("deals")
    bids = euchre_bids(data.rules)
    euchre = EuchreTally(bids) if from_records else EuchreTally.from_aggregates(agg, bids)
    return [Section(partial(euchre_sections, t=euchre, from_records=from_records), (euchre,)), scores]


def euchre_bids(rules: dict) -> list[str]:
    """The E-3 bid names: 3, 4, 5, 6A, 6M (3 .. 11, 12A, 12M with variant.double_deck)."""
    tricks = 12 if rules["variant"]["double_deck"] else 6
    return [str(level) for level in range(3, tricks)] + [f"{tricks}A", f"{tricks}M"]


class EuchreTally:
    """Bid Euchre hands: bids and void hands (E-3, E-10), bids made (E-7), the tricks and
    points of the all-trick bids (E-4, E-5), and by seat from the dealer: bids, bids made,
    and the points its team takes per hand."""

    kind = "deals"
    columns = ("dealer", "bid", "bidder", "void", "made", "tricks0", "tricks1", "score0", "score1")

    def __init__(self, bids: list[str]):
        self.bids = list(bids)
        n = len(self.bids)
        self.hands = 0
        self.voids = np.zeros(3, dtype=np.int64)
        self.played = np.zeros(n, dtype=np.int64)
        self.made = np.zeros(n, dtype=np.int64)
        self.six_tricks: list[Hist] | None = [Hist(), Hist()]  # the bidding team's tricks: ask, moon
        self.six_points: list[Hist] | None = [Hist(), Hist()]
        self.seat_bids = np.zeros((4, 2), dtype=np.int64)  # seat from dealer x [bids, made]
        self.team_points: list[Hist] | None = [Hist() for _ in range(4)]  # per hand, every hand
        self.bidder_points: list[Hist] | None = [Hist() for _ in range(4)]  # hands this seat bid

    def add(self, b: Batch) -> None:
        self.hands += b.n
        bid = b.codes("bid", self.bids)
        played = bid >= 0
        made = b.flag("made") & played
        self.voids += np.bincount(b.codes("void", VOIDS), minlength=3)
        self.played += np.bincount(bid[played], minlength=len(self.bids))
        self.made += np.bincount(bid[made], minlength=len(self.bids))
        dealer = b["dealer"].astype(np.int64)
        bidder = b["bidder"].astype(np.int64)
        team = bidder % 2
        tricks = seat_value(team, b["tricks0"], b["tricks1"])
        points = seat_value(team, b["score0"], b["score1"])
        for k, sel in enumerate((bid == len(self.bids) - 2, bid == len(self.bids) - 1)):
            self.six_tricks[k].add(tricks[sel])
            self.six_points[k].add(points[sel])
        offset = (bidder - dealer) % 4
        self.seat_bids[:, 0] += np.bincount(offset[played], minlength=4)
        self.seat_bids[:, 1] += np.bincount(offset[made], minlength=4)
        for k in range(4):
            self.team_points[k].add(seat_value((dealer + k) % 2, b["score0"], b["score1"]))
            self.bidder_points[k].add(points[played & (offset == k)])

    @classmethod
    def from_aggregates(cls, agg: dict, bids: list[str]) -> EuchreTally:
        t = cls(bids)
        t.hands = agg["deals"]
        t.voids = np.array(agg["voids"], dtype=np.int64)
        t.played = np.array(agg["bids_played"], dtype=np.int64)
        t.made = np.array(agg["bids_made"], dtype=np.int64)
        t.seat_bids = np.array(agg["bidder_from_dealer"], dtype=np.int64)
        t.six_tricks = t.six_points = t.team_points = t.bidder_points = None
        return t

    def share(self, k: int) -> dict:
        return rate(self.played[k], self.hands)

    def success(self, k: int) -> dict:
        return rate(self.made[k], self.played[k])

    def seat_share(self, k: int) -> dict:
        """Hands bid by the seat ``k`` places left of the dealer (0: the dealer)."""
        return rate(self.seat_bids[k, 0], self.hands)

    def seat_success(self, k: int) -> dict:
        return rate(self.seat_bids[k, 1], self.seat_bids[k, 0])


def euchre_sections(rep: Report, t: EuchreTally, from_records: bool) -> None:
    rep.section("bids", "Bids (Bid Euchre)", source_line(from_records, "hand"))
    ask, moon = t.bids[-2], t.bids[-1]
    rep.para(f"Bids made: <b>{inline(rate(t.made.sum(), t.played.sum()))}</b> of {t.played.sum():,} bids in "
             f"{t.hands:,} hands. A bid of 3-5 is made with that many tricks; {ask} (asking for help, E-4) and "
             f"{moon} (shooting the moon, E-5) need every trick (E-7).")
    labels = list(t.bids) + ["void: all passed", "void: ace no face"]
    shares = [t.share(k) for k in range(len(t.bids))] + [rate(t.voids[1], t.hands), rate(t.voids[2], t.hands)]
    success = [t.success(k) for k in range(len(t.bids))] + [None, None]
    rep.table(Table("bids", "Bids: share of hands and bids made", ["bid", "hands", "share of hands", "made"],
                    [[lab, int(s["successes"]), s, m] for lab, s, m in zip(labels, shares, success)]))
    fig, ax = figure(11, 4.3, "Bid distribution and success by bid", 1, 2)
    rate_bars(ax[0, 0], shares, color=[COLORS[0]] * len(t.bids) + ["#999", "#999"])
    ax[0, 0].set_xticks(range(len(labels)), labels, rotation=30, ha="right")
    ax[0, 0].set_xlabel("winning bid")
    ax[0, 0].set_ylabel("% of hands")
    ax[0, 0].set_title("bid distribution")
    ax[0, 0].grid(axis="y", alpha=0.3)
    rate_bars(ax[0, 1], success[:len(t.bids)], color=COLORS[2])
    ax[0, 1].set_xticks(range(len(t.bids)), t.bids)
    ax[0, 1].set_xlabel("winning bid")
    ax[0, 1].set_ylabel("bids made (%)")
    ax[0, 1].set_ylim(0, 105)
    ax[0, 1].set_title("success by bid")
    ax[0, 1].grid(axis="y", alpha=0.3)
    rep.figure(fig, "bids", "Share of hands won by each bid (grey: void hands) and the share of each bid made; "
               "95% Wilson intervals.")

    rep.section("six", f"{ask} and {moon} outcomes (Bid Euchre)", source_line(from_records, "hand"))
    if t.six_tricks is None:
        rep.para(f"{ask} made {inline(t.success(len(t.bids) - 2))}; {moon} made "
                 f"{inline(t.success(len(t.bids) - 1))}.")
        rep.needs_records(f"The distribution of tricks and points of {ask} and {moon}")
    else:
        tricks = 12 if ask.startswith("12") else 6
        rows, dist = [], {}
        for k, name in enumerate((ask, moon)):
            h = t.six_tricks[k]
            tab = h.table
            dist[name] = [rate(tab.get(x, 0), h.n) for x in range(tricks + 1)]
            rows.append([name, h.n, t.success(len(t.bids) - 2 + k), h.describe(), t.six_points[k].describe()])
        rep.table(Table("six_bids", f"{ask} and {moon}: made (every trick), the bidding team's tricks and points",
                        ["bid", "hands", "made", "tricks (mean)", "points (mean)"], rows))
        rep.table(Table("six_tricks", f"Tricks the bidding team takes on {ask} and {moon}",
                        ["tricks"] + [f"{n} share" for n in dist],
                        [[x] + [dist[n][x] for n in dist] for x in range(tricks + 1)]))
        fig, ax = figure(9, 3.8, f"{ask} and {moon}: tricks taken by the bidding team")
        grouped_rates(ax[0, 0], [str(x) for x in range(tricks + 1)], dist, f"% of {ask} / {moon} bids")
        ax[0, 0].set_xlabel(f"tricks taken (of {tricks}; all {tricks} = made)")
        rep.figure(fig, "six_tricks", f"Tricks the bidding team takes after {ask} and {moon}; 95% Wilson "
                   "intervals.")

    rep.section("seats", "Seats from the dealer (Bid Euchre)", source_line(from_records, "hand"))
    rep.para("Seats are counted to the dealer's left (E-3: the auction starts at the dealer's left and ends with "
             "the dealer). A seat's points per hand are its team's, so the dealer and the dealer's partner share "
             "them, as do the other two.")
    rows = []
    for k in range(4):
        row = [SEATS_FROM_DEALER[k], t.seat_share(k), t.seat_success(k)]
        if t.team_points is not None:
            row += [t.team_points[k].describe(), t.bidder_points[k].describe()]
        rows.append(row)
    cols = ["seat", "bids (of hands)", "bids made"]
    if t.team_points is not None:
        cols += ["team points per hand", "team points on hands it bid"]
    rep.table(Table("seats", "By seat from the dealer", cols, rows))
    fig, ax = figure(11, 3.8, "By seat relative to the dealer", 1, 2)
    grouped_rates(ax[0, 0], SEATS_FROM_DEALER, {"bids (of hands)": [t.seat_share(k) for k in range(4)],
                                           "bids made": [t.seat_success(k) for k in range(4)]}, "%")
    ax[0, 0].set_ylim(0, 105)
    ax[0, 0].set_title("who bids, and with what success")
    if t.team_points is not None:
        mean_points(ax[0, 1], [t.team_points[k].describe() for k in range(4)], np.arange(4) - 0.1,
                    color=COLORS[0], label="every hand")
        mean_points(ax[0, 1], [t.bidder_points[k].describe() for k in range(4)], np.arange(4) + 0.1,
                    color=COLORS[1], label="hands this seat bid")
        ax[0, 1].set_xticks(range(4), SEATS_FROM_DEALER)
        ax[0, 1].set_ylabel("team points per hand")
        ax[0, 1].set_title("points per hand of the seat's team")
        ax[0, 1].legend()
        ax[0, 1].grid(axis="y", alpha=0.3)
    else:
        blank(ax[0, 1], "points by seat need the per-hand records")
        rep.needs_records("Points per hand by seat relative to the dealer")
    rep.figure(fig, "seats", "By seat from the dealer: share of hands it bids and bids made (95% Wilson "
               "intervals); its team's mean points per hand, over all hands and over the hands it bid (95% "
               "intervals of the mean).")

"""Bridgette's own analyses: the Colons (B-1, B-8..B-10) and the up-card (B-3), as tallies of
its deal records and sections of its report; contracts are shared with Draw Bridge."""

from __future__ import annotations

from functools import partial

import numpy as np

from analysis.games.contract import ContractTally, contract_section
from analysis.report import COLORS, Report, Section, Table, blank, figure, grouped_rates, mean_points, rate_bars, \
    source_line
from analysis.tables import Batch, Hist, RunData
from sim.summary import rate

COLONS = ("little", "royal", "grand")  # B-1
COLON_CARDS = ("CL", "CR", "CG")
COLON_WORDS = ("Little Colon", "Royal Colon", "Grand Colon")

# Beside the holds/lacks columns: why they are not a Colon's worth, and the comparison that is.
CONFOUNDED = (
    "The holds/lacks columns are not what a Colon is worth: who keeps a Colon is decided by the exchange "
    "(the up-card's class sets how many cards the dealer draws, B-3, and the up-card may be a Colon), by the "
    "cards each seat chose to keep and by which seat declares, and each of these moves the deal score on its "
    "own. To measure a Colon, play the same deals with and without it in the deck, paired game by game "
    "(common random numbers): <code>python -m sim.sweep --game bridgette --vary "
    "'deck.colons=[\"little\",\"royal\",\"grand\"],[\"little\",\"royal\"]' --games 20000 "
    "--metrics dealer_advantage,contract_made,mean_score</code> (here for the Grand Colon).")
# colon_<name>_play codes 0..2 in the deal records; -1 is "not played".
COLON_PLAYS = ("follow", "lead", "discard")
UPCARD_CLASSES = ("numeral", "face", "ace")  # B-3
UPCARD_GROUPS = UPCARD_CLASSES + COLON_WORDS
HOLDERS = ("declarer", "defender", "nobody")


def report_sections(data: RunData, agg: dict | None, scores: Section) -> list[Section]:
    """Bid success, scores, the Colons of this run's deck, and the up-card (records only)."""
    from_records = data.has("deals")
    in_deck = [c for c in COLONS if c in data.rules.get("deck", {}).get("colons", ())]
    if from_records:
        columns = data.columns("deals")
        plays = all(f"colon_{c}_{k}" in columns for c in in_deck for k in ("play", "won"))
        contracts, colons, upcard = ContractTally(), ColonTally(in_deck, plays), UpcardTally()
    else:
        contracts, colons, upcard = ContractTally.from_aggregates(agg), ColonTally.from_aggregates(agg, in_deck), None
    return [Section(partial(contract_section, t=contracts, from_records=from_records, lowest=0), (contracts,)),
            scores,
            Section(partial(colon_section, t=colons, from_records=from_records), (colons,)),
            Section(partial(upcard_section, t=upcard), (upcard,))]


# --- Tallies ----------------------------------------------------------------------------------

class ColonTally:
    """Each Colon (B-1): kept after the exchange (B-3), held by the declarer or the
    defender, contracts made and seats' deal scores with and without it, and how it is
    played (a B-8 follow, a B-9 lead or any other play) and how often that trick is won."""

    kind = "deals"

    def __init__(self, colons=COLONS, plays: bool = True):
        self.colons = tuple(colons)
        self.plays_known = plays
        self.columns = ("declarer", "level", "made", "score0", "score1") + tuple(
            f"colon_{c}" for c in self.colons) + tuple(
            f"colon_{c}_{k}" for c in self.colons for k in ("play", "won") if plays)
        k = len(self.colons)
        self.deals = 0
        self.kept = np.zeros(k, dtype=np.int64)
        self.held = np.zeros((k, 3), dtype=np.int64)  # contracts, by HOLDERS
        self.held_made = np.zeros((k, 3), dtype=np.int64)
        self.score_with = [Hist() for _ in range(k)]  # a seat's deal score when it holds the Colon
        self.score_without = [Hist() for _ in range(k)]
        self.played = np.zeros((k, 3), dtype=np.int64)  # by COLON_PLAYS
        self.won = np.zeros((k, 3), dtype=np.int64)

    def add(self, b: Batch) -> None:
        self.deals += b.n
        contract = b["level"] >= 0
        made = b["made"] & contract
        declarer = b["declarer"].astype(np.int64)
        scores = (b["score0"].astype(np.int64), b["score1"].astype(np.int64))
        for i, name in enumerate(self.colons):
            seat = b[f"colon_{name}"].astype(np.int64)
            kept = seat >= 0
            self.kept[i] += kept.sum()
            holder = np.where(~kept, 2, np.where(seat == declarer, 0, 1))
            self.held[i] += np.bincount(holder[contract], minlength=3)
            self.held_made[i] += np.bincount(holder[made], minlength=3)
            for s in (0, 1):
                self.score_with[i].add(scores[s][seat == s])
                self.score_without[i].add(scores[s][seat != s])
            if self.plays_known:
                play = b[f"colon_{name}_play"].astype(np.int64)
                won = b[f"colon_{name}_won"] == 1
                on = play >= 0
                self.played[i] += np.bincount(play[on], minlength=3)
                self.won[i] += np.bincount(play[on & won], minlength=3)

    @classmethod
    def from_aggregates(cls, agg: dict, colons=COLONS) -> ColonTally | None:
        """Kept and played counts from the block aggregates; holders and scores need records.
        None for runs whose aggregates have no Colon counts."""
        if "colons" not in agg:
            return None
        t = cls(colons)
        t.deals = agg["deals"]
        for i, name in enumerate(t.colons):
            c = agg["colons"][name]
            t.kept[i], t.played[i], t.won[i] = c["kept"], c["plays"], c["wins"]
        t.held = t.held_made = t.score_with = t.score_without = None
        return t

    def kept_rate(self, i: int) -> dict:
        return rate(self.kept[i], self.deals)

    def holder_share(self, i: int, h: int) -> dict:
        """Of contracts played, those where the Colon is held by HOLDERS[h]."""
        return rate(self.held[i, h], self.held[i].sum())

    def made_when(self, i: int, declarer_holds: bool) -> dict:
        """Contracts made when the declarer holds the Colon, or does not (defender or nobody)."""
        if declarer_holds:
            return rate(self.held_made[i, 0], self.held[i, 0])
        return rate(self.held_made[i, 1:].sum(), self.held[i, 1:].sum())

    def play_share(self, i: int, k: int) -> dict:
        """Deals in which the Colon is played as COLON_PLAYS[k], of deals in which it is kept."""
        return rate(self.played[i, k], self.kept[i])

    def win_rate(self, i: int, k: int) -> dict:
        return rate(self.won[i, k], self.played[i, k])


class UpcardTally:
    """By up-card class (B-3; the Colons apart): deals, contracts the dealer declares, and
    contracts made (the dealer's advantage is the summary's, by games)."""

    kind = "deals"
    columns = ("dealer", "upcard", "upcard_class", "level", "declarer", "made")

    def __init__(self):
        g = len(UPCARD_GROUPS)
        self.deals = np.zeros(g, dtype=np.int64)
        self.played = np.zeros(g, dtype=np.int64)
        self.dealer_declares = np.zeros(g, dtype=np.int64)
        self.made = np.zeros(g, dtype=np.int64)
        self.dealer_made = np.zeros(g, dtype=np.int64)

    def add(self, b: Batch) -> None:
        colon = b.codes("upcard", COLON_CARDS)
        group = np.where(colon >= 0, len(UPCARD_CLASSES) + colon, b.codes("upcard_class", UPCARD_CLASSES))
        dealer = b["dealer"].astype(np.int64)
        played = b["level"] >= 0
        made = b["made"] & played
        by_dealer = played & (b["declarer"] == dealer)
        g = len(UPCARD_GROUPS)
        self.deals += np.bincount(group, minlength=g)
        self.played += np.bincount(group[played], minlength=g)
        self.dealer_declares += np.bincount(group[by_dealer], minlength=g)
        self.made += np.bincount(group[made], minlength=g)
        self.dealer_made += np.bincount(group[by_dealer & made], minlength=g)


# --- Sections ---------------------------------------------------------------------------------

PLAY_WORDS = ("follow (B-8)", "lead (B-9)", "discard")


def colon_section(rep: Report, t: ColonTally | None, from_records: bool) -> None:
    rep.section("colons", "Colons (Bridgette)", source_line(from_records))
    if not rep.data.rules["deck"]["colons"]:
        rep.note("This run's deck has no Colons (<code>deck.colons = []</code>, B-4).")
        return
    if t is None:
        rep.needs_records("The Colon section (this run's aggregates have no Colon counts)")
        return
    rep.para("Kept: the Colon is in a hand after the exchange (B-3). Held by the declarer or the defender: of "
             "contracts played. A Colon is played as a <b>follow</b> when it answers a suited lead of its own "
             "range (B-8: it loses the trick and bars the leader's suit), as a <b>lead</b> (B-9: it wins unless "
             "the follower trumps or plays a card of its range), or as a <b>discard</b>: to a lead outside its "
             "range (B-10) or on a led Colon; a follow and a discard always lose.")
    words = [COLON_WORDS[COLONS.index(c)] for c in t.colons]
    idx = range(len(words))
    holders = t.held is not None
    if holders:
        rows = [[w, t.kept_rate(i), t.holder_share(i, 0), t.holder_share(i, 1), t.made_when(i, True),
                 t.made_when(i, False), t.score_with[i].describe(), t.score_without[i].describe()]
                for i, w in enumerate(words)]
        rep.table(Table("colons", "Each Colon: kept, held, contracts made and a seat's mean deal score (points) "
                        "with and without it", ["Colon", "kept", "declarer holds", "defender holds",
                                                "made, declarer holds", "made, declarer lacks",
                                                "deal score, seat holds", "deal score, seat lacks"], rows))
        rep.note(CONFOUNDED)
    else:
        rep.table(Table("colons", "Each Colon: kept after the exchange", ["Colon", "kept"],
                        [[w, t.kept_rate(i)] for i, w in enumerate(words)]))
    fig, ax = figure(11, 7.5, "Colons: who keeps them, what they do to contracts, how they are played", 2, 2)
    kept = {"kept (of deals)": [t.kept_rate(i) for i in idx]}
    if holders:
        kept["declarer holds (of contracts)"] = [t.holder_share(i, 0) for i in idx]
        kept["defender holds (of contracts)"] = [t.holder_share(i, 1) for i in idx]
        grouped_rates(ax[0, 1], words, {"declarer holds it": [t.made_when(i, True) for i in idx],
                                        "declarer lacks it": [t.made_when(i, False) for i in idx]},
                      "contracts made (%)")
        ax[0, 1].set_title("contracts made with and without it")
        ax[0, 1].set_ylim(0, 105)
    else:
        blank(ax[0, 1], "holders and contracts need the deal records")
    grouped_rates(ax[0, 0], words, kept, "% of deals / contracts")
    ax[0, 0].set_title("kept after the exchange" + (", and by whom" if holders else ""))
    if t.plays_known:
        grouped_rates(ax[1, 0], words, {p: [t.play_share(i, k) for i in idx] for k, p in enumerate(PLAY_WORDS)},
                      "% of deals where it is kept")
        ax[1, 0].set_title("how it is played")
        grouped_rates(ax[1, 1], words, {p: [t.win_rate(i, k) for i in idx] for k, p in enumerate(PLAY_WORDS)},
                      "tricks won (%)")
        ax[1, 1].set_title("tricks won when played so")
        ax[1, 1].set_ylim(0, 105)
    else:
        blank(ax[1, 0], "no Colon play columns in these records")
        blank(ax[1, 1], "no Colon play columns in these records")
    rep.figure(fig, "colons", "Each Colon: kept after the exchange and held by declarer or defender; contracts "
               "made when the declarer holds it or not; how it is played and how often that trick is won. Error "
               "bars are 95% Wilson intervals.")
    if not holders:
        rep.needs_records("Who holds each Colon, contracts made and deal scores with and without it")
    if not t.plays_known:
        rep.note("These records have no <code>colon_*_play</code> / <code>colon_*_won</code> columns (a run made "
                 "before they were recorded): rerun to see how the Colons are played.")
        return
    rows = [[w, PLAY_WORDS[k], t.played[i, k], t.play_share(i, k), t.win_rate(i, k)]
            for i, w in enumerate(words) for k in range(3)]
    rep.table(Table("colon_plays", "How each Colon is played (share of deals where it is kept) and how often it "
                    "wins that trick", ["Colon", "played as", "deals", "share", "trick won"], rows))


def _advantage_cell(entry) -> dict | None:
    """A by_upcard entry of summary.json as a table's cell of a mean with its interval."""
    if not entry or entry.get("value") is None:
        return None
    return {"n": entry["deals"], "mean": entry["value"], "mean_ci95": entry["ci95"]}


def upcard_section(rep: Report, t: UpcardTally | None) -> None:
    rep.section("upcard", "Up-card (Bridgette)", source_line(t is not None) if t else None)
    if t is None:
        rep.needs_records("The up-card section")
        return
    rep.para("The up-card's class sets the dealer's draw (B-3: a numeral or the Little Colon 4 cards, a face "
             "card or the Royal Colon 8, an ace or the Grand Colon 12). The dealer's advantage is the dealer's "
             "deal score minus the non-dealer's.")
    groups = [k for k in range(len(UPCARD_GROUPS)) if t.deals[k]]
    labels = [UPCARD_GROUPS[k] for k in groups]
    # The run's own figures (summary.json's by_upcard): a ratio over games, the independent
    # units, as the dealer's advantage table and analysis.compare give it; a deal's scores in
    # a game are not independent draws, so an interval over deals would be too narrow.
    by_group = {e["upcard"]: e for e in rep.data.summary.get("dealer_advantage", {}).get("by_upcard", ())}
    adv = [_advantage_cell(by_group.get(label)) for label in labels]
    share = [rate(t.dealer_declares[k], t.played[k]) for k in groups]
    made = [rate(t.made[k], t.played[k]) for k in groups]
    dealer_made = [rate(t.dealer_made[k], t.dealer_declares[k]) for k in groups]
    rows = [[lab, int(t.deals[k]), rate(t.deals[k], t.deals.sum()), a, s, m, dm]
            for lab, k, a, s, m, dm in zip(labels, groups, adv, share, made, dealer_made)]
    rep.table(Table("upcard", "By up-card class", ["up-card", "deals", "share of deals", "dealer's advantage (points)",
                                                   "dealer declares", "contracts made", "dealer's contracts made"],
                    rows))
    fig, ax = figure(12, 4, "Up-card class: the dealer's advantage, declarer and success", 1, 3)
    mean_points(ax[0, 0], adv, color=COLORS[0])
    ax[0, 0].axhline(0, color="#888", linewidth=1, linestyle=":")
    ax[0, 0].set_xticks(range(len(labels)), labels, rotation=30, ha="right")
    ax[0, 0].set_ylabel("dealer minus non-dealer (points per deal)")
    ax[0, 0].set_title("dealer's mean score advantage")
    ax[0, 0].grid(axis="y", alpha=0.3)
    rate_bars(ax[0, 1], share, color=COLORS[1])
    ax[0, 1].set_ylabel("contracts the dealer declares (%)")
    ax[0, 1].set_title("dealer declares")
    grouped_rates(ax[0, 2], labels, {"all contracts": made, "dealer's contracts": dealer_made}, "contracts made (%)")
    ax[0, 2].set_title("contracts made")
    for a in (ax[0, 1], ax[0, 2]):
        a.set_xticks(range(len(labels)), labels, rotation=30, ha="right")
        a.set_ylim(0, 105)
        a.grid(axis="y", alpha=0.3)
    rep.figure(fig, "upcard", "By up-card class: the dealer's mean deal score minus the non-dealer's (points, "
               "95% interval over games, as summary.json's by_upcard), the share of contracts the dealer declares, "
               "and contracts made (95% Wilson intervals).")

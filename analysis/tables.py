"""Run folders read for analysis: record batches streamed block by block, and tallies.

A tally is a small set of counts and exact histograms filled one record batch at a time,
so a run of any size needs memory for one batch only, never for the whole run. Tallies
that the per-block aggregates (``blocks/*.json``) also allow can be filled from those
instead (``from_aggregates``), which is how runs made with ``--records none`` are read.
Nothing here imports numba: the names of bids, strains and Colons are spelled out.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from sim.rules import GAMES
from sim.summary import describe, merge, rate

STRAINS = ("C", "D", "H", "S", "NT")
LEVELS = tuple(range(8))
# Contract ids of the C-4 ladder (B-5, D-3): 0NT, then 1C 1D 1H 1S 1NT ... 7NT.
BID_LEVEL = np.array([0] + [1 + i // 5 for i in range(35)])
BID_STRAIN = np.array([4] + [i % 5 for i in range(35)])

COLONS = ("little", "royal", "grand")  # B-1
COLON_CARDS = ("CL", "CR", "CG")
COLON_WORDS = ("Little Colon", "Royal Colon", "Grand Colon")
# colon_<name>_play codes 0..2 in the deal records; -1 is "not played".
COLON_PLAYS = ("follow", "lead", "discard")
UPCARD_CLASSES = ("numeral", "face", "ace")  # B-3
UPCARD_GROUPS = UPCARD_CLASSES + COLON_WORDS
VOIDS = ("no", "all passed", "ace no face")  # E-3, E-10
HOLDERS = ("declarer", "defender", "nobody")
OUTCOMES = ("side 0 wins", "side 1 wins", "drawn", "abandoned")


class ReportError(ValueError):
    """A run folder that cannot be analysed: one line for the user."""


# --- Reading a run ----------------------------------------------------------------------------

def first_line(exc: Exception) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


class Batch:
    """One Arrow record batch, read as numpy arrays column by column."""

    def __init__(self, batch):
        self._batch = batch
        self.n = batch.num_rows

    def __getitem__(self, name: str) -> np.ndarray:
        return self._batch.column(name).to_numpy(zero_copy_only=False)

    def codes(self, name: str, names) -> np.ndarray:
        """A dictionary column as positions in ``names``; -1 for null or a name not listed."""
        col = self._batch.column(name)
        dictionary = col.dictionary.to_pylist()
        lookup = np.array([names.index(d) if d in names else -1 for d in dictionary] + [-1])
        return lookup[col.indices.fill_null(len(dictionary)).to_numpy(zero_copy_only=False)]


class RunData:
    """A finished run folder: manifest, summary, merged aggregates and record batches."""

    def __init__(self, path):
        self.path = Path(path)
        if not self.path.exists():
            raise ReportError(f"{self.path} does not exist")
        if not self.path.is_dir():
            raise ReportError(f"{self.path} is not a folder")
        manifest_path = self.path / "manifest.json"
        if not manifest_path.exists():
            raise ReportError(f"{self.path} is not a run folder (no manifest.json)")
        try:
            self.manifest = json.loads(manifest_path.read_text())
            self.config = self.manifest["config"]
            self.game = self.config["game"]
            self.n_blocks = int(self.manifest["blocks"])
            self.records = self.config["records"]
            done = len(self.manifest["blocks_done"])
        except (OSError, ValueError, KeyError, TypeError):
            raise ReportError(f"{manifest_path} is unreadable or not a run manifest") from None
        if self.game not in GAMES:
            raise ReportError(f"{manifest_path} names an unknown game '{self.game}'")
        summary_path = self.path / "summary.json"
        if not self.manifest.get("complete") or not summary_path.exists():
            raise ReportError(f"{self.path} holds an unfinished run ({done} of {self.n_blocks} blocks done); "
                              "rerun its sim.run command to finish it")
        try:
            self.summary = json.loads(summary_path.read_text())
        except (OSError, ValueError):
            raise ReportError(f"{summary_path} is unreadable") from None

    @property
    def rules(self) -> dict:
        return self.config["rules"]

    def files(self, kind: str) -> list[Path]:
        """The record files of ``kind`` ("deals" or "games"), one per block; [] if not kept."""
        kept = {"deals": ("deals", "games"), "games": ("games",), "none": ()}.get(self.records, ())
        if kind not in kept:
            return []
        files = [self.path / "records" / f"{kind}-{i:06d}.parquet" for i in range(self.n_blocks)]
        for f in files:
            if not f.exists():
                raise ReportError(f"{f} is missing (the run keeps {self.records} records)")
        return files

    def has(self, kind: str) -> bool:
        return bool(self.files(kind))

    def columns(self, kind: str) -> set[str]:
        """Column names of the ``kind`` records (those of the first block)."""
        import pyarrow.parquet as pq

        files = self.files(kind)
        if not files:
            return set()
        try:
            return set(pq.read_schema(files[0]).names)
        except Exception as exc:  # noqa: BLE001 - any unreadable file is one user error
            raise ReportError(f"{files[0]} is not readable Parquet ({first_line(exc)})") from None

    def batches(self, kind: str, columns, batch_rows: int = 1 << 20):
        """Record batches of ``kind`` with only ``columns``, block after block."""
        import pyarrow.parquet as pq

        for f in self.files(kind):
            try:
                reader = pq.ParquetFile(f)
                missing = set(columns) - set(reader.schema_arrow.names)
                if missing:
                    raise ReportError(f"{f} lacks the column(s) {', '.join(sorted(missing))}")
                for batch in reader.iter_batches(batch_size=batch_rows, columns=list(columns)):
                    yield Batch(batch)
            except ReportError:
                raise
            except Exception as exc:  # noqa: BLE001
                raise ReportError(f"{f} is not readable Parquet ({first_line(exc)})") from None

    def aggregates(self) -> dict:
        """The blocks' aggregates merged, read one block file at a time."""
        total = None
        for i in range(self.n_blocks):
            f = self.path / "blocks" / f"{i:06d}.json"
            try:
                agg = json.loads(f.read_text())
            except (OSError, ValueError):
                raise ReportError(f"{f} is missing or unreadable") from None
            total = agg if total is None else merge(total, agg)
        return total


def fill(data: RunData, kind: str, tallies) -> None:
    """Feed every ``kind`` record batch once to each tally, reading only the columns needed."""
    tallies = [t for t in tallies if t is not None]
    if not tallies:
        return
    columns = sorted(set().union(*(t.columns for t in tallies)))
    for batch in data.batches(kind, columns):
        for t in tallies:
            t.add(batch)


# --- Building blocks --------------------------------------------------------------------------

class Hist:
    """Exact histogram of integer values, filled batch by batch."""

    def __init__(self, hist: dict | None = None):
        self.table = dict(zip(hist["values"], hist["counts"])) if hist else {}

    def add(self, values) -> None:
        vals, counts = np.unique(np.asarray(values), return_counts=True)
        for v, c in zip(vals.tolist(), counts.tolist()):
            self.table[v] = self.table.get(v, 0) + c

    @property
    def n(self) -> int:
        return sum(self.table.values())

    def as_dict(self) -> dict:
        keys = sorted(self.table)
        return {"values": keys, "counts": [self.table[k] for k in keys]}

    def describe(self) -> dict:
        """n, mean with 95% interval, sd and quantiles (sim.summary.describe), plus min, max."""
        if not self.table:
            return {"n": 0}
        return {**describe(self.as_dict()), "min": min(self.table), "max": max(self.table)}


def count(shape, *index) -> np.ndarray:
    """Counts of index tuples in an array of ``shape`` (a fast np.add.at of ones)."""
    flat = np.ravel_multi_index([np.asarray(i, dtype=np.int64) for i in index], shape)
    return np.bincount(flat, minlength=int(np.prod(shape))).reshape(shape)


def seat_value(seat, value0, value1) -> np.ndarray:
    """Per row, ``value0`` where ``seat`` is 0 and ``value1`` where it is 1."""
    return np.where(seat == 0, value0, value1).astype(np.int64)


# --- Contract games (Bridgette, Draw Bridge) --------------------------------------------------

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


class DealScoreTally:
    """Each seat's (Bid Euchre: each team's) score per deal, as exact histograms."""

    kind = "deals"
    columns = ("score0", "score1")

    def __init__(self):
        self.scores = [Hist(), Hist()]

    def add(self, b: Batch) -> None:
        for side in (0, 1):
            self.scores[side].add(b[f"score{side}"])

    @classmethod
    def from_aggregates(cls, agg: dict) -> DealScoreTally:
        t = cls()
        t.scores = [Hist(h) for h in agg.get("deal_score") or agg["hand_score"]]
        return t


class GameTally:
    """Game totals per side, deals per game, and game results by first dealer (B-15, D-7,
    E-9): ``wins[first dealer, outcome]`` with outcomes as in OUTCOMES."""

    kind = "games"
    columns = ("first_dealer", "deals", "total0", "total1", "winner", "abandoned")

    def __init__(self, dealers: int):
        self.totals = [Hist(), Hist()]
        self.deals = Hist()
        self.wins = np.zeros((dealers, 4), dtype=np.int64)

    def add(self, b: Batch) -> None:
        for side in (0, 1):
            self.totals[side].add(b[f"total{side}"])
        self.deals.add(b["deals"])
        winner = b["winner"].astype(np.int64)
        outcome = np.where(b["abandoned"] != 0, 3, np.where(winner < 0, 2, winner))
        self.wins += count(self.wins.shape, b["first_dealer"], outcome)

    @classmethod
    def from_aggregates(cls, agg: dict, dealers: int) -> GameTally:
        t = cls(dealers)
        t.totals = [Hist(h) for h in agg["game_total"]]
        t.deals = Hist(agg["deals_per_game"])
        wins = np.array(agg["wins"], dtype=np.int64)
        if wins.shape[1] == 3:  # Bid Euchre: team 0, team 1, abandoned (no draws, E-9)
            wins = np.insert(wins, 2, 0, axis=1)
        t.wins = wins
        return t

    @property
    def games(self) -> int:
        return int(self.wins.sum())

    def side_wins(self, side: int, first_dealer: int | None = None) -> dict:
        """Games won by a seat (team) of all games, or of those ``first_dealer`` dealt first."""
        rows = self.wins if first_dealer is None else self.wins[first_dealer:first_dealer + 1]
        return rate(rows[:, side].sum(), rows.sum())

    def outcome(self, k: int, first_dealer: int | None = None) -> dict:
        rows = self.wins if first_dealer is None else self.wins[first_dealer:first_dealer + 1]
        return rate(rows[:, k].sum(), rows.sum())

    def first_dealer_wins(self) -> dict:
        """Games won by the side of the first dealer (C-6); in Bid Euchre the dealer's team."""
        won = sum(self.wins[d, d % 2] for d in range(len(self.wins)))
        return rate(won, self.games)


# --- Bridgette --------------------------------------------------------------------------------

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
    """By up-card class (B-3; the Colons apart): the dealer's deal score minus the
    non-dealer's, contracts the dealer declares, and contracts made."""

    kind = "deals"
    columns = ("dealer", "upcard", "upcard_class", "level", "declarer", "made", "score0", "score1")

    def __init__(self):
        g = len(UPCARD_GROUPS)
        self.deals = np.zeros(g, dtype=np.int64)
        self.advantage = [Hist() for _ in range(g)]
        self.played = np.zeros(g, dtype=np.int64)
        self.dealer_declares = np.zeros(g, dtype=np.int64)
        self.made = np.zeros(g, dtype=np.int64)
        self.dealer_made = np.zeros(g, dtype=np.int64)

    def add(self, b: Batch) -> None:
        colon = b.codes("upcard", COLON_CARDS)
        group = np.where(colon >= 0, len(UPCARD_CLASSES) + colon, b.codes("upcard_class", UPCARD_CLASSES))
        dealer = b["dealer"].astype(np.int64)
        s0, s1 = b["score0"].astype(np.int64), b["score1"].astype(np.int64)
        advantage = np.where(dealer == 0, s0 - s1, s1 - s0)
        played = b["level"] >= 0
        made = b["made"] & played
        by_dealer = played & (b["declarer"] == dealer)
        g = len(UPCARD_GROUPS)
        self.deals += np.bincount(group, minlength=g)
        self.played += np.bincount(group[played], minlength=g)
        self.dealer_declares += np.bincount(group[by_dealer], minlength=g)
        self.made += np.bincount(group[made], minlength=g)
        self.dealer_made += np.bincount(group[by_dealer & made], minlength=g)
        for k in range(g):
            sel = group == k
            if sel.any():
                self.advantage[k].add(advantage[sel])


# --- Draw Bridge ------------------------------------------------------------------------------

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


# --- Bid Euchre -------------------------------------------------------------------------------

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
        made = b["made"] & played
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

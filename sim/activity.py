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
        # Deals dealt: the deal records, and the redeals, which keep none (C-5).
        self.dealt = len(deals) + (int(games["redeals"].sum()) if "redeals" in games.dtype.names else 0)
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

    @functools.cached_property
    def euchre_hands(self):
        """Bid Euchre's bid hands by E-4 and E-7's outcome: a 6A (12A) played, a 6A or a 6M
        taking every trick, a bid below six made, a team set, the defenders taking a trick."""
        deals = self.deals
        tricks = 12 if self.rules.variant.double_deck else 6
        bid = deals["bid"].astype(np.int64)  # -1 on a void hand
        won = np.where(deals["bidder"] % 2 == 0, deals["tricks0"], deals["tricks1"]).astype(np.int64)
        number, ask, moon = bid < tricks - 3, bid == tricks - 3, bid == tricks - 2
        need = np.where(number, bid + 3, tricks)
        played = bid >= 0
        return {name: int(hit.sum()) for name, hit in (
            ("ask", ask), ("ask_all", ask & (won == tricks)), ("moon_all", moon & (won == tricks)),
            ("made", played & number & (won >= need)), ("set", played & (won < need)),
            ("defended", played & (won < tricks)))}

    @functools.cached_property
    def contract(self):
        """(played, level, strain (4 no-trump), declarer's tricks over the tricks bid:
        negative when short), per deal."""
        contract = np.maximum(self.deals["contract"].astype(np.int64), 0)
        level = BID_LEVEL[contract]
        tricks = np.where(self.deals["declarer"] == 0, self.deals["tricks0"], self.deals["tricks1"])
        return self.deals["contract"] >= 0, level, BID_STRAIN[contract], tricks.astype(np.int64) - 6 - level


def _bit(name):
    """A row counting the deals whose ``activity`` has the kernels' bit ``name``."""
    mask = 1 << ACTIVITY.index(name)
    having = np.arange(1 << len(ACTIVITY)) & mask != 0
    return lambda b: int(b.activity[having].sum())


def _always(on=lambda rules: True):
    """A row active in every deal dealt while ``on(rules)``, in none otherwise."""
    def count(b):
        return b.dealt if on(b.rules) else 0
    count.always = True
    return count


def _contracts(test, on=lambda rules: True):
    """A row counting, while ``on(rules)``, the contracts played whose level, strain (4
    no-trump), tricks over the bid (negative: short) and doubling (0-2) pass ``test``."""
    def count(b):
        if not on(b.rules):
            return 0
        played, level, strain, over = b.contract
        return int((played & test(level, strain, over, b.deals["doubled"])).sum())
    return count


def _made(doubled=None, strains=range(5)):
    """Contracts made in ``strains`` at a doubling (None: any)."""
    def test(lv, st, over, x):
        hit = (over >= 0) & np.isin(st, strains)
        return hit if doubled is None else hit & (x == doubled)
    return _contracts(test)


def _overtrick_bonus(b):
    """B-12: made with three overtricks, or three or more under "atleast3"."""
    at_least = b.rules.scoring.overtrick_bonus_rule == "atleast3"
    return _contracts(lambda lv, st, over, x: (over >= 3) if at_least else (over == 3))(b)


def _failed(doubled, on=lambda rules: True):
    return _contracts(lambda lv, st, over, x: (over < 0) & (x == doubled), on)


def _bridge_undertricks(rules):
    return rules.scoring.undertricks == "bridge"


def _passed_out(b):
    """C-5: passed-out deals, kept (next_deal) or redealt."""
    return int((b.deals["contract"] < 0).sum()) + int(b.games["redeals"].sum())


def _redeal_limit(b):
    """C-5: the games abandoned at a passed-out deal after ``max_redeals`` redeals."""
    if b.rules.auction.passed_out != "redeal":
        return 0
    return int(((b.games["abandoned"] != 0) & (b.games["redeals"] == b.rules.auction.max_redeals)).sum())


def _deal_limit(b):
    """D-7, E-9: the games abandoned at their deal (hand) limit, not at C-5's."""
    return int((b.games["abandoned"] != 0).sum()) - (_redeal_limit(b) if "redeals" in b.games.dtype.names else 0)


def _column(name, value):
    return lambda b: int(b.values(name)[value])


def _up_class(k):
    return _column("upcard_class", k)


def _tiebreak(b):
    return int(b.games["tiebreak_deals"].sum())


def _euchre_hands(what):
    """Bid Euchre's bid hands of one outcome (``_Block.euchre_hands``)."""
    return lambda b: b.euchre_hands[what]


def _reneges(b):
    return int((b.deals["reneges"] > 0).sum()) if b.rules.scoring.renege_penalty else 0


# (option or None for a rule without one, rule id, what counts) per game; the order is the
# blocks' order of counts.
_CONTRACT_AUCTION = [
    ("auction.opening_pass", "C-4", "the first call was a pass", _bit("opening_pass")),
    ("auction.passed_out", "C-5", "the deal was passed out", _passed_out),
    ("auction.max_redeals", "C-5", "a game was abandoned at its redeal limit", _redeal_limit),
]
ROWS = {
    "bridgette": [
        ("deck.colons", "B-4", "the deck (always active)", _always()),
        ("exchange.nondealer_draw", "B-3", "the non-dealer drew (always active)", _always()),
        # B-3: each dealer draw applies after an up-card of its class
        ("exchange.dealer_draw_numeral", "B-3", "the up-card was a numeral or the Little Colon", _up_class(0)),
        ("exchange.dealer_draw_face", "B-3", "the up-card was a J, Q, K or the Royal Colon", _up_class(1)),
        ("exchange.dealer_draw_ace", "B-3", "the up-card was an ace or the Grand Colon", _up_class(2)),
        ("exchange.upcard_to", "B-3", "the up-card went to its side (always active)", _always()),
        *_CONTRACT_AUCTION,
        ("auction.min_trump_cards", "B-6", "a suit bid was refused for too few cards", _bit("min_trump_cards")),
        ("auction.nt_needs_all_suits", "B-6", "a no-trump bid was refused for a void", _bit("nt_needs_all_suits")),
        ("auction.jump_min_cards", "B-6", "a jump bid was refused for too few cards", _bit("jump_min_cards")),
        (None, "B-8", "a Colon's block barred a lead", _bit("lead_barred")),
        ("play.colon_discard", "B-10", "a follower void in the suit led held a non-matching Colon "
                                       "and other cards", _bit("colon_discard")),
        ("scoring.made_basis", "B-11", "a contract was made with overtricks",
         _contracts(lambda lv, st, over, x: over > 0)),
        ("scoring.nt_values", "B-11", "a no-trump contract was made", _made(strains=(4,))),
        ("scoring.minor_values", "B-11", "a club or diamond contract was made", _made(strains=(0, 1))),
        ("scoring.major_values", "B-11", "a heart or spade contract was made", _made(strains=(2, 3))),
        ("scoring.exact_bonus", "B-12", "a contract was made exactly", _contracts(lambda lv, st, over, x: over == 0)),
        ("scoring.exact_values", "B-12", "a contract was made exactly", _contracts(lambda lv, st, over, x: over == 0)),
        ("scoring.nt_reduced_exact", "B-12", "a 0NT..5NT was made exactly under exact_bonus nt_reduced",
         _contracts(lambda lv, st, over, x: (over == 0) & (st == 4) & (lv <= 5),
                    lambda r: r.scoring.exact_bonus == "nt_reduced")),
        ("scoring.overtrick_bonus_rule", "B-12", "a contract was made with more than three overtricks",
         _contracts(lambda lv, st, over, x: over > 3)),
        ("scoring.overtrick_bonus", "B-12", "a contract was made with the overtricks the bonus needs",
         _overtrick_bonus),
        ("scoring.double_bonus", "B-12", "a doubled contract was made", _made(1)),
        ("scoring.redouble_bonus", "B-12", "a redoubled contract was made", _made(2)),
        ("scoring.multiply_bonuses", "B-13", "a doubled or redoubled contract was made",
         _contracts(lambda lv, st, over, x: (over >= 0) & (x > 0))),
        ("scoring.double_factor", "B-13", "a doubled contract was made", _made(1)),
        ("scoring.redouble_factor", "B-13", "a redoubled contract was made", _made(2)),
        # B-14: where the two readings of the last row part
        ("scoring.penalty_last_row", "B-14", "a slam failed by 1-5 tricks, or another contract by 6 or more",
         _contracts(lambda lv, st, over, x: np.where(lv >= 6, (over < 0) & (over > -6), over <= -6))),
        ("scoring.penalty_undoubled", "B-14", "an undoubled contract failed", _failed(0)),
        ("scoring.penalty_doubled", "B-14", "a doubled contract failed", _failed(1)),
        ("scoring.penalty_redoubled", "B-14", "a redoubled contract failed", _failed(2)),
        ("game.deals", "B-15", "the game's deals (always active)", _always()),
        ("game.max_tiebreak_deals", "B-15", "a tie-break deal was played", _tiebreak),
    ],
    "draw-bridge": [
        ("draw.must_follow", "D-2", "a draw-phase follower held the suit led and other cards", _bit("must_follow")),
        ("draw.trick_winner", "D-2", "a draw trick went by rank against the suit led, or the reverse",
         _bit("trick_winner")),
        ("draw.show_stock_top", "D-2", "the stock's top was shown (every deal when on)",
         _always(lambda r: r.draw.show_stock_top)),
        *_CONTRACT_AUCTION,
        ("scoring.minor_trick", "D-5", "a club or diamond contract was made", _made(strains=(0, 1))),
        ("scoring.major_trick", "D-5", "a heart or spade contract was made", _made(strains=(2, 3))),
        ("scoring.nt_first_trick", "D-5", "a no-trump contract was made", _made(strains=(4,))),
        ("scoring.nt_trick", "D-5", "a no-trump contract was made with two tricks or more over six",
         _contracts(lambda lv, st, over, x: (over >= 0) & (st == 4) & (lv + over >= 2))),
        ("scoring.double_factor", "D-5", "a doubled contract was made", _made(1)),
        ("scoring.redouble_factor", "D-5", "a redoubled contract was made", _made(2)),
        ("scoring.undertricks", "D-6", "a failed contract scored undertricks",
         _contracts(lambda lv, st, over, x: over < 0, _bridge_undertricks)),
        ("scoring.undertricks_undoubled", "D-6", "an undoubled contract failed, scoring undertricks",
         _failed(0, _bridge_undertricks)),
        ("scoring.undertricks_doubled", "D-6", "a doubled contract failed, scoring undertricks",
         _failed(1, _bridge_undertricks)),
        ("scoring.undertricks_redoubled", "D-6", "a redoubled contract failed, scoring undertricks",
         _failed(2, _bridge_undertricks)),
        ("game.target", "D-7", "the game's target (always active)", _always()),
        ("game.max_deals", "D-7", "a game was abandoned at its deal limit", _deal_limit),
    ],
    "bid-euchre": [
        ("auction.stick_the_dealer", "E-3", "the dealer, after three passes, had to bid", _bit("stick_the_dealer")),
        (None, "E-3", "all four passed: the hand was void", _column("void", 1)),
        ("auction.ask_cards", "E-4", "a 6A (12A) exchange was made", _euchre_hands("ask")),
        ("scoring.ask_all", "E-7", "a 6A (12A) took every trick", _euchre_hands("ask_all")),
        ("scoring.moon_all", "E-7", "a 6M (12M) took every trick", _euchre_hands("moon_all")),
        ("scoring.made_trick_points", "E-7", "a bid below six was made", _euchre_hands("made")),
        ("scoring.set_bid_points", "E-7", "a bidding team was set", _euchre_hands("set")),
        ("scoring.defender_trick_points", "E-7", "the defenders took a trick", _euchre_hands("defended")),
        ("scoring.renege_penalty", "E-8", "a renege was penalised (only replays renege)", _reneges),
        ("game.target", "E-9", "the game's target (always active)", _always()),
        ("game.max_hands", "E-9", "a game was abandoned at its hand limit", _deal_limit),
        ("variant.ace_no_face", "E-10", "an ace-no-face hand voided the deal", _column("void", 2)),
        ("variant.joker", "E-10", "the joker was in the deck (every deal when on)", _always(lambda r: r.variant.joker)),
        ("variant.double_deck", "E-10", "the double deck was used (every deal when on)",
         _always(lambda r: r.variant.double_deck)),
    ],
}


def aggregate(game: str, rules, deals, games) -> dict:
    """A block's counts: deals dealt, and per row of ROWS[game] the deals it applied in."""
    block = _Block(rules, deals, games)
    return {"dealt": block.dealt, "deals": [count(block) for *_, count in ROWS[game]]}


def summarize(game: str, agg: dict) -> list[dict]:
    """The summary's ``rule_activity``: per row its option (null: a rule without one), rule,
    what was counted, the deals it applied in, of the deals dealt, their share, and
    whether the option shapes every deal rather than deciding in some."""
    dealt = agg["dealt"]
    return [{"option": option, "rule": rule, "what": what, "deals": n, "of": dealt,
             "share": n / dealt if dealt else None, "always": getattr(count, "always", False)}
            for (option, rule, what, count), n in zip(ROWS[game], agg["deals"])]


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

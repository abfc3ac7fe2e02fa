"""Rule activity (kernels.activity, sim.activity): the kernels' bits against the same rules
applied anew to the traced deals (sim.show's replay format: hands, calls, cards, and who
played each), the counts of the summary against the records, and the warning of a
comparison or sweep over a rule that rarely applies."""

import json

import numpy as np
import pytest

from kernels.activity import ACTIVITY
from sim import activity
from sim.api import resolve_policies, resolve_rules
from sim.games import game_module

BIT = {name: 1 << i for i, name in enumerate(ACTIVITY)}
SUITS = "CDHS"
LADDER = ["0NT"] + [f"{level}{s}" for level in range(1, 8) for s in ("C", "D", "H", "S", "NT")]
COLON_OF = {**{r: "CL" for r in "23456789T"}, **{r: "CR" for r in "JQK"}, "A": "CG"}  # B-1 ranges
RANKS = "23456789TJQKA"


def suited(cards, suit):
    return [c for c in cards if c not in COLON_OF.values() and c[1] == suit]


def b6_bits(hand, cur, p):
    """B-6 at one call, written out from docs/rules.md: the restrictions that refuse a bid
    above the current one (index ``cur`` in LADDER, -1 none)."""
    bits = 0
    for strain in ("C", "D", "H", "S", "NT"):
        above = [b for b in LADDER[cur + 1:] if b.endswith(strain) and (strain == "NT" or not b.endswith("NT"))]
        if not above:
            continue
        if strain == "NT":
            if p.nt_needs_all_suits and any(not suited(hand, s) for s in SUITS):
                bits |= BIT["nt_needs_all_suits"]
            continue
        length = len(suited(hand, strain))
        if length < p.min_trump_cards:
            bits |= BIT["min_trump_cards"]
        elif length < p.jump_min_cards and len(above) > 1:
            bits |= BIT["jump_min_cards"]
    return bits


def auction_bits(hands, dealer, calls, p=None):
    bits = BIT["opening_pass"] if calls and calls[0] == "P" else 0
    cur, seat = -1, dealer
    for call in calls:
        if p is not None:
            bits |= b6_bits(hands[seat], cur, p)
        if call in LADDER:
            cur = LADDER.index(call)
        seat = 1 - seat
    return bits


def bridgette_bits(deal, rules):
    """The deal's bits from its trace: the hands after B-3 are the legal sets of each seat's
    first discard (its whole hand) less its discards."""
    dealer, legal, seats = deal["dealer"], deal["legal"], deal["seats"]
    nd = 1 - dealer
    hands = [None, None]
    hands[nd] = set(legal[0]) - set(deal["discards"][nd])
    hands[dealer] = set(legal[len(deal["discards"][nd])]) - set(deal["discards"][dealer])
    bits = auction_bits(hands, dealer, deal["calls"], rules.auction)
    first = sum(map(len, deal["discards"])) + len(deal["calls"])
    barred = None
    for t in range(len(deal["play"]) // 2):
        lead, follow = deal["play"][2 * t:2 * t + 2]
        leader = seats[first + 2 * t]
        hand, other = hands[leader], hands[1 - leader]
        if barred and suited(hand, barred) and set(hand) - set(suited(hand, barred)):
            bits |= BIT["lead_barred"]
        if lead not in COLON_OF.values() and not suited(other, lead[1]):
            wrong = {c for c in other if c in COLON_OF.values() and c != COLON_OF[lead[0]]}
            if wrong and set(other) - wrong:
                bits |= BIT["colon_discard"]
        barred = lead[1] if lead not in COLON_OF.values() and follow == COLON_OF[lead[0]] else None
        hand.discard(lead)
        other.discard(follow)
    return bits


def draw_bridge_bits(deal, rules):
    """D-2 from the trace: each draw trick's leader is the seat of its first card; the winner
    (the next trick's leader) draws the stock's top card, the other the next."""
    hands = [set(h) for h in deal["hands"]]
    play, seats, stock = deal["play"], deal["seats"], deal["stock"]
    bits = 0
    for t in range(13):
        lead, follow = play[2 * t:2 * t + 2]
        leader = seats[2 * t]
        other = hands[1 - leader]
        if suited(other, lead[1]) and other - set(suited(other, lead[1])):  # at either value
            bits |= BIT["must_follow"]
        if follow[1] != lead[1] and RANKS.index(follow[0]) > RANKS.index(lead[0]):
            bits |= BIT["trick_winner"]
        hands[leader].discard(lead)
        other.discard(follow)
        if t < 12:
            winner = seats[2 * t + 2]
            hands[winner].add(stock[2 * t])
            hands[1 - winner].add(stock[2 * t + 1])
    return bits | auction_bits(None, deal["dealer"], deal["calls"])


def bid_euchre_bits(deal, rules):
    stuck = rules.auction.stick_the_dealer and deal["calls"][:3] == ["P"] * 3
    return BIT["stick_the_dealer"] if stuck else 0


REFERENCE = {"bridgette": bridgette_bits, "draw-bridge": draw_bridge_bits, "bid-euchre": bid_euchre_bits}

# (game, options, games, the bits that must be seen, the bits that cannot be)
CASES = [
    ("bridgette", {}, 40, ("opening_pass", "min_trump_cards", "nt_needs_all_suits", "jump_min_cards",
                           "lead_barred", "colon_discard"), ()),
    ("bridgette", {"deck": {"colons": []}, "auction": {"min_trump_cards": 0, "nt_needs_all_suits": False,
                                                       "jump_min_cards": 0}}, 20, (),
     ("min_trump_cards", "nt_needs_all_suits", "jump_min_cards", "lead_barred", "colon_discard")),
    ("draw-bridge", {"draw": {"must_follow": True}}, 5, ("must_follow", "trick_winner", "opening_pass"), ()),
    ("draw-bridge", {"draw": {"trick_winner": "led_suit"}}, 5, ("trick_winner", "must_follow"), ()),
    ("bid-euchre", {"auction": {"stick_the_dealer": True}}, 300, ("stick_the_dealer",), ()),
    ("bid-euchre", {}, 300, (), ("stick_the_dealer",)),
]


@pytest.mark.parametrize("game,options,n,seen,unseen", CASES)
def test_activity_bits_are_the_rules_applied_to_the_traced_deals(game, options, n, seen, unseen):
    rules = resolve_rules(game, options)
    policies = resolve_policies(game, {"all": "heuristic"})
    module = game_module(game)
    deals, _ = module.run_block(rules, policies, 3, 0, n)
    _, traced = module.trace_games(rules, policies, 3, list(range(n)))
    expected = [REFERENCE[game](d, rules) for g in traced for d in g if d["counted"]]
    assert deals["activity"].tolist() == expected
    for name in seen:
        assert (deals["activity"] & BIT[name]).any(), name
    for name in unseen:
        assert not (deals["activity"] & BIT[name]).any(), name


def counts(game, rules, n):
    module = game_module(game)
    deals, games = module.run_block(rules, resolve_policies(game, {"all": "heuristic"}), 5, 0, n)
    rows = activity.summarize(game, activity.aggregate(game, rules, deals, games))
    return {(r["option"], r["rule"]): r for r in rows}, deals, games


def test_counts_from_the_records_and_the_traces():
    """Redeals (C-5) counted from the traced deals that did not count; tie-break deals
    (B-15) from the deal numbers; the dealt deals are both."""
    rules = resolve_rules("bridgette", {"auction": {"passed_out": "redeal", "opening_pass": "ends"}})
    rows, deals, games = counts("bridgette", rules, 60)
    _, traced = game_module("bridgette").trace_games(rules, resolve_policies("bridgette", {"all": "heuristic"}),
                                                     5, list(range(60)))
    redealt = sum(not d["counted"] for g in traced for d in g)
    assert redealt > 0 and rows[("auction.passed_out", "C-5")]["deals"] == redealt
    assert rows[("auction.passed_out", "C-5")]["of"] == len(deals) + redealt
    tiebreak = int((deals["deal"] >= rules.game.deals).sum())
    assert tiebreak > 0 and rows[("game.max_tiebreak_deals", "B-15")]["deals"] == tiebreak
    # An opening pass that ends the auction passes the deal out: every one was redealt, and
    # every redealt deal began with a pass (it was passed out), though it keeps no record.
    assert rows[("auction.opening_pass", "C-4")]["deals"] == redealt > 0
    deck = rows[("deck.colons", "B-4")]
    assert deck["always"] and deck["deals"] == len(deals) + redealt
    assert sum(rows[(f"exchange.dealer_draw_{k}", "B-3")]["deals"] for k in ("numeral", "face", "ace")) == len(deals)


def test_games_abandoned_at_each_limit():
    """C-5's limit: a game whose last traced deal was redealt, not counted; D-7's: a game
    that played ``max_deals`` deals without reaching the target."""
    rules = resolve_rules("bridgette", {"auction": {"passed_out": "redeal", "opening_pass": "ends", "max_redeals": 0}})
    rows, _, _ = counts("bridgette", rules, 60)
    _, traced = game_module("bridgette").trace_games(rules, resolve_policies("bridgette", {"all": "heuristic"}),
                                                     5, list(range(60)))
    stopped = sum(not g[-1]["counted"] for g in traced)
    assert stopped > 0 and rows[("auction.max_redeals", "C-5")]["deals"] == stopped
    # The last deal of such a game was dealt and passed out too (before: left out of both).
    passed, dealt = sum(not d["counted"] for g in traced for d in g), sum(len(g) for g in traced)
    assert rows[("auction.passed_out", "C-5")]["deals"] == passed and rows[("auction.passed_out", "C-5")]["of"] == dealt
    assert rows[("auction.max_redeals", "C-5")]["of"] == dealt
    rules = resolve_rules("draw-bridge", {"game": {"max_deals": 3}})
    rows, _, games = counts("draw-bridge", rules, 40)
    short = int(((games["deals"] == 3) & (np.maximum(games["total0"], games["total1"]) < 100)).sum())
    assert short > 0 and rows[("game.max_deals", "D-7")]["deals"] == short
    assert rows[("auction.max_redeals", "C-5")]["deals"] == 0


def test_bid_euchre_rows_from_the_records():
    rules = resolve_rules("bid-euchre", {"variant": {"ace_no_face": True}})
    rows, deals, _ = counts("bid-euchre", rules, 200)
    assert rows[("variant.ace_no_face", "E-10")]["deals"] == int((deals["void"] == 2).sum()) > 0
    asks = (deals["bid"] == 3) & (deals["void"] == 0)  # 6A is the fourth bid of the single deck
    assert rows[("auction.ask_cards", "E-4")]["deals"] == int(asks.sum()) > 0
    assert rows[("auction.stick_the_dealer", "E-3")]["deals"] == 0
    assert rows[("variant.joker", "E-10")]["deals"] == 0 and rows[("game.target", "E-9")]["deals"] == len(deals)
    # E-7 by the scores: a set team scores below 0, a made bid above; defenders score their tricks.
    team = deals["bidder"] % 2
    bidding = np.where(team == 0, deals["score0"], deals["score1"])
    defending = np.where(team == 0, deals["score1"], deals["score0"])
    bid = deals["void"] == 0
    assert rows[("scoring.set_bid_points", "E-7")]["deals"] == int((bid & (bidding < 0)).sum()) > 0
    assert rows[("scoring.made_trick_points", "E-7")]["deals"] == int((bid & (bidding > 0) & (deals["bid"] < 3)).sum())
    assert rows[("scoring.defender_trick_points", "E-7")]["deals"] == int((bid & (defending > 0)).sum())


def test_bridgette_failures_by_doubling_from_the_scores():
    """B-14 rows by the scores: a failed contract gives the declarer nothing and the
    opponent a penalty; a made one scores for the declarer."""
    rules = resolve_rules("bridgette")
    rows, deals, _ = counts("bridgette", rules, 300)
    declarer = np.where(deals["declarer"] == 0, deals["score0"], deals["score1"])
    opponent = np.where(deals["declarer"] == 0, deals["score1"], deals["score0"])
    failed = (deals["contract"] >= 0) & (declarer == 0) & (opponent > 0)
    for k, name in enumerate(("undoubled", "doubled", "redoubled")):
        assert rows[(f"scoring.penalty_{name}", "B-14")]["deals"] == int((failed & (deals["doubled"] == k)).sum()) > 0
    made = (deals["contract"] >= 0) & (declarer > 0)
    assert rows[("scoring.redouble_bonus", "B-12")]["deals"] == int((made & (deals["doubled"] == 2)).sum()) > 0


def test_every_option_has_a_row():
    from sim.rules import GAMES, option_table

    for game, cls in GAMES.items():
        options = [o for o, *_ in activity.rows(game) if o]
        assert sorted(options) == sorted(r["option"] for r in option_table(cls)), game


def test_stick_the_dealer_is_flagged_in_a_comparison_and_a_sweep(tmp_path, capsys):
    """The default heuristic bids on nearly every hand, so the dealer is rarely stuck: the
    comparison and the sweep over stick-the-dealer warn, naming the players; a rule that
    applies often (B-10's Colon discards) draws no warning."""
    from analysis.compare import main as compare_main
    from sim.run import main as run_main
    from sim.sweep import main as sweep_main

    for name, extra in (("off", []), ("on", ["--set", "auction.stick_the_dealer=true"])):
        assert run_main(["--game", "bid-euchre", "--games", "300", "--seed", "2", "--out", str(tmp_path / name),
                         *extra]) == 0
    printed = capsys.readouterr().out
    assert "rule activity" in printed and "auction.stick_the_dealer" in printed
    summary = json.loads((tmp_path / "on" / "summary.json").read_text())
    stuck = next(r for r in summary["rule_activity"] if r["option"] == "auction.stick_the_dealer")
    assert 0 < stuck["share"] < activity.RARE
    assert compare_main([str(tmp_path / "off"), str(tmp_path / "on"), "--metrics", "dealer_advantage"]) == 0
    out = capsys.readouterr().out
    assert "warning: auction.stick_the_dealer (E-3" in out and "players (heuristic" in out
    assert sweep_main(["--game", "bid-euchre", "--vary", "auction.stick_the_dealer=false,true", "--games", "300",
                       "--seed", "2", "--out", str(tmp_path / "sweep"), "--metrics", "dealer_advantage",
                       "--quiet"]) == 0
    assert "warning: auction.stick_the_dealer (E-3" in capsys.readouterr().out
    from analysis.report import build

    for paths, metrics in (([tmp_path / "off", tmp_path / "on"], ["dealer_advantage"]), ([tmp_path / "sweep"], None)):
        page = build(paths, tmp_path / f"report-{len(paths)}", metrics).read_text()
        assert "rarely applied</span>: auction.stick_the_dealer (E-3" in page
    for name, extra in (("a", []), ("b", ["--set", "play.colon_discard=when_void"])):
        assert run_main(["--game", "bridgette", "--games", "100", "--out", str(tmp_path / name), "--quiet",
                         *extra]) == 0
    assert compare_main([str(tmp_path / "a"), str(tmp_path / "b"), "--json", "--metrics", "dealer_advantage"]) == 0
    assert json.loads(capsys.readouterr().out)["rule_warnings"] == []


def test_rare_words_and_thresholds():
    rows = [{"option": "x.y", "rule": "E-3", "what": "w", "deals": 5, "of": 1000, "share": 0.005, "always": False}]
    many = [{**rows[0], "deals": 10, "share": 0.01}]
    assert activity.rare("x.y", [{"rule_activity": rows}], ["heuristic"]).startswith("warning: x.y (E-3: w) "
                                                                                      "applied in 0.50%")
    assert activity.rare("x.y", [{"rule_activity": rows}, {"rule_activity": many}], ["h"]) is None
    assert activity.rare("x.y", [{}], ["h"]) is None  # a run made before rule activity was counted

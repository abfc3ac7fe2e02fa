"""python -m sim.solve: double-dummy tables, par and card values of recorded deals.

* two deals built by hand whose tables, par and card values can be worked out on paper
  (Bridgette: all the spades against all the hearts; Bid Euchre: one hand with the six
  highest hearts, another with every spade);
* ``--at play[K]``: the values printed equal ``Solver.contract_card_values`` /
  ``euchre_card_values`` on the position replayed independently here, and the plain
  minimax of sim/reference/dd.py near the end of the play (bars, Colons, tricks in
  progress, lone hands and the joker as the golden deals have them);
* the JSON shape and the words of golden deals of the three games;
* every bad input ends with one line and exit status 2, before anything is solved.
"""

from __future__ import annotations

import json

import pytest

from kernels.cards import CARD_IDS, EUCHRE_CARD_IDS, card_name
from sim import solve
from sim.dd import Solver
from sim.par import par
from sim.reference import bid_euchre as re_
from sim.reference import bridgette as rb
from sim.reference import dd as ref_dd
from sim.reference import draw_bridge as rd
from sim.rules import rules_for
from tests.commands import in_process
from tests.conftest import GOLDEN, golden_cases

SUITS = "CDHS"
RANKS = "23456789TJQKA"


@pytest.fixture(scope="module")
def solver():
    return Solver()


def write(tmp_path, *cases, name="deals.jsonl") -> str:
    path = tmp_path / name
    path.write_text("".join(json.dumps(c) + "\n" for c in cases), encoding="utf-8")
    return str(path)


def run_main(capsys, *argv) -> tuple[int, str, str]:
    status = solve.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def spades_against_hearts() -> dict:
    """Seat 0 (dealer) holds the 13 spades, seat 1 the 13 hearts; each gives back what it
    draws (a 2C up-card: the non-dealer draws 2C 3C, the dealer 4C-7C); 7S, then seat 1
    leads its hearts from the top and seat 0 ruffs and runs its spades from the bottom."""
    spades = [r + "S" for r in RANKS]
    hearts = [r + "H" for r in reversed(RANKS)]
    stock = [r + "C" for r in RANKS] + [r + "D" for r in RANKS] + ["CL", "CR", "CG"]
    play = [hearts[0], spades[0]]
    for k in range(1, 13):
        play += [spades[k], hearts[k]]
    return {"game": "bridgette", "rules": {}, "dealer": 0, "hands": [spades, hearts], "stock": stock,
            "discards": [["4C", "5C", "6C", "7C"], ["2C", "3C"]], "calls": ["7S", "P"], "play": play}


def test_hand_checked_bridgette_deal(tmp_path, capsys):
    """Declarer 0 takes all 13 in spades (a heart lead is ruffed, then the spades run) and
    none elsewhere: no-trump, hearts, or a trump suit nobody holds, seat 1 cashes 13 hearts.
    Declarer 1 mirrors it in hearts. Par: seat 0 opens 7S (2200; exact bonus nothing at
    level 7); seat 1 holds no spades or minors and cannot bid no-trump (B-6), nor outrank
    7S in hearts, so it passes (a double would make it 5200). After the heart lead
    (play[1]) every spade takes all 13 tricks; on lead after it (play[2]), 12."""
    case = spades_against_hearts()
    path = write(tmp_path, case)
    status, out, err = run_main(capsys, path, "--json", "--at", "play[1]")
    assert status == 0, err
    result = json.loads(out)
    assert result["table"] == {"C": [0, 0], "D": [0, 0], "H": [0, 13], "S": [13, 0], "NT": [0, 0]}
    assert result["par"] == {"contract": "7S", "declarer": 0, "doubled": 0, "tricks": 13, "score": [2200, 0],
                             "auction": ["7S", "P"]}
    assert result["played"] == {"contract": "7S", "declarer": 0, "doubled": 0, "tricks": [13, 0],
                                "score": [2200, 0], "dd_tricks": 13}
    assert result["at"] == {"play": 1, "seat": 0, "trick": ["AH"], "barred": None, "tricks_won": [0, 0],
                            "values": {card: 13 for card in case["hands"][0]}}
    for k in ("2", "play[2]", "0_2"):  # K read as every count is
        status, out, _ = run_main(capsys, path, "--json", "--at", k)
        at = json.loads(out)["at"]
        assert at == {"play": 2, "seat": 0, "trick": [], "barred": None, "tricks_won": [1, 0],
                      "values": {card: 12 for card in case["hands"][0][1:]}}


def euchre_top_hearts() -> dict:
    """Bid Euchre, dealer 3: seat 0 holds JH JD AH KH QH TH, seat 3 every spade, seat 1
    9H and the clubs but the ace, seat 2 AC and the diamonds but the jack. Seat 0 bids 3 in
    hearts; the play is the referee's first legal card at every turn."""
    hands = [["JH", "JD", "AH", "KH", "QH", "TH"], ["9H", "9C", "TC", "JC", "QC", "KC"],
             ["AC", "9D", "TD", "QD", "KD", "AD"], ["9S", "TS", "JS", "QS", "KS", "AS"]]
    case = {"game": "bid-euchre", "rules": {}, "dealer": 3, "hands": hands, "calls": ["3", "P", "P", "P"],
            "trump": "H", "trump_exchange": []}
    deal = re_.BidEuchreDeal(rules_for("bid-euchre"), 3, hands)
    for action in case["calls"] + [case["trump"]]:
        deal.apply(action)
    while deal.phase == "play":
        deal.apply(deal.legal_actions()[0])
    case["play"] = deal.play_sequence
    return case


def test_hand_checked_euchre_table(tmp_path, capsys):
    """Hearts trump: seat 0 holds the six highest trumps and nothing else, so it wins every
    trick it plays in, whoever leads: its team takes 6 when seat 0 or seat 2 bids with
    partner (and seat 0 alone), the other team 0 with partner or alone (seat 0 is never its
    partner). Seat 2 alone (seat 0's trumps out of play) takes 5: seat 1's 9H, the only
    trump left, ruffs one diamond lead whatever seat 2 does (and must win a trick even as
    its last card), while AC and the diamonds, all the diamonds still in play, take the
    rest if seat 2 keeps AC until the ruff.
    Spades trump: seat 3 holds the right bower and the other five spades, seat 1 the left
    bower (JC) and no other trump; every trick holds a trump of team 1, which no card of
    team 0 beats: team 1 takes 6 with partner, seat 3 alone too, team 0 none. Seat 1 alone
    (seat 3's spades out of play) takes 4: it leads a club, losing to AC; seat 2, left with
    diamonds only, must lead one, which JC ruffs; QC TC 9C (the ace gone) then win, and
    9H loses to seat 0's hearts last. No line saves both the club and the heart."""
    status, out, err = run_main(capsys, write(tmp_path, euchre_top_hearts()), "--json")
    assert status == 0, err
    table = json.loads(out)["table"]
    assert table["partner"]["H"] == [6, 0, 6, 0] and table["alone"]["H"] == [6, 0, 5, 0]
    assert table["partner"]["S"] == [0, 6, 0, 6] and table["alone"]["S"] == [0, 4, 0, 6]
    for kind in ("partner", "alone"):
        assert all(0 <= v <= 6 for row in table[kind].values() for v in row)


# --- --at against the solver and the reference minimax --------------------------------------

def contract_position(case, k):
    """Replay a Bridgette or Draw Bridge deal up to play[k] in its referee, written here
    again from the replay format: (hands, seat to move, trick, barred suit, trump)."""
    rules = rules_for(case["game"], case.get("rules"))
    if case["game"] == "bridgette":
        deal = rb.BridgetteDeal(rules, case["dealer"], case["hands"], case["stock"])
        for seat in (1 - case["dealer"], case["dealer"]):
            for card in case["discards"][seat]:
                deal.apply(card)
        actions = case["calls"] + case["play"][:k]
    else:
        deal = rd.DrawBridgeDeal(rules, case["dealer"], case["hands"], case["stock"])
        actions = case["play"][:26] + case["calls"] + case["play"][26:k]
    for action in actions:
        deal.apply(action)
    barred = deal.barred_suit if case["game"] == "bridgette" else None
    return deal.hands, deal.to_move, deal.current_trick, barred, deal.trump, rules


CONTRACT_DEALS = [(n, c) for n, c in golden_cases("bridgette") + golden_cases("draw-bridge")
                  if "error" not in c["expect"] and c["expect"]["contract"] != "pass"]


@pytest.mark.parametrize("number, case", CONTRACT_DEALS, ids=[f"line{n}" for n, _ in CONTRACT_DEALS])
def test_at_values_of_contract_deals(number, case, solver, tmp_path):
    """Every position of the play, B-8 bars included (golden lines 6, 8, 9, 11, 12, 13)."""
    path = write(tmp_path, case)
    first = 26 if case["game"] == "draw-bridge" else 0
    for k in range(first, first + 26):
        (deal,) = solve.load(path, k)
        at = solve.values_at(solver, deal, k)
        hands, seat, trick, barred, trump, rules = contract_position(case, k)
        when_void = case["game"] == "bridgette" and rules.play.colon_discard == "when_void"
        direct = solver.contract_card_values([[CARD_IDS[c] for c in h] for h in hands],
                                             -1 if trump is None else SUITS.index(trump), seat,
                                             CARD_IDS[trick[0]] if trick else -1,
                                             -1 if barred is None else SUITS.index(barred), when_void)
        assert at["values"] == {card_name(c): v for c, v in direct.items()}
        assert (at["seat"], at["trick"], at["barred"]) == (seat, trick, barred)
        if k >= first + 18:  # at most 4 tricks left: the plain minimax agrees
            assert at["values"] == ref_dd.contract_card_values(
                hands, trump, seat, tuple(trick), barred, "when_void" if when_void else "last_resort")


EUCHRE_DEALS = [(n, c) for n, c in golden_cases("bid-euchre")
                if c["expect"]["bid"] != "pass" and not (c.get("rules") or {}).get("variant", {}).get("double_deck")]


@pytest.mark.parametrize("number, case", EUCHRE_DEALS, ids=[f"line{n}" for n, _ in EUCHRE_DEALS])
def test_at_values_of_euchre_deals(number, case, solver, tmp_path):
    path = write(tmp_path, case)
    rules = rules_for("bid-euchre", case.get("rules"))
    for k in range(0, len(case["play"]), 2):
        (deal,) = solve.load(path, k)
        at = solve.values_at(solver, deal, k)
        ref = re_.BidEuchreDeal(rules, case["dealer"], case["hands"], allow_renege=True)
        for card in (case.get("discards") or [[]] * 4)[case["dealer"]]:
            ref.apply(card)
        for action in case["calls"] + [case["trump"]]:
            ref.apply(action)
        if ref.phase == "exchange":
            assert re_._replay_exchange(ref, case["trump_exchange"]) is None
        for card in case["play"][:k]:
            ref.apply(card)
        out = ref.sitting_out
        hands = [[] if s == out else h for s, h in enumerate(ref.hands)]
        assert (at["seat"], at["trick"]) == (ref.to_move, [[s, c] for s, c in ref.current_trick])
        ids = EUCHRE_CARD_IDS  # a single deck: one card per name
        direct = solver.euchre_card_values([[ids[c] for c in h] for h in hands], SUITS.index(ref.trump), ref.to_move,
                                           trick=[(s, ids[c]) for s, c in ref.current_trick],
                                           out_seat=-1 if out is None else out, joker=rules.variant.joker)
        assert at["values"] == {solve.euchre_name(c): v for c, v in direct.items()}
        if len(ref.hands[ref.to_move]) <= 3:
            assert at["values"] == ref_dd.euchre_card_values(hands, ref.trump, ref.to_move, ref.current_trick, out)


# --- Golden deals end to end ------------------------------------------------------------------

def test_json_and_words_of_golden_deals(tmp_path, capsys):
    lines = GOLDEN.read_text(encoding="utf-8").splitlines()
    chosen = [1, 7, 21, 30, 31, 33, 38, 39]  # a contract, two passed out, Draw Bridge, Bid Euchre: 3, 6A,
    path = write(tmp_path, *[json.loads(lines[n - 1]) for n in chosen])  # double deck, ace-no-face void
    status, out, err = run_main(capsys, path, "--json")
    assert status == 0, err
    results = [json.loads(line) for line in out.splitlines()]
    assert [r["line"] for r in results] == list(range(1, len(chosen) + 1))
    for r, n in zip(results, chosen):
        case = json.loads(lines[n - 1])
        assert (r["game"], r["dealer"]) == (case["game"], case["dealer"])
        assert all(r["played"][k] == v for k, v in case["expect"].items())
        if r["game"] == "bid-euchre":
            assert set(r) <= {"line", "game", "dealer", "table", "no_table", "played"}
            assert (r["table"] is None) == (n == 39)  # line 39 voided as dealt by ace-no-face: no play
            if r["table"] is None:
                assert r["no_table"] == "the deal was voided as dealt (E-10 ace-no-face): no card is played"
                continue
            assert set(r["table"]) == {"partner", "alone"}
            tricks = 12 if case.get("rules", {}).get("variant", {}).get("double_deck") else 6
            assert all(len(row) == 4 and all(0 <= v <= tricks for v in row)
                       for kind in r["table"].values() for row in kind.values())
            if r["played"]["bid"] != "pass":
                kind = "alone" if r["played"]["bid"][-1] in "AM" else "partner"
                assert r["played"]["dd_tricks"] == r["table"][kind][r["played"]["trump"]][r["played"]["bidder"]]
            continue
        assert set(r) == {"line", "game", "dealer", "table", "par", "played"}
        assert list(r["table"]) == ["C", "D", "H", "S", "NT"]
        assert all(len(v) == 2 and all(0 <= t <= 13 for t in v) for v in r["table"].values())
        assert set(r["par"]) == {"contract", "declarer", "doubled", "tricks", "score", "auction"}
        # The par printed is sim.par's on the table printed and the hands after the exchange.
        rules = rules_for(case["game"], case.get("rules"))
        (deal,) = solve.load(write(tmp_path, case, name="one.jsonl"), None)
        table = [[r["table"][s][d] for d in (0, 1)] for s in ("C", "D", "H", "S", "NT")]
        assert r["par"] == par(table, [[CARD_IDS[c] for c in h] for h in deal.hands], case["dealer"], rules).to_dict()
        if r["played"]["contract"] == "pass":
            assert "dd_tricks" not in r["played"]
        else:
            strain = ("C", "D", "H", "S", "NT").index(r["played"]["contract"][1:])
            assert r["played"]["dd_tricks"] == table[strain][r["played"]["declarer"]]
    status, words, _ = run_main(capsys, path)
    assert status == 0
    assert [w.split(":")[0] for w in words.splitlines() if w.startswith("line ")] == [
        f"line {i}" for i in range(1, len(chosen) + 1)]
    assert "par: 3NT by seat 0, 9 tricks, score 1000 to 0 (auction 3NT P)" in words
    assert "par: passed out, 0 to 0 (auction P)" in words


def test_a_draw_bridge_line_with_discards_solves_as_the_referee_replays_it(tmp_path, capsys):
    """Draw Bridge has no exchange: its referee leaves a ``discards`` field aside (docs/rules.md,
    keys that do not apply), and sim.solve does the same instead of replaying them as the
    first items (which put every later card out of step: a traceback)."""
    case = golden_cases("draw-bridge")[0][1]
    plain = write(tmp_path, case, name="plain.jsonl")
    with_discards = write(tmp_path, {**case, "discards": [["7S"], ["ZZ"]]}, name="discards.jsonl")
    assert rd.replay({**case, "discards": [["7S"], ["ZZ"]]}) == rd.replay(case)
    for args in ([], ["--json"], ["--at", "play[30]"]):
        status, expected, _ = run_main(capsys, plain, *args)
        assert status == 0 and run_main(capsys, with_discards, *args) == (0, expected, "")


# --- Bad input ------------------------------------------------------------------------------------

def run_command(*args):
    return in_process("sim.solve", *args)


def bad_inputs(tmp_path) -> list[tuple[list[str], str]]:
    lines = GOLDEN.read_text(encoding="utf-8").splitlines()
    good = json.loads(lines[0])
    (tmp_path / "bad.jsonl").write_text('{"game": "bridgette", "dealer": 0,\n', encoding="utf-8")
    (tmp_path / "latin1.jsonl").write_bytes(b'{"game": "caf\xe9"}\n')
    (tmp_path / "empty.jsonl").write_text("\n", encoding="utf-8")
    return [
        ([str(tmp_path / "missing.jsonl")], "cannot read"),
        ([str(tmp_path / "bad.jsonl")], "line 1"),
        ([str(tmp_path / "latin1.jsonl")], "not UTF-8"),
        ([str(tmp_path / "empty.jsonl")], "no deals"),
        ([write(tmp_path, {**good, "game": "whist"}, name="whist.jsonl")], "unknown game 'whist'"),
        ([write(tmp_path, {**good, "rules": {"auction": {"jump": 3}}}, name="rules.jsonl")], "unknown option"),
        ([write(tmp_path, json.loads(lines[16]), name="illegal.jsonl")], "not a legal deal: B-6 at calls[0]"),
        ([write(tmp_path, {**good, "play": good["play"][:-1]}, name="short.jsonl")], "not a legal deal: B-7"),
        ([write(tmp_path, good, name="good.jsonl"), "--at", "play[26]"], "play[0] .. play[25]"),
        ([write(tmp_path, good, name="big.jsonl"), "--at", "9999999"], "play[0] .. play[25]"),  # "needs play[K]"
        ([write(tmp_path, json.loads(lines[20]), name="draw.jsonl"), "--at", "play[3]"], "play[26] .. play[51]"),
        ([write(tmp_path, json.loads(lines[6]), name="passed.jsonl"), "--at", "play[0]"], "passed out"),
        ([write(tmp_path, json.loads(lines[38]), name="void.jsonl"), "--at", "0"], "void deal"),
        ([write(tmp_path, good, name="good2.jsonl"), "--at", "trick[2]"], "--at needs play[K]"),
        ([write(tmp_path, good, name="good3.jsonl"), "--at", "play[2"], "--at needs play[K]"),
        ([write(tmp_path, good, name="good4.jsonl"), "--frobnicate"], "unrecognized arguments"),
    ]


def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys):
    for args, words in bad_inputs(tmp_path):
        result = run_command(*args)
        assert result.returncode == 2, (args, result.stderr)
        assert result.stdout == ""
        assert len(result.stderr.splitlines()) == 1 and words in result.stderr, (args, result.stderr)
        assert result.stderr.startswith("python -m sim.solve: error: ")
        if args[-1] != "--frobnicate":  # argparse's own errors exit through SystemExit
            status, out, err = run_main(capsys, *args)
            assert (status, out, err) == (2, "", result.stderr)


@pytest.mark.parametrize("game,index", [("bridgette", 3), ("draw-bridge", 3), ("bid-euchre", 3)])
def test_show_dd_losses_account_for_the_tricks_taken(game, index, capsys):
    """sim.show --dd: along a played deal, a side's double-dummy tricks change only by the
    tricks its own cards lose and the other side's cards give away, so the tricks the
    declarer's side (the bidder's team) took = its double-dummy tricks of the contract
    played - what its cards lost + what the opponents' cards lost (the referee counts the
    tricks; the solver the values)."""
    from sim import show

    assert show.main(["--game", game, "--seed", "7", "--index", str(index), "--json", "--dd"]) == 0
    checked = 0
    for line in capsys.readouterr().out.splitlines():
        case = json.loads(line)
        played = case["dd"]["played"]
        if played.get("dd_tricks") is None:
            continue
        euchre = game == "bid-euchre"
        side = played["bidder"] % 2 if euchre else played["declarer"]
        own = sum(x["lost"] for x in case["dd"]["cards"] if (x["seat"] % 2 if euchre else x["seat"]) == side)
        other = sum(x["lost"] for x in case["dd"]["cards"]) - own
        assert played["tricks"][side] == played["dd_tricks"] - own + other
        checked += 1
    assert checked >= 2


@pytest.mark.parametrize("game,seats", [("bridgette", [0]), ("draw-bridge", [1]), ("bid-euchre", [0, 2])])
def test_dd_seats_lose_nothing_against_double_dummy(game, seats, capsys):
    """--policy SEAT=dd: in the kernels' own games, every card a dd seat plays keeps the
    double-dummy value of its side (sim.solve values each card through the Python solver),
    so its side takes at least the double-dummy tricks of the contract (or bid) played."""
    from sim import show

    flags = [x for s in seats for x in ("--policy", f"{s}=dd")]
    for index in (1, 2):
        assert show.main(["--game", game, "--seed", "11", "--index", str(index), "--json", "--dd", *flags]) == 0
    checked = 0
    for line in capsys.readouterr().out.splitlines():
        analysis = json.loads(line)["dd"]
        assert [x for x in analysis["cards"] if x["seat"] in seats and x["lost"]] == []
        played = analysis["played"]
        if played.get("dd_tricks") is None:
            continue
        euchre = game == "bid-euchre"
        side = seats[0] % 2 if euchre else seats[0]
        declaring = (played["bidder"] % 2 if euchre else played["declarer"]) == side
        n = sum(played["tricks"])
        assert played["tricks"][side] >= (played["dd_tricks"] if declaring else n - played["dd_tricks"])
        checked += 1
    assert checked >= 4

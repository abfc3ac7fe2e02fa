"""--dd runs (sim.dd_run, kernels/dd_run.py): every deal valued double dummy inside the kernels.

* deal by deal, the columns of a small --dd run of each game equal what an independent
  route finds: the same games traced (sim.show's path), each deal replayed in its referee
  and solved from Python (sim.solve: the table, par and the played contract's tricks;
  sim.show --dd's card_losses: every card's value against the best card's, summed here
  per seat);
* the kernels' par (``par_nb``) equals sim.par on random tables and hands under many rule
  options;
* a seat that plays double dummy loses no trick, and with every seat so the declarer (the
  bidding team) takes exactly its double-dummy tricks; in every deal the tricks taken are
  the double-dummy tricks less the side's losses plus the other side's;
* the records do not depend on threads, block size or a Dask cluster; runs without --dd
  keep their records and identity; a variant the solver does not cover is one line and
  exit status 2;
* the summary's double-dummy section equals a pandas computation over the deal columns.
"""

from __future__ import annotations

import importlib
import json
import math
import random
import zlib

import numba
import numpy as np
import pandas as pd
import pytest

from kernels.calls import call_name
from kernels.dd_run import par_nb
from sim.api import resolve_policies, resolve_rules, simulate
from sim.dd import Solver
from sim.games import game_info, game_module, kernel_rules
from sim.par import par
from sim.rules import overrides, rules_for
from sim.show import REPLAY_KEYS, dd_analysis
from sim.summary import Z95
from tests.commands import in_process
from tests.test_par import BRIDGETTE_OPTIONS, DRAW_BRIDGE_OPTIONS, random_table

SEED = 11
# (game, variant or options, games): a few games each, a few hundred deals in all; the
# double deck's 12-trick hands as single deals (a deal run), a few.
CROSS = [("bridgette", None, 3), ("draw-bridge", "draw-bridge-bridge-undertricks", 4), ("bid-euchre", None, 4),
         ("bid-euchre", "bid-euchre-double-deck", -3)]


def single_deals(game, rules):
    from sim.dealing import Dealing, plan

    return plan(game, rules, Dealing("deals"))


def dd_block(game, rules, policies, first, count, plan=None):
    return game_module(game).run_block(rules, policies, SEED, first, count, dd=True, plan=plan)


def cases_of(game, rules, policies, indices, plan=None):
    """The counted deals of the games as sim.show builds its replay cases, by game index."""
    _, traced = game_module(game).trace_games(rules, policies, SEED, indices, plan)
    return {g: [{"rules": overrides(rules), **{k: d[k] for k in REPLAY_KEYS if k in d and k != "rules"}}
                for d in deals if d["counted"]] for g, deals in zip(indices, traced)}


def lost_by_seat(cards, seats) -> list:
    """Per seat, the tricks its cards lost (sim.show --dd's card_losses); None: played none."""
    lost = [None] * seats
    for card in cards:
        lost[card["seat"]] = (lost[card["seat"]] or 0) + card["lost"]
    return lost


def value(x):
    """A record value as a Python value: None for a null or a negative 'none'."""
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else x


@pytest.mark.parametrize("game, variant, games", CROSS)
def test_columns_agree_with_solve_and_show(game, variant, games):
    """(``games`` below 0: as many single deals.)"""
    info = game_info(game)
    module = game_module(game)
    rules = resolve_rules(game, variant)
    policies = resolve_policies(game)
    plan = single_deals(game, rules) if games < 0 else None
    games = abs(games)
    deals, _ = dd_block(game, rules, policies, 0, games, plan)
    table = module.deal_table(rules, deals, policies).to_pandas()
    cases = cases_of(game, rules, policies, list(range(games)), plan)
    checked = 0
    solver = Solver()  # one for every deal, as sim.show --count keeps it
    for g in range(games):
        rows = table[table["game"] == g]
        assert len(rows) == len(cases[g])
        for (_, row), case in zip(rows.iterrows(), cases[g]):
            want = dd_analysis(case, solver)
            lost = lost_by_seat(want["cards"], info.seats)
            played = want["played"]
            assert [value(row[f"dd_lost{s}"]) for s in range(info.seats)] == lost
            if info.dd_solver == "euchre":
                if played["bid"] == "pass":
                    assert value(row["dd_tricks"]) is None and value(row["dd_makeable"]) is None
                    continue
                bid = played["bid"]
                need = int(bid[:-1]) if bid[-1] in "AM" else int(bid)
                assert row["dd_tricks"] == played["dd_tricks"]
                assert row["dd_makeable"] == (played["dd_tricks"] >= need)
            else:
                best = [max(want["table"][s][seat] for s in want["table"]) for seat in (0, 1)]
                assert [row["dd_best0"], row["dd_best1"]] == best
                p = want["par"]
                assert (row["par_contract"], row["par_declarer"], row["par_doubled"]) == (
                    p["contract"], -1 if p["declarer"] is None else p["declarer"], p["doubled"])
                assert [row["par_score0"], row["par_score1"]] == p["score"]
                if played["contract"] == "pass":
                    assert value(row["dd_tricks"]) is None and value(row["dd_makeable"]) is None
                    continue
                assert row["dd_tricks"] == played["dd_tricks"]
                assert row["dd_makeable"] == (played["dd_tricks"] >= 6 + int(played["contract"][0]))
            checked += 1
    assert checked >= (5 if plan is None else 2)


@pytest.mark.parametrize("game, options", [("bridgette", o) for o in BRIDGETTE_OPTIONS]
                         + [("draw-bridge", o) for o in DRAW_BRIDGE_OPTIONS])
def test_kernel_par_is_sim_par(game, options):
    """par_nb with each game's own contract scores equals sim.par on random tables and hands."""
    from kernels import bridgette as kb
    from kernels import draw_bridge as kd

    rules = rules_for(game, options)
    kr = kernel_rules(rules)
    a = rules.auction
    if game == "bridgette":
        tables, lowest, n_cards = (kr.params[0], kr.tables[0]), 0, 55
        contract_scores_nb, limits = kb.contract_scores_nb, (a.min_trump_cards, a.nt_needs_all_suits, a.jump_min_cards)
    else:
        tables, lowest, n_cards = (kr.tables[0],), 1, 52
        contract_scores_nb, limits = kd.contract_scores_nb, (0, False, 0)
    rng = random.Random(zlib.crc32(f"{game} {json.dumps(options, sort_keys=True)}".encode()))
    for _ in range(150):
        t = random_table(rng)
        cards = rng.sample(range(n_cards), 26)
        hands = [sorted(cards[:13]), sorted(cards[13:])]
        masks = np.array([sum(1 << c for c in h) for h in hands], dtype=np.uint64)
        dealer = rng.randint(0, 1)
        scores = np.zeros((36, 2, 3, 2), dtype=np.int64)
        contract_scores_nb(*tables, t, scores)
        out = np.zeros(5, dtype=np.int64)
        par_nb(scores, masks, dealer, lowest, *limits, a.opening_pass == "ends", out)
        want = par(t, hands, dealer, rules)
        got = ("pass" if out[0] < 0 else call_name(int(out[0])), None if out[0] < 0 else int(out[1]), int(out[2]),
               (int(out[3]), int(out[4])))
        assert got == (want.contract, want.declarer, want.doubled, want.score)


@pytest.mark.parametrize("game, variant, games", [("bridgette", None, 3), ("draw-bridge", None, 1),
                                                   ("bid-euchre", None, 6),
                                                   ("bid-euchre", "bid-euchre-double-deck", 1)])
def test_dd_seats_lose_nothing_and_tricks_add_up(game, variant, games):
    info = game_info(game)
    rules = resolve_rules(game, variant)
    for spec in ({0: "dd"}, {"all": "dd"}):
        deals, _ = dd_block(game, rules, resolve_policies(game, spec), 0, games)
        played = deals["dd_tricks"] >= 0
        assert played.sum() >= 5
        lost = np.array([deals[f"dd_lost{s}"] for s in range(info.seats)])
        assert (lost[0][played] == 0).all()
        if "all" in spec:
            assert (lost[:, played] <= 0).all()  # 0, or -1 for a seat sitting out
        if info.dd_solver == "euchre":
            team = deals["bidder"].astype(np.int64) % 2
            taken = np.where(team == 0, deals["tricks0"], deals["tricks1"])
            mine = sum(np.where(s % 2 == team, np.maximum(lost[s], 0), 0) for s in range(4))
            theirs = sum(np.where(s % 2 != team, np.maximum(lost[s], 0), 0) for s in range(4))
        else:
            declarer = deals["declarer"].astype(np.int64)
            taken = np.where(declarer == 0, deals["tricks0"], deals["tricks1"])
            mine = np.where(declarer == 0, lost[0], lost[1])
            theirs = np.where(declarer == 0, lost[1], lost[0])
        assert (taken == deals["dd_tricks"] - mine + theirs)[played].all()


@pytest.mark.parametrize("game, games", [("bridgette", 60), ("draw-bridge", 2)])
def test_contract_only_runs_value_the_contract_as_the_whole_run_does(game, games):
    """A contract-only --dd block (one search a deal: a multilevel dd level's) has the whole
    --dd block's deals and the same double-dummy tricks and makes for each contract reached,
    and nulls where the whole run has the table, par and the cards' losses."""
    from sim.contract import CONTRACT_ONLY

    module = game_module(game)
    rules = module.RULES()
    policies = resolve_policies(game, {"all": "heuristic"})
    whole, whole_games = module.run_block(rules, policies, 7, 0, games, dd=True)
    alone, alone_games = module.run_block(rules, policies, 7, 0, games, dd=CONTRACT_ONLY)
    assert whole_games.tolist() == alone_games.tolist()
    for name in whole.dtype.names:
        if name in ("dd_tricks", "dd_makeable") or not (name.startswith("dd_") or name.startswith("par_")):
            assert (whole[name] == alone[name]).all(), name
    played = whole["contract"] >= 0
    assert played.sum() > 40 and (alone["dd_tricks"][played] >= 0).all()
    assert (alone["dd_tricks"][~played] == -1).all()
    for name in ("dd_best0", "dd_best1", "par_contract", "par_declarer", "dd_lost0", "dd_lost1"):
        assert (alone[name] == -1).all(), name


def test_records_do_not_depend_on_threads_or_blocks():
    game = "bridgette"
    rules, policies = resolve_rules(game, "bridgette-no-colons"), resolve_policies(game)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one, games_one = dd_block(game, rules, policies, 0, 6)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two, games_two = dd_block(game, rules, policies, 0, 6)
    finally:
        numba.set_num_threads(before)
    parts = [dd_block(game, rules, policies, first, 2) for first in (0, 2, 4)]
    assert np.array_equal(one, two) and np.array_equal(games_one, games_two)
    assert np.array_equal(np.concatenate([p[0] for p in parts]), one)
    plain, _ = game_module(game).run_block(rules, policies, SEED, 0, 6)
    for name in plain.dtype.names:  # the deal's own fields are those of a run without --dd
        assert (plain[name] == one[name]).all()


def run_cli(*args):
    return in_process("sim.run", *args)


@pytest.fixture(scope="module")
def euchre_runs(tmp_path_factory):
    """The same Bid Euchre --dd run threaded in blocks of 10, with 1 thread in blocks of 7, and
    on a Dask cluster of 2 local worker processes in blocks of 10."""
    base = tmp_path_factory.mktemp("dd")
    args = ["--game", "bid-euchre", "--games", "30", "--seed", "4", "--dd", "--quiet", "--policy", "1=random"]
    out = {"threaded": base / "threaded", "one": base / "one", "cluster": base / "cluster"}
    for name, extra in (("threaded", ["--block-size", "10"]), ("one", ["--block-size", "7", "--threads", "1"]),
                        ("cluster", ["--block-size", "10", "--cluster", "local:2", "--threads", "1"])):
        result = run_cli(*args, *extra, "--out", str(out[name]))
        assert result.returncode == 0, result.stderr
    return out


def test_runs_are_the_same_on_threads_blocks_and_a_cluster(euchre_runs):
    from sim.api import load_run
    from tests.test_cluster import folder_content

    assert folder_content(euchre_runs["cluster"]) == folder_content(euchre_runs["threaded"])
    a, b = load_run(euchre_runs["threaded"]), load_run(euchre_runs["one"])
    pd.testing.assert_frame_equal(a.deals(), b.deals())
    assert a.summary == b.summary
    assert a.manifest["config"]["dd"] is True


def check_mean(entry: dict, values, least=-math.inf) -> None:
    """A summary mean (sim.summary.describe) against pandas: n, mean and its 95% interval,
    whose low end stays at ``least`` or above (tricks lost are never below 0)."""
    values = pd.Series(values, dtype="float64").dropna()
    assert entry["n"] == len(values)
    if len(values):
        assert entry["mean"] == pytest.approx(values.mean())
        half = Z95 * values.std(ddof=1 if len(values) > 1 else 0) / math.sqrt(len(values))
        assert entry["mean_ci95"] == pytest.approx([max(values.mean() - half, least), values.mean() + half])


def test_the_interval_of_tricks_lost_stays_at_0_or_above():
    """Five deals that lost no trick and one that lost one: the normal interval reaches
    below 0 (-0.16), which no number of tricks lost can; the summary's and the ladder's
    stop at 0, the mean and its upper end as they were."""
    from sim.summary import describe

    hist = {"values": [0, 1], "counts": [5, 1]}
    plain, lost = describe(hist), describe(hist, 0)
    assert plain["mean_ci95"][0] < 0 and lost["mean_ci95"] == [0.0, plain["mean_ci95"][1]]
    assert lost["mean"] == plain["mean"] == pytest.approx(1 / 6)


def check_section(summary: dict, deals: pd.DataFrame, info, policies) -> None:
    dd = summary["double_dummy"]
    euchre = info.dd_solver == "euchre"
    played = deals["dd_tricks"].notna()
    assert dd["played"] == played.sum() and dd["deals"] == len(deals)
    bidder = deals["bidder"] if euchre else deals["declarer"]
    for seat in range(info.seats):
        e = dd["tricks_lost"][f"seat{seat}"]
        assert e["policy"] == policies[seat]
        lost = deals[f"dd_lost{seat}"]
        if euchre:
            role = np.where(bidder == seat, "bidder", np.where(bidder % 2 == seat % 2, "partner", "defender"))
        else:
            role = np.where(bidder == seat, "declarer", "defender")
        for r in ("bidder", "partner", "defender") if euchre else ("declarer", "defender"):
            check_mean(e[r], lost[role == r], 0)
        check_mean(e["all"], lost, 0)
    made = deals["made"].fillna(False).astype(bool)
    makeable = deals["dd_makeable"].fillna(False).astype(bool)
    c = dd["made_vs_makeable"]["counts"]
    assert c["makeable_made"] == (played & makeable & made).sum()
    assert c["makeable_failed"] == (played & makeable & ~made).sum()
    assert c["unmakeable_made"] == (played & ~makeable & made).sum()
    assert c["unmakeable_failed"] == (played & ~makeable & ~made).sum()
    assert dd["made_vs_makeable"]["made_when_makeable"]["rate"] == pytest.approx(made[makeable].mean())
    if euchre:
        return
    for seat in (0, 1):
        check_mean(dd["score_minus_par"][f"seat{seat}"], deals[f"score{seat}"] - deals[f"par_score{seat}"])
    sign = np.where(deals["dealer"] == 0, 1, -1)
    dealer_par = sign * (deals["par_score0"] - deals["par_score1"])
    dealer_best = sign * (deals["dd_best0"] - deals["dd_best1"])
    for e in dd["by_upcard"]:
        sel = deals["upcard_group"] == e["upcard"]
        check_mean(e["dealer_par"], dealer_par[sel])
        check_mean(e["dealer_best"], dealer_best[sel])
    for e in dd["colons"]:
        holder = deals[f"colon_{e['colon']}"]
        held = holder >= 0
        mine = np.where(holder == 0, deals["dd_best0"], deals["dd_best1"])
        theirs = np.where(holder == 0, deals["dd_best1"], deals["dd_best0"])
        my_par = np.where(holder == 0, 1, -1) * (deals["par_score0"] - deals["par_score1"])
        check_mean(e["holder_best"], mine[held])
        check_mean(e["other_best"], theirs[held])
        check_mean(e["best_difference"], (mine - theirs)[held])
        check_mean(e["holder_par"], my_par[held])


def test_summary_section_is_the_deal_columns(euchre_runs, tmp_path):
    from sim.api import load_run

    run = load_run(euchre_runs["threaded"])
    check_section(run.summary, run.deals(), game_info("bid-euchre"), ["heuristic", "random", "heuristic", "heuristic"])
    bridgette = simulate("bridgette", games=8, seed=3, out=tmp_path / "b", block_size=3, dd=True,
                         policies={1: "random"})
    check_section(bridgette.summary, bridgette.deals(), game_info("bridgette"), ["heuristic", "random"])
    assert len(bridgette.summary["double_dummy"]["by_upcard"]) == 6
    assert [c["colon"] for c in bridgette.summary["double_dummy"]["colons"]] == ["little", "royal", "grand"]


def test_cli_prints_the_section_and_the_report_has_it(tmp_path):
    out = tmp_path / "run"
    result = run_cli("--game", "draw-bridge", "--games", "2", "--dd", "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert "double dummy (every hand seen" in result.stdout and "score minus par per deal" in result.stdout
    from analysis.report import build_report

    page = build_report(out).read_text()
    assert 'id="double-dummy"' in page and (out / "report" / "dd_tricks_lost.csv").exists()


def test_runs_without_dd_are_unchanged(tmp_path):
    run = simulate("bid-euchre", games=3, seed=2, out=tmp_path / "plain")
    assert "dd" not in run.manifest["config"] and "double_dummy" not in run.summary
    assert not any(c.startswith(("dd_", "par_")) for c in run.deals().columns)


def test_a_double_deck_dd_run_plays(tmp_path):
    """The double deck's 12-trick hands are within the solver's reach (a --dd run was refused
    before): a deal run with a dd seat, every hand played to a bid valued."""
    out = tmp_path / "run"
    result = run_cli("--game", "bid-euchre", "--rules", "bid-euchre-double-deck", "--deals", "4", "--dd",
                     "--policy", "0=dd", "--seed", "3", "--out", str(out), "--quiet")
    assert result.returncode == 0, result.stderr
    deals = pd.read_parquet(out / "records" / "deals-000000.parquet")
    played = deals[deals["dd_tricks"] >= 0]
    assert len(played) >= 1 and (played["dd_tricks"] <= 12).all() and (played["dd_lost0"] == 0).all()


@pytest.mark.parametrize("module,args,flag", [
    ("sim.run", ["--policy", "1=pimc", "--games", "2"], "--policy pimc"),
    ("sim.run", ["--policy", "1=search:worlds=4", "--deals", "2", "--dd"], "--policy search:worlds=4"),
    ("sim.match", ["--a", "dd", "--b", "pimc", "--games", "2"], "--b pimc"),
    ("sim.show", ["--seed", "7", "--index", "0", "--policy", "all=search"], "--policy search"),
    # a sweep's setting of the double deck, before any setting plays (the first one played before)
    ("sim.sweep", ["--vary", "variant.double_deck=false,true", "--policy", "0=pimc", "--deals", "4"],
     "variant.double_deck=true: --policy pimc"),
    # a control level that samples worlds, in a sweep and in a multilevel run, before anything plays
    ("sim.sweep", ["--vary", "variant.double_deck=false,true", "--control", "all=pimc:worlds=2", "--deals", "40"],
     "variant.double_deck=true: --control all=pimc:worlds=2"),
    ("sim.run", ["--policy", "all=dd", "--control", "all=pimc:worlds=2", "--deals", "40"],
     "--control all=pimc:worlds=2"),
])
def test_double_deck_is_refused_to_players_that_sample_worlds(module, args, flag, tmp_path, capsys):
    """pimc and search solve a deal in every world for each card: the double deck is refused
    to them in one line, naming the flag that asked for one, before anything is played or
    written (dd seats and --dd runs play it)."""
    main = importlib.import_module(module).main
    assert main(["--game", "bid-euchre", "--rules", "bid-euchre-double-deck", *args,
                 *(["--out", str(tmp_path / "never")] if module in ("sim.run", "sim.sweep") else [])]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Bid Euchre's double deck (variant.double_deck = true)" in err
    assert err.split(": error: ")[1].startswith(flag + ":"), err
    assert not (tmp_path / "never").exists()


@pytest.mark.parametrize("policy, says", [
    ("0=pimc", "each of their cards would solve a 12-trick hand in every world"),
    # A search seat with no worlds samples nothing: the refusal says what it plays as.
    ("0=search:worlds=0,call_worlds=0,exchange_worlds=0", "makes each decision as the heuristic does: play heuristic"),
])
def test_the_double_deck_refuses_the_players_that_sample_worlds_in_one_line(policy, says, tmp_path):
    run = in_process("sim.run", "--game", "bid-euchre", "--rules", "bid-euchre-double-deck", "--policy", policy,
                     "--games", "2", "--out", str(tmp_path / "r"))
    assert run.returncode == 2 and run.stderr.count("\n") == 1 and says in run.stderr
    assert "beyond the players that sample worlds" in run.stderr and not (tmp_path / "r").exists()

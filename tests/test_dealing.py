"""Deal runs and conditioned dealing (sim.dealing, kernels.dealing): exact distributions,
records that are pure functions of (seed, index), the referee's agreement, and bad input.

The expected frequencies are computed here by counting hands (math.comb and enumeration of
suit holdings), independently of the kernels.
"""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest

from kernels.cards import CARD_CLASS, CARD_IDS, euchre_card_name, mask_to_cards
from sim import dealing
from sim.api import resolve_policies, resolve_rules
from sim.games import game_module
from sim.replay import matches, replay_case
from tests.commands import in_process


def chi2_bound(df: int) -> float:
    """A bound the chi-square statistic of a true hypothesis passes but for about 1e-6."""
    return df + 5 * math.sqrt(2 * df)


def plan_for(game, **conditions):
    rules = resolve_rules(game)
    return rules, dealing.plan(game, rules, dealing.parse("deals", **conditions))


def hcp_of(mask: int) -> int:
    return sum({9: 1, 10: 2, 11: 3, 12: 4}.get(c % 13, 0) for c in mask_to_cards(mask) if c < 52)


def shape_of(mask: int) -> tuple:
    return tuple(sorted((sum(1 for c in mask_to_cards(mask) if c < 52 and c // 13 == s) for s in range(4)),
                        reverse=True))


# --- Exact distributions ---------------------------------------------------------------------

def test_five_or_more_spades_is_as_often_as_counting_says():
    """13 cards from 52 hold 5+ spades with probability 0.17634 (hypergeometric); the pilot
    and a run's exact tries agree."""
    exact = sum(math.comb(13, k) * math.comb(39, 13 - k) for k in range(5, 14)) / math.comb(52, 13)
    assert round(exact, 5) == 0.17634
    rules, plan = plan_for("draw-bridge", require=["0:spades>=5"])
    rate = dealing.acceptance("draw-bridge", rules, plan, 200_000)
    assert abs(rate - exact) < 5 * math.sqrt(exact * (1 - exact) / 200_000)
    deals, _ = game_module("draw-bridge").run_block(rules, resolve_policies("draw-bridge", {"all": "random"}), 3, 0,
                                                    4000, plan=plan)
    run_rate = len(deals) / deals["tries"].sum()
    assert abs(run_rate - exact) < 5 * math.sqrt(exact * (1 - exact) / deals["tries"].sum())


def suit_holdings():
    """ways[k][h]: subsets of one 13-card suit with k cards and h high-card points."""
    ways = np.zeros((14, 11), dtype=object)
    ways[:] = 0
    honours = (1, 2, 3, 4)
    for chosen in range(16):
        points = sum(p for i, p in enumerate(honours) if chosen >> i & 1)
        n_honours = bin(chosen).count("1")
        for spots in range(10):
            ways[n_honours + spots][points] += math.comb(9, spots)
    return ways


def exact_given_points(min_hcp: int) -> tuple[float, float]:
    """(P(4-4-3-2 | hcp >= min_hcp), E[hcp | hcp >= min_hcp]) for 13 cards from 52, by
    enumerating the suit lengths and each suit's points."""
    ways = suit_holdings()
    total = shaped = points = 0
    for lengths in itertools.product(range(14), repeat=4):
        if sum(lengths) != 13:
            continue
        dist = {0: 1}
        for k in lengths:
            new = {}
            for h, w in dist.items():
                for p in range(11):
                    if ways[k][p]:
                        new[h + p] = new.get(h + p, 0) + w * ways[k][p]
            dist = new
        for h, w in dist.items():
            if h >= min_hcp:
                total += w
                points += w * h
                if sorted(lengths, reverse=True) == [4, 4, 3, 2]:
                    shaped += w
    return shaped / total, points / total


def test_points_condition_holds_on_every_hand_and_keeps_the_shapes_uniform():
    """Given 12+ points, 4-4-3-2 and the mean points match enumeration; every hand has 12+."""
    p_shape, mean_hcp = exact_given_points(12)
    rules = resolve_rules("bridgette", "bridgette-no-colons")
    n = 20_000
    hands, _ = dealing.sample("bridgette", rules, dealing.parse("deals", require=["0:hcp>=12"]), n, seed=5)
    points = np.array([hcp_of(int(h)) for h in hands[:, 0]])
    assert points.min() >= 12
    shaped = np.mean([shape_of(int(h)) == (4, 4, 3, 2) for h in hands[:, 0]])
    assert abs(shaped - p_shape) < 5 * math.sqrt(p_shape * (1 - p_shape) / n)
    assert abs(points.mean() - mean_hcp) < 5 * points.std() / math.sqrt(n)


def test_predealt_cards_are_held_and_the_rest_dealt_uniformly():
    """Bridgette, seat 0 dealt CG and AS: in traced deals of the game kernel both are in
    seat 0's hand and every other card lies with seat 0, seat 1 or the stock as often as
    11, 13 and 29 places in 53 say (chi-square over cards and holders)."""
    rules, plan = plan_for("bridgette", predeal=["0=CG,AS"])
    policies = resolve_policies("bridgette", {"all": "random"})
    _, headers, outcomes, _ = game_module("bridgette").trace_raw(rules, policies, 8, np.arange(3000), plan)
    counted = headers[headers["counted"].astype(bool)]
    fixed = (1 << CARD_IDS["CG"]) | (1 << CARD_IDS["AS"])
    hands = counted["hands"]
    holder = np.full((len(counted), 55), 2)
    for seat in (0, 1):
        for c in range(55):
            holder[:, c] = np.where((hands[:, seat] >> np.uint64(c)) & np.uint64(1), seat, holder[:, c])
    assert np.all(hands[:, 0] & np.uint64(fixed) == np.uint64(fixed))
    free = [c for c in range(55) if not fixed >> c & 1]
    observed = np.array([[np.sum(holder[:, c] == h) for h in range(3)] for c in free])
    expected = len(counted) * np.array([11, 13, 29]) / 53
    chi2 = float(((observed - expected) ** 2 / expected).sum())
    assert chi2 < chi2_bound(len(free) * 2)


def test_an_upcard_class_fixes_the_class_and_is_uniform_within_it():
    """--upcard face: every deal's up-card is a J, Q, K or the Royal Colon, each equally
    often, so the dealer always draws the face class's cards (B-3)."""
    rules, plan = plan_for("bridgette", upcard="face", dealer="0")
    hands, ups = dealing.sample("bridgette", rules, dealing.parse("deals", upcard="face"), 13_000, seed=2)
    faces = [c for c in range(55) if CARD_CLASS[c] == 1]
    assert len(faces) == 13 and set(ups) <= set(faces)
    counts = np.array([np.sum(ups == c) for c in faces])
    assert ((counts - 1000) ** 2 / 1000).sum() < chi2_bound(12)
    assert not np.any(hands[:, 0] & hands[:, 1])
    deals, _ = game_module("bridgette").run_block(rules, resolve_policies("bridgette", {"all": "heuristic"}), 4, 0,
                                                  500, plan=plan)
    assert np.all(deals["upcard_class"] == 1) and np.all(deals["dealer"] == 0)
    _, traces = game_module("bridgette").trace_games(rules, resolve_policies("bridgette", {"all": "heuristic"}), 4,
                                                     list(range(60)), plan)
    dealer_draws = {len(d["discards"][d["dealer"]]) for deals in traces for d in deals}
    assert dealer_draws == {rules.exchange.dealer_draw_face}  # B-3: 8 after a face card


def test_euchre_features_count_what_their_names_say():
    """trumps_spades counts spades, the jack of clubs (left bower) and the joker;
    bowers_hearts the two red jacks; checked on sampled hands from card names."""
    rules = resolve_rules("bid-euchre", "bid-euchre-joker")
    hands, _ = dealing.sample("bid-euchre", rules,
                              dealing.parse("deals", require=["1:trumps_spades>=3", "2:bowers_hearts=1"]), 3000, 1)

    def names(mask):
        return [euchre_card_name(c) for c in mask_to_cards(int(mask))]

    for h1, h2 in zip(hands[:, 1], hands[:, 2]):
        assert sum(n[1] == "S" or n in ("JC", "JO") for n in names(h1)) >= 3
        assert sum(n in ("JH", "JD") for n in names(h2)) == 1


# --- Deal runs -----------------------------------------------------------------------------

@pytest.mark.parametrize("game", ["bridgette", "draw-bridge", "bid-euchre"])
def test_a_deal_is_a_pure_function_of_seed_and_index(game):
    """The same deal records whatever the blocks; one counted deal per index, dealers
    alternating by index."""
    rules, plan = plan_for(game, require=["1:hearts>=2"])
    module, policies = game_module(game), resolve_policies(game, {"all": "heuristic"})
    whole, games = module.run_block(rules, policies, 6, 0, 300, plan=plan)
    parts = [module.run_block(rules, policies, 6, first, 100, plan=plan)[0] for first in (0, 100, 200)]
    assert np.array_equal(whole, np.concatenate(parts))
    assert len(whole) == 300 and np.all(whole["deal"] == 0) and np.all(games["deals"] == 1)
    assert np.array_equal(whole["dealer"], whole["game"] % len(policies))


@pytest.mark.parametrize("game,conditions", [
    ("bridgette", {"upcard": "ace", "predeal": ["1=CG"], "require": ["0:spades>=4"]}),
    ("draw-bridge", {"predeal": ["0=AS,KS,QS"], "require": ["1:hcp>=10"]}),
    ("bid-euchre", {"predeal": ["2=JS"], "require": ["0:trumps_spades>=2"]}),
])
def test_the_referee_agrees_on_conditioned_deals(game, conditions):
    """Traced conditioned deals replay in the readable referee with the kernel's outcome."""
    rules, plan = plan_for(game, **conditions)
    policies = resolve_policies(game, {"all": "heuristic"})
    _, traces = game_module(game).trace_games(rules, policies, 3, list(range(40)), plan)
    for deals in traces:
        for deal in deals:
            case = {k: v for k, v in deal.items() if k not in ("counted", "seats", "legal", "chosen_returns")}
            assert matches(case["expect"], replay_case(case, "reference")), case


def run_cli(*args):
    return in_process("sim.run", *args)


def test_a_deal_run_resumes_to_the_same_records_and_reports_its_acceptance(tmp_path):
    out = tmp_path / "run"
    args = ["--deals", "600", "--block-size", "200", "--upcard", "ace", "--require", "0:hearts>=4", "--seed", "3",
            "--out", str(out), "--quiet"]
    assert run_cli(*args).returncode == 0
    first = {p.name: p.read_bytes() for p in (out / "records").iterdir()}
    summary = json.loads((out / "summary.json").read_text())
    section = summary["dealing"]
    assert section["deals"] == 600 and section["acceptance"] == 600 / section["tries"]
    assert abs(section["acceptance"] - section["pilot_acceptance"]) < 0.06
    (out / "blocks" / "000001.json").unlink()
    (out / "records" / "deals-000001.parquet").unlink()
    assert run_cli(*args).returncode == 0
    assert {p.name: p.read_bytes() for p in (out / "records").iterdir()} == first
    assert json.loads((out / "summary.json").read_text()) == summary
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["config"]["dealing"]["upcard"] == ["ace"]
    # A rare condition's rate in significant digits (it read 0.00% before).
    from sim.run import dealing_line

    assert "; 0.00053% of the deals tried" in dealing_line({"description": "", "tries": 94_422_774,
                                                            "acceptance": 500 / 94_422_774, "deals": 500})


def test_a_bid_euchre_deal_run_scores_each_hand_as_won_drawn_or_lost(tmp_path):
    """A deal run's hand is no game to the target (E-9): its winner was left undecided, so
    every hand was read as abandoned and the dealer's team won "0.00% of hands". The team
    that scored more wins the hand, equal scores draw; the summary, the records and the
    headline metric agree with the hand scores counted with pandas."""
    import sim
    from sim.dealing import parse

    run = sim.simulate(game="bid-euchre", games=400, seed=8, dealing=parse("deals"), out=tmp_path / "hands")
    deals, games = run.deals(), run.games()
    diff = (deals["score0"] - deals["score1"]).to_numpy()
    assert (games["winner"].to_numpy() == np.where(diff > 0, 0, np.where(diff < 0, 1, -1))).all()
    assert (games["abandoned"] == 0).all() and 0 < (diff == 0).sum() < 400  # equal hands happen
    wins = run.summary["game_wins"]
    assert [wins[k]["successes"] for k in ("team0", "team1", "drawn", "abandoned")] == [
        (diff > 0).sum(), (diff < 0).sum(), (diff == 0).sum(), 0]
    dealer_team = deals["dealer"].to_numpy() % 2
    won = np.where(dealer_team == 0, diff > 0, diff < 0)
    assert run.summary["first_dealer_team_wins"]["successes"] == won.sum() > 0
    drawn = int(np.flatnonzero(diff == 0)[0])  # shown as drawn ("team -1 wins" before)
    shown = in_process("sim.show", run.path, "--index", drawn).stdout
    score = int(deals["score0"].iloc[drawn])
    assert f"game: 1 hand, totals team 0 {score}, team 1 {score}: drawn" in shown


@pytest.mark.parametrize("args,message", [
    (["--games", "10", "--upcard", "ace"], "--upcard applies to deal runs"),
    (["--games", "10", "--deals", "10"], "either --games N"),
    (["--deals", "10", "--game", "draw-bridge", "--upcard", "ace"], "only Bridgette turns an up-card"),
    (["--deals", "10", "--upcard", "ZZ"], "'ZZ' is not a card of this deck"),
    (["--deals", "10", "--predeal", "0=10S"], "'10S' is not a card of this deck; did you mean 'TS'?"),
    (["--deals", "10", "--game", "bid-euchre", "--rules", "bid-euchre-joker", "--predeal", "0=JK"],
     "did you mean 'JO'?"),
    (["--deals", "10", "--predeal", "0=AS", "--predeal", "1=AS"], "AS is predealt more times"),
    (["--deals", "10", "--predeal", "2=AS"], "bridgette has seats 0 to 1"),
    (["--deals", "10", "--require", "0:spades>=14"], "accepted none"),
    (["--deals", "10", "--require", "0:tricks>=2"], "'tricks' is not a feature"),
    (["--deals", "10", "--require", "0 hcp>=2"], "is not SEAT:TERM"),
    (["--deals", "10", "--dealer", "north"], "--dealer must be"),
    (["--deals", "10", "--set", "deck.colons=[]", "--upcard", "colon"], "no card of the deck is of that class"),
])
def test_bad_dealing_is_one_line_and_exit_2(tmp_path, args, message):
    result = run_cli(*args, "--out", str(tmp_path / "x"))
    assert result.returncode == 2, result.stderr
    assert message in result.stderr and result.stderr.count("\n") == 1, result.stderr
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("args,message", [
    (["--predeal", "0"], "--predeal '0' is not SEAT=CARD,..."),
    (["--require", "0:"], "--require '0:' is not SEAT:TERM,..."),
    (["--upcard", ""], "--upcard '' names nothing"),
    (["--stratify", " "], "--stratify ' ' names nothing"),
    (["--control-deals", "100"], "--control-deals sizes the levels of --control: give --control too"),
])
def test_a_flag_that_names_nothing_is_one_line_and_exit_2(tmp_path, capsys, args, message):
    """An empty value, or a seat with nothing after it, is refused, never read as no flag."""
    from sim.run import main

    try:
        status = main(["--deals", "10", *args, "--out", str(tmp_path / "x")])
    except SystemExit as exc:  # argparse's own checks
        status = exc.code
    err = capsys.readouterr().err
    assert status == 2 and message in err and err.count("\n") == 1, err
    assert not (tmp_path / "x").exists()


def test_a_deal_run_is_not_resumed_as_a_game_run(tmp_path):
    out = str(tmp_path / "run")
    assert run_cli("--deals", "50", "--out", out, "--quiet").returncode == 0
    result = run_cli("--games", "50", "--out", out, "--quiet")
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr


def test_a_conditions_file_deals_as_the_flags_do(tmp_path):
    conditions = tmp_path / "c.toml"
    conditions.write_text('dealer = 1\nupcard = ["face"]\n[predeal]\n0 = ["CG"]\n[require]\n1 = ["hcp>=10"]\n')
    common = ["--deals", "300", "--quiet", "--seed", "4"]
    assert run_cli(*common, "--conditions", str(conditions), "--out", str(tmp_path / "a")).returncode == 0
    assert run_cli(*common, "--dealer", "1", "--upcard", "face", "--predeal", "0=CG", "--require", "1:hcp>=10",
                   "--out", str(tmp_path / "b")).returncode == 0
    for name in ("deals-000000.parquet", "games-000000.parquet"):
        assert (tmp_path / "a" / "records" / name).read_bytes() == (tmp_path / "b" / "records" / name).read_bytes()


@pytest.mark.parametrize("flags,message", [
    (["--games", "10"], "--conditions applies to deal runs: play --deals N instead of --games N"),
    (["--deals", "10", "--dealer", "1"],
     "--dealer: the conditions file {path} already sets the dealer (0); give it once"),
])
def test_a_conditions_file_names_itself_where_the_flags_clash_with_it(tmp_path, flags, message):
    """A conditions file on a whole-games run is named as such (not as the --dealer it holds),
    and a dealer given in the file and as a flag is refused, not silently overridden: the
    flags add conditions to the file's, and a deal has one dealer."""
    conditions = tmp_path / "c.toml"
    conditions.write_text('dealer = 0\nupcard = "ace"\n')
    result = run_cli(*flags, "--conditions", str(conditions), "--out", str(tmp_path / "x"))
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert result.stderr == f"python -m sim.run: error: {message.format(path=conditions)}\n"
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("text,message", [
    ("dealer = 0\nseat = 1\n", "unknown key 'seat'"),
    ("upcard = 3\n", "upcard must be a string"),
    ("predeal = 1\n", "[predeal] must be a table"),
    ("dealer = \n", "is not valid TOML"),
    ("dealer = true\n", "c.toml: dealer must be alternate or a seat number, got true"),
    ("dealer = [0]\n", "c.toml: dealer must be alternate or a seat number, got a list"),
    ("dealer = 2\n", "c.toml: dealer 2: bridgette has seats 0 to 1"),  # named as --dealer 2 before
    ('[predeal]\n0 = ["ZZ"]\n', "c.toml: [predeal]: 'ZZ' is not a card of this deck"),
    ("[dealer]\nseat = 0\n", "c.toml: dealer must be alternate or a seat number, got a table"),
    ('[predeal]\n"x" = ["CG"]\n', "c.toml: [predeal] 'x=CG' does not start with a seat number"),
    ('[predeal]\n"\u00b2" = ["CG"]\n', "c.toml: [predeal] '\u00b2=CG' does not start with a seat number"),
    ('[predeal]\n"\u0660" = ["CG"]\n', "does not start with a seat number"),  # another script's 0
    ("upcard = []\n", "c.toml: upcard names nothing"),
    ('[require]\n0 = ""\n', "c.toml: require.0 names nothing"),
])
def test_a_bad_conditions_file_is_one_line_and_exit_2(tmp_path, text, message):
    conditions = tmp_path / "c.toml"
    conditions.write_text(text)
    result = run_cli("--deals", "10", "--conditions", str(conditions), "--out", str(tmp_path / "x"))
    assert result.returncode == 2 and message in result.stderr and result.stderr.count("\n") == 1, result.stderr


def test_a_sweeps_conditions_file_is_named_by_its_keys(tmp_path):
    """A sweep checks its conditions file against the game before any setting plays, so a
    fault names the file's key, as sim.run does (named as the --dealer flag before)."""
    conditions = tmp_path / "c.toml"
    conditions.write_text("dealer = 3\n")
    result = in_process("sim.sweep", "--vary", "exchange.nondealer_draw=4,5", "--deals", "20",
                        "--conditions", str(conditions), "--out", str(tmp_path / "x"))
    assert result.returncode == 2 and not (tmp_path / "x").exists()
    assert result.stderr == f"python -m sim.sweep: error: exchange.nondealer_draw=4: conditions file {conditions}: " \
                            "dealer 3: bridgette has seats 0 to 1\n"
    # Checked under each setting's rules, not the sweep's base ones: a joker predealt where
    # every setting deals one plays.
    conditions.write_text('[predeal]\n0 = ["JO"]\n')
    result = in_process("sim.sweep", "--game", "bid-euchre", "--vary", "variant.joker=true",
                        "--vary", "auction.stick_the_dealer=false,true", "--deals", "20", "--quiet",
                        "--conditions", str(conditions), "--out", str(tmp_path / "y"))
    assert result.returncode == 0, result.stderr


def test_compare_pairs_deal_runs_deal_by_deal_and_refuses_a_game_run(tmp_path):
    from sim.comparison import compare_runs
    from sim.metrics import MetricsError

    common = ["--deals", "400", "--upcard", "ace", "--quiet", "--seed", "2"]
    assert run_cli(*common, "--out", str(tmp_path / "a")).returncode == 0
    assert run_cli(*common, "--set", "exchange.dealer_draw_ace=6", "--out", str(tmp_path / "b")).returncode == 0
    result = compare_runs(tmp_path / "a", tmp_path / "b", ["dealer_advantage"])
    entry = result["metrics"]["dealer_advantage"]
    assert entry["games"] == 400 and entry["variance_reduction"] > 0  # the same deals, paired
    assert run_cli("--games", "400", "--seed", "2", "--quiet", "--out", str(tmp_path / "g")).returncode == 0
    with pytest.raises(MetricsError, match="cannot be paired: one deals single deals"):
        compare_runs(tmp_path / "a", tmp_path / "g")


def test_the_pilot_deals_with_each_dealer_the_run_uses(tmp_path):
    """Who deals decides who is dealt E-10's extra card: under the joker only the dealer can
    hold seven trumps. The pilot deals as the run does, so seat 1 dealing may ask it of seat
    1 (before: refused, the pilot always dealing with seat 0), and an alternating run asking
    it of seat 0 is refused up front, naming the dealer under which it never holds (before:
    it stopped mid-run after ten million tries)."""
    joker = ["--game", "bid-euchre", "--rules", "bid-euchre-joker", "--deals", "4"]
    result = run_cli(*joker, "--dealer", "1", "--require", "1:trumps_spades>=7", "--out", str(tmp_path / "one"))
    assert result.returncode == 0, result.stderr
    import sim

    deals = sim.load_run(tmp_path / "one").deals(["dealer"])
    assert len(deals) == 4 and (deals["dealer"] == 1).all()
    result = run_cli(*joker, "--require", "0:trumps_spades>=7", "--out", str(tmp_path / "two"))
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert "accepted none of 200,000 deals tried with seat 1 dealing" in result.stderr
    assert "--dealer names one" in result.stderr and not (tmp_path / "two").exists()


def test_conditions_written_another_way_are_the_same_run(tmp_path):
    """A hand's cards or a seat's terms in another order (spaces too) are one hand and one
    conjunction, so the same run: the rerun finds it complete, where it was refused as
    another dealing though its records were the same."""
    out = tmp_path / "run"
    first = in_process("sim.run", "--deals", "40", "--seed", "5", "--predeal", "0=CG,AS", "--require",
                       "0:spades>=3,hcp>=8", "--upcard", "face,AS", "--quiet", "--out", out)
    assert first.returncode == 0, first.stderr
    again = in_process("sim.run", "--deals", "40", "--seed", "5", "--predeal", "0=AS,CG", "--require",
                       "0:hcp >= 8, spades>=3", "--upcard", "AS,face", "--out", out)
    assert again.returncode == 0 and "already complete" in again.stdout, again.stderr
    # An up-card listed twice is one allowed card; seat 00 is seat 0.
    assert dealing.parse("deals", dealer="00", upcard="AS,face,AS") == \
        dealing.parse("deals", dealer="0", upcard="face,AS")
    # A term with == (the = it means) or a number written with a sign or zeros is one term.
    assert dealing.parse("deals", require="0:hcp==12,spades>=05") == dealing.parse("deals", require="0:hcp=12,"
                                                                                                     "spades>=+5")
    assert dealing.parse("deals", require="0:hcp == 12").require == {0: ("hcp=12",)}
    # An empty up-card or dealer names nothing, as on the command line (it played with no condition);
    # from Python the words name the arguments, where the command's name its flags.
    for kwargs, words in ((dict(upcard=""), "upcard '' names nothing"), (dict(dealer=" "), "dealer ' ' names nothing"),
                          (dict(dealer=-1), "dealer must be alternate or a seat number, got '-1'"),
                          (dict(unit="games", upcard="ace"), 'upcard applies to deal runs: play unit="deals" instead '
                                                             'of unit="games"')):
        with pytest.raises(dealing.DealingError) as caught:
            dealing.parse(**{"unit": "deals", **kwargs})
        assert str(caught.value) == words


def test_a_folder_whose_terms_were_kept_in_another_form_resumes_as_its_own(tmp_path):
    """Before terms were kept in one form, a run with --require 0:hcp==12 recorded "hcp==12";
    the same command now reads it as "hcp=12", and the folder was refused as another
    dealing. It resumes, keeping the words it recorded."""
    import sim
    from sim.api import load_run

    out = tmp_path / "old"
    as_recorded = dealing.Dealing("deals", "alternate", (), {}, {0: ("hcp==12",)})  # as parse kept it before
    sim.simulate(games=40, seed=5, dealing=as_recorded, out=out)
    again = in_process("sim.run", "--deals", "40", "--seed", "5", "--require", "0:hcp==12", "--out", out)
    assert again.returncode == 0 and "already complete" in again.stdout, again.stderr
    assert load_run(out).manifest["config"]["dealing"]["require"] == {"0": ["hcp==12"]}
    other = in_process("sim.run", "--deals", "40", "--seed", "5", "--require", "0:hcp=13", "--out", out)
    assert other.returncode == 2 and "differs in: dealing" in other.stderr
    # A multilevel folder so recorded resumes the same way (its multilevel.json held "hcp==12").
    from sim.multilevel import run_multilevel

    level = tmp_path / "ml"
    run_multilevel("bridgette", resolve_rules("bridgette"), resolve_policies("bridgette"), 5, 30, ["all=random"], [60],
                   dealing=as_recorded, out=level)
    again = in_process("sim.run", "--deals", "30", "--seed", "5", "--require", "0:hcp==12", "--control", "all=random",
                       "--control-deals", "60", "--out", level)
    assert again.returncode == 0, again.stderr


def test_a_feature_the_rules_leave_out_is_named_as_such_in_a_sweeps_setting():
    """--require grand>=1 over a sweep whose one setting deals no Colons: the line names that
    setting and says the feature is not one under its rules (it is under the defaults)."""
    result = in_process("sim.sweep", "--vary", 'deck.colons=["grand"],[]', "--deals", "20",
                        "--require", "0:grand>=1", "--out", "/nonexistent/x")
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert "deck.colons=[]: --require: 'grand' is not a feature of bridgette under these rules" in result.stderr

"""What a seat's sampled worlds say of the hands it cannot see (benchmarks.inference): the
worlds conditioned on the calls replay the auction that was called (checked with the
auction kernels themselves, not pimc's model of them), and predict the opponents'
high-card points better than uniform worlds."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from benchmarks import inference as inf
from kernels import bid_euchre as ke
from kernels import bridgette as kb
from kernels import contract as kc
from kernels.cards import CARD_IDS, EUCHRE_CARD_IDS
from kernels.policies import POLICY_HEURISTIC, choose_euchre_trump_nb
from kernels.step import seats_for
from sim.api import resolve_policies, resolve_rules
from sim.games import kernel_rules
from sim.policies import kernel_policies, parse_policy

SEED, N_DEALS, N_WORLDS = 7, 300, 16


def _mask(names, ids=CARD_IDS) -> np.uint64:
    return np.uint64(sum(1 << ids[c] for c in names))


def test_hand_errors_by_hand():
    """AS KS QS JS CL against 2C 3C: 10 points apart, suits 4 and 2 off (6 / 4 = 1.5), one
    Colon; Bid Euchre's JS QS KS AS score 1 + 2 + 3 + 4 and 9S TS nothing."""
    world, truth = _mask(["AS", "KS", "QS", "JS", "CL"]), _mask(["2C", "3C"])
    errors = inf.hand_errors("bridgette", np.array([world]), np.array([truth]))
    assert (errors["HCP"][0], errors["suit length"][0], errors["Colons"][0]) == (10, 1.5, 1)
    world = _mask(["JS", "QS", "KS", "AS"], EUCHRE_CARD_IDS)
    truth = _mask(["9S", "TS", "9H"], EUCHRE_CARD_IDS)
    errors = inf.hand_errors("bid-euchre", np.array([world]), np.array([truth]))
    assert (errors["HCP"][0], errors["suit length"][0]) == (10, 0.75)
    assert "Colons" not in errors


@pytest.fixture(scope="module", params=[("bridgette", ()), ("bridgette", ("exchange.upcard_to=dead",)),
                                        ("bid-euchre", ()), ("bid-euchre", ("variant.joker=true",))],
                ids=["bridgette", "bridgette-dead-upcard", "bid-euchre", "bid-euchre-joker"])
def sampled(request):
    """N_DEALS deals of heuristic games at the end of the auction and every seat's worlds
    both ways: (game, rules kernel view, deal arrays, worlds, fit). With E-10's joker the
    dealer's discard is its own knowledge, one card out of play for the others."""
    game, options = request.param
    rules = resolve_rules(game, None, options)
    kr = kernel_rules(rules)
    kind = kc.KIND_CALL if game == "bridgette" else ke.KIND_CALL
    block = [d for b in inf.traced_blocks(game, rules, SEED, N_DEALS, kind, 100) for d in b]
    if game == "bridgette":
        seats = inf.sampling_seats(game, N_WORLDS, 2)
        deals = inf.bridgette_block(kr, block)
        worlds, fit = inf.bridgette_worlds(kr, deals, seats, SEED, 0, True, N_WORLDS)
    else:
        seats = inf.sampling_seats(game, N_WORLDS, 4)
        deals = inf.euchre_block(block)
        worlds, fit = inf.euchre_worlds(kr, deals, seats, SEED, 0, True, N_WORLDS)
    return game, kr, deals, worlds, fit


def _heuristic_seats(game):
    return seats_for(*kernel_policies(resolve_policies(game, {"all": "heuristic"})))


def _auction(game, kr, seats, deals, i, hands) -> tuple[list, list]:
    """The calls heuristic seats holding ``hands`` make in deal ``i``'s auction, from the
    game's auction kernel, and the calls made in the deal."""
    p = kr.params[0]
    dealer = int(deals["dealer"][i])
    seats["hands"][0, :len(hands)] = hands
    seats["calls"] = -1
    if game == "bridgette":
        row = np.zeros(1, dtype=kb.DEAL_DTYPE)
        seen = deals["unseen"][i] | deals["hands"][i]  # what each seat has not seen, its hand included
        kc.auction_nb(hands, seen[0], seen[1], kr.tables[0], dealer, 0, int(p["min_trump_cards"]),
                      bool(p["nt_needs_all_suits"]), int(p["jump_min_cards"]),
                      p["opening_pass"] == kb.OPENING_PASS_ENDS, p["colon_discard"] == kb.COLON_DISCARD_WHEN_VOID,
                      seats[0], None, row[0], None)
        n = int(deals["n_calls"][i])
        return list(seats["calls"][0, :n]), list(deals["calls"][i, :n])
    row = np.zeros(1, dtype=ke.DEAL_DTYPE)
    ke.auction_nb(p, dealer, hands, seats[0], None, row[0], None)
    return list(seats["calls"][0, :4]), list(deals["calls"][i])


def _replays(game, kr, deals, worlds) -> np.ndarray:
    """``replays[i, s, way, w]``: world ``w`` of seat ``s`` in deal ``i``, the seat's own hand
    as dealt, gives the auction that was called (Bid Euchre: and another seat's high bid the
    trump it named, E-3)."""
    seats = _heuristic_seats(game)
    out = np.zeros(worlds.shape[:4], dtype=bool)
    for i, s, way, w in np.ndindex(*out.shape):
        if game == "bridgette":
            hands = deals["hands"][i].copy()
            hands[1 - s] = worlds[i, s, way, w]
        else:
            hands = worlds[i, s, way, w].copy()
        called, actual = _auction(game, kr, seats, deals, i, hands.copy())
        out[i, s, way, w] = called == actual
        bidder = int(deals["bidder"][i]) if game == "bid-euchre" else -1
        if bidder >= 0 and bidder != s:
            out[i, s, way, w] &= choose_euchre_trump_nb(POLICY_HEURISTIC, seats[0]["prm"][bidder], hands[bidder], 1,
                                                        seats[0]["rng"]) == deals["trump"][i]
    return out


def test_worlds_deal_only_the_unseen_cards(sampled):
    """A Bridgette world gives the opponent 13 cards the seat has not seen (never its
    discards or a dead up-card); a Bid Euchre world keeps the seat's hand and deals the
    others 6 cards each, apart, from the rest of the deck (with the joker, less the card
    out of play)."""
    game, kr, deals, worlds, fit = sampled
    if game == "bridgette":
        seen = deals["hands"] | deals["discards"]
        if kr.params[0]["upcard_to"] == kb.UPCARD_DEAD:
            seen |= (np.uint64(1) << deals["upcard"].astype(np.uint64))[:, None]
        assert (worlds & seen[:, :, None, None] == 0).all()
        assert (np.bitwise_count(worlds) == 13).all()
        return
    deck = np.uint64(sum(1 << int(c) for c in kr.deck))
    hands = deals["hands"]
    for s in range(4):
        assert (worlds[:, s, :, :, s] == hands[:, s, None, None]).all()
    assert (np.bitwise_count(worlds) == 6).all()
    held = np.bitwise_or.reduce(worlds, axis=4)
    assert (np.bitwise_count(held) == 24).all() and (held & ~deck == 0).all()


def test_conditioned_worlds_replay_the_auction(sampled):
    """Each world the model counts as fitting the calls gives, in the game's own auction
    kernel, the calls that were made, and no other world does; the true hands always do.
    Where at least 4 of a seat's 16 uniform worlds fit (about one draw in four fits), the
    sampler has not run out of its 50 draws per world (fewer than 16 fits in 800 draws:
    about one draw in fifty or fewer fits), so every conditioned world replays the
    auction."""
    game, kr, deals, worlds, fit = sampled
    replays = _replays(game, kr, deals, worlds)
    assert (replays.sum(axis=3) == fit[..., :2]).all()
    assert fit[..., inf.FIT_TRUTH].all()
    seats = _heuristic_seats(game)
    for i, hands in enumerate(deals["hands"]):
        called, actual = _auction(game, kr, seats, deals, i, hands.copy())
        assert called == actual
    easy = fit[..., inf.UNIFORM] >= 4
    assert easy.sum() >= 50  # enough such draws to mean something
    assert replays[..., inf.CONDITIONED, :][easy].all()
    # Uniform worlds fit far less often: the calls do constrain the worlds.
    assert replays[..., inf.UNIFORM, :].mean() < 0.5 * replays[..., inf.CONDITIONED, :].mean()


@pytest.mark.parametrize("game", ["bridgette", "bid-euchre"])
def test_each_player_is_read_with_its_own_parameters(game):
    """The model reads every other player as the heuristic with that player's parameters,
    not the reading seat's. Against an opponent that bids on more and doubles sooner than
    the defaults (Bid Euchre: a team of such), every world a default seat keeps gives,
    through the auction kernel with the true policies, the calls that were made, where
    the sampler cannot have run out (4 or more of 16 uniform worlds fit, as above); read
    with the seat's own parameters instead, some of the same worlds do not."""
    bold = {"bridgette": "aggression=1.5,double_margin=3", "bid-euchre": "aggression=1"}[game]
    players = 2 if game == "bridgette" else 4
    rules = resolve_rules(game, None, ())
    kr = kernel_rules(rules)
    names = ["heuristic" if s % 2 == 0 else f"heuristic:{bold}" for s in range(players)]
    policies = [parse_policy(name, game) for name in names]
    kind = kc.KIND_CALL if game == "bridgette" else ke.KIND_CALL
    block = [d for b in inf.traced_blocks(game, rules, SEED, 400, kind, 100, policies) for d in b]
    samplers = [parse_policy("pimc:bid_worlds=16" if s % 2 == 0 else f"pimc:bid_worlds=16,{bold}", game)
                for s in range(players)]
    seats = seats_for(*kernel_policies(samplers))
    if game == "bridgette":
        deals = inf.bridgette_block(kr, block)
        worlds, fit = inf.bridgette_worlds(kr, deals, seats, SEED, 0, True, N_WORLDS)
    else:
        deals = inf.euchre_block(block)
        worlds, fit = inf.euchre_worlds(kr, deals, seats, SEED, 0, True, N_WORLDS)
    easy = np.flatnonzero(fit[:, 0, inf.UNIFORM] >= 4)
    assert len(easy) >= 30
    true_seats = seats_for(*kernel_policies(policies))
    default_seats = _heuristic_seats(game)
    replayed = misread = 0
    for i in easy:
        for w in range(N_WORLDS):
            world = worlds[i, 0, inf.CONDITIONED, w]
            if game == "bridgette":
                hands = deals["hands"][i].copy()
                hands[1] = world
            else:
                hands = world.copy()
            called, actual = _auction(game, kr, true_seats, deals, i, hands.copy())
            replayed += called == actual
            misread += _auction(game, kr, default_seats, deals, i, hands.copy())[0] != actual
    assert replayed == len(easy) * N_WORLDS
    assert misread > 0


def test_conditioned_worlds_know_the_points_better(sampled):
    """Over the deals, the conditioned worlds' error in the opponents' high-card points is
    below the uniform worlds' by more than three standard errors of the difference (with
    the joker the calls say least: 0.97 of the uniform error over 1,500 hands, 0.94 without)."""
    game, kr, deals, worlds, fit = sampled
    hcp = inf.deal_errors(game, deals, worlds)["HCP"]
    gain = hcp[:, inf.UNIFORM] - hcp[:, inf.CONDITIONED]
    assert gain.mean() > 3 * gain.std(ddof=1) / math.sqrt(len(gain))


def test_before_any_call_both_ways_are_uniform():
    """After the exchange no call is known: both ways draw uniform worlds, and the ratio's
    interval (99.9%: 3.29 standard errors) holds 1."""
    result = inf.study("bridgette", 200, 8, SEED, after_auction=False)
    hcp = result["errors"]["HCP"]
    ratio, low, high = inf.ratio_interval(hcp[:, inf.CONDITIONED], hcp[:, inf.UNIFORM])
    se = (high - low) / (2 * 1.96)
    assert abs(ratio - 1) < 3.29 * se
    assert (result["fit"][..., :2] == 8).all()


@pytest.mark.parametrize("argv, problem", [(["--deals", "0"], "'0' is not a whole number of at least 1"),
                                           (["--deals", "1"], "the intervals need at least 2 deals"),
                                           (["--worlds", "many"], "'many' is not a number"),
                                           (["--worlds", "1e6"], "--worlds: at most 256"),
                                           (["--seed", "-1"], "the seed must be in 0 .. 2**64-1")])
def test_bad_flags_one_line(argv, problem, capsys):
    try:
        status = inf.main(argv)
    except SystemExit as exc:  # argparse's own checks
        status = exc.code
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and problem in err


# --- A searching opponent read by the softmax model (kernels.policies.reading) ---------------------

def _expected_gain(gain, bid, doubled, tricks):
    """The declarer's expected score when its tricks fall about ``tricks``: a normal law of
    the heuristic's spread for the strain, rounded to whole tricks (worked out here)."""
    from kernels.calls import BID_STRAIN
    from kernels.policies import TRICK_SPREAD

    sd, below, total = TRICK_SPREAD[BID_STRAIN[bid]], 0.0, 0.0
    for t in range(14):
        upto = 1.0 if t == 13 else 0.5 * (1 + math.erf((t + 0.5 - tricks) / (sd * math.sqrt(2))))
        total += (upto - below) * gain[doubled, bid, t]
        below = upto
    return total


def _features(hand, cur_bid, bidder, doubled, gain, mine, call):
    """A candidate's features as docs/search.md lists them, worked out here from the
    heuristic's trick estimates."""
    from kernels.calls import BID_LEVEL, BID_STRAIN, CALL_DOUBLE, CALL_PASS, CALL_REDOUBLE
    from kernels.policies import defence_estimate_nb, estimate_tricks_nb

    def against(d):  # the opponent declares the contract as it stands
        return -_expected_gain(gain, cur_bid, d, 13 - defence_estimate_nb(hand, BID_STRAIN[cur_bid]))

    def declaring(bid, d):
        return _expected_gain(gain, bid, d, estimate_tricks_nb(hand, BID_STRAIN[bid]))

    if call == CALL_PASS:
        value = 0.0 if cur_bid < 0 else declaring(cur_bid, doubled) if bidder == 0 else against(doubled)
    elif call == CALL_DOUBLE:
        value = against(1)
    elif call == CALL_REDOUBLE:
        value = declaring(cur_bid, 2)
    else:
        value = declaring(call, 0)
    bid = call < CALL_PASS
    return [value / 100, call == mine, call == CALL_PASS, call == CALL_DOUBLE, call == CALL_REDOUBLE,
            BID_LEVEL[call] if bid else 0, bid and mine < CALL_PASS and call > mine]


def test_the_softmax_gives_each_candidate_its_share_and_every_other_call_none():
    """On random hands and auctions, a searching seat's chances over the calls it values sum
    to 1, each above 0 and equal to the softmax of ``CALL_MODEL`` times the candidate's
    features worked out here; a legal call that is no candidate has chance 0."""
    from kernels.calls import CALL_PASS, N_CALLS, legal_calls_nb
    from kernels.policies import CALL_MODEL, MAX_CALL_CANDIDATES, ODDS_WIDTH, call_candidates_nb
    from kernels.policies import heuristic_call_nb, searched_call_chance_nb

    rules = resolve_rules("bridgette", None, ())
    kr = kernel_rules(rules)
    gain = kr.tables["gain"][0]
    h = kernel_policies([parse_policy("search", "bridgette")])[1][0]["heuristic"]
    rng = np.random.default_rng(5)
    checked = 0
    for _ in range(300):
        cards = rng.permutation(55)
        hand = np.uint64(sum(1 << int(c) for c in cards[:13]))
        cur_bid = int(rng.integers(-1, 20))
        bidder, doubled = (-1, 0) if cur_bid < 0 else (int(rng.integers(0, 2)), int(rng.integers(0, 3)))
        legal = legal_calls_nb(hand, 0, cur_bid, bidder, doubled, 0, 0, False, 0)
        odds = np.zeros((2, 5, ODDS_WIDTH))
        mine = heuristic_call_nb(h, 0, hand, legal, cur_bid, bidder, doubled, ~hand, gain, odds)
        candidates = np.empty(MAX_CALL_CANDIDATES, dtype=np.int64)
        n = call_candidates_nb(mine, legal, gain, candidates)
        scores = np.array([np.dot(_features(hand, cur_bid, bidder, doubled, gain, mine, int(c)), CALL_MODEL)
                           for c in candidates[:n]])
        expected = np.exp(scores - scores.max()) / np.exp(scores - scores.max()).sum()
        chances = {}
        for call in range(N_CALLS):
            if legal & np.uint64(1 << call):
                chances[call] = searched_call_chance_nb(h, 0, hand, legal, cur_bid, bidder, doubled, gain, odds,
                                                        np.zeros((2, 5, ODDS_WIDTH)), call)
        assert math.isclose(sum(chances.values()), 1.0, rel_tol=1e-12)
        for j in range(n):
            assert chances[int(candidates[j])] > 0
            assert math.isclose(chances[int(candidates[j])], expected[j], rel_tol=1e-9)
        assert all(c == 0.0 for call, c in chances.items() if call not in candidates[:n])
        assert CALL_PASS in chances
        checked += n > 1
    assert checked >= 250


def test_a_searching_callers_chance_is_the_product_of_its_calls_and_reads_strength():
    """The chance of a searching opponent's calls is the product of each of its own calls'
    chances in the auction as it stood (the other seat's calls only move the contract); and
    a hand that opened 1NT and doubled is read as stronger than a hand dealt at random."""
    from kernels.calls import CALL_IDS, legal_calls_nb
    from kernels.cards import hcp_nb
    from kernels.policies import ODDS_WIDTH, calls_chance_nb, searched_call_chance_nb

    gain = kernel_rules(resolve_rules("bridgette", None, ())).tables["gain"][0]
    h = kernel_policies([parse_policy("search", "bridgette")])[1][0]["heuristic"]
    calls = np.array([CALL_IDS[c] for c in ("1NT", "2S", "X", "P")], dtype=np.int64)  # seat 1 deals and calls first
    rng = np.random.default_rng(8)
    weighted = total = uniform = 0.0
    for _ in range(400):
        hand = np.uint64(sum(1 << int(c) for c in rng.permutation(55)[:13]))
        both = calls_chance_nb(h, True, hand, 1, calls, 4, 1, 0, 0, False, 0, gain, np.zeros((2, 5, ODDS_WIDTH)),
                               np.zeros((2, 5, ODDS_WIDTH)))
        first = searched_call_chance_nb(h, 1, hand, legal_calls_nb(hand, 1, -1, -1, 0, 0, 0, False, 0), -1, -1, 0,
                                        gain, np.zeros((2, 5, ODDS_WIDTH)), np.zeros((2, 5, ODDS_WIDTH)), calls[0])
        then = searched_call_chance_nb(h, 1, hand, legal_calls_nb(hand, 1, CALL_IDS["2S"], 0, 0, 0, 0, False, 0),
                                       CALL_IDS["2S"], 0, 0, gain, np.zeros((2, 5, ODDS_WIDTH)),
                                       np.zeros((2, 5, ODDS_WIDTH)), calls[2])
        assert math.isclose(both, first * then, rel_tol=1e-12)
        assert calls_chance_nb(h, False, hand, 1, calls, 4, 1, 0, 0, False, 0, gain,
                               np.zeros((2, 5, ODDS_WIDTH)), np.zeros((2, 5, ODDS_WIDTH))) in (0.0, 1.0)
        weighted += both * hcp_nb(hand)
        total += both
        uniform += hcp_nb(hand) / 400
    assert weighted / total > uniform + 2  # the model's posterior of the hand: points above the mean


def test_the_likeliest_worlds_are_kept_in_falling_order():
    """A reader keeps the draws of highest chance seen, highest first, to fall back on when
    the rejection keeps none; a draw of chance 0 is never kept."""
    from kernels.pimc.worlds import keep_likeliest_nb

    likeliest, spare = np.zeros(3), np.zeros((3, 2), dtype=np.uint64)
    for chance, world in ((0.2, 1), (0.0, 2), (0.5, 3), (0.1, 4), (0.7, 5), (0.3, 6)):
        keep_likeliest_nb(likeliest, spare, chance, np.array([world, 10 * world], dtype=np.uint64))
    assert likeliest.tolist() == [0.7, 0.5, 0.3] and spare[:, 0].tolist() == [5, 3, 6]
    assert spare[:, 1].tolist() == [50, 30, 60]
    likeliest, spare = np.zeros(2), np.zeros((2, 1), dtype=np.uint64)
    keep_likeliest_nb(likeliest, spare, 0.0, np.ones(1, dtype=np.uint64))
    assert likeliest.tolist() == [0.0, 0.0]


def test_a_searching_opponent_read_by_the_softmax_leaves_no_decision_unexplained(tmp_path):
    """Read as the heuristic, a searching opponent's calls leave many searched decisions
    without a world (the deal records' ``unexplained``); read by the softmax model, none."""
    import sim

    counts = {}
    for model in (0, 1):
        policy = f"search:worlds=2,exchange_worlds=2,call_worlds=2,call_model={model}"
        run = sim.simulate("bridgette", games=3, seed=3, policies={"all": policy}, out=tmp_path / str(model),
                           threads=1)
        counts[model] = run.summary["unexplained_decisions"]
    assert counts[0] >= 10 and counts[1] == 0


def test_a_refit_round_compiles_its_kernels_with_the_weights_it_is_given(tmp_path, monkeypatch):
    """``benchmarks.call_model --refit`` plays each round in a process whose ``CALL_MODEL``
    holds the round's weights before any kernel compiles (numba takes a global array as a
    constant), in a numba cache of the round's own: the weights are taken only with that
    cache, so no other cache keeps kernels compiled with them, and a process given them
    otherwise refuses to start."""
    import json
    import os
    import subprocess
    import sys

    import benchmarks.call_model as bench
    from kernels.policies import CALL_MODEL

    show = "import benchmarks.call_model; from kernels.policies.reading import CALL_MODEL; print(CALL_MODEL.tolist())"
    weights = [0.5, 1.25, -0.75, 2.0, -3.0, 0.125, 1.5]
    env = {k: v for k, v in os.environ.items() if k not in (bench.WEIGHTS_VARIABLE, bench.ROUND_CACHE_VARIABLE)}
    given = {bench.WEIGHTS_VARIABLE: json.dumps(weights)}
    own = {**given, "NUMBA_CACHE_DIR": str(tmp_path), bench.ROUND_CACHE_VARIABLE: str(tmp_path)}
    for extra, expected in (({}, CALL_MODEL.tolist()), (own, weights), (given, CALL_MODEL.tolist())):
        child = subprocess.run([sys.executable, "-c", show], env={**env, **extra}, capture_output=True, text=True,
                               check=True)
        assert json.loads(child.stdout) == expected
    refused = subprocess.run([sys.executable, "-m", "benchmarks.call_model"], env={**env, **given},
                             capture_output=True, text=True)
    assert refused.returncode == 2 and "CALL_MODEL_WEIGHTS is --refit's own" in refused.stderr

    # refit_round hands its process the weights and a fresh cache that is the round's own.
    seen = {}

    def fake_round(argv, env, cwd):
        seen.update(env=env, empty=not any(Path(env["NUMBA_CACHE_DIR"]).iterdir()))
        Path(argv[argv.index("--fit-out") + 1]).write_text(json.dumps(weights[::-1]))
        return subprocess.CompletedProcess(argv, 0)

    monkeypatch.setattr(bench.subprocess, "run", fake_round)
    args = bench.argparse.Namespace(games=2, seed=1, policy="search:call_model=1", worlds=10)
    assert bench.refit_round(args, np.array(weights)).tolist() == weights[::-1]
    assert seen["empty"] and seen["env"]["NUMBA_CACHE_DIR"] == seen["env"][bench.ROUND_CACHE_VARIABLE]
    assert json.loads(seen["env"][bench.WEIGHTS_VARIABLE]) == weights

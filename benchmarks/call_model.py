"""python -m benchmarks.call_model [--games N] [--seed S] [--policy P] [--fit] [--refit R]

How well the softmax model of a searching player's calls (kernels.policies.reading) reads
Bridgette's ``search`` seats, and the fit of its weights ``CALL_MODEL``.

Two seats of policy P (default ``search``) play N games (the kernels' traces give each
deal's hands as played and its calls). Every call of a seat is then a choice among the
candidates ``search`` values (``call_candidates_nb``), each with its features
(``candidate_features_nb``). Reported:

- how many contracts were doubled, how many of those were made, and the doubler's score
  minus the declarer's per doubled deal;
- how often the seat's call is the heuristic's own (the exact model explains only those);
- the mean log-loss per call of the softmax with ``CALL_MODEL``, against a uniform choice
  among the candidates (with ``--fit``: the weights fitted by maximum likelihood, Newton's
  method, on the first half of the calls, and their log-loss on the second half);
- after the auction, each seat's reading of the other's high-card points (J Q K A = 1 2 3
  4, Colons 0): W worlds drawn uniformly from the 42 cards the reader does not hold, the
  reading their mean, (a) unweighted, (b) kept where the heuristic with the caller's
  parameters makes every one of its calls (the uniform worlds when none is), (c) weighted
  by the softmax model's chance of its calls (``calls_chance_nb``); the root mean square
  error of each against the true count, and its ratio to (a).

The worlds here ignore what the exchange tells (the up-card, the draws), the same for all
three readings, so the ratios compare the models of the calls alone.

``--refit R`` asks whether the model can be made to fit seats that read each other by it
(policy ``search:call_model=1``): R more rounds, each played by seats whose ``CALL_MODEL``
is the weights the round before fitted, and fitted again. numba compiles a global array
into the kernels as a constant, so each round is a process of its own with the weights set
before any kernel compiles (``CALL_MODEL_WEIGHTS``) and a numba cache of its own
(``CALL_MODEL_ROUND_CACHE``, which the weights need).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from numba import njit

from benchmarks.throughput import machine_facts, machine_line
from kernels.calls import BID_LEVEL, contract_after_nb, legal_calls_nb
from kernels.cards import bit_nb, hcp_nb
from kernels.contract import KIND_CALL, KIND_PLAY
from kernels.policies import (
    CALL_MODEL, MAX_CALL_CANDIDATES, ODDS_WIDTH, call_candidates_nb, calls_chance_nb, heuristic_call_nb,
)
from kernels.policies.reading import N_FEATURES, candidate_features_nb
from sim import bridgette
from sim.cli import OneLineParser, exit_with
from sim.policies import PolicyError, kernel_policies, parse_policy
from sim.rules.variants import rules_for
from sim.run import count, seed_value

DECK = 55
# A round of --refit: the weights its kernels compile with, taken only where the numba cache
# is the round's own (ROUND_CACHE_VARIABLE names it), so no other cache keeps kernels compiled
# with other weights than CALL_MODEL.
WEIGHTS_VARIABLE, ROUND_CACHE_VARIABLE = "CALL_MODEL_WEIGHTS", "CALL_MODEL_ROUND_CACHE"


def round_weights() -> np.ndarray | None:
    """The weights of a --refit round this process plays (None: it plays none)."""
    cache = os.environ.get(ROUND_CACHE_VARIABLE)
    if WEIGHTS_VARIABLE not in os.environ or cache is None or os.environ.get("NUMBA_CACHE_DIR") != cache:
        return None
    try:
        weights = np.array(json.loads(os.environ[WEIGHTS_VARIABLE]), dtype=np.float64)
    except (ValueError, TypeError):
        return None
    return weights if weights.shape == CALL_MODEL.shape else None


ROUND_WEIGHTS = round_weights()
if ROUND_WEIGHTS is not None:
    CALL_MODEL[:] = ROUND_WEIGHTS


def traced_auctions(games: int, seed: int, policy):
    """(hands as played, dealer, calls) of every deal played to a contract, and the outcome
    rows of those whose contract was doubled."""
    rules = rules_for("bridgette")
    policies = [policy] * 2
    _, headers, outcomes, trace = bridgette.trace_raw(rules, policies, seed, range(games))
    deals, doubled = [], []
    for head, outcome in zip(headers, outcomes):
        played, calls = [0, 0], []
        for kind, seat, action, _ in trace[head["actions_start"]:head["actions_end"]]:
            if kind == KIND_PLAY:
                played[seat] |= 1 << int(action)
            elif kind == KIND_CALL:
                calls.append(int(action))
        if bin(played[0]).count("1") == 13:  # passed-out deals play no cards: their hands are not traced whole
            deals.append((np.array(played, dtype=np.uint64), int(head["dealer"]), np.array(calls, dtype=np.int64)))
            if outcome["doubled"] > 0:
                doubled.append(outcome)
    return rules, policies, deals, doubled


@njit(cache=True)
def choices_nb(h, hands, dealer, calls, lowest_bid, min_trump_cards, nt_needs_all_suits, jump_min_cards, gain,
               features, chosen, mine):
    """Each call's candidates' features (``features[k, :n]``, unused rows NaN), the index of
    the call made among them (``chosen[k]``, left as it is where the call is no candidate)
    and whether it was the heuristic's (``mine[k]``); returns how many calls."""
    cur_bid, bidder, doubled = -1, -1, 0
    odds = np.zeros((2, 2, 5, ODDS_WIDTH))  # each seat's memo of the heuristic's trick chances
    memo = np.zeros((2, 5, ODDS_WIDTH))
    candidates = np.empty(MAX_CALL_CANDIDATES, dtype=np.int64)
    for i in range(calls.shape[0]):
        seat = (dealer + i) % 2
        hand = hands[seat]
        legal = legal_calls_nb(hand, seat, cur_bid, bidder, doubled, lowest_bid, min_trump_cards, nt_needs_all_suits,
                               jump_min_cards)
        heuristic = heuristic_call_nb(h, seat, hand, legal, cur_bid, bidder, doubled, ~hand, gain, odds[seat])
        n = call_candidates_nb(heuristic, legal, gain, candidates)
        memo[:] = 0.0
        candidate_features_nb(seat, hand, cur_bid, bidder, doubled, gain, heuristic, candidates, n, memo, features[i])
        for j in range(n):
            if candidates[j] == calls[i]:
                chosen[i] = j
        mine[i] = calls[i] == heuristic
        cur_bid, bidder, doubled = contract_after_nb(calls[i], seat, cur_bid, bidder, doubled)
    return calls.shape[0]


def log_loss(theta, features, chosen) -> float:
    """The mean negative log-chance of the calls made, under the softmax with ``theta``."""
    scores = np.where(np.isnan(features[..., 0]), -np.inf, np.nan_to_num(features) @ theta)
    top = scores.max(axis=1, keepdims=True)
    log_sum = np.log(np.exp(scores - top).sum(axis=1)) + top[:, 0]
    return float(np.mean(log_sum - scores[np.arange(len(chosen)), chosen]))


def fit(features, chosen, steps: int = 30) -> np.ndarray:
    """Maximum-likelihood weights of the softmax (Newton's method, a small ridge for the
    weights that no call in the data can move)."""
    x = np.nan_to_num(features)
    valid = ~np.isnan(features[..., 0])
    theta = np.zeros(features.shape[2])
    for _ in range(steps):
        scores = np.where(valid, x @ theta, -np.inf)
        p = np.exp(scores - scores.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        mean = np.einsum("kc,kcf->kf", p, x)
        grad = (x[np.arange(len(chosen)), chosen] - mean).sum(axis=0) - 1e-3 * theta
        centred = x - mean[:, None, :]
        hess = np.einsum("kc,kcf,kcg->fg", p, centred, centred) + 1e-3 * np.eye(len(theta))
        step = np.linalg.solve(hess, grad)
        theta += step
        if np.abs(step).max() < 1e-8:
            break
    return theta


@njit(cache=True)
def readings_nb(h, searched, hands, dealer, calls, reader, worlds, seed, lowest_bid, min_trump_cards,
                nt_needs_all_suits, jump_min_cards, gain):
    """The three readings (module docstring) of the other seat's high-card points by
    ``reader``, and 1 where the heuristic's model fits none of the worlds (else 0)."""
    np.random.seed(seed)
    caller = 1 - reader
    pool = np.empty(DECK, dtype=np.int64)
    m = 0
    for c in range(DECK):
        if not hands[reader] & bit_nb(c):
            pool[m] = c
            m += 1
    odds = np.zeros((2, 2, 5, ODDS_WIDTH))
    memo = np.zeros((2, 5, ODDS_WIDTH))
    total = np.zeros(3)
    weight = np.zeros(3)
    for _ in range(worlds):
        order = np.random.permutation(m)
        hand = np.uint64(0)
        for j in range(13):
            hand |= bit_nb(pool[order[j]])
        points = hcp_nb(hand)
        exact = calls_chance_nb(h, False, hand, caller, calls, calls.shape[0], dealer, lowest_bid, min_trump_cards,
                                nt_needs_all_suits, jump_min_cards, gain, odds[0], memo)
        soft = calls_chance_nb(h, searched, hand, caller, calls, calls.shape[0], dealer, lowest_bid, min_trump_cards,
                               nt_needs_all_suits, jump_min_cards, gain, odds[1], memo)
        for way, w in enumerate((1.0, exact, soft)):
            total[way] += w * points
            weight[way] += w
    out = np.empty(4)
    for way in range(3):
        out[way] = total[way] / weight[way] if weight[way] > 0 else total[0] / weight[0]
    out[3] = weight[1] == 0  # the heuristic's model fits none of the worlds
    return out


def main(argv=None) -> int:
    p = OneLineParser(prog="python -m benchmarks.call_model", description=__doc__.split("\n\n")[1])
    p.add_argument("--games", type=count, default=100, help="games of the two seats (default 100)")
    p.add_argument("--seed", type=seed_value, default=1)
    p.add_argument("--policy", default="search", help="both seats' policy (default search)")
    p.add_argument("--worlds", type=count, default=2000, help="worlds per reading (default 2000)")
    p.add_argument("--fit", action="store_true", help="fit the weights on the first half of the calls, "
                                                     "measure them on the second")
    p.add_argument("--refit", type=int, default=0, metavar="R",
                   help="R more rounds, each played with the weights the round before fitted (implies --fit)")
    p.add_argument("--fit-out", type=Path, help=argparse.SUPPRESS)  # a round's fitted weights, as JSON
    args = p.parse_args(argv)
    if args.refit < 0:
        return p.fail(f"--refit must be 0 or more, not {args.refit}")
    if WEIGHTS_VARIABLE in os.environ and ROUND_WEIGHTS is None:
        return p.fail(f"{WEIGHTS_VARIABLE} is --refit's own, for its rounds' processes: unset it")
    theta = one_round(p, args)
    if not isinstance(theta, np.ndarray):
        return theta
    for r in range(1, args.refit + 1):
        print(f"\nround {r}: the seats' CALL_MODEL is [{', '.join(f'{t:.3f}' for t in theta)}]", flush=True)
        theta = refit_round(args, theta)
        if theta is None:
            return p.fail(f"round {r} of --refit failed (its own line above says why)")
    return 0


def refit_round(args, theta) -> np.ndarray | None:
    """Play and fit one round of ``--refit`` in a process of its own (module docstring); the
    weights it fitted, None where it failed."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "fit.json"
        env = dict(os.environ, NUMBA_CACHE_DIR=folder,
                   **{ROUND_CACHE_VARIABLE: folder, WEIGHTS_VARIABLE: json.dumps(theta.tolist())})
        done = subprocess.run([sys.executable, "-m", "benchmarks.call_model", "--games", str(args.games), "--seed",
                               str(args.seed), "--policy", args.policy, "--worlds", str(args.worlds), "--fit",
                               "--fit-out", str(out)], env=env, cwd=Path(__file__).resolve().parents[1])
        return np.array(json.loads(out.read_text())) if done.returncode == 0 and out.exists() else None


def one_round(p, args):
    """Play, report and (with ``--fit``) fit once; the fitted weights, or the exit status."""
    began = time.perf_counter()
    try:
        rules, policies, deals, doubled = traced_auctions(args.games, args.seed, parse_policy(args.policy, "bridgette"))
    except PolicyError as exc:
        return p.fail(exc)
    if not deals:
        return p.fail(f"no deal of {args.games} games was played to a contract: play more --games")
    kr = bridgette.kernel_rules(rules)
    prm = kr.params[0]
    b6 = (0, int(prm["min_trump_cards"]), prm["nt_needs_all_suits"] != 0, int(prm["jump_min_cards"]))
    gain = kr.tables["gain"][0]
    h = kernel_policies(policies)[1][0]["heuristic"]
    print(f"{machine_line(machine_facts())}; {len(deals):,} deals played to a contract ({args.games} games, seed {args.seed}, "
          f"both seats {args.policy}), {time.perf_counter() - began:.0f} s")

    rows = []
    for hands, dealer, calls in deals:
        features = np.full((len(calls), MAX_CALL_CANDIDATES, N_FEATURES), np.nan)
        chosen, mine = np.full(len(calls), -1, dtype=np.int64), np.zeros(len(calls), dtype=np.bool_)
        choices_nb(h, hands, dealer, calls, *b6, gain, features, chosen, mine)
        rows.append((features, chosen, mine))
    if doubled:
        made = np.mean([o[f"tricks{o['declarer']}"] >= 6 + BID_LEVEL[o["contract"]] for o in doubled])
        gained = np.mean([o[f"score{1 - o['declarer']}"] - o[f"score{o['declarer']}"] for o in doubled])
        print(f"contracts doubled: {len(doubled):,} of {len(deals):,} ({len(doubled) / len(deals):.0%}), {made:.0%} of "
              f"them made; the doubler's score minus the declarer's {gained:+.1f} points per doubled deal")
    features = np.concatenate([r[0] for r in rows])
    chosen = np.concatenate([r[1] for r in rows])
    mine = np.concatenate([r[2] for r in rows])
    candidates = (~np.isnan(features[..., 0])).sum(axis=1)
    chosen_call = chosen >= 0  # a call that is no candidate (a player that does not search): no choice to fit
    print(f"calls: {len(chosen):,}; the heuristic's own call {mine.mean():.1%}; candidates per call "
          f"{candidates.mean():.1f}; among the candidates {chosen_call.mean():.1%}")
    features, chosen = features[chosen_call], chosen[chosen_call]
    candidates = candidates[chosen_call]
    print(f"log-loss per call: CALL_MODEL {log_loss(CALL_MODEL, features, chosen):.3f}, uniform among the "
          f"candidates {np.log(candidates).mean():.3f}")
    theta = CALL_MODEL.copy()
    if args.fit or args.refit:
        half = len(chosen) // 2
        theta = fit(features[:half], chosen[:half])
        print(f"fitted on {half:,} calls: [{', '.join(f'{t:.3f}' for t in theta)}]; log-loss on the other "
              f"{len(chosen) - half:,}: {log_loss(theta, features[half:], chosen[half:]):.3f} (CALL_MODEL "
              f"{log_loss(CALL_MODEL, features[half:], chosen[half:]):.3f})")
        if args.fit_out:
            args.fit_out.write_text(json.dumps(theta.tolist()))

    errors, unfit = [], 0
    for i, (hands, dealer, calls) in enumerate(deals):
        for reader in (0, 1):
            read = readings_nb(h, True, hands, dealer, calls, reader, args.worlds, 2 * i + reader, *b6, gain)
            errors.append(read[:3] - hcp_nb(hands[1 - reader]))
            unfit += int(read[3])
    rmse = np.sqrt(np.mean(np.square(errors), axis=0))
    print(f"reading the other seat's high-card points after the auction ({len(errors):,} readings, "
          f"{args.worlds:,} worlds each), root mean square error:")
    for way, name in enumerate(("uniform worlds", "the heuristic's calls (exact)", "the softmax model")):
        print(f"  {name:32s} {rmse[way]:.3f}  ratio {rmse[way] / rmse[0]:.3f}")
    print(f"  the heuristic's model fitted none of the worlds in {unfit:,} readings ({unfit / len(errors):.0%})")
    return theta


if __name__ == "__main__":
    exit_with(main, "python -m benchmarks.call_model")

"""Kernel traces replayed by the referee: every legal set, outcome and game must agree.

At least 2,000 games per game in the default run, spread over option sets that put
every option at a non-default value somewhere and over three policy pairings (and the
games' own tuned heuristics under the default rules), and rule sets with every option
drawn at random, for the options' interactions; ``make test-all`` runs 100,000 more
games per game and 60 more random rule sets.
"""

import pytest

from tests.differential import TUNED, cases, random_option_sets, run_differential

GAMES = ["bridgette", "draw-bridge", "bid-euchre"]


def _check(game, total_games, seed):
    per_case = -(-total_games // len(cases(game)))
    games, deals, problems = run_differential(game, per_case, seed)
    assert games >= total_games and deals >= games
    assert problems == [], "\n".join(problems[:10])


@pytest.mark.parametrize("game", GAMES)
def test_kernel_and_referee_agree_on_2000_games(game):
    _check(game, 2_000, seed=20261129)


@pytest.mark.parametrize("game, games", [("bridgette", 1000), ("draw-bridge", 50), ("bid-euchre", 1000)])
def test_kernel_and_referee_agree_with_each_games_own_heuristic(game, games):
    """The game's tuned heuristic (Draw Bridge's bids by expected score: about 106 deals a
    game, so 50 games are some 5,000 deals) under the default rules."""
    played, deals, problems = run_differential(game, games, seed=7, batch=50, pairings=(TUNED,),
                                               option_sets=("defaults",))
    assert played == games and deals >= games
    assert problems == [], "\n".join(problems[:10])


@pytest.mark.parametrize("game, sets, games", [("bridgette", 12, 8), ("draw-bridge", 12, 8), ("bid-euchre", 6, 4)])
def test_kernel_and_referee_agree_under_random_rule_sets(game, sets, games):
    """Every option drawn at random among its allowed values, ends of its range included,
    in each rule set (tests.differential.random_option_sets), over the three pairings."""
    played, deals, problems = run_differential(game, games, seed=20261206, batch=games,
                                               sets=random_option_sets(game, sets, seed=20261206))
    assert played == 3 * sets * games and deals >= played
    assert problems == [], "\n".join(problems[:10])


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_kernel_and_referee_agree_under_60_more_random_rule_sets(game):
    played, deals, problems = run_differential(game, 30, seed=2, sets=random_option_sets(game, 60, seed=2))
    assert played == 3 * 60 * 30 and deals >= played
    assert problems == [], "\n".join(problems[:10])


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_kernel_and_referee_agree_on_100000_more_games(game):
    _check(game, 100_000, seed=31)

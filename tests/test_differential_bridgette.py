"""Kernel traces replayed by the referee: every legal set, outcome and game must agree.

20,000 games in the default run, spread over six option sets (every Bridgette option at
a non-default value somewhere) and three policy pairings; ``make test-all`` runs more.
"""

import pytest

from tests.differential import OPTION_SETS, PAIRINGS, run_differential


def _check(total_games, seed):
    per_case = -(-total_games // (len(OPTION_SETS) * len(PAIRINGS)))
    games, deals, problems = run_differential(per_case, seed)
    assert games >= total_games and deals >= 6 * total_games * 0.7
    assert problems == [], "\n".join(problems[:10])


def test_kernel_and_referee_agree_on_20000_games():
    _check(20_000, seed=20261129)


@pytest.mark.slow
def test_kernel_and_referee_agree_on_100000_more_games():
    _check(100_000, seed=31)

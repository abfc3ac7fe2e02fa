"""Strong-player answers at cheap-player cost: multilevel estimates with control variates.

    python -m sim.run --deals 2000 --policy all=pimc --control all=heuristic --control-deals 200000
    python -m sim.run --deals 2000 --policy all=pimc --control all=heuristic --control hand

Deal i of a seed is the same deal for every policy, so a strong policy's deal run and a
cheap policy's deal run of the same seed pair deal by deal, and the cheap run's first
deals are the strong run's deals. A *level* is one such run of the same seed and dealing:
the target (the strong policies, ``--policy``) on m0 deals and controls on m1 <= m2 <= ...
deals (``--control``: other policies; ``dd:`` a run valued double dummy, its contracts
scored by the game's rules on the double-dummy tricks; ``par:`` such a run scored at par;
``hand``: features of the hands as dealt whose means follow exactly from the deck, no run
at all).

The estimator (a nested multilevel regression estimator, "multifidelity Monte Carlo" with
fitted coefficients; Peherstorfer, Willcox and Gunzburger 2016) of a metric's value R0:

    R0_hat = R0(m0) - sum_k alpha_k' (V_k(m_{k-1}) - V_k(m_k)) - alpha_x' (x(m_K) - mu)

V_k(m) is the vector of the metric's value over the first m deals for every control level
k..K and the mean of the hand features x; mu the features' exact means. Each step compares
two nested prefixes of the same deals, so the steps are uncorrelated and each coefficient
vector alpha_k is the regression of the target's per-deal value on the step's controls,
fitted on the m0 deals the target played. With alpha = 1 and one control this is the
textbook two-level estimate E[cheap] over m1 deals + E[strong - cheap] over m0 paired
deals; the fitted alpha is never worse. The variance is the sum over the segments of deals
[m_{j-1}, m_j), independent of each other, of their per-deal influence terms' variance
(heteroskedasticity-robust, with a degrees-of-freedom correction for the coefficients),
plus the fitted coefficients' own variance (a sandwich estimate) times the observed step
differences. A ratio metric (sum y / sum n) is linearised as sim.ratio does it. A played
control of a contract game brings its choices and outcomes as more columns
(choice_columns); with fewer than DEALS_PER_REGRESSOR target deals per coefficient the
estimate fits fewer columns (``lean``).

With R_k^2 the squared multiple correlation of the target with step k's controls and w_k
a level's seconds per deal, the variance is s0^2 [(1 - R_1^2)/m0 + sum_j (R_j^2 -
R_{j+1}^2)/m_j], which a budget of T seconds minimises at m_j proportional to
sqrt(a_j / w_j), a_j the bracket's coefficients (levels that would break the nesting
pooled): the variance is then s0^2 (sum_j sqrt(a_j w_j))^2 / T, against s0^2 w0 / T for
plain target deals (``allocation``). docs/multilevel.md has the measurements.
"""

from __future__ import annotations

from sim.multilevel.allocation import allocation, sizes_for
from sim.multilevel.cli import add_control_flags, check_control_flags, format_report, play_cli
from sim.multilevel.estimator import DEALS_PER_REGRESSOR, MIN_TARGET_DEALS, Features, LevelData, \
    MultilevelError, estimate_difference, estimator_name, lean, nested_estimate, stratified_estimate
from sim.multilevel.folders import compare_folders, is_multilevel_folder, read_folder
from sim.multilevel.features import HAND_FEATURES, dealt_orders, hand_features
from sim.multilevel.levels import CONTRACT_SHIFTS, TRICK_SHIFTS, Level, LevelPlayer, choice_columns, dd_scored, \
    level_from_run, par_scored, parse_level, score_table
from sim.multilevel.play import PILOT_DEALS, _plain, default_levels, run_multilevel

__all__ = ["CONTRACT_SHIFTS", "DEALS_PER_REGRESSOR", "HAND_FEATURES", "PILOT_DEALS", "TRICK_SHIFTS",
           "add_control_flags", "allocation", "check_control_flags", "choice_columns", "compare_folders", "dd_scored",
           "dealt_orders",
           "default_levels", "estimate_difference", "estimator_name", "Features", "format_report", "hand_features",
           "is_multilevel_folder", "lean", "Level", "level_from_run", "LevelData", "LevelPlayer", "MIN_TARGET_DEALS",
           "MultilevelError", "nested_estimate", "par_scored", "parse_level", "_plain", "play_cli", "read_folder",
           "run_multilevel", "score_table", "sizes_for", "stratified_estimate"]

"""Score tables of Bridgette (RULES.md B-11..B-14), written out by hand as literal numbers.

The expected values below were derived from the text of RULES.md B-11..B-14, not from any
engine's code. Every engine in ``ENGINES`` is checked against them over every contract of
the B-5 ladder (0NT only at level 0) x doubling (0, 1, 2) x every possible number of
declarer tricks (made exactly, 1, 2, exactly 3 and 4+ overtricks; 1..6+ short), under the
defaults and under every combination of the scoring options ``made_basis``,
``exact_bonus``, ``overtrick_bonus_rule``, ``multiply_bonuses`` and ``penalty_last_row``.

``ENGINES`` holds (name, callable(rules, level, strain, doubled, declarer_tricks) ->
(declarer's gain, opponent's gain)); more engines (the numba kernel) are appended to it.
"""

from __future__ import annotations

import itertools

import pytest

from sim.games import kernel_rules
from sim.reference.bridgette import score_deal as reference_score
from sim.rules import BridgetteRules



def kernel_score(rules, level: int, strain: str, doubled: int, declarer_tricks: int):
    """The numba kernel's B-11..B-14 scoring, through its rule arrays."""
    from kernels.bridgette import score_deal_nb
    from kernels.calls import bid_index

    kr = kernel_rules(rules)
    contract = bid_index(level, ("C", "D", "H", "S", "NT").index(strain))
    return tuple(int(x) for x in score_deal_nb(kr.params[0], kr.tables[0], contract, doubled,
                                               declarer_tricks))


ENGINES = [("reference", reference_score), ("kernel", kernel_score)]

# --- B-5: the 36 contracts, low to high -------------------------------------------------
CONTRACTS = ["0NT"] + [f"{level}{strain}" for level in range(1, 8)
                       for strain in ("C", "D", "H", "S", "NT")]


def split(contract: str) -> tuple[int, str]:
    return int(contract[0]), contract[1:]


# --- B-11: contract values (literal) -----------------------------------------------------
CONTRACT_VALUE = {
    "0NT": 150,
    "1C": 150, "1D": 150, "1H": 150, "1S": 150, "1NT": 250,
    "2C": 250, "2D": 250, "2H": 250, "2S": 250, "2NT": 250,
    "3C": 250, "3D": 250, "3H": 250, "3S": 250, "3NT": 750,
    "4C": 250, "4D": 250, "4H": 750, "4S": 750, "4NT": 750,
    "5C": 750, "5D": 750, "5H": 750, "5S": 750, "5NT": 1500,
    "6C": 1500, "6D": 1500, "6H": 1500, "6S": 1500, "6NT": 2200,
    "7C": 2200, "7D": 2200, "7H": 2200, "7S": 2200, "7NT": 2500,
}

# B-11 made_basis="tricks": the value of the highest bid in the strain the tricks taken
# would have made (level min(tricks - 6, 7)), by strain and declarer tricks.
VALUE_BY_TRICKS = {
    # strain: {declarer tricks: value}; a suit contract is made with 7 tricks at least
    "C":  {7: 150, 8: 250, 9: 250, 10: 250, 11: 750, 12: 1500, 13: 2200},
    "D":  {7: 150, 8: 250, 9: 250, 10: 250, 11: 750, 12: 1500, 13: 2200},
    "H":  {7: 150, 8: 250, 9: 250, 10: 750, 11: 750, 12: 1500, 13: 2200},
    "S":  {7: 150, 8: 250, 9: 250, 10: 750, 11: 750, 12: 1500, 13: 2200},
    "NT": {6: 150, 7: 250, 8: 250, 9: 750, 10: 750, 11: 1500, 12: 2200, 13: 2500},
}

# --- B-12: exact bonus per contract (literal), both options -------------------------------
EXACT_BONUS_LADDER = {
    "0NT": 250,
    "1C": 250, "1D": 250, "1H": 250, "1S": 250, "1NT": 250,
    "2C": 250, "2D": 250, "2H": 250, "2S": 250, "2NT": 250,
    "3C": 250, "3D": 250, "3H": 250, "3S": 250, "3NT": 250,
    "4C": 250, "4D": 250, "4H": 250, "4S": 250, "4NT": 250,
    "5C": 250, "5D": 250, "5H": 250, "5S": 250, "5NT": 250,
    "6C": 100, "6D": 100, "6H": 100, "6S": 100, "6NT": 100,
    "7C": 0, "7D": 0, "7H": 0, "7S": 0, "7NT": 0,
}
EXACT_BONUS_NT_REDUCED = {
    "0NT": 100,
    "1C": 250, "1D": 250, "1H": 250, "1S": 250, "1NT": 100,
    "2C": 250, "2D": 250, "2H": 250, "2S": 250, "2NT": 100,
    "3C": 250, "3D": 250, "3H": 250, "3S": 250, "3NT": 100,
    "4C": 250, "4D": 250, "4H": 250, "4S": 250, "4NT": 100,
    "5C": 250, "5D": 250, "5H": 250, "5S": 250, "5NT": 100,
    "6C": 100, "6D": 100, "6H": 100, "6S": 100, "6NT": 100,
    "7C": 0, "7D": 0, "7H": 0, "7S": 0, "7NT": 0,
}
OVERTRICK_BONUS = 350                    # B-12: three overtricks
DOUBLE_BONUS = {0: 0, 1: 400, 2: 1000}   # B-12: made doubled / redoubled
FACTOR = {0: 1, 1: 2, 2: 4}              # B-13

# --- Defaults, whole made-score table (literal) -----------------------------------------
# MADE_DEFAULT[contract][doubled] = (exactly, +1, +2, exactly +3, +4 or more); None where
# the overtricks are impossible (more than 13 tricks). B-11 contract basis, B-12 ladder
# exact bonus and exactly3, B-13 (value + bonus + 400/1000) x 2/4.
MADE_DEFAULT = {
    "0NT": ((  400,   150,   150,   500,   150), ( 1600,  1100,  1100,  1800,  1100), ( 5600,  4600,  4600,  6000,  4600)),
    "1C":  ((  400,   150,   150,   500,   150), ( 1600,  1100,  1100,  1800,  1100), ( 5600,  4600,  4600,  6000,  4600)),
    "1D":  ((  400,   150,   150,   500,   150), ( 1600,  1100,  1100,  1800,  1100), ( 5600,  4600,  4600,  6000,  4600)),
    "1H":  ((  400,   150,   150,   500,   150), ( 1600,  1100,  1100,  1800,  1100), ( 5600,  4600,  4600,  6000,  4600)),
    "1S":  ((  400,   150,   150,   500,   150), ( 1600,  1100,  1100,  1800,  1100), ( 5600,  4600,  4600,  6000,  4600)),
    "1NT": ((  500,   250,   250,   600,   250), ( 1800,  1300,  1300,  2000,  1300), ( 6000,  5000,  5000,  6400,  5000)),
    "2C":  ((  500,   250,   250,   600,   250), ( 1800,  1300,  1300,  2000,  1300), ( 6000,  5000,  5000,  6400,  5000)),
    "2D":  ((  500,   250,   250,   600,   250), ( 1800,  1300,  1300,  2000,  1300), ( 6000,  5000,  5000,  6400,  5000)),
    "2H":  ((  500,   250,   250,   600,   250), ( 1800,  1300,  1300,  2000,  1300), ( 6000,  5000,  5000,  6400,  5000)),
    "2S":  ((  500,   250,   250,   600,   250), ( 1800,  1300,  1300,  2000,  1300), ( 6000,  5000,  5000,  6400,  5000)),
    "2NT": ((  500,   250,   250,   600,   250), ( 1800,  1300,  1300,  2000,  1300), ( 6000,  5000,  5000,  6400,  5000)),
    "3C":  ((  500,   250,   250,   600,   250), ( 1800,  1300,  1300,  2000,  1300), ( 6000,  5000,  5000,  6400,  5000)),
    "3D":  ((  500,   250,   250,   600,   250), ( 1800,  1300,  1300,  2000,  1300), ( 6000,  5000,  5000,  6400,  5000)),
    "3H":  ((  500,   250,   250,   600,   250), ( 1800,  1300,  1300,  2000,  1300), ( 6000,  5000,  5000,  6400,  5000)),
    "3S":  ((  500,   250,   250,   600,   250), ( 1800,  1300,  1300,  2000,  1300), ( 6000,  5000,  5000,  6400,  5000)),
    "3NT": (( 1000,   750,   750,  1100,   750), ( 2800,  2300,  2300,  3000,  2300), ( 8000,  7000,  7000,  8400,  7000)),
    "4C":  ((  500,   250,   250,   600,  None), ( 1800,  1300,  1300,  2000,  None), ( 6000,  5000,  5000,  6400,  None)),
    "4D":  ((  500,   250,   250,   600,  None), ( 1800,  1300,  1300,  2000,  None), ( 6000,  5000,  5000,  6400,  None)),
    "4H":  (( 1000,   750,   750,  1100,  None), ( 2800,  2300,  2300,  3000,  None), ( 8000,  7000,  7000,  8400,  None)),
    "4S":  (( 1000,   750,   750,  1100,  None), ( 2800,  2300,  2300,  3000,  None), ( 8000,  7000,  7000,  8400,  None)),
    "4NT": (( 1000,   750,   750,  1100,  None), ( 2800,  2300,  2300,  3000,  None), ( 8000,  7000,  7000,  8400,  None)),
    "5C":  (( 1000,   750,   750,  None,  None), ( 2800,  2300,  2300,  None,  None), ( 8000,  7000,  7000,  None,  None)),
    "5D":  (( 1000,   750,   750,  None,  None), ( 2800,  2300,  2300,  None,  None), ( 8000,  7000,  7000,  None,  None)),
    "5H":  (( 1000,   750,   750,  None,  None), ( 2800,  2300,  2300,  None,  None), ( 8000,  7000,  7000,  None,  None)),
    "5S":  (( 1000,   750,   750,  None,  None), ( 2800,  2300,  2300,  None,  None), ( 8000,  7000,  7000,  None,  None)),
    "5NT": (( 1750,  1500,  1500,  None,  None), ( 4300,  3800,  3800,  None,  None), (11000, 10000, 10000,  None,  None)),
    "6C":  (( 1600,  1500,  None,  None,  None), ( 4000,  3800,  None,  None,  None), (10400, 10000,  None,  None,  None)),
    "6D":  (( 1600,  1500,  None,  None,  None), ( 4000,  3800,  None,  None,  None), (10400, 10000,  None,  None,  None)),
    "6H":  (( 1600,  1500,  None,  None,  None), ( 4000,  3800,  None,  None,  None), (10400, 10000,  None,  None,  None)),
    "6S":  (( 1600,  1500,  None,  None,  None), ( 4000,  3800,  None,  None,  None), (10400, 10000,  None,  None,  None)),
    "6NT": (( 2300,  2200,  None,  None,  None), ( 5400,  5200,  None,  None,  None), (13200, 12800,  None,  None,  None)),
    "7C":  (( 2200,  None,  None,  None,  None), ( 5200,  None,  None,  None,  None), (12800,  None,  None,  None,  None)),
    "7D":  (( 2200,  None,  None,  None,  None), ( 5200,  None,  None,  None,  None), (12800,  None,  None,  None,  None)),
    "7H":  (( 2200,  None,  None,  None,  None), ( 5200,  None,  None,  None,  None), (12800,  None,  None,  None,  None)),
    "7S":  (( 2200,  None,  None,  None,  None), ( 5200,  None,  None,  None,  None), (12800,  None,  None,  None,  None)),
    "7NT": (( 2500,  None,  None,  None,  None), ( 5800,  None,  None,  None,  None), (14000,  None,  None,  None,  None)),
}

# --- B-14: penalties (literal) -------------------------------------------------------------
# PENALTY[short] = (undoubled, doubled, redoubled); short 6 = "6 or more".
PENALTY = {
    1: (100, 200, 300),
    2: (200, 500, 700),
    3: (300, 800, 1100),
    4: (400, 1100, 1500),
    5: (700, 2000, 2700),
    6: (1000, 3000, 4000),
}
# penalty_last_row="failed_slam": a failed 6- or 7-level contract always scores the last row;
# other contracts by the table with 5 or more short scoring the 5 row.
PENALTY_FAILED_SLAM_OTHER = {
    1: (100, 200, 300),
    2: (200, 500, 700),
    3: (300, 800, 1100),
    4: (400, 1100, 1500),
    5: (700, 2000, 2700),
    6: (700, 2000, 2700),
    7: (700, 2000, 2700),   # a 5-level contract can be 7+ short ... up to 11 short
    8: (700, 2000, 2700),
    9: (700, 2000, 2700),
    10: (700, 2000, 2700),
    11: (700, 2000, 2700),
    12: (700, 2000, 2700),
}
PENALTY_FAILED_SLAM_SLAM = (1000, 3000, 4000)


def result_id(contract: str, tricks: int) -> str:
    need = 6 + split(contract)[0]
    if tricks >= need:
        over = tricks - need
        return "made=" if over == 0 else f"made+{over}"
    return f"down{need - tricks}"


def all_cases():
    """Every (contract, doubled, declarer tricks) the B-5 ladder allows."""
    for contract in CONTRACTS:
        for doubled in (0, 1, 2):
            for tricks in range(14):
                yield contract, doubled, tricks


ENGINE_PARAMS = [pytest.param(fn, id=name) for name, fn in ENGINES]
RULES_CACHE: dict = {}


def rules_with(**scoring) -> BridgetteRules:
    key = tuple(sorted(scoring.items()))
    if key not in RULES_CACHE:
        RULES_CACHE[key] = BridgetteRules.from_dict({"scoring": scoring} if scoring else {})
    return RULES_CACHE[key]


# ------------------------------------------------------------------------------------------
# 1. Defaults: literal table, every contract x doubling x tricks.
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("engine", ENGINE_PARAMS)
@pytest.mark.parametrize(
    "contract,doubled,tricks",
    [pytest.param(c, d, t, id=f"{c}-{'x' * d or 'u'}-{result_id(c, t)}") for c, d, t in all_cases()])
def test_default_scores(engine, contract, doubled, tricks):
    level, strain = split(contract)
    need = 6 + level
    if tricks >= need:
        over = min(tricks - need, 4)          # column 4 is "4 or more overtricks"
        expected = (MADE_DEFAULT[contract][doubled][over], 0)
        assert expected[0] is not None
    else:
        expected = (0, PENALTY[min(need - tricks, 6)][doubled])
    assert tuple(engine(rules_with(), level, strain, doubled, tricks)) == expected


# ------------------------------------------------------------------------------------------
# 2. Every combination of the five scoring options, every contract x doubling x tricks.
# ------------------------------------------------------------------------------------------

OPTION_VALUES = {
    "made_basis": ("contract", "tricks"),
    "exact_bonus": ("ladder", "nt_reduced"),
    "overtrick_bonus_rule": ("exactly3", "atleast3"),
    "multiply_bonuses": (True, False),
    "penalty_last_row": ("six_or_more_short", "failed_slam"),
}
OPTION_COMBOS = [dict(zip(OPTION_VALUES, values))
                 for values in itertools.product(*OPTION_VALUES.values())]


def expected_score(opts: dict, contract: str, doubled: int, tricks: int) -> tuple[int, int]:
    """B-11..B-14 read from the literal tables above."""
    level, strain = split(contract)
    need = 6 + level
    if tricks < need:
        short = need - tricks
        if opts["penalty_last_row"] == "six_or_more_short":
            return 0, PENALTY[min(short, 6)][doubled]
        if level >= 6:
            return 0, PENALTY_FAILED_SLAM_SLAM[doubled]
        return 0, PENALTY_FAILED_SLAM_OTHER[short][doubled]
    value = CONTRACT_VALUE[contract] if opts["made_basis"] == "contract" \
        else VALUE_BY_TRICKS[strain][tricks]
    over = tricks - need
    if over == 0:
        bonus = (EXACT_BONUS_LADDER if opts["exact_bonus"] == "ladder"
                 else EXACT_BONUS_NT_REDUCED)[contract]
    elif over == 3 or (over > 3 and opts["overtrick_bonus_rule"] == "atleast3"):
        bonus = OVERTRICK_BONUS
    else:
        bonus = 0
    if opts["multiply_bonuses"]:
        return (value + bonus + DOUBLE_BONUS[doubled]) * FACTOR[doubled], 0
    return (value + bonus) * FACTOR[doubled] + DOUBLE_BONUS[doubled], 0


def combo_id(opts: dict) -> str:
    return "-".join(str(v) for v in opts.values())


def test_expected_score_agrees_with_literal_default_table():
    """The table composition above reproduces the literal default table (a self-check)."""
    defaults = {k: v[0] for k, v in OPTION_VALUES.items()}
    for contract, doubled, tricks in all_cases():
        level = split(contract)[0]
        need = 6 + level
        if tricks >= need:
            assert expected_score(defaults, contract, doubled, tricks) == \
                (MADE_DEFAULT[contract][doubled][min(tricks - need, 4)], 0)


@pytest.mark.parametrize("engine", ENGINE_PARAMS)
@pytest.mark.parametrize("contract", CONTRACTS)
@pytest.mark.parametrize("opts", [pytest.param(o, id=combo_id(o)) for o in OPTION_COMBOS])
def test_option_combinations(engine, opts, contract):
    rules = rules_with(**opts)
    level, strain = split(contract)
    wrong = []
    for doubled in (0, 1, 2):
        for tricks in range(14):
            got = tuple(engine(rules, level, strain, doubled, tricks))
            want = expected_score(opts, contract, doubled, tricks)
            if got != want:
                wrong.append(f"{contract} doubled={doubled} tricks={tricks}: got {got}, want {want}")
    assert not wrong, "\n".join(wrong)


# ------------------------------------------------------------------------------------------
# 3. Hand-computed spot values for the non-default options (literal final numbers).
# ------------------------------------------------------------------------------------------

SPOT = [
    # (scoring options, contract, doubled, declarer tricks, (declarer, opponent))
    ({}, "2D", 0, 8, (500, 0)),                       # 250 + 250 exact
    ({}, "1H", 1, 10, (1800, 0)),                     # (150 + 350 + 400) x 2
    ({}, "3C", 2, 10, (5000, 0)),                     # (250 + 1000) x 4
    ({}, "7H", 0, 13, (2200, 0)),                     # no exact bonus at level 7
    ({}, "6C", 0, 12, (1600, 0)),                     # 1500 + 100
    ({}, "3C", 0, 2, (0, 1000)),                      # 7 short: the 6+ row
    ({}, "2C", 1, 6, (0, 500)),                       # 2 short doubled
    ({}, "7H", 2, 10, (0, 1100)),                     # 3 short redoubled
    ({}, "1C", 0, 11, (150, 0)),                      # 4 overtricks: no bonus with exactly3
    ({"overtrick_bonus_rule": "atleast3"}, "1C", 0, 11, (500, 0)),
    ({"overtrick_bonus_rule": "atleast3"}, "1C", 0, 13, (500, 0)),
    ({"overtrick_bonus_rule": "atleast3"}, "1C", 1, 12, (1800, 0)),
    ({"made_basis": "tricks"}, "1C", 0, 11, (750, 0)),        # tricks worth 5C
    ({"made_basis": "tricks"}, "1H", 0, 10, (1100, 0)),       # 4H 750 + 350 (3 over 1H)
    ({"made_basis": "tricks"}, "0NT", 0, 13, (2500, 0)),      # 7NT's value
    ({"made_basis": "tricks"}, "0NT", 0, 6, (400, 0)),        # exact: 150 + 250
    ({"made_basis": "tricks"}, "6NT", 1, 13, (5800, 0)),      # (2500 + 400) x 2
    ({"made_basis": "tricks", "overtrick_bonus_rule": "atleast3", "multiply_bonuses": False},
     "0NT", 1, 10, (2600, 0)),                                # (750 + 350) x 2 + 400
    ({"exact_bonus": "nt_reduced"}, "5NT", 0, 11, (1600, 0)),
    ({"exact_bonus": "nt_reduced"}, "0NT", 0, 6, (250, 0)),
    ({"exact_bonus": "nt_reduced"}, "3S", 0, 9, (500, 0)),
    ({"exact_bonus": "nt_reduced"}, "6NT", 0, 12, (2300, 0)),
    ({"exact_bonus": "nt_reduced"}, "7NT", 1, 13, (5800, 0)),
    ({"exact_bonus": "nt_reduced"}, "2NT", 2, 8, (5400, 0)),  # (250 + 100 + 1000) x 4
    ({"multiply_bonuses": False}, "2H", 1, 8, (1400, 0)),     # (250 + 250) x 2 + 400
    ({"multiply_bonuses": False}, "2H", 2, 8, (3000, 0)),     # (250 + 250) x 4 + 1000
    ({"multiply_bonuses": False}, "1S", 2, 10, (3000, 0)),    # (150 + 350) x 4 + 1000
    ({"multiply_bonuses": False}, "1S", 1, 8, (700, 0)),      # 150 x 2 + 400
    ({"penalty_last_row": "failed_slam"}, "6S", 0, 11, (0, 1000)),
    ({"penalty_last_row": "failed_slam"}, "7NT", 2, 12, (0, 4000)),
    ({"penalty_last_row": "failed_slam"}, "6C", 1, 0, (0, 3000)),
    ({"penalty_last_row": "failed_slam"}, "5H", 0, 5, (0, 700)),    # 6 short -> the 5 row
    ({"penalty_last_row": "failed_slam"}, "5H", 1, 0, (0, 2000)),   # 11 short -> the 5 row
    ({"penalty_last_row": "failed_slam"}, "3NT", 2, 5, (0, 1500)),  # 4 short
    ({"penalty_last_row": "failed_slam"}, "1C", 0, 0, (0, 700)),
    ({}, "5H", 0, 5, (0, 1000)),                                     # default: 6 short
]


@pytest.mark.parametrize("engine", ENGINE_PARAMS)
@pytest.mark.parametrize("opts,contract,doubled,tricks,expected", SPOT)
def test_spot_values(engine, opts, contract, doubled, tricks, expected):
    level, strain = split(contract)
    assert tuple(engine(rules_with(**opts), level, strain, doubled, tricks)) == expected

"""Every number the package reads is read one way: ASCII digits, underscores between digits
as Python writes them, exactly (never rounded or truncated into a value allowed), and a
number too long or too large for its place is one line naming it.

Each case below was accepted by one reader and refused by another, rounded into an allowed
value, or a traceback, before the readers shared ``sim.cli.decimal_text``.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

import sim
from sim.api import resolve_rules
from sim.cli import seed_number, whole_count
from sim.policies import PolicyError, parse_policy
from sim.rules import RulesError, parse_set
from sim.store import RunError
from sim.sweep.grid import MAX_SETTINGS, SweepError, parse_vary
from sim.until import parse_until
from tests.commands import in_process

OTHER_DIGITS = ["\u0661\u0660", "\uff15", "\u00b2", "\u0964"]  # Arabic-Indic 10, fullwidth 5, superscript 2, a danda
BAD_TEXT = ["1__0", "_5", "5_", "0x10", "1,000", "", " ", *OTHER_DIGITS]
HUGE = "1" * 4301  # past the 4,300 digits Python's int() reads


@pytest.mark.parametrize("text, value", [("1_000", 1000), ("1e3", 1000), ("2**10", 1024), (" 7 ", 7), ("+5", 5)])
def test_counts_and_seeds_read_the_same_forms(text, value):
    assert whole_count(text) == value
    assert seed_number(text) == value


@pytest.mark.parametrize("text", BAD_TEXT)
def test_counts_and_seeds_refuse_the_same_forms(text):
    for read in (whole_count, seed_number):
        with pytest.raises(ValueError, match="is not"):
            read(text)


@pytest.mark.parametrize("value", [np.float32(5.5), Decimal("7.9"), Fraction(11, 2), np.array(5.5)[()], np.True_,
                                   np.float32("inf"), Decimal("Infinity"), "5.5"])
def test_a_seed_is_never_truncated(value):
    """The API's seed was int(value): 5.5 played seed 5, numpy's True seed 1, infinity an
    OverflowError naming nothing."""
    with pytest.raises(ValueError, match="is not an integer seed"):
        seed_number(value)
    with pytest.raises(ValueError, match="seed"):
        sim.simulate(games=2, seed=value, records="none", out="unused")


def test_a_number_of_thousands_of_digits_is_named_not_printed():
    with pytest.raises(ValueError) as caught:
        whole_count(HUGE)
    assert str(caught.value) == ("'1111111111111111111111111111111111111111...' (4,301 characters) is more than the "
                                 "largest count accepted, 2**53 = 9,007,199,254,740,992")
    with pytest.raises(ValueError, match=r"the seed must be in 0 \.\. 2\*\*64-1"):
        seed_number(HUGE)


@pytest.mark.parametrize("spec, problem", [
    ("heuristic:use_colons=0.99999999999999999", "must be 0 or 1"),  # was read as float 1.0
    ("pimc:worlds=16.0000000000000001", "must be a whole number"),  # was 16
    ("heuristic:keep_colons=1e-400", "must be 0 or at least 1e-300 in size"),  # was 0, discarding Colons first
    ("pimc:worlds=\u0661\u0660", "must be a number"),  # was 10
    ("pimc:worlds=2**2", "must be a number"),
    (f"heuristic:aggression={HUGE}", "must be from -100 to 100 tricks, got '1111"),
])
def test_policy_parameters_are_checked_as_written(spec, problem):
    with pytest.raises(PolicyError, match=problem):
        parse_policy(spec, "bridgette")


def test_policy_parameters_take_what_counts_take():
    assert parse_policy("pimc:worlds=1_6", "bridgette") == parse_policy("pimc:worlds=16", "bridgette")
    assert parse_policy("pimc:worlds=1.6e1", "bridgette") == parse_policy("pimc:worlds=16", "bridgette")


def test_the_other_readers_take_ascii_digits_only():
    with pytest.raises(RunError, match="half-width must be a positive number"):
        parse_until("dealer_advantage:\u0661\u0660")
    assert parse_until("dealer_advantage:1_0").width == 10
    with pytest.raises(PolicyError, match="seat"):
        sim.simulate(games=2, policies={"\u0661": "random"}, records="none", out="unused")
    with pytest.raises(RunError, match="local:N needs a whole number"):
        sim.simulate(games=2, cluster="local:\u00b2", records="none", out="unused")


def test_a_huge_integer_in_rules_or_conditions_is_one_line(tmp_path):
    """Python's limit on reading long integers was a ValueError traceback from the TOML
    reader (--set, --vary, a rules or conditions file) and from --require."""
    with pytest.raises(RulesError, match=r"--set exchange.nondealer_draw: the value holds a number of more digits"):
        parse_set([f"exchange.nondealer_draw={HUGE}"])
    with pytest.raises(RulesError, match="more digits than Python reads"):
        parse_vary([f"exchange.nondealer_draw=2,{HUGE}"])
    rules = tmp_path / "rules.toml"
    rules.write_text(f"[exchange]\nnondealer_draw = {HUGE}\n")
    conditions = tmp_path / "conditions.toml"
    conditions.write_text(f'[require]\n0 = ["hcp>={HUGE}"]\n')
    for args, problem in [(["--games", "2", "--rules", rules], f"rules file {rules} holds a number of more digits"),
                          (["--deals", "2", "--require", f"0:hcp>={HUGE}"], "the number must be from -1,000 to 1,000"),
                          (["--deals", "2", "--conditions", conditions], "the number must be from -1,000 to 1,000")]:
        result = in_process("sim.run", *args, "--out", tmp_path / "out")
        assert result.returncode == 2 and result.stdout == "", result
        assert len(result.stderr.splitlines()) == 1 and problem in result.stderr, result.stderr
        assert "Traceback" not in result.stderr and not (tmp_path / "out").exists()
        assert len(result.stderr) < 400, result.stderr  # the number named, not printed in full


def test_a_sweep_of_too_many_settings_is_refused_before_it_builds_them():
    """A grid of 10,001 x 10,001 settings was built whole and ran out of memory; a value
    listed twice among thousands took a quadratic search."""
    values = ",".join(str(v) for v in range(101))
    with pytest.raises(SweepError, match=f"make 10,201 settings: a sweep plays at most {MAX_SETTINGS:,}"):
        parse_vary([f"scoring.overtrick_bonus={values}", f"scoring.double_bonus={values}"])
    many = ",".join(str(v) for v in range(MAX_SETTINGS + 1))
    with pytest.raises(SweepError, match="lists 10,001 values"):
        parse_vary([f"scoring.overtrick_bonus={many}"])
    with pytest.raises(SweepError, match="lists the value 0x3 twice"):
        parse_vary([f"scoring.overtrick_bonus={','.join(str(v) for v in range(5000))},0x3"])


def test_rules_take_numpy_integers_as_the_counts_do():
    rules = resolve_rules("bridgette", {"exchange": {"nondealer_draw": np.int64(3)}}, [])
    assert rules == resolve_rules("bridgette", {"exchange": {"nondealer_draw": 3}}, [])
    for value in (np.True_, 3.0, np.float64(3)):
        with pytest.raises(RulesError, match="must be an integer from 0 to 29"):
            resolve_rules("bridgette", {"exchange": {"nondealer_draw": value}}, [])


@pytest.mark.parametrize("args", [["--games", "\u0664"], ["--seed", "\u0661\u0660"], ["--threads", "\u0661"],
                                  ["--games", "1__0"], ["--block-size", "_5"]])
def test_commands_refuse_other_digits_and_stray_underscores(tmp_path, args):
    result = in_process("sim.run", *args, "--out", tmp_path / "out")
    assert result.returncode == 2 and len(result.stderr.splitlines()) == 1, result
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("value, problem", [("-1e3", "is not a whole number of at least 1"),
                                            ("-inf", "is not a finite number")])
def test_a_negative_number_in_exponent_form_is_a_value_not_a_flag(tmp_path, value, problem):
    """argparse took -1e3 and -inf for flags: "argument --games: expected one argument"."""
    result = in_process("sim.run", "--games", value, "--out", tmp_path / "out")
    assert result.returncode == 2 and f"argument --games: '{value}' {problem}" in result.stderr, result


def test_an_integer_option_of_thousands_of_digits_is_named_not_printed():
    """Formatting 10**5000 for the message was itself a ValueError (Python prints no more
    than 4,300 digits)."""
    with pytest.raises(RulesError, match="must be at most 29, got a number of more than 30 digits"):
        resolve_rules("bridgette", {"exchange": {"nondealer_draw": 10**5000}}, [])


@pytest.mark.parametrize("text", ["1e99999999999999999999", "2**" + "9" * 400, "1" * 5000 + "**1"])
def test_numbers_past_every_limit_are_one_line(text):
    """An exponent past 10**18 was decimal.InvalidOperation, a power of 400 digits an
    OverflowError, a base of 5,000 digits Python's own message: now each is named."""
    for read in (whole_count, seed_number):
        with pytest.raises(ValueError) as caught:
            read(text)
        assert "Exceeds" not in str(caught.value) and len(str(caught.value)) < 200
    with pytest.raises(PolicyError, match="policy parameter heuristic:aggression"):
        parse_policy(f"heuristic:aggression={text}", "bridgette")
    with pytest.raises(ValueError, match="seed"):
        sim.simulate(games=2, seed=text, records="none", out="unused")
    assert whole_count("1" * 5000 + "**0") == 1 and whole_count("1**99999999") == 1


def test_values_are_quoted_as_given_and_never_rounded_through_a_fraction():
    from sim.cli import game_index

    with pytest.raises(ValueError, match=r"got '1e30'"):  # it printed the value capped at 2**64
        game_index("1e30")
    with pytest.raises(ValueError, match="a number of more than 4,300 digits is more than the largest count"):
        whole_count(10**5000)
    with pytest.raises(ValueError, match="is not an integer seed"):  # 28 digits of Decimal made it 5
        seed_number(Fraction(5 * 10**30 + 1, 10**30))
    assert seed_number(Fraction(10, 2)) == 5


def test_dealing_numbers_read_as_every_number(tmp_path):
    """A seat of thousands of digits in --require or --predeal was a traceback; a term's
    number takes a sign and underscores as every number does."""
    from sim.dealing import DealingError, parse

    for flags in ({"require": [HUGE + ":hcp>=1"]}, {"predeal": [HUGE + "=CG"]}):
        with pytest.raises(DealingError, match="no game has a seat '1111"):
            parse("deals", **flags)
    for term in ("hcp>=1_2", "hcp>=+12"):
        result = in_process("sim.run", "--deals", "3", "--require", f"0:{term}", "--records", "none", "--quiet",
                            "--out", tmp_path / term.replace(">=", "-").replace("+", "p"))
        assert result.returncode == 0, result.stderr


def test_the_last_readers_take_ascii_digits_and_refuse_rounding(tmp_path):
    from sim.custom import CustomError, parse_custom

    result = in_process("sim.show", "--seed", "1", "--index", "0", "--deal", "\u0661")
    assert result.returncode == 2 and "'\u0661' is not a deal's index" in result.stderr
    for huge in ("99999999999999999999999", "1e30"):  # named as given, not as 2**64, its stand-in
        result = in_process("sim.show", "--seed", "1", "--index", "0", "--deal", huge)
        assert result.returncode == 2 and f"'{huge}' is beyond the deals of any game" in result.stderr
    with pytest.raises(CustomError, match="balance needs 0 or a number of at least 1e-300"):
        parse_custom("m = mean(score0) balance 1e-400")


def test_a_dated_folder_is_not_taken_for_an_unfinished_sweep(tmp_path):
    (tmp_path / "2024-05-01").mkdir()
    (tmp_path / "2024-05-01" / "manifest.json").write_text("{}")
    result = in_process("analysis.report", tmp_path)
    assert result.returncode == 2 and f"{tmp_path} is not a run folder (no manifest.json)" in result.stderr

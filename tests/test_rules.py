"""Rule options: docs/rules.md documents every option under its name, validation, and the kernel tables."""

import re
from pathlib import Path

import pytest

from kernels import bridgette as kb
from kernels.calls import CALL_IDS
from sim.games import kernel_rules
from sim.resolve import resolve_rules
from sim.rules import (
    BidEuchreRules, BridgetteRules, DrawBridgeRules, RulesError, load_rules_file, option_table, parse_set,
    rules_for,
)

RULES_MD = Path(__file__).resolve().parents[1] / "docs" / "rules.md"

# The sections of docs/rules.md that hold each game's options, by rule-id letter: the common
# section's options (C-4, C-5) belong to the two contract games.
GAME_SECTIONS = {BridgetteRules: ("C", "B"), DrawBridgeRules: ("C", "D"), BidEuchreRules: ("E",)}
DOTTED = r"`([a-z_]+\.[a-z_]+)`"


def rules_md_sections() -> dict[str, str]:
    """docs/rules.md's rule sections by letter ("## Bridgette (B)" is "B"), each up to the next heading."""
    sections = {}
    for chunk in re.split(r"(?m)^(?=## )", RULES_MD.read_text(encoding="utf-8")):
        heading = re.match(r"## .*\(([A-Z])\)[ \t]*$", chunk, re.M)
        if heading:
            sections[heading.group(1)] = chunk
    return sections


def rules_md_rules() -> dict[str, str]:
    """Each rule's bullet in docs/rules.md by rule id ("B-8"), with its sub-items."""
    rules = {}
    for chunk in re.split(r"(?m)^(?=- \*\*)|^(?=## )", RULES_MD.read_text(encoding="utf-8")):
        rule = re.match(r"- \*\*([A-Z]-\d+)\b", chunk)
        if rule:
            rules[rule.group(1)] = chunk
    return rules


def documented_options(rules_class) -> set[str]:
    """Every backticked dotted option name in the docs/rules.md sections of a game."""
    sections = rules_md_sections()
    return {name for letter in GAME_SECTIONS[rules_class] for name in re.findall(DOTTED, sections[letter])}


def test_rules_md_has_every_game_section_and_rule_id():
    sections = rules_md_sections()
    assert set(sections) == {"C", "B", "D", "E"}
    for letter, text in sections.items():
        ids = re.findall(r"(?m)^- \*\*([A-Z])-(\d+)\b", text)
        assert ids and all(found == letter for found, _ in ids), letter
        assert [int(n) for _, n in ids] == list(range(1, len(ids) + 1)), f"{letter}: rule ids out of order"


@pytest.mark.parametrize("rules_class", list(GAME_SECTIONS), ids=lambda c: c.GAME)
def test_every_option_is_documented_in_rules_md(rules_class):
    missing = {row["option"] for row in option_table(rules_class)} - documented_options(rules_class)
    assert not missing, f"options of {rules_class.__name__} that docs/rules.md does not document"


@pytest.mark.parametrize("rules_class", list(GAME_SECTIONS), ids=lambda c: c.GAME)
def test_every_rules_md_option_exists_under_its_name(rules_class):
    documented = documented_options(rules_class)
    assert len(documented) >= 9
    unknown = documented - {row["option"] for row in option_table(rules_class)}
    assert not unknown, f"docs/rules.md names options that {rules_class.__name__} lacks"


@pytest.mark.parametrize("rules_class", list(GAME_SECTIONS), ids=lambda c: c.GAME)
def test_rules_md_documents_each_option_under_its_rule_id(rules_class):
    rules = rules_md_rules()
    for row in option_table(rules_class):
        assert row["rule"] in rules, f"{row['option']} cites {row['rule']}, which docs/rules.md lacks"
        assert f"`{row['option']}`" in rules[row["rule"]], f"{row['option']} is not under {row['rule']}"


def test_defaults_match_rules_md():
    r = BridgetteRules()
    assert (r.exchange.nondealer_draw, r.exchange.dealer_draw_numeral, r.exchange.dealer_draw_face,
            r.exchange.dealer_draw_ace, r.exchange.upcard_to) == (2, 4, 8, 12, "nondealer")
    assert r.deck.colons == ("little", "royal", "grand")
    assert (r.auction.opening_pass, r.auction.passed_out, r.auction.max_redeals) == ("continues", "next_deal", 100)
    assert (r.auction.min_trump_cards, r.auction.nt_needs_all_suits, r.auction.jump_min_cards) == (2, True, 4)
    assert r.play.colon_discard == "last_resort"
    assert (r.scoring.made_basis, r.scoring.exact_bonus, r.scoring.overtrick_bonus_rule,
            r.scoring.multiply_bonuses, r.scoring.penalty_last_row) == (
        "contract", "ladder", "exactly3", True, "six_or_more_short")
    assert (r.game.deals, r.game.max_tiebreak_deals) == (6, 1)


@pytest.mark.parametrize("tables,message", [
    ({"exchange": {"upcard": "dealer"}}, "unknown option 'exchange.upcard'"),
    ({"draw": {"must_follow": True}}, "unknown rule table 'draw'"),
    ({"exchange": {"upcard_to": "north"}}, "must be one of"),
    ({"exchange": {"dealer_draw_ace": "12"}}, "must be an integer"),
    ({"exchange": {"dealer_draw_ace": True}}, "must be an integer"),
    ({"auction": {"nt_needs_all_suits": 1}}, "must be true or false"),
    ({"deck": {"colons": ["grand", "grand"]}}, "lists a value twice"),
    ({"deck": {"colons": ["joker"]}}, "must be a list drawn from"),
    ({"game": {"deals": 0}}, "at least 1"),
    ({"exchange": {"dealer_draw_ace": 28}}, "the stock holds only 29"),
    ({"deck": {"colons": []}, "exchange": {"dealer_draw_ace": 25}}, "the stock holds only 26"),
    ({"exchange": {"nondealer_draw": 0}}, "nondealer_draw >= 1"),
    ({"exchange": "dead"}, "must be a table"),
])
def test_bad_options_are_refused_with_a_clear_message(tables, message):
    with pytest.raises(RulesError, match=message):
        BridgetteRules.from_dict(tables)


def test_unknown_game_and_rules_file(tmp_path):
    with pytest.raises(RulesError, match="unknown game 'hearts'"):
        rules_for("hearts")
    good = tmp_path / "v.toml"
    good.write_text('[exchange]\nupcard_to = "dead"\n[deck]\ncolons = ["royal", "little"]\n')
    rules = load_rules_file("bridgette", good)
    assert rules.exchange.upcard_to == "dead" and rules.deck.colons == ("little", "royal")
    bad = tmp_path / "bad.toml"
    bad.write_text("[exchange\n")
    with pytest.raises(RulesError, match="not valid TOML"):
        load_rules_file("bridgette", bad)


@pytest.mark.parametrize("text,words", [
    ("game = 3\n", "game = 3 is neither a game's name nor a table of [game] options"),
    ("[foo]\nx = 1\n", "unknown rule table 'foo' for bridgette"),
    ('[exchange]\nnondealer_draw = "x"\n', "option 'exchange.nondealer_draw' must be an integer from 0 to 29"),
    ("[exchange]\nnondealer_draw = 2\n[exchange]\ndealer_draw_ace = 4\n",
     "is not valid TOML: table [exchange] declared a second time (at line 3"),
])
def test_a_rules_file_at_fault_is_named_with_its_fault(tmp_path, words, text):
    """A fault of a rules file's own tables names the file (a fault only with --set values
    does not), in the project's words: a table given twice is [exchange], not Python's tuple."""
    from sim.resolve import resolve_rules

    path = tmp_path / "v.toml"
    path.write_text(text)
    with pytest.raises(RulesError) as caught:
        resolve_rules("bridgette", str(path))
    assert str(caught.value).startswith(f"rules file {path}") and words in str(caught.value), caught.value
    assert "('" not in str(caught.value)
    with pytest.raises(RulesError) as caught:  # the file is sound; the --set value is not
        resolve_rules("bridgette", "bridgette-redeal", ["exchange.nondealer_draw=x"])
    assert str(caught.value).startswith("option 'exchange.nondealer_draw'")


def test_kernel_arrays_follow_the_options():
    kr = kernel_rules(BridgetteRules.from_dict(
        {"deck": {"colons": ["grand"]}, "exchange": {"upcard_to": "dead", "dealer_draw_face": 7},
         "scoring": {"exact_bonus": "nt_reduced", "penalty_last_row": "failed_slam"}}))
    p, t = kr.params[0], kr.tables[0]
    assert list(kr.deck) == list(range(52)) + [54]
    assert p["upcard_to"] == kb.UPCARD_DEAD == 2  # the third of ("nondealer", "dealer", "dead")
    assert p["dealer_draw_face"] == 7 and p["nt_needs_all_suits"] == 1 and p["jump_min_cards"] == 4
    assert t["exact"][CALL_IDS["3NT"]] == 100 and t["exact"][CALL_IDS["3S"]] == 250 and t["exact"][CALL_IDS["7C"]] == 0
    assert t["value"][CALL_IDS["4D"]] == 250 and t["value"][CALL_IDS["4H"]] == 750 and t["value"][CALL_IDS["7NT"]] == 2500
    # B-14 failed_slam: a 6-level contract one short scores the last row; 3C six short the 5 row.
    assert t["penalty"][6, 0, 1] == 1000 and t["penalty"][3, 1, 6] == 2000 and t["penalty"][3, 2, 9] == 2700


@pytest.mark.parametrize("rules_class", [BridgetteRules, DrawBridgeRules, BidEuchreRules])
def test_kernel_record_has_one_field_per_option(rules_class):
    """A new option is one declared field: the kernels' record gains it under its key, a
    choice as the index of its value among the declared choices."""
    rules = rules_class()
    record = kernel_rules(rules).params
    scalar = [row for row in option_table(rules_class) if row["type"] not in ("tuple", "list")]
    assert set(record.dtype.names) - {"tricks"} == {row["option"].split(".")[1] for row in scalar}
    for row in scalar:
        section, key = row["option"].split(".")
        value = getattr(getattr(rules, section), key)
        assert record[0][key] == (row["choices"].index(value) if row["type"] == "str" else int(value)), key


def test_choice_constants_follow_the_declared_choices():
    """Every choice option the kernels' record carries declares its values with the very
    tuple of kernels.options that the kernels number them by, so the two cannot drift."""
    from kernels import draw_bridge as kd
    from kernels import options

    numbered = [v for v in vars(options).values() if isinstance(v, tuple)]
    for rules_class in (BridgetteRules, DrawBridgeRules, BidEuchreRules):
        for row in option_table(rules_class):
            if row["type"] == "str":
                assert any(row["choices"] is t for t in numbered), row["option"]
    assert (kb.UPCARD_TO_DEALER, kb.UPCARD_DEAD) == (1, 2)  # of ("nondealer", "dealer", "dead")
    assert kb.OPENING_PASS_ENDS == kd.OPENING_PASS_ENDS == 1 and kd.PASSED_OUT_REDEAL == 1
    assert kd.LED_SUIT_WINS == 1
    led = kernel_rules(DrawBridgeRules.from_dict({"draw": {"trick_winner": "led_suit"}})).params[0]
    assert led["trick_winner"] == kd.LED_SUIT_WINS


def test_to_dict_round_trips():
    rules = BridgetteRules.from_dict({"scoring": {"multiply_bonuses": False}, "deck": {"colons": ["little"]}})
    assert BridgetteRules.from_dict(rules.to_dict()) == rules
    assert kernel_rules(rules).params.tobytes() == kernel_rules(BridgetteRules.from_dict(rules.to_dict())).params.tobytes()


@pytest.mark.parametrize("game, tables", [
    # E-10: the double deck's defaults are 2 cards asked, ask_all 24, moon_all 48 (E-7): the
    # single deck's values under it were left out of a replay line and read back as those.
    ("bid-euchre", {"variant": {"double_deck": True}, "auction": {"ask_cards": 1},
                    "scoring": {"ask_all": 12, "moon_all": 24}}),
    ("bid-euchre", {"variant": {"double_deck": True}}),
    ("bid-euchre", {"variant": {"joker": True}, "auction": {"stick_the_dealer": True}}),
    ("bridgette", {"deck": {"colons": ["royal"]}, "exchange": {"nondealer_draw": 4}}),
    ("draw-bridge", {"scoring": {"undertricks": "bridge"}}),
])
def test_the_options_written_for_a_replay_read_back_as_the_rules(game, tables):
    """sim.show --json and a ladder's folder write a rule set as its options that differ
    from the defaults (sim.rules.overrides): read back, they must give the same rules."""
    from sim.rules import overrides

    rules = rules_for(game, tables)
    assert rules_for(game, overrides(rules)) == rules


def test_an_option_listed_with_default_auto_takes_auto():
    """--list-options shows auction.ask_cards, scoring.ask_all and scoring.moon_all with
    default "auto", which --set refused ("must be an integer"): auto fills them in from the
    deck, as leaving them out does."""
    sets = ["auction.ask_cards=auto", "scoring.ask_all=auto", "scoring.moon_all=auto"]
    for deck in ([], ["variant.double_deck=true"]):
        assert resolve_rules("bid-euchre", None, sets + deck) == resolve_rules("bid-euchre", None, deck)
    double = resolve_rules("bid-euchre", None, sets + ["variant.double_deck=true"])
    assert (double.auction.ask_cards, double.scoring.ask_all, double.scoring.moon_all) == (2, 24, 48)
    with pytest.raises(RulesError, match=r"'auction.ask_cards' must be an integer from 1 to 12 or auto, got 'x'"):
        resolve_rules("bid-euchre", None, ["auction.ask_cards=x"])


@pytest.mark.parametrize("call, words", [
    (lambda: rules_for("bridgette", {1: {}}), "rules must be a dict of option tables named by strings"),
    (lambda: rules_for(["bridgette"]), "unknown game ['bridgette']"),
    (lambda: parse_set("exchange.nondealer_draw=6"), "--set takes a list of KEY=VALUE texts"),
    (lambda: parse_set([5]), "--set takes a list of KEY=VALUE texts"),
    (lambda: parse_set(None), "--set takes a list of KEY=VALUE texts"),
])
def test_the_rules_functions_refuse_other_types_in_words(call, words):
    """Called from Python with other types, they raised Python's own errors from inside
    (AttributeError, TypeError from difflib, a string read letter by letter)."""
    with pytest.raises(RulesError, match=re.escape(words)):
        call()


def test_parse_policy_refuses_other_types_and_unknown_games_in_words():
    from sim.policies import PolicyError, parse_policy

    for args, words in (((None,), "a policy is text"), ((5,), "a policy is text"),
                        (("random", "nope"), "unknown game 'nope'"), (("heuristic", ["bridgette"]), "unknown game")):
        with pytest.raises(PolicyError, match=re.escape(words)):
            parse_policy(*args)
    # A colon or a comma with nothing after it was read as the defaults in silence.
    for text in ("heuristic:", "pimc:worlds=4,", "pimc:worlds=4,,keep=2"):
        with pytest.raises(PolicyError, match="has an empty parameter"):
            parse_policy(text, "bridgette")


def test_a_rules_dict_names_its_game_as_a_rules_file_does(tmp_path):
    """``{"game": "bid-euchre", ...}`` chooses the game as a file's top-level ``game =`` does
    (before: "'game' must be a table of options"); the user's dict is left as given."""
    import sim
    from sim.resolve import resolve_rules

    tables = {"game": "bid-euchre", "auction": {"stick_the_dealer": True}}
    run = sim.simulate(games=4, rules=tables, out=tmp_path / "run")
    assert run.manifest["config"]["game"] == "bid-euchre"
    assert run.manifest["config"]["rules"]["auction"]["stick_the_dealer"] is True
    assert tables == {"game": "bid-euchre", "auction": {"stick_the_dealer": True}}
    assert resolve_rules("bid-euchre", {"game": {"name": "bid-euchre"}}) == resolve_rules("bid-euchre")
    for game, given, words in (("bridgette", {"game": "bid-euchre"}, "the rules name the game bid-euchre, not "
                                                                      "bridgette"),
                               ("bridgette", {"game": "nope"}, "game = 'nope' is no game"),
                               ("bridgette", {"game": 3}, "game = 3 is neither a game's name")):
        with pytest.raises(RulesError, match=re.escape(words)):
            resolve_rules(game, given)

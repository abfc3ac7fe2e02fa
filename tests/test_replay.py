"""Golden deals in both engines, and the sim.replay command line."""

import json
import re
import random

import pytest

from sim import replay
from sim.bridgette import replay_deal
from sim.games import IMPLEMENTED
from sim.reference.bridgette import replay as reference_replay
from tests.conftest import golden_cases

BRIDGETTE = golden_cases("bridgette")
GOLDEN = [(game, n, c) for game in ("bridgette", "draw-bridge", "bid-euchre") for n, c in golden_cases(game)]


def kernel_supports(game: str) -> bool:
    return game in IMPLEMENTED


@pytest.mark.parametrize("engine", ["kernel", "reference"])
@pytest.mark.parametrize("game,line,case", GOLDEN, ids=[f"{g}-line{n}" for g, n, _ in GOLDEN])
def test_golden(engine, game, line, case):
    outcome = replay.replay_case(case, engine)
    if engine == "kernel" and not kernel_supports(game):
        assert outcome["error"] == "unsupported"
    else:
        assert outcome == case["expect"]


def test_an_engine_other_than_the_two_is_refused(golden_path):
    """replay_case took any other engine name for the reference, in silence."""
    case = json.loads(golden_path.read_text().splitlines()[0])
    with pytest.raises(ValueError, match="engine must be 'kernel' or 'reference', got 'nosuch'"):
        replay.replay_case(case, "nosuch")


@pytest.mark.parametrize("engine", ["kernel", "reference"])
@pytest.mark.parametrize("field, value, words", [
    ("dealer", "0", '"dealer" must be a seat'), ("dealer", 5, '"dealer" must be a seat'),
    ("dealer", None, '"dealer" must be a seat'), ("hands", None, '"hands" must be a list of card lists'),
    ("calls", None, '"calls" must be a list of calls'), ("play", [["AS"]], '"play" must be'),
    ("expect", {"declarer": 2}, '"expect.declarer" must be a seat 0..1, got 2'),
    ("expect", {"declarer": -1}, '"expect.declarer" must be a seat 0..1, got -1'),
    ("expect", {"reneges": [{"at": "play[0]", "seat": 7, "card": "AS"}]},
     '"expect.reneges[].seat" must be a seat 0..1, got 7'),
])
def test_both_engines_name_a_case_of_the_wrong_form_as_the_command_does(golden_path, engine, field, value, words):
    """replay_case from Python: the kernel engine took dealer "0" or 5 as a seat (and named
    another rule than the referee's) or raised KeyError and TypeError from inside, the
    referee some of the same; both name the field now, as python -m sim.replay does. A seat
    in "expect" outside the game's seats is such a field too, not a mismatch."""
    case = json.loads(golden_path.read_text().splitlines()[0])
    with pytest.raises(replay.MalformedCase, match=re.escape(words)):
        replay.replay_case(dict(case, **{field: value}), engine)
    without = {k: v for k, v in case.items() if k != "dealer"}
    with pytest.raises(replay.MalformedCase, match='missing "dealer"'):
        replay.replay_case(without, engine)


@pytest.mark.parametrize("engine", ["kernel", "reference"])
def test_a_case_from_python_is_read_as_its_json_line(golden_path, engine):
    """numpy's numbers and tuples replay as the line's numbers and lists (the kernel engine
    raised json's "Object of type int64 is not JSON serializable"); a set, whose order JSON
    cannot keep, is named."""
    import numpy as np

    case = json.loads(golden_path.read_text().splitlines()[0])
    given = dict(case, dealer=np.int64(case["dealer"]), hands=tuple(tuple(h) for h in case["hands"]))
    assert replay.replay_case(given, engine) == replay.replay_case(case, engine) == case["expect"]
    with pytest.raises(replay.MalformedCase, match="a case holds what a JSON line can: set"):
        replay.replay_case(dict(case, hands=[set(h) for h in case["hands"]]), engine)


def test_golden_file_has_every_kind_of_bridgette_case():
    assert len(BRIDGETTE) == 20
    assert {c["expect"].get("error") for _, c in BRIDGETTE} >= {None, "B-6", "C-3", "B-10", "B-8"}


@pytest.fixture
def bridgette_file(tmp_path):
    path = tmp_path / "bridgette.jsonl"
    path.write_text("".join(json.dumps(c) + "\n" for _, c in BRIDGETTE))
    return path


@pytest.mark.parametrize("engine", ["kernel", "reference"])
def test_cli_reports_every_case_ok(bridgette_file, engine, capsys):
    assert replay.main([str(bridgette_file), "--engine", engine]) == 0
    out = capsys.readouterr().out.splitlines()
    assert sum(line.split(": ")[1].startswith("OK") for line in out[:-1]) == len(BRIDGETTE)
    assert out[-1] == f"{len(BRIDGETTE)} of {len(BRIDGETTE)} deals OK ({engine} engine)"


@pytest.mark.parametrize("engine", ["kernel", "reference"])
def test_cli_json_prints_one_outcome_per_line(golden_path, engine, capsys):
    status = replay.main([str(golden_path), "--engine", engine, "--json"])
    lines = capsys.readouterr().out.splitlines()
    cases = [json.loads(l) for l in golden_path.read_text().splitlines() if l.strip()]
    assert len(lines) == len(cases)
    for text, case in zip(lines, cases):
        outcome = json.loads(text)
        if engine == "kernel" and not kernel_supports(case["game"]):
            assert outcome["error"] == "unsupported"
        else:
            assert outcome == case["expect"]
    every_game = engine == "reference" or all(kernel_supports(c["game"]) for c in cases)
    assert status == (0 if every_game else 1)


def test_cli_mismatch_exits_1(tmp_path, capsys):
    case = dict(BRIDGETTE[0][1], expect={"contract": "3NT"})
    path = tmp_path / "wrong.jsonl"
    path.write_text(json.dumps(case) + "\n")
    assert replay.main([str(path), "--engine", "kernel"]) == 1
    assert "MISMATCH" in capsys.readouterr().out


@pytest.mark.parametrize("bad,expected", [
    ("{not json", "line 2: not one JSON object (at character 2: expecting property name"),  # not "line 1 column 2"
    ('{"game": "bridgette"} {}', "line 2: not one JSON object (at character 23: extra data)"),
    ('\ufeff{"game": "bridgette"}', "line 2: a byte-order mark starts the line (files joined together?)"),
    ('{"game": "bridgette", "hands": [], "stock": []}', 'line 2: missing "dealer"'),
    ('{"game": "bridgette", "dealer": 3, "hands": [], "stock": []}', "line 2: \"dealer\" must be a seat 0..1"),
    ('{"game": "bridgette", "dealer": 0, "hands": [], "stock": [], "rules": {"deck": {"jokers": 1}}}',
     "line 2: unknown option 'deck.jokers'"),
    ("[1, 2]", "line 2: not a JSON object"),
    ('{"game": "bridgette", "dealer": 1' + "0" * 4999 + "}", "line 2: a number of 5,000 digits, more than any field"),
    ('{"game": "bridgette", "dealer": 1' + "0" * 29 + ', "hands": [], "stock": []}',
     'line 2: "dealer" must be a seat 0..1 (an integer), got 10000'),
])
def test_cli_malformed_line_exits_2_with_its_number(tmp_path, capsys, bad, expected):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(BRIDGETTE[0][1]) + "\n" + bad + "\n")
    assert replay.main([str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert expected in captured.err and len(captured.err.splitlines()) == 1


def test_an_illegal_card_is_shown_escaped_and_counted(tmp_path, capsys):
    """A deal without an expect whose card is a lone surrogate or holds a terminal's escape
    sequence: the card was printed as given (a UnicodeEncodeError's traceback, or raw
    control bytes on the terminal); it is shown as JSON writes it, and the summary counts
    the illegal deals among those not checked."""
    case = {k: v for k, v in BRIDGETTE[0][1].items() if k != "expect"}
    lines = [json.dumps({**case, "hands": [[card, *case["hands"][0][1:]], case["hands"][1]]})
             for card in ("\ud800", "\x1b[31mRED\n")]
    path = tmp_path / "odd.jsonl"
    path.write_text("\n".join(lines) + "\n")
    assert replay.main([str(path)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        'line 1: bridgette: illegal B-2 at hands (card "\\ud800")',
        'line 2: bridgette: illegal B-2 at hands (card "\\u001b[31mRED\\n")',
        "2 of 2 deals OK (reference engine), 2 of them without an expect (replayed, not checked; 2 of these "
        "illegal)"]


def test_a_file_of_no_lines_is_read_no_further_than_one_long_line(capsys):
    """/dev/zero never ends a line: the first million characters say it holds no deal."""
    assert replay.main(["/dev/zero"]) == 2
    err = capsys.readouterr().err
    assert err == "python -m sim.replay: error: /dev/zero: line 1 is longer than 1,048,576 characters: not a deal\n"


def test_a_line_of_the_longest_length_is_read_with_its_line_break():
    """MAX_LINE characters are a line's most, its line break not counted (a line of exactly
    MAX_LINE characters was refused when a line break followed it, taken when last)."""
    import io

    longest = "x" * replay.MAX_LINE
    assert list(replay.bounded_lines(io.StringIO(f"{longest}\n{longest}"))) == [f"{longest}\n", longest]
    for text in (f"{longest}x\n", f"{longest}x"):
        with pytest.raises(replay.MalformedCase, match="line 1 is longer than 1,048,576 characters"):
            list(replay.bounded_lines(io.StringIO(text)))


def test_cli_missing_file_exits_2(tmp_path, capsys):
    assert replay.main([str(tmp_path / "absent.jsonl")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_deck_mismatch_is_b2_in_both_engines():
    case = dict(BRIDGETTE[0][1])
    case["hands"] = [case["hands"][0][:-1] + [case["hands"][1][0]], case["hands"][1]]
    assert replay_deal(case)["error"] == "B-2"
    assert reference_replay(case)["error"] == "B-2"


@pytest.mark.parametrize("mutate,expected", [
    (lambda c: c["calls"].__setitem__(1, "8C"), {"error": "B-5", "at": "calls[1]"}),
    (lambda c: c["calls"].append("P"), {"error": "C-4", "at": "calls[6]"}),
    (lambda c: c.__setitem__("calls", c["calls"][:3]), {"error": "C-4", "at": "calls[3]"}),
    (lambda c: c.__setitem__("play", c["play"][:10]), {"error": "B-7", "at": "play[10]"}),
    (lambda c: c["play"].append("AS"), {"error": "B-7", "at": "play[26]"}),
    (lambda c: c["play"].__setitem__(0, "ZZ"), {"error": "B-7", "at": "play[0]"}),
    (lambda c: c["play"].__setitem__(3, "P"), {"error": "C-4", "at": "play[3]"}),
    (lambda c: c["play"].append("XX"), {"error": "B-7", "at": "play[26]"}),
    # 5H is a card and a bid: where a card is due it is the card, not in seat 0's hand.
    (lambda c: c["play"].__setitem__(1, "5H"), {"error": "B-7", "at": "play[1]"}),
    (lambda c: c["play"].append("3D"), {"error": "B-7", "at": "play[26]"}),
    (lambda c: c["discards"][0].pop(), {"error": "B-3", "at": "discards[0]"}),
    (lambda c: c["discards"][1].__setitem__(0, "AS"), {"error": "B-3", "at": "discards[1]"}),
])
def test_replay_errors_agree(mutate, expected):
    """Both engines name the same rule and position for the same illegal change."""
    case = json.loads(json.dumps(BRIDGETTE[0][1]))
    del case["expect"]
    mutate(case)
    assert replay_deal(case) == expected
    ref = reference_replay(case)
    assert {k: ref[k] for k in ("error", "at")} == expected


def test_engines_agree_on_changed_golden_deals():
    """Every golden deal changed at random in its calls or cards (one replaced by another of
    the deal's or by a call, one repeated, one taken out or one added): the engines name the
    same rule at the same place, or agree on the whole outcome."""
    rng = random.Random(5)
    compared = 0
    for game, _, golden in GOLDEN:
        names = sorted({c for hand in golden["hands"] for c in hand} | set(golden.get("stock", [])))
        for _ in range(8):
            case = json.loads(json.dumps(golden))
            key = "calls" if rng.random() < 0.3 and case.get("calls") else "play"
            moves = case.get(key) or []
            if not moves:
                continue
            i, how = rng.randrange(len(moves)), rng.randrange(4)
            if how == 0:
                moves[i] = moves[rng.randrange(len(moves))]
            elif how == 1:
                moves[i] = rng.choice(names + ["P", "X", "XX", "2S", "3H", "7NT"])
            elif how == 2:
                moves.append(moves[rng.randrange(len(moves))])
            else:
                del moves[i]
            kernel, reference = replay.replay_case(case, "kernel"), replay.replay_case(case, "reference")
            if "error" in kernel or "error" in reference:
                assert (kernel.get("error"), kernel.get("at")) == (reference.get("error"), reference.get("at")), case
            else:
                assert kernel == reference, case
            compared += 1
    assert compared >= 6 * len(GOLDEN)


def _unknown_card(game: str, where: str) -> dict:
    """The game's first golden deal with "ZZ" in place of a card of seat 1 or the stock."""
    case = json.loads(json.dumps(golden_cases(game)[0][1]))
    del case["expect"]
    if where == "hands":
        case["hands"][1][2] = "ZZ"
    elif where == "duplicate":
        case["hands"][1][2] = case["hands"][0][0]
    else:
        case["stock"] = case.get("stock", [])[:-1] + ["ZZ"]  # Bid Euchre deals no stock: E-1 all the same
    return case


@pytest.mark.parametrize("engine", ["kernel", "reference"])
@pytest.mark.parametrize("game,rule", [("bridgette", "B-2"), ("draw-bridge", "D-1"), ("bid-euchre", "E-1")])
def test_a_card_not_in_the_deck_is_named(game, rule, engine):
    for where in ("hands", "stock"):
        assert replay.replay_case(_unknown_card(game, where), engine) == {"error": rule, "at": where, "card": "ZZ"}
    twice = _unknown_card(game, "duplicate")
    assert replay.replay_case(twice, engine) == {"error": rule, "at": "hands", "card": twice["hands"][0][0]}
    short = json.loads(json.dumps(golden_cases(game)[0][1]))
    short["hands"][1].pop()  # every card is of the deck: none to name
    assert replay.replay_case(short, engine) == {"error": rule, "at": "hands"}


def test_cli_names_the_unknown_card(tmp_path, capsys):
    path = tmp_path / "zz.jsonl"
    path.write_text(json.dumps(_unknown_card("bridgette", "stock")) + "\n")
    assert replay.main([str(path), "--engine", "kernel"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "line 1: bridgette: illegal B-2 at stock (card ZZ)"
    assert replay.main([str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"error": "B-2", "at": "stock", "card": "ZZ"}


def test_a_game_name_no_terminal_can_print_is_quoted_and_a_deal_without_expect_counted_apart(tmp_path, capsys):
    """An unknown game named with a lone surrogate or a line break is shown quoted, as JSON
    writes it, in both engines (before: a UnicodeEncodeError traceback, or a raw line break
    in the report); a deal without an expect is counted apart in the last line."""
    path = tmp_path / "odd.jsonl"
    path.write_text('{"game": "x\\ud800y"}\n{"game": "a\\nb"}\n' + json.dumps(BRIDGETTE[0][1]) + "\n")
    for engine in ("reference", "kernel"):
        assert replay.main([str(path), "--engine", engine]) == 1
        out = capsys.readouterr().out.splitlines()
        assert out[0] == 'line 1: "x\\ud800y": game "x\\ud800y" is unknown'
        assert out[1] == 'line 2: "a\\nb": game "a\\nb" is unknown'
        assert out[-1] == f"1 of 3 deals OK ({engine} engine), 2 of them without an expect (replayed, not checked)"


def test_an_empty_expect_checks_nothing_and_a_key_given_twice_is_refused(tmp_path, capsys):
    """"expect": {} was counted OK ("1 of 1 deals OK") though it checks nothing; it is a deal
    without an expect. A key given twice in one object (two dealers) was read as its last
    value in silence: the line says two things, and is refused naming the key."""
    case = dict(BRIDGETTE[0][1], expect={})
    path = tmp_path / "empty-expect.jsonl"
    path.write_text(json.dumps(case) + "\n")
    assert replay.main([str(path)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == ("1 of 1 deals OK (reference engine), 1 of them without an "
                                                        "expect (replayed, not checked)")
    twice = tmp_path / "twice.jsonl"
    twice.write_text(json.dumps(BRIDGETTE[0][1])[:-1] + ', "dealer": 1}\n')
    assert replay.main([str(twice)]) == 2
    assert capsys.readouterr().err == (f"python -m sim.replay: error: {twice}: line 1: the key \"dealer\" is given "
                                       f"twice in one object\n")


def test_an_empty_file_holds_no_deals_and_a_byte_order_mark_is_read_past(tmp_path, capsys):
    """A file of no deal is bad input, as for sim.solve (before: '0 of 0 deals OK', exit 0);
    a UTF-8 byte-order mark, as some editors write, is read past."""
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n")
    assert replay.main([str(empty)]) == 2
    assert capsys.readouterr().err == f"python -m sim.replay: error: {empty} holds no deals\n"
    marked = tmp_path / "marked.jsonl"
    marked.write_text("\ufeff" + json.dumps(BRIDGETTE[0][1]) + "\n", encoding="utf-8")
    assert replay.main([str(marked)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "1 of 1 deals OK (reference engine)"


def test_a_long_file_is_checked_whole_first_then_replayed_from_its_spool(tmp_path, capsys, monkeypatch):
    """Every line is checked before any deal is replayed (a bad last line: no output at
    all), and the checked lines wait in a spool that leaves memory past its size limit:
    20,000 deals replay with the spool on disk, every one OK."""
    line = json.dumps(BRIDGETTE[0][1]) + "\n"
    bad = tmp_path / "bad.jsonl"
    bad.write_text(line * 3 + "{not json\n")
    assert replay.main([str(bad)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "line 4" in captured.err
    monkeypatch.setattr(replay, "SPOOL_IN_MEMORY", 4096)
    cases = replay.Cases([line] * 20_000)
    assert len(cases) == 20_000 and cases._spool._rolled  # past 4 KiB the spool is a file on disk
    assert sum(1 for number, case in cases if case == BRIDGETTE[0][1]) == 20_000


def test_a_temporary_folder_that_takes_no_more_is_named_not_the_file(tmp_path, capsys, monkeypatch):
    """The spool's disk filling up is one line naming the temporary folder (before: "cannot
    read FILE", blaming the file being replayed)."""
    import tempfile

    line = json.dumps(BRIDGETTE[0][1]) + "\n"
    big = tmp_path / "big.jsonl"
    big.write_text(line * 40)
    monkeypatch.setattr(replay, "SPOOL_IN_MEMORY", 4096)
    monkeypatch.setattr(tempfile, "tempdir", "/dev/full-is-no-folder")  # the spool's file cannot be made
    assert replay.main([str(big)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot keep the checked deals in /dev/full-is-no-folder (TMPDIR)" in err
    assert str(big) not in err



@pytest.mark.parametrize("engine", ["kernel", "reference"])
@pytest.mark.parametrize("exchange", [[["9C"], ["JD"]], [["9C"]], [["9C"], ["JD"], []]])
@pytest.mark.parametrize("calls, rule", [("5", "E-4"), ("6M", "E-5"), ("6A", "E-4"), (None, "E-3")])
def test_an_exchange_that_the_bid_does_not_allow_names_its_rule(engine, exchange, calls, rule):
    """E-4 gives the ask bid an exchange of two lists, and no other bid one; E-5 plays the
    moon bid without one; after four passes nothing follows (E-3). Both engines name the
    rule the line breaks, for a well-formed exchange or not (before: E-4 for a moon bid too,
    and the kernel E-4 for any exchange not of two lists)."""
    hands = [["JH", "KH", "QH", "TH", "AS", "9C"], ["9D", "TD", "QD", "KD", "AD", "JC"],
             ["AH", "JD", "9H", "9S", "TS", "KC"], ["QC", "AC", "TC", "JS", "QS", "KS"]]
    if calls == "6A" and len(exchange) == 2:
        exchange = [["9C"], ["9C"]]  # the card given back: not the exchange E-4 makes
    case = {"game": "bid-euchre", "rules": {}, "dealer": 3, "hands": hands,
            "calls": [calls or "P", "P", "P", "P"], "trump": "H" if calls else None, "trump_exchange": exchange,
            "play": []}
    assert replay.replay_case(case, engine) == {"error": rule, "at": "trump_exchange"}

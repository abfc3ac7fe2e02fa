"""Property tests (hypothesis) of every command's parser: generated flags and values,
--set options, variant files and replay lines. The property: the command succeeds, or ends
with exit status 2 and exactly one line on stderr; never a traceback.

Commands run in-process through their ``main(argv)``. Nothing is played at length: a
command is stopped (``Checked``) where it would play its first block, trace its game, climb
the ladder, start a cluster, solve or draw its report, which is after its input has been
checked. Each
property runs 30 examples in ``make test`` and 500 in ``make test-all``, derandomized.
"""

import contextlib
import importlib
import io
import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sim import dealing
from sim.games import GAME_NAMES
from sim.rules import GAMES, option_table
from tests.conftest import GOLDEN

EXAMPLES = [30, pytest.param(500, marks=pytest.mark.slow)]
GOLDEN_TEXT = GOLDEN.read_text(encoding="utf-8")
GOLDEN_CASES = [json.loads(line) for line in GOLDEN_TEXT.splitlines() if line.strip()]

COMMANDS = {name: f"{'analysis' if name in ('report', 'compare') else 'sim'}.{name}"
            for name in ("run", "show", "match", "ladder", "sweep", "replay", "solve", "report", "compare")}


class Checked(Exception):
    """Raised where a command would start its real work: its input was accepted."""


def _stop(*args, **kwargs):
    raise Checked


@pytest.fixture(scope="module")
def played_runs(tmp_path_factory) -> Path:
    """Two finished runs of two games, the same seed, with and without the Colons."""
    from sim.api import simulate

    folder = tmp_path_factory.mktemp("runs")
    simulate(games=2, seed=5, out=folder / "run_a")
    simulate(games=2, seed=5, out=folder / "run_b", rules="bridgette-no-colons")
    return folder


@pytest.fixture
def runs(played_runs, monkeypatch):
    """The finished runs copied into each example's folder (``files_for``)."""
    monkeypatch.setitem(globals(), "RUNS", played_runs)


@pytest.fixture
def stopped(monkeypatch):
    """Commands stop before playing, tracing, solving, drawing a report or starting a
    cluster; numba's thread count is restored."""
    import numba

    for name in ("sim.bridgette", "sim.draw_bridge", "sim.bid_euchre"):
        module = importlib.import_module(name)
        monkeypatch.setattr(module, "run_block", _stop)
        monkeypatch.setattr(module, "trace_games", _stop)
    monkeypatch.setattr("sim.cluster.open_cluster", _stop)
    monkeypatch.setattr("sim.ladder.ladder", _stop)
    monkeypatch.setattr("sim.dd.Solver", _stop)
    monkeypatch.setattr("analysis.report.page.Report", _stop)
    threads = numba.get_num_threads()
    yield
    numba.set_num_threads(threads)


def check(strategy, examples: int, prop) -> None:
    """Run ``prop`` on ``examples`` generated values, the same ones on every run."""
    settings(max_examples=examples, derandomize=True, database=None, deadline=None,
             suppress_health_check=list(HealthCheck))(given(strategy)(prop))()


def outcome(command: str, argv: list, files: dict | None = None) -> tuple[int, str]:
    """(exit status, stderr) of ``python -m COMMAND ARGV``, run in this process in a new
    folder holding the files of ``files_for`` and ``files`` ({name: text})."""
    main = importlib.import_module(COMMANDS[command]).main
    out, err = io.StringIO(), io.StringIO()
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as folder:
        files_for(Path(folder))
        for name, text in (files or {}).items():
            Path(folder, name).write_text(text, encoding="utf-8")
        os.chdir(folder)
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                status = main(argv)
        except SystemExit as exc:
            status = exc.code or 0
        except Checked:
            status = 0
        finally:
            os.chdir(here)
    return status, err.getvalue()


def assert_clean(status, err: str, succeeded=(0,)) -> None:
    """Success, or status 2 with one line on stderr and no traceback."""
    assert "Traceback" not in err, err
    if status not in succeeded:
        assert status == 2 and err.endswith("\n") and err.count("\n") == 1, (status, err)


# --- Values ----------------------------------------------------------------------------------

# What str.splitlines breaks a line at: an error line that quotes an argument or a string
# of a file holding one shows it as \n.
LINE_BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
# Any text but NUL (no argv holds it), half of it with a line break.
LINE = st.text(st.characters(exclude_categories=("Cs",), exclude_characters="\x00" + LINE_BREAKS), max_size=12)
TEXT = st.one_of(LINE, st.builds(lambda a, brk, b: a + brk + b, LINE, st.sampled_from(LINE_BREAKS), LINE))
ODD_NUMBERS = ("nan", "NaN", "inf", "-inf", "Infinity", "-0", "0", "-0.0", "1e400", "-1e400", "1e-400",
               "1.5", "-1", "0x10", "1_000", "\uff11", "\u0663", "", " ", str(2**64 - 1), str(2**64),
               str(10**40), "9" * 5000, "1e6", "1", "2", "1\n2", "1\r\n", "\u2028")


def values(*good: str):
    """A flag's value: one that works, an odd number, or any text."""
    return st.one_of(st.sampled_from(good), st.sampled_from(ODD_NUMBERS), TEXT) if good else \
        st.one_of(st.sampled_from(ODD_NUMBERS), TEXT)


def nested(depth: int, inner: str = "1") -> str:
    """``inner`` inside ``depth`` JSON (or TOML) lists."""
    return "[" * depth + inner + "]" * depth


# TOML literals as --set and variant files take them.
TOML_VALUES = st.one_of(
    st.integers(-(2**70), 2**70).map(str),
    st.floats(allow_nan=True).map(lambda x: "nan" if x != x else "inf" if x == float("inf")
                                  else "-inf" if x == float("-inf") else repr(x)),
    st.sampled_from(["true", "false", "\"dealer\"", "dealer", "[\"grand\"]", "[]", "{a = 1}", "1979-05-27",
                     "[1, \"a\"]", "\"\"", "'x'", "nan", "-0", "+inf", "0x1F", "1e400"]),
    st.integers(1, 50).map(nested),
    TEXT.map(json.dumps),
    TEXT,
)
OPTION_NAMES = sorted({row["option"] for info in GAMES.values() for row in option_table(info)})
OPTION_KEYS = st.one_of(st.sampled_from(OPTION_NAMES), st.sampled_from(["nodot", "a.b.c", ".x", "x.", "", "game.x"]),
                        st.builds(lambda a, b: f"{a}.{b}", TEXT, TEXT))
SET_OPTIONS = st.one_of(st.builds(lambda key, value: f"{key}={value}", OPTION_KEYS, TOML_VALUES), TEXT)

GAME = values(*GAME_NAMES)
COUNT = values("1", "2", "1e0", "3")
SEED = values("0", "1", "7", str(2**64 - 1))
POLICY = values("0=heuristic", "all=random", "1=pimc:worlds=2", "all=heuristic:aggression=0.5", "0=dd",
                "9=random", "0=heuristic:aggression=nan", "0=heuristic:aggression=", "1=pimc:worlds=1e400",
                "all=heuristic:nope=1", "0=", "=random")
SPEC = values("heuristic", "random", "pimc:worlds=2", "heuristic:aggression=-0", "dd", "heuristic:aggression=inf")
RULES = st.one_of(st.sampled_from(["bridgette-no-colons", "bid-euchre-joker", "draw-bridge-must-follow",
                                    "no-such-variant", "missing.toml", ".", "a-file.txt", "a-file.txt/x", "", "-0",
                                    "9" * 5000, "9" * 5000 + ".toml"]), TEXT)
OUT = values("out", "a-file.txt/out", "a-file.txt", ".", "new/deeper/out")
METRICS = values("contract_made", "dealer_advantage,mean_score", "x = mean(score0)", "x = mean(score0 +)",
                 "x = mean(" + "(" * 3000 + "score0" + ")" * 3000 + ")", "x = mean(" + "-" * 3000 + "score0)",
                 "x = sum(score0) / sum(score1)",
                 "nope", ",")
SHARED = {"--game": GAME, "--seed": SEED, "--rules": RULES, "--set": SET_OPTIONS}
DEALING = {"--conditions": values("missing.toml", "a-file.txt", "."), "--dealer": values("0", "1", "alternate"),
           "--upcard": values("ace", "face", "numeral", "colon", "CG", "AS,AH"),
           "--predeal": values("0=CG,AS", "1=AS", "0=ZZ"), "--require": values("0:hcp>=12,spades>=5", "1:aces<=1")}

# Each command's flags: those taking a value (with values to draw) and the switches.
FLAGS = {
    "run": ({**SHARED, **DEALING, "--games": COUNT, "--deals": COUNT, "--threads": COUNT, "--block-size": COUNT,
             "--policy": POLICY, "--out": OUT, "--records": values("deals", "games", "none"),
             "--until": values("dealer_advantage:0.5", "contract_made:0.01", "x:1", "dealer_advantage:nan"),
             "--stratify": values("upcard_class", "little_holder", "royal_holder", "grand_holder"),
             "--allocation": values("proportional", "equal", "neyman", "ace=0.5,face=0.25,numeral=0.25"),
             "--metrics": METRICS, "--cluster": values("local:1", "local:0", "tcp://host:8786", "tcp://h:99999")},
            ("--dd", "--quiet", "--list-options")),
    "show": ({**SHARED, "--index": SEED, "--deal": values("0", "5", "-1"), "--policy": POLICY}, ("--json", "--dd")),
    "match": ({**SHARED, "--a": SPEC, "--b": SPEC, "--games": COUNT,
               "--cluster": values("local:1", "local:0")}, ("--json",)),
    "ladder": ({**SHARED, "--games": COUNT, "--dd-games": COUNT, "--worlds": values("4,16", "2", "0", "4,,4"),
                "--bid-worlds": values("0", "2"), "--threads": COUNT, "--out": OUT}, ("--json",)),
    "sweep": ({**SHARED, **DEALING, "--vary": values("exchange.dealer_draw_ace=4,8", "game.target=20,32",
                                                      "exchange.upcard_to=dealer,dead", "x=1", "a.b=", "game.target=1"),
               "--games": COUNT, "--deals": COUNT, "--threads": COUNT, "--policy": POLICY, "--out": OUT,
               "--metrics": METRICS, "--records": values("deals", "none"), "--block-size": COUNT,
               "--plot": values("p.png", "a-file.txt/x.png", "a-file.txt", ".", "new/p.png"),
               "--cluster": values("local:1")}, ("--json", "--quiet")),
    "replay": ({"--engine": values("reference", "kernel")}, ("--json",)),
    "solve": ({"--at": values("play[3]", "3", "play[0]", "play[]", "play[99]", "play[3")}, ("--json",)),
    "report": ({"--out": OUT}, ()),
    "compare": ({"--metrics": METRICS}, ("--json",)),
}


def base_argv(command: str) -> list:
    """Arguments with which ``command`` succeeds (in a folder that holds the files of
    ``files_for``); generated ones follow them, and later flags win."""
    return {"run": ["--games", "2", "--quiet"], "show": ["--seed", "1", "--index", "0"],
            "match": ["--a", "heuristic", "--b", "random", "--games", "2"], "ladder": ["--games", "2"],
            "sweep": ["--vary", "exchange.dealer_draw_ace=4,8", "--games", "2", "--quiet"], "replay": ["golden.jsonl"],
            "solve": ["legal.jsonl"], "report": ["run_a"], "compare": ["run_a", "run_b"]}[command]


RUNS = None  # the folder of the two finished runs (fixture ``runs``), for analysis.report and compare


def files_for(folder: Path) -> None:
    """What the generated arguments may name: a regular file, the golden deals (all, and
    the legal ones alone) and copies of the two runs where a test has them."""
    (folder / "a-file.txt").write_text("not a folder\n")
    (folder / "golden.jsonl").write_text(GOLDEN_TEXT)
    (folder / "legal.jsonl").write_text("".join(json.dumps(c) + "\n" for c in GOLDEN_CASES
                                               if "error" not in c["expect"]))
    for name in ("run_a", "run_b") if RUNS else ():
        shutil.copytree(RUNS / name, folder / name)


def argv_items(command: str):
    """One generated argument or two: a known flag and its value, a switch, an unknown flag,
    a flag missing its value, or a stray word."""
    valued, switches = FLAGS[command]
    with_value = st.sampled_from(sorted(valued)).flatmap(lambda f: valued[f].map(lambda v: [f, v]))
    items = [with_value, with_value, with_value,
             st.sampled_from(sorted(valued)).flatmap(lambda f: valued[f].map(lambda v: [f"{f}={v}"])),
             st.sampled_from(sorted(valued)).map(lambda f: [f]),
             st.sampled_from(["--bogus", "-x", "--", "-", "--games=", "--gam"]).map(lambda f: [f]),
             TEXT.map(lambda w: [w])]
    if switches:
        items.append(st.sampled_from(switches).map(lambda f: [f]))
    return st.lists(st.one_of(items), max_size=6).map(lambda parts: [a for part in parts for a in part])


# --- Properties -----------------------------------------------------------------------------

@pytest.mark.parametrize("examples", EXAMPLES)
@pytest.mark.parametrize("command", list(COMMANDS))
def test_generated_flags_succeed_or_fail_in_one_line(command, examples, request):
    if command in ("report", "compare"):
        request.getfixturevalue("runs")  # played before the commands are stopped
    request.getfixturevalue("stopped")

    def prop(extra):
        status, err = outcome(command, base_argv(command) + extra)
        assert_clean(status, err, (0, 1) if command == "replay" else (0,))

    check(argv_items(command), examples, prop)


@pytest.mark.parametrize("examples", EXAMPLES)
@pytest.mark.parametrize("command", ["run", "show", "match", "ladder", "sweep"])
def test_generated_set_options_succeed_or_fail_in_one_line(command, examples, stopped):
    def prop(game, options):
        argv = base_argv(command) + ["--game", game] + [a for o in options for a in ("--set", o)]
        assert_clean(*outcome(command, argv))

    check(st.tuples(st.sampled_from(GAME_NAMES), st.lists(SET_OPTIONS, min_size=1, max_size=3)),
          examples, lambda drawn: prop(*drawn))


TOML_FILES = st.one_of(
    st.lists(st.builds(lambda key, value: f"{key} = {value}", st.sampled_from(OPTION_NAMES), TOML_VALUES),
             max_size=4).map(lambda lines: "\n".join(lines)),
    st.lists(st.builds(lambda key, value: f"[{key.split('.')[0]}]\n{key.split('.')[1]} = {value}",
                       st.sampled_from(OPTION_NAMES), TOML_VALUES), max_size=3).map("\n".join),
    st.sampled_from(["[exchange", "= 1", "exchange = 1", "[exchange]\n[exchange]", "\ufeffx = 1", "a.b.c = 1"]),
    TEXT,
)


@pytest.mark.parametrize("examples", EXAMPLES)
@pytest.mark.parametrize("command", ["run", "show", "match", "ladder", "sweep"])
def test_generated_variant_files_succeed_or_fail_in_one_line(command, examples, stopped):
    def prop(game, text):
        argv = base_argv(command) + ["--game", game, "--rules", "variant.toml"]
        assert_clean(*outcome(command, argv, {"variant.toml": text}))

    check(st.tuples(st.sampled_from(GAME_NAMES), TOML_FILES), examples, lambda drawn: prop(*drawn))


# --- Replay lines ---------------------------------------------------------------------------

def _containers(inner):
    """Lists and objects of ``inner`` values."""
    return st.one_of(st.lists(inner, max_size=4), st.dictionaries(TEXT, inner, max_size=3))


JSON_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(), TEXT,
              st.sampled_from([0.0, 1.0, -0.0, "0", "1", "AS", "CG", "H", "P", 10**30])),
    _containers, max_leaves=8)
FIELDS = ["game", "rules", "dealer", "hands", "stock", "discards", "calls", "trump", "trump_exchange", "play",
          "expect", "note"]


@st.composite
def replay_lines(draw) -> str:
    """A golden deal mutated: a field (or an item inside it) of another type, a field
    missing or extra, or the whole line nested deeply."""
    case = json.loads(json.dumps(draw(st.sampled_from(GOLDEN_CASES))))
    for _ in range(draw(st.integers(1, 3))):
        key = draw(st.sampled_from(FIELDS + ["extra"]))
        how = draw(st.sampled_from(["replace", "delete", "item", "nest"]))
        if how == "delete":
            case.pop(key, None)
        elif how == "item" and isinstance(case.get(key), (list, dict)) and case[key]:
            inner = case[key]
            at = draw(st.sampled_from(sorted(inner) if isinstance(inner, dict) else range(len(inner))))
            inner[at] = draw(JSON_VALUES)
        elif how == "nest":
            case[key] = json.loads(nested(draw(st.integers(1, 200)), json.dumps(case.get(key))))
        else:
            case[key] = draw(JSON_VALUES)
    line = json.dumps(case, allow_nan=True)
    return draw(st.sampled_from([line, line, line, nested(5_000, line), "{" + line, line + " x"]))


@pytest.mark.parametrize("examples", EXAMPLES)
@pytest.mark.parametrize("command", ["replay", "solve"])
def test_generated_replay_lines_succeed_or_fail_in_one_line(command, examples, stopped):
    def prop(lines, engine):
        extra = ["--engine", engine] if command == "replay" else []
        status, err = outcome(command, ["deals.jsonl", *extra], {"deals.jsonl": "\n".join(lines) + "\n"})
        assert_clean(status, err, (0, 1) if command == "replay" else (0,))

    check(st.tuples(st.lists(replay_lines(), min_size=1, max_size=3), st.sampled_from(["reference", "kernel"])),
          examples, lambda drawn: prop(*drawn))


# --- The Python API -----------------------------------------------------------------------

API_VALUES = st.one_of(st.sampled_from([1.0, 0.0, True, "1", "1e6", float("nan"), float("inf"), 2**70, -1, b"1",
                                        None, "deals", "dealer_advantage:0.5", "9" * 5000]), JSON_VALUES)
API_RULES = st.dictionaries(st.sampled_from(sorted({o.split(".")[0] for o in OPTION_NAMES})),
                            st.one_of(API_VALUES, st.dictionaries(st.sampled_from(sorted({o.split(".")[1] for o in
                                                                                          OPTION_NAMES})),
                                                                  API_VALUES, max_size=2)), max_size=2)
API_SEATS = st.one_of(st.sampled_from([0, 1, 2, 3, -1, "0", "1", "all", " 1", 0.0, 1.0, True, False, None]), TEXT)
API_POLICIES = st.one_of(API_VALUES, POLICY, st.lists(st.one_of(POLICY, API_VALUES), max_size=3),
                         st.dictionaries(API_SEATS, st.one_of(SPEC, API_VALUES), max_size=3))
API_DEALINGS = st.one_of(API_VALUES, st.builds(lambda dealer, upcard: dealing.parse("deals", dealer, upcard),
                                              st.sampled_from([None, "0", "1"]), st.sampled_from([None, "ace", "numeral"])))
API_ARGUMENTS = st.fixed_dictionaries({}, optional={
    **{key: API_VALUES for key in ("games", "seed", "block_size", "threads", "records", "until", "dd")},
    "game": st.one_of(st.sampled_from(GAME_NAMES), API_VALUES), "policies": API_POLICIES, "dealing": API_DEALINGS,
    "rules": st.one_of(API_VALUES, API_RULES), "set_options": st.one_of(st.lists(SET_OPTIONS, max_size=2), TEXT,
                                                                        API_VALUES)})


def on_one_line(value):
    """``value`` with every line break in its strings (and keys) made a space: the Python
    API's errors quote values as they are given."""
    if isinstance(value, str):
        return value.translate({ord(c): " " for c in LINE_BREAKS})
    if isinstance(value, (list, tuple)):
        return [on_one_line(v) for v in value]
    if isinstance(value, dict):
        return {on_one_line(k): on_one_line(v) for k, v in value.items()}
    return value


@pytest.mark.parametrize("examples", EXAMPLES)
def test_generated_api_arguments_succeed_or_raise_one_line(examples, stopped):
    """sim.simulate takes what the command line takes, or raises a ValueError or TypeError
    of one line (given values of one line)."""
    from sim.api import simulate

    def prop(arguments):
        with tempfile.TemporaryDirectory() as folder:
            try:
                simulate(out=Path(folder, "run"), **{"games": 2, **arguments})
            except Checked:
                pass
            except (ValueError, TypeError) as exc:
                assert str(exc) and "\n" not in str(exc), repr(exc)

    check(API_ARGUMENTS.map(on_one_line), examples, prop)


# --- Hand-checked cases ---------------------------------------------------------------------

BRIDGETTE_CASE = next(c for c in GOLDEN_CASES if c["game"] == "bridgette")


@pytest.mark.parametrize("command", ["replay", "solve"])
@pytest.mark.parametrize("field, value, message", [
    ("dealer", 0.0, '"dealer" must be a seat 0..1 (an integer), got 0.0'),
    ("dealer", True, '"dealer" must be a seat 0..1 (an integer), got true'),
    ("dealer", "0", '"dealer" must be a seat 0..1 (an integer), got "0"'),
    ("hands", [["AS", 1]], '"hands" must be a list of card lists, got [["AS", 1]]'),
    ("play", None, '"play" must be a list of cards, got null'),
    ("trump_exchange", 3, '"trump_exchange" must be a list of card lists or null, got 3'),
    ("expect", {"score": [500.0, 0]}, '"expect.score" must be a list of integers, got [500.0, 0]'),
    ("expect", {"scores": [500, 0]}, '"expect" has no field "scores"'),
    ("game", 5, '"game" must be a string, got 5'),
])
def test_a_field_of_the_wrong_type_is_one_line_naming_it(command, field, value, message, tmp_path, stopped):
    path = tmp_path / "deals.jsonl"
    path.write_text(json.dumps(BRIDGETTE_CASE) + "\n" + json.dumps({**BRIDGETTE_CASE, field: value}) + "\n")
    status, err = outcome(command, [str(path)])
    assert status == 2 and err.startswith(f"python -m sim.{command}: error: {path}: line 2: {message}")
    assert err.count("\n") == 1


@pytest.mark.parametrize("command", ["replay", "solve"])
@pytest.mark.parametrize("line, message", [
    (nested(100_000, "1"), "line 1: nested too deeply"),
    ('{"game": "bridgette", "rules": ' + nested(100_000, "{}") + "}", "line 1: nested too deeply"),
    ('{"game": "bridgette", "dealer": ' + "9" * 5000 + "}", "line 1: a number of 5,000 digits"),
    ('{"game": "bridgette", "hands": [], "stock": [], "dealer": 0, "x": "a\\nb", "rules": {"a\\nb": 1}}',
     "line 1: "),
])
def test_deep_nesting_huge_numbers_and_line_breaks_are_one_line(command, line, message, tmp_path, stopped):
    path = tmp_path / "deals.jsonl"
    path.write_text(line + "\n")
    status, err = outcome(command, [str(path)])
    assert status == 2 and message in err and err.count("\n") == 1 and "Traceback" not in err


def test_a_plot_under_a_regular_file_names_the_file_and_keeps_it(stopped, tmp_path):
    """The plot is drawn only where a PNG may go and over nothing but the sweep's own plot: a
    user's text or image, even under a .png name, is kept."""
    notes = tmp_path / "notes.txt"
    notes.write_text("not a folder\n")
    picture = tmp_path / "holiday.png"
    image = next((Path(__file__).resolve().parents[1] / "docs" / "img").glob("*.png")).read_bytes()
    picture.write_bytes(image)
    kept = "it exists and is not this sweep's plot, so it is kept; choose another --plot"
    for plot, problem in [(notes / "x.png", f"cannot write the plot {notes / 'x.png'}: {notes} is a file, not a folder"),
                          (notes / "sub" / "x.png",
                           f"cannot write the plot {notes / 'sub' / 'x.png'}: {notes} is a file, not a folder"),
                          (notes, f"--plot {notes}: the plot is a PNG image; give a path ending in .png"),
                          (tmp_path / "fig", f"--plot {tmp_path / 'fig'}: the plot is a PNG image; give a path ending "
                                             "in .png"),
                          (picture, f"cannot write the plot {picture}: {kept}")]:
        argv = base_argv("sweep") + ["--plot", str(plot)]
        assert outcome("sweep", argv) == (2, f"python -m sim.sweep: error: {problem}\n")
    assert notes.read_text() == "not a folder\n"
    assert picture.read_bytes() == image


DEEP_LIST = nested(3000, "")


@pytest.mark.parametrize("command", ["run", "show", "match", "ladder", "sweep"])
@pytest.mark.parametrize("value", [DEEP_LIST, "{a = " * 3000 + "1" + "}" * 3000])
def test_toml_nested_too_deeply_is_one_line(command, value, stopped):
    """The line is matched at its ends: a sweep's names the setting in between."""
    for argv, files, problem in [
            (["--set", f"deck.colons={value}"], {}, "--set deck.colons: the value nests lists or tables too deeply"),
            (["--rules", "deep.toml"], {"deep.toml": f"a = {value}\n"}, "rules file deep.toml nests lists or tables "
                                                                         "too deeply")]:
        status, err = outcome(command, base_argv(command) + argv, files)
        assert status == 2 and err.startswith(f"python -m sim.{command}: error: ") and err.count("\n") == 1
        assert err.endswith(f"{problem} to be read\n"), err


def test_conditions_nested_too_deeply_are_one_line(stopped):
    argv = ["--deals", "2", "--quiet", "--conditions", "deep.toml"]
    assert outcome("run", argv, {"deep.toml": f"[seat0]\nhcp = {DEEP_LIST}\n"}) == \
        (2, "python -m sim.run: error: conditions file deep.toml nests lists or tables too deeply to be read\n")


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_line_break_in_an_argument_shows_as_backslash_n(command, stopped):
    assert outcome(command, base_argv(command) + ["--bogus=a\nb"]) == \
        (2, f"python -m {COMMANDS[command]}: error: unrecognized arguments: --bogus=a\\nb (see --help)\n")


@pytest.mark.parametrize("argv, message", [
    (["--games", "1\n2"], "argument --games: '1\\n2' is not a number (see --help)"),
    (["--games", "1\r2"], "argument --games: '1\\r2' is not a number (see --help)"),
    (["--games", "2", "--set", "a\u2028b"], "--set needs KEY=VALUE with a dotted option name, got 'a\\u2028b'"),
])
def test_line_breaks_in_a_value_keep_the_error_on_one_line(argv, message, stopped):
    assert outcome("run", argv) == (2, f"python -m sim.run: error: {message}\n")


def test_a_name_too_long_for_the_system_is_one_line(stopped):
    """Names longer than a file name may be (255 bytes here) end as any missing name does."""
    from sim.api import resolve_rules
    from sim.rules import RulesError

    from sim.cli import one_line

    long = "9" * 5000
    status, err = outcome("run", base_argv("run") + ["--rules", long])
    assert status == 2 and err.count("\n") == 1 and len(err) < 2_100  # the name is quoted in part
    assert err.startswith(f"python -m sim.run: error: no rules file '{long[:1000]}")
    assert "characters left out" in err and err.endswith(", draw-bridge-show-stock-top)\n")
    with pytest.raises(RulesError, match=f"^no rules file '{long}' and no shipped variant of that name"):
        resolve_rules("bridgette", long)
    assert outcome("ladder", base_argv("ladder") + ["--out", long]) == \
        (2, f"python -m sim.ladder: error: {one_line(f'cannot create output folder {long}: File name too long')}\n")
    assert outcome("compare", [long, long]) == \
        (2, f"python -m analysis.compare: error: "
            f"{one_line(f'{long} cannot be read as a run folder: File name too long')}\n")


@pytest.mark.parametrize("arguments, error, message", [
    ({"policies": {"all": 5}}, TypeError,
     "policies: seat 'all' needs a policy such as 'heuristic' or 'pimc:worlds=2', got 5"),
    ({"policies": ["0=random", 5]}, TypeError,
     "policies must be a 'SEAT=NAME[:param=value,...]' string or a list of them, got ['0=random', 5]"),
    ({"policies": 5}, TypeError, "policies must be a 'SEAT=NAME[:param=value,...]' string or a list of them, got 5"),
    ({"policies": {0.0: "random"}}, ValueError, "policies: seat 0.0 does not exist in bridgette (seats 0..1 or all)"),
    ({"policies": {True: "random"}}, ValueError, "policies: seat True does not exist in bridgette (seats 0..1 or all)"),
    ({"set_options": [None]}, TypeError, "set_options must be a 'TABLE.KEY=VALUE' string or a list of them, got [None]"),
    ({"dealing": 5}, TypeError, 'dealing must be a sim.dealing.Dealing (sim.dealing.parse("deals", ...)) or None, got 5'),
    ({"game": ["bridgette"]}, TypeError,
     "game must be a game's name (bridgette, draw-bridge, bid-euchre) or None, got ['bridgette']"),
    ({"dd": "yes"}, TypeError, "dd must be True or False, got 'yes'"),
    ({"rules": 5}, TypeError,
     "rules must be a dict of option tables, a TOML file's path or a shipped variant's name, got 5"),
    ({"out": 5}, TypeError, "out must be a folder's path or None, got 5"),
])
def test_api_arguments_of_the_wrong_kind_name_the_argument(arguments, error, message, stopped, tmp_path):
    from sim.api import simulate

    with pytest.raises(error) as raised:
        simulate(**{"games": 2, "out": tmp_path / "run", **arguments})
    assert str(raised.value) == message


def test_api_arguments_in_each_documented_form_are_taken(stopped, tmp_path):
    from sim.api import resolve_policies, resolve_rules, simulate

    for n, arguments in enumerate([{"games": 1.0}, {"games": "1e6"}, {"policies": {"1": "random"}}, {"dd": True},
                                   {"set_options": "exchange.upcard_to=dead"}, {"dealing": dealing.parse("deals", "1")}]):
        with pytest.raises(Checked):  # stopped where the first block would be played
            simulate(**{"games": 2, "out": tmp_path / f"run{n}", **arguments})
    assert resolve_rules("bridgette", None, "exchange.upcard_to=dead").exchange.upcard_to == "dead"
    assert [str(p) for p in resolve_policies("bridgette", {"1": "random", 0: "random"})] == ["random", "random"]
    assert [str(p) for p in resolve_policies("bridgette", "1=random")] == ["heuristic", "random"]


def test_an_output_folder_under_a_regular_file_names_the_file_and_keeps_it(runs, stopped, tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("not a folder\n")
    for command in ("run", "ladder", "report"):
        argv = base_argv(command)
        error = f"python -m {COMMANDS[command]}: error: "
        for out in (notes / "x", notes / "x" / "y"):
            assert outcome(command, argv + ["--out", str(out)]) == \
                (2, f"{error}cannot use output folder {out}: {notes} is a file, not a folder\n")
        assert outcome(command, argv + ["--out", str(notes)]) == (2, f"{error}output folder {notes} is a file\n")
    assert notes.read_text() == "not a folder\n"


@pytest.mark.parametrize("command", [c for c in COMMANDS if c != "compare"])  # its --metrics may come again
def test_a_flag_of_one_value_given_twice_is_refused(command, runs, stopped):
    """argparse keeps the last value and drops the first without a word (before: --games 3
    --games 4 played 4 games, --stratify twice the second stratification)."""
    flag, value = {"run": ("--games", "3"), "show": ("--seed", "2"), "match": ("--games", "3"),
                   "ladder": ("--games", "3"), "sweep": ("--games", "3"), "replay": ("--engine", "kernel"),
                   "solve": ("--at", "play3"), "report": ("--out", "r")}[command]
    argv = base_argv(command) + [flag, value, flag, value]
    status, err = outcome(command, argv)
    assert status == 2 and err.startswith(f"python -m {COMMANDS[command]}: error: ") and err.count("\n") == 1
    assert " is given twice: give it once" in err and flag in err

def test_an_output_folder_through_a_link_to_nowhere_names_the_link(runs, stopped, tmp_path):
    """A link whose target is gone, as --out or above it: mkdir says only "File exists"; the
    line names the link and where it leads, and nothing is made at either end."""
    link, gone = tmp_path / "scratch", tmp_path / "gone"
    link.symlink_to(gone)
    for command in ("run", "ladder", "report"):
        argv = base_argv(command)
        for out in (link, link / "x"):
            assert outcome(command, argv + ["--out", str(out)]) == \
                (2, f"python -m {COMMANDS[command]}: error: cannot create output folder {out}: {link} is a link "
                    f"to {gone}, which does not exist\n")
    argv = base_argv("sweep") + ["--plot", str(link / "x.png")]
    assert outcome("sweep", argv) == (2, f"python -m sim.sweep: error: cannot write the plot {link / 'x.png'}: "
                                         f"{link} is a link to {gone}, which does not exist\n")
    # A plot given as a link, to nothing or to a file: the plot would replace the link.
    plot, target = tmp_path / "plot.png", tmp_path / "gone.png"
    plot.symlink_to(target)
    for made in (False, True):
        argv = base_argv("sweep") + ["--plot", str(plot)]
        assert outcome("sweep", argv) == (2, f"python -m sim.sweep: error: cannot write the plot {plot}: it is a "
                                             f"link to {target}, so it is kept; give the plot's own path\n")
        assert plot.is_symlink() and target.exists() == made
        target.write_bytes(b"")
    assert not gone.exists() and link.is_symlink()

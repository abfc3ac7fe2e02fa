"""``python -m sim.decisions``: where the points go, one searched decision at a time.

The players are checked field by field in the kernels' records (each differs from the
heuristic in one decision's worlds alone), and the table's rows against sim.match run on
its own for the same players.
"""

import json
import re

import pytest

from sim import decisions
from sim.api import resolve_rules
from sim.match import main as match_main
from sim.policies import parse_policy

WORLD_PARAMS = ("call_worlds", "exchange_worlds", "draw_worlds", "worlds")


@pytest.mark.parametrize("game", ["bridgette", "draw-bridge", "bid-euchre"])
def test_each_player_searches_one_decision_and_shares_the_heuristics_parameters(game):
    search = parse_policy("search:aggression=0.5", game)
    players = decisions.one_decision_players(game, search)
    offered = dict(search.params)
    searched = [param for _, param in decisions.DECISIONS if offered.get(param, 0) > 0]
    assert [d for d, *_ in players] == [d for d, param in decisions.DECISIONS if param in searched]
    rule_ids = {"bridgette": "B-", "draw-bridge": "D-", "bid-euchre": "E-"}
    for (decision, rules, a, b), param in zip(players, searched):
        # the rules that decide it in this game alone (Bid Euchre's ids in Bridgette's rows before)
        assert all(r.startswith((rule_ids[game], "C-")) for r in rules.split(", ")), rules
        row, base = a.row(), search.row()
        assert b.name == "heuristic"
        assert row["heuristic"] == b.row()["heuristic"] == base["heuristic"]
        assert row["heuristic"]["aggression"] == 0.5
        on = [p for p in WORLD_PARAMS if p in offered and (row["search"][p] if p in row["search"].dtype.names
                                                           else row["pimc"][p]) > 0]
        assert on == [param]


def test_the_table_is_the_matches_of_sim_match(capsys):
    """Two decisions of a light searched player (few worlds), each row against sim.match
    run on its own for the same two players."""
    search = parse_policy("search:worlds=2,draw_worlds=1", "draw-bridge")
    short = ["--set", "game.target=40", "--set", "scoring.undertricks=bridge"]  # games of a few deals
    rules = resolve_rules("draw-bridge", None, [s for s in short if s != "--set"])
    rows = decisions.where_points_go("draw-bridge", 2, seed=4, search=search, rules=rules,
                                     only=("calls", "draw phase"))
    assert [r["decision"] for r in rows] == ["calls", "draw phase"]
    assert [r["rules"] for r in rows] == ["C-4, D-3", "D-2"]  # the rules each decision is made by
    assert all(r["rule_options"] == {"game": {"target": 40}, "scoring": {"undertricks": "bridge"}} for r in rows)
    for r in rows:
        assert match_main(["--game", "draw-bridge", "--a", r["a"], "--b", r["b"], "--games", "2", "--seed", "4",
                           *short, "--json"]) == 0
        alone = json.loads(capsys.readouterr().out)
        assert alone["mean_diff_per_deal"] == pytest.approx(r["mean_diff_per_deal"])
        assert alone["a_game_win_rate"] == r["a_game_win_rate"]
        assert 0 <= r["a_game_win_ci95"][0] <= r["a_game_win_ci95"][1] <= 1


@pytest.mark.parametrize("argv,named", [
    (["--games", "2", "--only", "bids"], "unknown decision 'bids'"),
    (["--games", "2", "--search", "heuristic"], "--search takes the search policy"),
    (["--games", "2", "--search", "search:worlds=0,call_worlds=0,exchange_worlds=0"], "searches none"),
    (["--games", "0"], "--games"),
    (["--games", "2", "--only", "draw phase"], "bridgette has no draw phase to search (its decisions: calls, "
                                               "exchange, card play)"),
    (["--games", "2", "--only", "calls,calls"], "--only names 'calls' twice"),  # measured twice before
    # Left out of the table in silence before: asked for by name, it is said.
    (["--games", "2", "--search", "search:worlds=0", "--only", "card play,exchange"],
     "--search search:worlds=0 does not search card play (worlds=0)"),
    # Reached before the first match: "playing calls ..." printed before the error was a second line.
    (["--games", "2", "--cluster", "tcp://127.0.0.1:1"], "cannot reach the Dask scheduler at tcp://127.0.0.1:1"),
])
def test_bad_input_is_one_line_and_status_2(argv, named, capsys):
    try:
        code = decisions.main(["--game", "bridgette", *argv])
    except SystemExit as stop:  # argparse's own checks
        code = stop.code
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and named in err[0]


@pytest.mark.parametrize("kwargs,error,named", [
    (dict(only=[]), ValueError, "only names no decision"),  # an empty list of rows before
    (dict(only=["zzz"]), ValueError, "unknown decision 'zzz' in only"),
    (dict(only="calls"), ValueError, "only takes a list of decisions"),
    (dict(search="heuristic"), ValueError, "search takes the search policy, got 'heuristic'"),
    (dict(search=5), TypeError, "search must be a search policy or its text"),
    (dict(search=parse_policy("search", "bridgette")), ValueError,  # a KeyError before
     "search holds the parameters of bridgette, not of bid-euchre"),
    (dict(rules=resolve_rules("bid-euchre", "bid-euchre-double-deck")), ValueError, "search search"),
])
def test_the_python_api_checks_what_the_command_checks(kwargs, error, named):
    """decisions.where_points_go refuses what the command refuses, naming its arguments;
    nothing is played (each refusal comes before the first match)."""
    with pytest.raises(error, match=re.escape(named)):
        decisions.where_points_go("bid-euchre", 2, **kwargs)


def test_the_double_deck_is_refused_naming_the_search_flag(capsys):
    """Bid Euchre's double deck is beyond a player that samples worlds, as the searched player
    does: one line naming --search, the flag given, before anything is played."""
    assert decisions.main(["--game", "bid-euchre", "--rules", "bid-euchre-double-deck", "--games", "2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("python -m sim.decisions: error: --search search: Bid Euchre's double deck")


def test_table_columns_stay_apart_when_an_interval_cannot_be_given():
    """With one game pair there is no interval of the games won, and its words still leave
    the two columns apart (before, they ran together: '...+372.83]50.0% (no ...')."""
    row = {"decision": "calls", "mean_diff_per_deal": -33.33, "ci95": [-439.5, 372.83], "a_game_win_rate": 0.5,
           "a_game_win_ci95": None, "points_and_wins_disagree": None}
    line = decisions.table_lines([row])[1]
    assert "+372.83]  " in line and line.endswith("50.0% (no interval from one pair)")


def test_the_matches_play_on_the_cluster_reached_once_with_its_threads(monkeypatch):
    """sim.decisions reaches its cluster once and plays every match on it with the threads
    it chose per worker (before: the matches reopened it without them, and a local:N
    cluster's workers each took every core)."""
    import contextlib

    import sim.cluster

    opened, played = [], []

    @contextlib.contextmanager
    def fake_cluster(address, threads):
        opened.append(address)
        yield type("Pool", (), {"client": "the client", "threads": 3})()

    monkeypatch.setattr(sim.cluster, "open_cluster", fake_cluster)
    monkeypatch.setattr(decisions, "play_match", lambda *args: played.append(args[-2:]) or {"rules": {}})
    decisions.where_points_go("bridgette", 2, search=parse_policy("search", "bridgette"), cluster="local:2")
    assert opened == ["local:2"] and played and set(played) == {("the client", 3)}


def test_the_text_names_the_rules_played(monkeypatch, capsys):
    """Its second line says the rules, as sim.run's and sim.match's do (before: none)."""
    row = {"decision": "calls", "a": "search:worlds=0", "b": "heuristic", "mean_diff_per_deal": 1.0, "ci95": None,
           "a_game_win_rate": 0.5, "a_game_win_ci95": None, "points_and_wins_disagree": None}
    monkeypatch.setattr(decisions, "where_points_go", lambda *args: [row])
    assert decisions.main(["--game", "bid-euchre", "--rules", "bid-euchre-joker", "--games", "2"]) == 0
    assert capsys.readouterr().out.splitlines()[1] == "rules: variant.joker=true"

"""Levels: what a control is (policies, double dummy, hand features), a level played in
chunks with its per-deal values and choices, and a finished deal run read as a level."""

from __future__ import annotations

import json
import os
import stat
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sim.cli import differing
from sim.contract import CONTRACT_ONLY
from sim.games import game_info
from sim.multilevel.estimator import LevelData, MultilevelError

# What reading a level's .npz may raise when the file is not one this release wrote whole.
UNREADABLE = (OSError, ValueError, EOFError, zipfile.BadZipFile)


def load_level(path: Path) -> dict:
    """A level file's arrays; a ValueError where ``path`` is no level file: not a file (a
    pipe would be read for good), no archive of arrays (numpy's words of pickles before),
    or one cut short or altered (zipfile's "File is not a zip file" before)."""
    if not stat.S_ISREG(os.stat(path).st_mode):
        raise ValueError("it is not a file (a pipe, a device or a folder in its place)")
    try:
        held = np.load(path)
        if not isinstance(held, np.lib.npyio.NpzFile):
            raise ValueError("a single array")
        with held:
            return {k: held[k] for k in held.files}
    except (ValueError, zipfile.BadZipFile, EOFError):
        raise ValueError("it is no whole level file (an archive of arrays): cut short, altered or another "
                         "file") from None


@dataclass(frozen=True)
class Level:
    """A control level: ``policies`` (seat specs as --policy takes them) on the same deals,
    ``dd`` its contracts scored on their double-dummy tricks, ``par`` its deals scored at
    par, or the ``hand`` features."""

    text: str
    kind: str  # "policies", "dd", "par" or "hand"
    policies: tuple = ()

    @property
    def name(self) -> str:
        return self.text

    @property
    def scored(self):
        """How its deals are scored (``LevelPlayer``'s ``dd``): as played (False), on the
        contracts' double-dummy tricks (True) or at par ("par")."""
        return {"dd": True, "par": "par"}.get(self.kind, False)


def parse_level(text: str) -> Level:
    """``all=heuristic``, ``0=pimc:worlds=2;1=heuristic`` (seats apart by ';'),
    ``dd:all=heuristic``, ``par:all=heuristic`` (``dd``, ``par`` alone: the heuristic's)
    or ``hand``."""
    text = str(text).strip()
    if text == "hand":
        return Level("hand", "hand")
    kind = "policies"
    body = text
    for scored in ("dd", "par"):
        if text == scored:
            kind, body = scored, "all=heuristic"
        elif text.startswith(scored + ":"):
            kind, body = scored, text[len(scored) + 1:]
    seats = tuple(s.strip() for s in body.split(";"))
    if not all("=" in s for s in seats):  # an empty entry too (";;", a ';' at the end)
        raise MultilevelError(f"--control needs SEAT=POLICY[;SEAT=POLICY...], dd:SEAT=POLICY, par:SEAT=POLICY or "
                              f"hand, got '{text}'")
    named = [s.partition("=")[0].strip() for s in seats]
    twice = next((seat for k, seat in enumerate(named) if seat in named[:k]), None)
    if twice is not None:
        raise MultilevelError(f"--control '{text}' gives seat {twice} twice")
    return Level(text, kind, seats)


def dd_scored(game: str, rules, deals):
    """Deal rows of a --dd run as if each contract reached had been played double dummy:
    the declarer takes the contract's double-dummy tricks, and both scores follow from the
    game's scoring (the referee's score_deal, tied to the kernels' score tables by the
    differential tests); passed-out deals are unchanged."""
    from kernels.calls import BID_LEVEL, BID_STRAIN
    from sim.par import STRAINS, _game

    score_deal = _game(rules)[0]
    out = deals.copy()
    contract = out["contract"].astype(np.int64)
    tricks = out["dd_tricks"].astype(np.int64)
    played = (contract >= 0) & (tricks >= 0)
    cache = {}
    for i in np.flatnonzero(played):
        key = (int(contract[i]), int(out["doubled"][i]), int(tricks[i]))
        if key not in cache:
            cache[key] = score_deal(rules, int(BID_LEVEL[key[0]]), STRAINS[int(BID_STRAIN[key[0]])], key[1], key[2])
        gain, loss = cache[key]
        declarer = int(out["declarer"][i])
        out[f"score{declarer}"][i], out[f"score{1 - declarer}"][i] = gain, loss
        out[f"tricks{declarer}"][i], out[f"tricks{1 - declarer}"][i] = tricks[i], 13 - tricks[i]
    return out


def par_scored(deals):
    """Deal rows of a --dd run with each seat's score replaced by its par score (sim.par's:
    both sides bidding and playing perfectly on the hands after these players' exchange);
    the other columns stay the players' own."""
    out = deals.copy()
    for seat in (0, 1):
        out[f"score{seat}"] = deals[f"par_score{seat}"]
    return out


def score_table(rules) -> np.ndarray:
    """(declarer's score, the other's) of every contract and trick count under ``rules``:
    an array [level 0..7, strain C D H S NT, doubled 0..2, declarer tricks 0..13, 2] from the
    referee's score_deal (sim.par's choice of it for the game); bids the game has not are 0."""
    from sim.par import STRAINS, _game

    score_deal = _game(rules)[0]
    out = np.zeros((8, 5, 3, 14, 2), dtype=np.int64)
    for level in range(8):
        for s, strain in enumerate(STRAINS):
            for doubled in range(3):
                for tricks in range(14):
                    try:
                        out[level, s, doubled, tricks] = score_deal(rules, level, strain, doubled, tricks)
                    except ValueError:  # a bid the game does not have (0C, Draw Bridge's 0NT)
                        pass
    return out


TRICK_SHIFTS = (-2, -1, 1, 2)  # the level's tricks moved by these, in its outcome columns
CONTRACT_SHIFTS = (-2, -1, 0, 1)  # the contract's tricks needed, moved by these


def choice_columns(dealer, declarer, level, doubled, declarer_tricks, strain=None, scores=None) -> np.ndarray:
    """A contract game's per-deal choices and outcomes of a level, from the dealer's side
    (one row per deal): whether the dealer declared (+1), the other did (-1) or the deal
    was passed out (0), and that sign times the contract's level, its being made, its
    doubling and the declarer's tricks above the contract; with ``strain`` (0..4) and
    ``scores`` (score_table), the dealer's advantage had the declarer taken the level's
    tricks moved by each of TRICK_SHIFTS, and the contract's tricks needed moved by each of
    CONTRACT_SHIFTS. They say what the level's players did on the cards and how much a
    trick more or less was worth there, so they help predict a stronger player's result on
    the same cards; being a level's values, their means are estimated as its metric's."""
    level = np.asarray(level, dtype=np.int64)
    played = level >= 0
    declarer = np.asarray(declarer, dtype=np.int64)
    dealer = np.asarray(dealer, dtype=np.int64)
    doubled = np.asarray(doubled, dtype=np.int64)
    tricks = np.asarray(declarer_tricks, dtype=np.int64)
    sign = np.where(played, np.where(declarer == dealer, 1.0, -1.0), 0.0)
    over = np.where(played, tricks - 6 - level, 0)
    made = played & (over >= 0)
    cols = [sign, sign * np.maximum(level, 0), sign * made, sign * doubled, sign * over, played.astype(float)]
    if scores is not None:
        lv, st = np.maximum(level, 0), np.maximum(np.asarray(strain, dtype=np.int64), 0)
        dbl = np.clip(doubled, 0, 2)

        def advantage(t):
            pair = scores[lv, st, dbl, np.clip(t, 0, 13)]
            return np.where(played, sign * (pair[:, 0] - pair[:, 1]), 0.0)

        cols += [advantage(tricks + k) for k in TRICK_SHIFTS]
        cols += [advantage(6 + lv + k) for k in CONTRACT_SHIFTS]
    return np.column_stack(cols)


CHOICE_COLUMNS = 6 + len(TRICK_SHIFTS) + len(CONTRACT_SHIFTS)  # choice_columns with the scores
MOST_SECONDS = 1e9  # a level's playing time, far beyond any run's: more is not a time


CHECKSUM_ARRAY = "checksum"  # a level file's seal: a value edited by hand is named, never estimated from


def level_checksum(arrays: dict) -> str:
    """The checksum of a level file's arrays (but its own): each one's name, type, shape and
    bytes, in the order of their names."""
    from sim.store import digest

    parts = []
    for name in sorted(k for k in arrays if k != CHECKSUM_ARRAY):
        a = np.ascontiguousarray(arrays[name])
        parts += [name.encode(), a.dtype.str.encode(), repr(a.shape).encode(), a.tobytes()]
    return digest(b"\0".join(parts))


def _played_by_these_kernels(arrays: dict) -> bool:
    """Whether a level file's key names the kernels of this release (every release with
    these kernels seals its level files)."""
    import kernels

    try:
        return json.loads(str(arrays["key"])).get("kernels") == kernels.SOURCE_DIGEST
    except (KeyError, ValueError, TypeError, AttributeError):
        return False


def level_values(arrays: dict, metrics: int, contract: bool):
    """(values, choices, use_choices, seconds) of a level file's ``arrays``, checked to be
    what LevelPlayer.save wrote and nothing else: per metric k, ``y{k}`` and ``n{k}`` of
    numbers, finite, of one length, the counts whole and not negative; ``seconds`` (time,
    deals and time of the largest
    chunk) finite, not negative, a whole count; in a contract game, unless unused,
    ``choices``: at least a row per deal of CHOICE_COLUMNS finite numbers. Anything else,
    a damaged or edited file, is a ValueError saying what: an estimate is never made from
    it."""
    def numbers(name, dims):
        a = np.asarray(arrays[name])
        if a.dtype.kind not in "biuf" or a.ndim != dims:
            raise ValueError(f"{name} is not a {'table' if dims == 2 else 'list'} of numbers")
        a = a.astype(np.float64)
        if not np.isfinite(a).all():
            raise ValueError(f"{name} holds a value that is not a finite number")
        return a

    written = {"key", "seconds", "use_choices", "choices", CHECKSUM_ARRAY,
               *(f"{v}{k}" for k in range(metrics) for v in "yn")}
    other = sorted(set(arrays) - written)
    if other:
        raise ValueError(f"it holds {other[0]}, which no level writes")
    # An older release's file has none: read as it is, field by field, as an unsealed JSON file.
    if CHECKSUM_ARRAY in arrays and str(arrays[CHECKSUM_ARRAY]) != level_checksum(arrays):
        raise ValueError("it is damaged (its checksum does not match its content)")
    if CHECKSUM_ARRAY not in arrays and _played_by_these_kernels(arrays):
        raise ValueError("it is damaged or edited (its checksum, which every release with these kernels writes, "
                         "is gone)")
    try:
        values = [(numbers(f"y{k}", 1), numbers(f"n{k}", 1)) for k in range(metrics)]
        seconds = numbers("seconds", 1)
        use_choices = arrays["use_choices"]
        choices = numbers("choices", 2) if "choices" in arrays else None
    except KeyError as exc:
        raise ValueError(f"it holds no {exc.args[0]}") from None
    deals = len(values[0][0])
    if any(len(y) != deals or len(n) != deals for y, n in values):
        raise ValueError("its arrays differ in length")
    if any((n < 0).any() for _, n in values):
        raise ValueError("a count is negative")
    if any((n != np.floor(n)).any() for _, n in values):
        raise ValueError("a count is not a whole number")
    if (seconds.shape != (3,) or (seconds < 0).any() or seconds[0] > MOST_SECONDS
            or seconds[1] != np.floor(seconds[1])):
        raise ValueError("its seconds are not a level's times")
    if np.asarray(use_choices).shape != () or np.asarray(use_choices).dtype.kind != "b":
        raise ValueError("use_choices is not true or false")
    use_choices = bool(use_choices)
    if choices is None and contract and use_choices and deals:
        raise ValueError("it holds no choices")
    if choices is not None and (len(choices) < deals or choices.shape[1] != CHOICE_COLUMNS):
        raise ValueError(f"its choices are not a row of {CHOICE_COLUMNS} per deal")
    return values, choices, use_choices, tuple(float(x) for x in seconds)


def _row_choices(deals, scores) -> np.ndarray | None:
    """choice_columns of kernel deal rows; None for a game without a declarer (Bid Euchre)."""
    names = deals.dtype.names
    if "contract" not in names or "declarer" not in names:
        return None
    from kernels.calls import BID_LEVEL, BID_STRAIN

    contract = deals["contract"].astype(np.int64)
    level = np.where(contract >= 0, BID_LEVEL[np.maximum(contract, 0)], -1)
    strain = np.where(contract >= 0, BID_STRAIN[np.maximum(contract, 0)], 0)
    tricks = np.where(deals["declarer"] == 0, deals["tricks0"], deals["tricks1"])
    return choice_columns(deals["dealer"], deals["declarer"], level, deals["doubled"], tricks, strain, scores)


class _TableSchema:
    """A chunk's Arrow tables seen as a run for sim.metrics.custom_metric (its columns)."""

    def __init__(self, deals, games):
        from sim.run_records import table_columns

        import pyarrow as pa

        def columns(table):
            texts = [f.name for f in table.schema if pa.types.is_dictionary(f.type)]
            return table_columns(table.schema, table.select(texts) if texts else None)

        self._schema = {"deals": columns(deals), "games": columns(games)}
        self.records, self.path = "deals", "the level's deals"

    def schema(self):
        return self._schema

    def has(self, kind):
        return True


class LevelPlayer:
    """Plays deals of one level in chunks and keeps each metric's per-deal y and n;
    ``dd``: a --dd run's deals with their contracts scored double dummy (True) or at par
    ("par")."""

    def __init__(self, game, rules, policies, seed, plan, dd, metrics, name):
        from sim.games import game_module

        self.game, self.rules, self.policies, self.seed, self.plan = game, rules, policies, seed, plan
        self.dd, self.metrics, self.name = dd, list(metrics), name
        self.module, self.info = game_module(game), game_info(game)
        self.bound = [None if _is_custom(m) else m for m in self.metrics]
        self.values = [(np.zeros(0), np.zeros(0)) for _ in self.metrics]
        self.choices = None  # choice_columns of the deals played, for contract games
        self.use_choices = True
        self.scores = None
        self.seconds = 0.0
        self.largest = (0, 0.0)  # (deals, seconds) of the largest chunk played: the cost per deal
        self.warm = False
        self.pool = None  # a sim.cluster.Cluster whose workers play the chunks; None: this process
        # What its blocks compute double dummy: a contract game's dd level reads only the
        # contract's tricks (one search a deal, not a --dd run's ten for the table and one
        # a card); par needs the whole --dd run.
        self.dd_run = CONTRACT_ONLY if dd is True and self.info.dd_solver == "contract" else bool(dd)

    @property
    def deals(self) -> int:
        return len(self.values[0][0])

    def _block(self, first, count):
        """The deal and game rows of deals first .. first + count - 1: played here, or cut
        into pieces that the cluster's workers play, joined in order (deal i is a pure
        function of the seed and i, so the rows are the same)."""
        job = (self.game, self.rules, self.policies, self.seed)
        if self.pool is None:
            return _played(*job, first, count, self.dd_run, self.plan)
        n = min(count, PIECES_PER_WORKER * len(self.pool.workers()))
        cuts = [first + count * i // n for i in range(n + 1)]
        parts = list(self.pool.map(_played, [(*job, lo, hi - lo, self.dd_run, self.plan)
                                             for lo, hi in zip(cuts, cuts[1:])], ordered=True))
        return tuple(np.concatenate(rows) for rows in zip(*parts))

    def _scored(self, first, count):
        """The deal and game rows of ``_block``, a dd level's contracts scored."""
        deals, games = self._block(first, count)
        if self.dd == "par":
            deals = par_scored(deals)
        elif self.dd:
            deals = dd_scored(self.game, self.rules, deals)
        return deals, games

    def _bind(self, tables) -> None:
        """Each custom metric not yet bound, bound to the columns of the level's tables."""
        from sim.metrics import custom_metric

        for k, metric in enumerate(self.metrics):
            if self.bound[k] is None:
                self.bound[k] = custom_metric(metric, [_TableSchema(*tables)])

    def bind(self) -> None:
        """The custom metrics bound, as the first chunk played binds them: a level resumed
        whole, with nothing left to play, plays its first deal again for its columns."""
        if any(b is None for b in self.bound):
            deals, games = self._scored(0, 1)
            self._bind((self.module.deal_table(self.rules, deals, self.policies), self.module.game_table(games)))

    def _values(self, first, count):
        deals, games = self._scored(first, count)
        if self.scores is None and self.info.dd_solver == "contract":
            self.scores = score_table(self.rules)
        rows = _row_choices(deals, self.scores)
        if rows is not None and len(rows) != count:
            self.use_choices, rows = False, None
        if rows is not None:
            order = np.argsort(deals["game"], kind="stable")  # one counted deal per game in a deal run
            self.choices = rows[order] if self.choices is None else np.concatenate([self.choices, rows[order]])
        tables = (self.module.deal_table(self.rules, deals, self.policies), self.module.game_table(games))
        self._bind(tables)
        out = []
        for m in self.bound:
            if m.definition is not None:
                out.append(m.per_game(self.info, *tables, first, count))
            else:  # as sim.run_records reads a builtin metric's columns
                kind = 0 if m.records == "deals" else 1
                cols = {c: tables[kind].column(c).to_numpy(zero_copy_only=False)
                        for c in ["game", *m.columns_for(self.game)]}
                out.append(m.per_game(self.info, cols if kind == 0 else None, cols if kind == 1 else games,
                                      first, count))
        return out

    def key(self) -> str:
        """What the level's deals are a pure function of: a saved level is resumed only
        when this is the same, the kernels that play them included (as a run folder's
        configuration: a level is never finished by other kernels)."""
        import kernels
        from sim.version import RULES_VERSION

        key = {"game": self.game, "rules": self.rules.to_dict(), "policies": [str(p) for p in self.policies],
               "seed": self.seed, "plan": self.plan.tobytes().hex(), "dd": bool(self.dd),
               "metrics": [getattr(m, "text", None) or m.name for m in self.metrics],
               "kernels": kernels.SOURCE_DIGEST, "rules_version": RULES_VERSION}
        if self.dd == "par":
            key["par"] = True
        return json.dumps(key, sort_keys=True)

    def save(self, path: Path) -> None:
        """The deals played so far, their values and time, into ``path`` (whole or not at all)."""
        import io

        from sim.store import write_atomic

        arrays = {f"y{k}": y for k, (y, _) in enumerate(self.values)}
        arrays.update({f"n{k}": n for k, (_, n) in enumerate(self.values)})
        if self.choices is not None:
            arrays["choices"] = self.choices
        arrays.update(key=np.array(self.key()), seconds=np.array([self.seconds, *self.largest]),
                      use_choices=np.array(self.use_choices))
        arrays[CHECKSUM_ARRAY] = np.array(level_checksum(arrays))
        buffer = io.BytesIO()
        np.savez(buffer, **arrays)
        write_atomic(path, buffer.getvalue())

    def resume(self, path: Path) -> bool:
        """Take the deals ``path`` holds (False where it holds none). They must be this same
        level's: a file of another level, or one that cannot be read, is a MultilevelError
        in one line, before anything is played, as the deals it holds are not to be
        overwritten (as a plain run refuses a folder of another configuration)."""
        if not path.exists():
            return False
        try:
            arrays = load_level(path)
            key = str(arrays["key"])
        except (*UNREADABLE, KeyError) as exc:
            raise MultilevelError(f"cannot read {path} ({exc}); remove it to play its level again, or use another "
                                  f"--out") from None
        if key != self.key():
            try:
                theirs, mine = json.loads(key), json.loads(self.key())
                differ = differing(mine, theirs)
            except (ValueError, TypeError, AttributeError):  # not a key this release wrote
                differ = ["key"]
            if set(differ) <= {"kernels", "rules_version"}:
                raise MultilevelError(f"{path} holds deals played by other kernels than this release's (differs in: "
                                      f"{', '.join(differ)}); use another --out")
            if differ == ["metrics"]:
                written = _written_otherwise(theirs["metrics"], mine["metrics"])
                if written is not None:
                    raise MultilevelError(f"{path} was played with the metric {written}, the same metric written "
                                          f"otherwise: give --metrics as the folder has it, or use another --out")
            raise MultilevelError(f"{path} holds the deals of another level than {self.name} (differs in: "
                                  f"{', '.join(differ)}); use another --out")
        try:
            values, choices, use_choices, (seconds, count, spent) = level_values(
                arrays, len(self.metrics), self.info.dd_solver == "contract")
        except ValueError as exc:
            raise MultilevelError(f"cannot read {path} (not a level file this release wrote: {exc}); remove it to "
                                  "play its level again, or use another --out") from None
        self.values, self.choices, self.use_choices = values, choices, use_choices
        self.seconds, self.largest = seconds, (int(count), spent)
        return True

    def play_to(self, deals: int, chunk: int = 20_000, store: Path | None = None) -> None:
        """Play on until the first ``deals`` deals are held, in chunks of at most ``chunk``
        deals and about a minute each, saved to ``store`` after each one."""
        if not self.warm:  # compile (or load) the kernels outside the timing
            if self.pool is not None:  # on every worker, checked to run this version
                self.pool.warm_up(self.game, self.rules, self.policies)
                one = (self.game, self.rules, self.policies, self.seed, 0, 1, self.dd_run, self.plan)
                list(self.pool.map(_played, [one] * len(self.pool.workers())))
            else:
                self._block(0, 1)
            self.warm = True
        while self.deals < deals:
            first = self.deals
            per = self.per_deal()
            count = min(chunk, deals - first, max(100, int(60 / per)) if per > 0 else chunk)
            began = time.perf_counter()
            got = self._values(first, count)
            spent = time.perf_counter() - began
            self.seconds += spent
            if count >= self.largest[0]:
                self.largest = (count, spent)
            self.values = [(np.concatenate([y0, np.asarray(y, float)]), np.concatenate([n0, np.asarray(n, float)]))
                           for (y0, n0), (y, n) in zip(self.values, got)]
            if store is not None:
                self.save(store)

    def per_deal(self) -> float:
        """Seconds per deal of the largest chunk played (a small chunk's are mostly the
        call's own cost)."""
        return self.largest[1] / max(self.largest[0], 1)

    def data(self, deals: int | None = None, metric: int = 0) -> LevelData:
        m = self.deals if deals is None else deals
        y, n = self.values[metric]
        extra = None if self.choices is None or not self.use_choices else self.choices[:m]
        return LevelData(self.name, y[:m], n[:m], self.seconds * m / max(self.deals, 1),
                         (self.seed, self.plan.tobytes()), extra)


PIECES_PER_WORKER = 4  # a chunk played on a cluster is cut into this many pieces per worker


def _played(game, rules, policies, seed, first, count, dd, plan):
    """The game's run_block, here or on a cluster worker."""
    from sim.games import game_module

    return game_module(game).run_block(rules, policies, seed, first, count, dd, plan)


def _written_otherwise(theirs, mine) -> str | None:
    """The first custom metric of a level file (``theirs``, its key's metric texts) that
    this run gives written otherwise (``mine``): the file's text of it, where every other
    metric is the same; else None."""
    from sim.custom import same_definition

    if not isinstance(theirs, list) or len(theirs) != len(mine):
        return None
    apart = [(t, m) for t, m in zip(theirs, mine) if t != m]
    for t, m in apart:
        name, eq, first = t.partition("=") if isinstance(t, str) else ("", "", "")
        other_name, _, second = m.partition("=")
        if not eq or name.strip() != other_name.strip() or not same_definition(name.strip(), first.strip(),
                                                                                second.strip()):
            return None
    return apart[0][0] if apart else None


def _is_custom(metric) -> bool:
    from sim.custom import Custom

    return isinstance(metric, Custom)


def _dd_scored_columns(rules, table) -> dict:
    """score0, score1, tricks0 and tricks1 of a --dd run's deal records (an Arrow table) as
    if each contract reached had been played double dummy (dd_scored's rule)."""
    from sim.par import _game

    score_deal = _game(rules)[0]
    level = table.column("level").to_numpy(zero_copy_only=False).astype(np.int64)
    strain = table.column("strain").to_pylist()
    declarer = table.column("declarer").to_numpy().astype(np.int64)
    doubled = table.column("doubled").to_numpy().astype(np.int64)
    tricks = table.column("dd_tricks").fill_null(-1).to_numpy().astype(np.int64)
    cols = {c: table.column(c).to_numpy().astype(np.int64).copy() for c in ("score0", "score1", "tricks0", "tricks1")}
    cache = {}
    for i in np.flatnonzero((level >= 0) & (tricks >= 0)):
        key = (int(level[i]), strain[i], int(doubled[i]), int(tricks[i]))
        if key not in cache:
            cache[key] = score_deal(rules, *key)
        d = int(declarer[i])
        cols[f"score{d}"][i], cols[f"score{1 - d}"][i] = cache[key]
        cols[f"tricks{d}"][i], cols[f"tricks{1 - d}"][i] = tricks[i], 13 - tricks[i]
    return cols


def level_from_run(path, metric="dealer_advantage", dd: bool = False, name: str | None = None,
                   choices: bool = True) -> LevelData:
    """A finished deal run's per-deal values of ``metric`` (a builtin name or a custom
    definition) as a level; ``dd``: its contracts scored double dummy (a --dd run's);
    ``choices``: with its choice_columns (contract games)."""
    import pyarrow as pa

    from sim.resolve import check_kind, check_switch, resolve_rules
    from sim.metrics import custom_metric, resolve_metrics
    from sim.run_records import RunRecords

    dd = check_switch("dd", dd)
    check_kind("name", name, str, "a level's name (text) or None")
    run = RunRecords(path)
    if not run.deal_run:
        raise MultilevelError(f"{path} plays whole games; a level is a deal run (--deals)")
    if dd and not run.config.get("dd"):
        raise MultilevelError(f"{path} was played without --dd: its contracts have no double-dummy tricks to "
                              f"score (play it with --dd, or read it with dd=False)")
    spec = resolve_metrics([metric] if isinstance(metric, str) else metric, deal_run=True)[0]
    bound = custom_metric(spec, [run]) if _is_custom(spec) else spec
    ys, ns = [], []
    if not dd:
        for _, _, values in run.per_game([bound]):
            ys.append(values[bound.name][0])
            ns.append(values[bound.name][1])
    else:
        if bound.records != "deals" or bound.game_columns:
            raise MultilevelError("a double-dummy level reads deal metrics only")
        rules = resolve_rules(run.game, run.config["rules"])
        needed = sorted(set(bound.columns_for(run.game)) | {"level", "strain", "declarer", "doubled", "dd_tricks",
                                                             "score0", "score1", "tricks0", "tricks1"})
        for index, first, count in run.blocks():
            table = run.read_table("deals", index, needed)
            for col, values in _dd_scored_columns(rules, table).items():
                table = table.set_column(table.column_names.index(col), col, pa.array(values))
            source = table if bound.definition is not None else {c: table.column(c).to_numpy(zero_copy_only=False)
                                                                  for c in table.column_names}
            y, n = bound.per_game(run.info, source, None, first, count)
            ys.append(y)
            ns.append(n)
    seconds = (run._manifest.get("timing") or {}).get("seconds")
    key = (run.seed, json.dumps(run.dealing, sort_keys=True))
    extra = None
    needed = ["level", "declarer", "dealer", "doubled", "tricks0", "tricks1"]
    if choices and all(c in run.schema().get("deals", {}) for c in needed):
        parts = []
        rules = resolve_rules(run.game, run.config["rules"])
        scores = score_table(rules)
        for index, first, count in run.blocks():
            table = run.read_table("deals", index, needed + ["strain"] + (["dd_tricks", "score0", "score1"] if dd
                                                                            else []))
            cols = {c: table.column(c).to_numpy(zero_copy_only=False) for c in ["game", *needed]}
            if dd:
                cols.update(_dd_scored_columns(rules, table))
            if len(cols["game"]) != count:
                parts = None
                break
            order = np.argsort(cols["game"], kind="stable")
            d = np.asarray(cols["declarer"])
            tricks = np.where(d == 0, cols["tricks0"], cols["tricks1"])
            from sim.par import STRAINS

            strain = np.array([-1 if v is None else STRAINS.index(v) for v in table.column("strain").to_pylist()])
            parts.append(choice_columns(cols["dealer"], d, cols["level"], cols["doubled"], tricks, strain,
                                        scores)[order])
        extra = None if not parts else np.concatenate(parts)
    return LevelData(name or str(path), np.concatenate(ys), np.concatenate(ns), seconds, key, extra)

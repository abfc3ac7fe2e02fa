"""A run's identity and the errors of run folders: the configuration a folder is
the run of (``RunConfig``), its blocks, the one-line errors (``RunError``,
``DamagedError``), and the names of the run folders inside a sweep's or a stratified
run's folder."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from sim.cli.parser import one_line
from sim.version import RULES_VERSION


class RunError(ValueError):
    """A run folder that cannot be used for this run. Its words are one line: a path or a
    value it quotes is shown with its control characters escaped (sim.cli.one_line)."""

    def __str__(self) -> str:
        return one_line(super().__str__())


class DamagedError(RunError):
    """A file of a run folder that is missing, cut short or altered: ``why``, in words."""

    def __init__(self, path: Path, why: str):
        super().__init__(f"{path} {why}")
        self.path, self.why = path, why


RECORD_MODES = ("deals", "games", "none")
# The Parquet files each --records mode keeps.
RECORD_KINDS = {"deals": ("deals", "games"), "games": ("games",), "none": ()}
LOCK_NAME = ".lock"
# Keys a block file holds beside its aggregates: its records' {name: {bytes, blake2b}}, the
# digest of its run's configuration (a block copied in from another run is named) and its
# own checksum. The manifest has none: any change to its configuration is refused as
# another run's, and the blocks it lists as done are checked by their own files.
RECORD_FILES, RUN, CHECKSUM = "record_files", "run", "checksum"

# The run folders a sweep and a stratified run keep in their own folders, named here so that
# the commands that make them and the readers that tell an unfinished one (``reading``) agree:
# a sweep's setting, numbered in the grid's order with its options; a stratum, by its name.
SETTING_FOLDER = r"\d{2,}-[^=]+=.*"
STRATUM_FOLDER = r"stratum-.+"
# What a multilevel run (sim.multilevel) keeps in its folder: its levels' deals, its pilot's
# sizes and its estimate.
LEVEL_FILES = r"(target|control-\d+)\.npz|multilevel\.json|pilot\.json"


def setting_folder(index: int, options: list[str]) -> str:
    """A sweep setting's run folder: its number and its options (``KEY=VALUE,...``), each
    character a file name may not hold made ``_``."""
    return f"{index:02d}-" + re.sub(r"[^A-Za-z0-9._=,+-]", "_", ",".join(options))


def stratum_folder(name: str) -> str:
    """A stratum's run folder in its stratified run's folder."""
    return f"stratum-{name}"


class Blocks(Sequence):
    """(block index, first game, number of games) of a run's blocks, made only when asked
    for, as ``range`` makes its numbers: a run of 2**53 games has too many blocks to list.
    Slices are Blocks too."""

    def __init__(self, games: int, block_size: int, indices: range | None = None):
        self.games, self.block_size = games, block_size
        self.indices = range(-(-games // block_size)) if indices is None else indices

    def __len__(self) -> int:
        return len(self.indices)

    def __getitem__(self, k):
        if isinstance(k, slice):
            return Blocks(self.games, self.block_size, self.indices[k])
        index = self.indices[k]
        first = index * self.block_size
        return index, first, min(self.block_size, self.games - first)


@dataclass(frozen=True)
class RunConfig:
    """Everything that decides a run's records; two runs with equal configs are equal."""

    game: str
    rules: dict
    policies: list
    seed: int
    games: int
    block_size: int
    records: str
    policy_params: list = field(default_factory=list)  # each seat's kernel parameter row, by name
    until: str | None = None  # --until METRIC:WIDTH; ``games`` is then the cap
    dd: bool = False  # --dd: the deal records hold double-dummy values (sim.dd_run)
    dealing: dict | None = None  # a deal run's sim.dealing.Dealing; ``games`` then counts deals

    def blocks(self) -> Blocks:
        """(block index, first game, number of games) of every block, as a lazy sequence."""
        return Blocks(self.games, self.block_size)

    def identity(self) -> dict:
        """The configuration plus what else decides the records: the rules version and the
        kernels' source hash (a changed policy default or heuristic makes another run)."""
        import kernels

        config = asdict(self)
        if config["until"] is None:
            del config["until"]  # runs without --until keep the identity they always had
        if not config["dd"]:
            del config["dd"]  # and runs without --dd
        if config["dealing"] is None:
            del config["dealing"]  # and game runs
        return dict(config, rules_version=RULES_VERSION, kernels=kernels.SOURCE_DIGEST)

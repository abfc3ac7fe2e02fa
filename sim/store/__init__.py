"""Run folders: manifest, Parquet records one file per block, block aggregates, summary.

    runs/<name>/manifest.json      the configuration, versions and which blocks are done
    runs/<name>/records/deals-000003.parquet, games-000003.parquet
    runs/<name>/blocks/000003.json the block's aggregates and its records' sizes and
                                   checksums (written last: marks it done)
    runs/<name>/summary.json       statistics of the whole run
    runs/<name>/.lock              who writes the folder now (pid, host, start time)

Every file is written to a temporary name and renamed into place, so an interrupted run
(Ctrl-C, kill -9) leaves only whole files; rerunning the same command redoes the blocks
not marked done and ends with the same records as an uninterrupted run.

The folder checks itself: each block file holds the sizes and checksums of its records and
its own, the manifest the summary's, so a resume plays again any block whose files are
missing or damaged (a block is a pure function of the run: it comes out the same), and
readers name a damaged file instead of reading it. One process writes a folder at a time
(``FolderLock``).

The package keeps its concerns apart, a file per concern:

- ``config``: a run's identity (``RunConfig``, its blocks), the errors of run folders, and
  the names of the run folders a sweep or a stratified run keeps in its own;
- ``checksums``: sizes and checksums, sealed JSON, what is wrong with a damaged file;
- ``writing``: whole files or none (temporary names renamed into place);
- ``lock``: one writer per folder, and claiming a folder for a command;
- ``folder``: a run folder being written and resumed (``RunFolder``);
- ``reading``: a finished run's manifest, summary and records, checked.

Every name other modules use is importable from ``sim.store`` itself.
"""

from sim.store.config import (  # noqa: F401
    Blocks, CHECKSUM, DamagedError, LOCK_NAME, RECORD_FILES, RECORD_KINDS, RECORD_MODES, RunConfig, RunError,
    LEVEL_FILES, SETTING_FOLDER, STRATUM_FOLDER, setting_folder, stratum_folder,
)
from sim.store.checksums import digest, file_entry, file_problem, read_sealed, run_digest, sealed  # noqa: F401
from sim.store.writing import (  # noqa: F401
    TEMPORARY, csv_bytes, csv_safe, remove_dead_temporaries, temporary, write_atomic, write_json, write_records,
)
from sim.store.lock import (  # noqa: F401
    FolderLock, claim, holds_levels, holds_runs, listing, lost_manifest, make_folder, refuse_foreign,
)
from sim.store.folder import RunFolder, block_aggregates, record_entries  # noqa: F401
from sim.store.reading import (  # noqa: F401
    check_records, finished_manifest, load_records, read_block, read_manifest, read_summary, run_path,
)

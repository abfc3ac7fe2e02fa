"""python -m analysis.report RUN_DIR | SWEEP_DIR | MULTILEVEL_DIR | A B [--out DIR] [--metrics M1,M2]

Writes a self-contained HTML report into DIR: index.html, its plots as PNG files beside
it, and every table as a CSV file; each page opens with a headline box of the answers. One
run folder (sim.run) gets its run report (default DIR: RUN_DIR/report); a stratified
folder (sim.strata) its strata; a sweep folder (sim.sweep) the sweep report, each metric
against the varied setting (default DIR: SWEEP_DIR-report, beside it); a multilevel folder
(``sim.run --deals N --control LEVEL``) its estimates, beside the plain ones, with the
variance saved and its levels (default DIR: MULTILEVEL_DIR-report, beside it); two folders
of the same game the comparison report, B - A with paired or unpaired intervals as
analysis.compare gives it: two runs (default DIR: RUN_B/report-vs-<RUN_A's name>), two
stratified runs (also B - A in each stratum) or two multilevel folders (beside the plain
paired difference of their targets' deals); for these two, DIR defaults to
B-report-vs-<A's name>, beside B.

The package: page (the HTML page, tables, CSV), plots (plot helpers), run (the run
report), comparison, sweep and multilevel (their reports).
"""

from __future__ import annotations

from pathlib import Path

# The package's API: what the games' sections (analysis.games) and the tests import.
from analysis.report.page import CSS, Report, Table, as_written, cell_html, csv_header, csv_row, figure, inline, \
    is_report_folder, pct, report_folder, _num, _round
from analysis.report.plots import COLORS, blank, grouped_rates, hist_panel, mean_points, pct_err, \
    rate_bars
from analysis.report.run import Section, advantage_table, build_report, build_strata_report, dealing_rows, \
    headline_box, run_section, score_section, side_label, source_line, source_words
from analysis.tables import ReportError
from sim.cli import OneLineParser, path_text



def build(paths, out=None, metrics=None) -> Path:
    """The report the folders call for (see the module's docstring); the path of index.html.
    ``paths``: one folder (a path), or a list of one folder or of two to compare;
    ``metrics``: --metrics texts of a comparison."""
    import os

    from analysis.report.comparison import build_comparison_report
    from analysis.report.sweep import build_sweep_report, is_sweep
    from sim.multilevel.folders import is_multilevel_folder
    from sim.resolve import check_path

    paths = [paths] if isinstance(paths, (str, os.PathLike)) else paths
    if not isinstance(paths, (list, tuple)) or len(paths) not in (1, 2) or not all(
            isinstance(p, (str, os.PathLike)) for p in paths):
        raise ReportError(f"give one folder, or two to compare (paths), got {paths!r:.80}")
    try:
        for name, path in [*(("paths", p) for p in paths), ("out", out)]:
            check_path(name, path)
    except (TypeError, ValueError) as exc:
        raise ReportError(str(exc)) from None
    if metrics is not None and not (isinstance(metrics, str) or isinstance(metrics, (list, tuple))
                                    and all(isinstance(m, str) for m in metrics)):
        raise ReportError(f"metrics must be a --metrics text or a list of them, got {metrics!r:.60}")
    if len(paths) == 2:
        if is_multilevel_folder(paths[0]) and is_multilevel_folder(paths[1]):
            from analysis.report.multilevel import build_multilevel_comparison

            return build_multilevel_comparison(paths[0], paths[1], out, metrics)
        return build_comparison_report(paths[0], paths[1], out, metrics)
    if metrics is not None:
        raise ReportError("--metrics applies to a comparison of two folders (A B) only")
    if is_sweep(Path(paths[0])):
        return as_written(Path(paths[0]) / "sweep.json", "python -m sim.sweep",
                          lambda: build_sweep_report(paths[0], out))
    if is_multilevel_folder(paths[0]):
        from analysis.report.multilevel import build_multilevel_report

        return build_multilevel_report(paths[0], out)
    return build_report(paths[0], out)


def main(argv=None) -> int:
    from sim.metrics import MetricsError

    p = OneLineParser(prog="python -m analysis.report", description=__doc__.split("\n\n")[1])
    p.add_argument("folders", type=path_text, nargs="+", metavar="FOLDER",
                   help="a finished run folder (sim.run), a stratified run's folder (sim.strata), a sweep "
                        "folder (sim.sweep) or a multilevel folder (sim.run --control); or two folders of a kind "
                        "(runs, stratified runs or multilevel folders) of one game, A (the baseline) and B, to "
                        "compare")
    p.add_argument("--out", type=path_text, metavar="DIR",
                   help="folder for index.html, PNG and CSV files (default: RUN_DIR/report; "
                        "SWEEP_DIR-report; RUN_B/report-vs-<RUN_A's name>; B-report-vs-<A's name> for two stratified "
                        "runs or multilevel folders)")
    p.add_argument("--metrics", action="append", metavar="M1,M2,...",
                   help="with two folders: the metrics to compare, as analysis.compare takes them (default all)")
    args = p.parse_args(argv)
    if len(args.folders) > 2:
        p.error(f"give one folder, or two to compare; got {len(args.folders)}")
    try:
        path = build(args.folders, args.out, args.metrics)
    except (ReportError, MetricsError) as exc:
        return p.fail(exc)
    except OSError as exc:  # a report folder that takes no file: read-only, full, too long a name
        return p.fail(f"cannot write {exc.filename or 'the report'}: {exc.strerror or exc}")
    print(path if args.out is not None else _shown(path))
    return 0


def _shown(path: Path) -> Path:
    """The page of a report written to its default folder, relative to the current folder
    where it lies within it, as a run's report is shown (the other kinds' default folders
    are found as absolute paths); else, or with no current folder to go by, as it is."""
    try:
        return path.relative_to(Path.cwd()) if path.is_absolute() else path
    except (ValueError, OSError):
        return path

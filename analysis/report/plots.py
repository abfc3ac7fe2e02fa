"""Plot helpers of the reports: rates and means with their 95% intervals, histograms."""

from __future__ import annotations

import numpy as np

from analysis.report.page import _num, pct
from analysis.tables import Hist

COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")


def pct_err(rates) -> np.ndarray:
    """Wilson interval of each rate as (below, above) distances in percent, for yerr."""
    err = np.zeros((2, len(rates)))
    for k, r in enumerate(rates):
        if r and r["rate"] is not None:
            err[:, k] = 100 * (r["rate"] - r["ci95"][0]), 100 * (r["ci95"][1] - r["rate"])
    return np.maximum(err, 0)  # rounding can put a rate of 0 or 1 a hair outside its interval


def rate_bars(ax, rates, offset=0.0, width=0.8, **kw):
    """Bars of rates in percent with their 95% Wilson intervals."""
    x = np.arange(len(rates)) + offset
    ax.bar(x, [pct(r) for r in rates], width, yerr=pct_err(rates), capsize=3,
           error_kw={"elinewidth": 1, "ecolor": "#333"}, **kw)


def mean_points(ax, descs, x=None, **kw):
    """Means with their 95% intervals, as points with error bars."""
    x = np.arange(len(descs)) if x is None else x
    mean = np.array([d["mean"] if d and d.get("n") else np.nan for d in descs])
    err = np.array([[d["mean"] - d["mean_ci95"][0], d["mean_ci95"][1] - d["mean"]] if d and d.get("mean_ci95")
                    else [0, 0] for d in descs]).T
    ax.errorbar(x, mean, yerr=err, fmt="o", capsize=4, **kw)


def grouped_rates(ax, labels, series: dict, ylabel="%"):
    """Several series of rates side by side per label, with intervals and a legend."""
    width = 0.8 / len(series)
    for k, (name, rates) in enumerate(series.items()):
        rate_bars(ax, rates, offset=(k - (len(series) - 1) / 2) * width, width=width,
                  color=COLORS[k % len(COLORS)], label=name)
    ax.set_xticks(np.arange(len(labels)), labels)
    ax.set_ylabel(ylabel)
    ax.legend()
    ax.grid(axis="y", alpha=0.3)


def hist_panel(ax, hists: list[Hist], labels: list[str], unit: str, what: str):
    """Exact histograms side by side: a bar per value when the values span little, else a
    stepped histogram over 50 bins with a log scale (a few values dominate)."""
    tables = [h.as_dict() for h in hists if h.n]
    if not tables:
        return
    lo = min(t["values"][0] for t in tables)
    hi = max(t["values"][-1] for t in tables)
    for k, (h, label) in enumerate(zip(hists, labels)):
        if not h.n:
            continue
        d = h.describe()
        t = h.as_dict()
        values, share = np.array(t["values"]), 100 * np.array(t["counts"]) / h.n
        name = f"{label}: mean {_num(d['mean'])} [{_num(d['mean_ci95'][0])}, {_num(d['mean_ci95'][1])}]"
        if hi - lo <= 60:
            width = 0.8 / len(hists)
            ax.bar(values + (k - (len(hists) - 1) / 2) * width, share, width, color=COLORS[k], label=name)
        else:
            edges = np.linspace(lo, hi + 1, 51)
            counts, _ = np.histogram(values, bins=edges, weights=share)
            ax.stairs(counts, edges, color=COLORS[k], label=name, linewidth=1.5)
            ax.set_yscale("log")
        ax.axvline(d["p50"], color=COLORS[k], linestyle="--", linewidth=1)
    ax.set_xlabel(f"{what} ({unit})")
    ax.set_ylabel(f"% of {what.split()[-1]}s" if hi - lo <= 60 else "% per bin (log scale)")
    ax.legend(title="dashed: median; 95% interval of the mean")
    ax.grid(alpha=0.3)



def blank(ax, text: str) -> None:
    """An empty panel that says why it is empty."""
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes, color="#777")
    ax.set_axis_off()


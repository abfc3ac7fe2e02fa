"""What only one game's analyses have: one module per game, named by its declaration
(``GameInfo.analysis`` in sim/games.py), plus ``contract`` for what the two contract
games share.

A game's module holds the tallies of its own record columns and its report sections, and
provides ``report_sections(data, agg, scores)``: the game's part of the report as a list
of ``analysis.report.Section`` in page order, with the shared section of scores and game
wins (``scores``) placed where the game wants it. Like the rest of ``analysis``, these
modules never import numba.
"""

from __future__ import annotations

import importlib


def analysis_module(info):
    """The analysis module of a game's declaration."""
    return importlib.import_module(info.analysis)

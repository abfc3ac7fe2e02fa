"""The package's version and the rules version its runs record, apart from the package's
start-up (sim/__init__.py), so the run folders below it can read them."""

__version__ = "0.1.0"

# Moves only when a rule or policy change changes simulated outcomes (DESIGN point 10).
RULES_VERSION = 2  # 2: heuristic defaults re-tuned on game wins, Draw Bridge bids by expected score

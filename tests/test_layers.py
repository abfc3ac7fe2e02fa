"""The layers: kernels < sim < analysis, and a lower layer never imports a higher one, so
that the simulator (its runs, --until, sweeps and strata) stands without the analyses and
the kernels without the orchestration. Read from the source with ``ast``: every import,
at the top of a module or inside a function."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("kernels", "sim", "analysis")


def imported(path: Path) -> set[str]:
    """The absolute module names ``path`` imports (``from a.b import c`` gives a.b)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names.add(node.module)
    return names


def upward(package: str) -> dict[str, list[str]]:
    """{file: the modules of higher layers it imports} over every module of ``package``."""
    higher = LAYERS[LAYERS.index(package) + 1:]
    found = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        name = path.relative_to(ROOT).as_posix()
        up = sorted(m for m in imported(path) if m.split(".")[0] in higher)
        if up:
            found[name] = up
    return found


@pytest.mark.parametrize("package", LAYERS[:-1])
def test_no_layer_imports_a_higher_one(package):
    assert upward(package) == {}


def test_the_check_sees_imports_inside_functions(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("import sim.api\n\n\ndef f():\n    from analysis.metrics import METRICS\n    from . import x\n")
    assert imported(module) == {"sim.api", "analysis.metrics"}


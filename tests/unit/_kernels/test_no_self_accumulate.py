"""No running sum or maximum in ``parquet_core`` writes into its own input (issue 32).

numpy 2.x keeps the GIL for the whole of ``ufunc.accumulate`` / ``np.cumsum`` when the
output is the input (``np.cumsum(a, out=a)``, ``np.maximum.accumulate(a, out=a)``):
measured 160,000 uint32 values, 0.5 ms at ~100 % held, against ~5 % into another
array for the same CPU (benchmarks/README.md).  Such a call stalls every other reading
thread's Python, so this checks the source for the pattern (same expression as the
first argument and as ``out=``).  A call may stay when a comment starting ``gil-held:``
in the three lines above it says why (e.g. along axis 0 numpy holds the GIL into any
output, and the alternatives measured dearer).
"""

from __future__ import annotations

import ast
from pathlib import Path

import parquet_core

ROOT = Path(parquet_core.__file__).resolve().parent


def _self_accumulates(tree: ast.AST, lines: list[str] | None = None) -> list[int]:
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        f = node.func
        name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
        if name not in ("cumsum", "cumprod", "accumulate"):
            continue
        out = next((k.value for k in node.keywords if k.arg == "out"), None)
        if out is not None and ast.dump(out) == ast.dump(node.args[0]):
            if lines and any("# gil-held:" in ln for ln in lines[max(node.lineno - 4, 0):node.lineno]):
                continue
            found.append(node.lineno)
    return found


def test_checker_sees_the_pattern() -> None:
    src = ("np.cumsum(m, out=m)\nnp.maximum.accumulate(a[1:], axis=0, out=a[1:])\nnp.cumsum(m, out=o)\n"
           "# gil-held: why\nnp.cumsum(m, out=m)\n")
    assert _self_accumulates(ast.parse(src), src.splitlines()) == [1, 2]


def test_no_accumulate_into_its_own_input() -> None:
    bad = []
    for path in sorted(ROOT.rglob("*.py")):
        text = path.read_text()
        for line in _self_accumulates(ast.parse(text, str(path)), text.splitlines()):
            bad.append(f"{path.relative_to(ROOT.parent)}:{line}")
    assert not bad, "accumulates into their own input (hold the GIL throughout): " + ", ".join(bad)

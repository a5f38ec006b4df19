"""The dataset layer uses the file layer's and its own public doors, not private members.

``ParquetFile.open_in`` / ``ParquetFile.from_source`` open a file with a display
path (no writes to ``_path`` / ``_owned``), ``RowGroupPlanner.plan`` /
``index_ranges`` plan and prefetch (no pushdown privates, no ``_sources``), and
``metadata_file`` reads ``ParquetDataset``'s read-only properties.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATASET = ROOT / "parquet_core" / "dataset"


def _private_uses(path: Path, names: set[str] | None = None) -> list[str]:
    """``x._name`` attribute uses on anything but ``self``/``cls``, and ``from m import _name``."""
    tree = ast.parse(path.read_text())
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            owner = node.value
            if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
                continue
            if names is None or node.attr in names:
                found.append(f"{path.name}:{node.lineno} .{node.attr}")
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("parquet_core"):
            for alias in node.names:
                if alias.name.startswith("_") and (names is None or alias.name in names):
                    found.append(f"{path.name}:{node.lineno} import {alias.name}")
    return found


@pytest.mark.parametrize("module", ["api.py", "dataset.py", "metadata_file.py"])
def test_no_private_file_members_written_or_read(module: str) -> None:
    assert _private_uses(DATASET / module, {"_path", "_owned", "_sources", "_once", "_stat_bounds"}) == []


def test_metadata_file_reads_no_private_member_of_the_dataset() -> None:
    tree = ast.parse((DATASET / "metadata_file.py").read_text())
    bad = [f"{n.lineno} ds.{n.attr}" for n in ast.walk(tree)
           if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "ds"
           and n.attr.startswith("_")]
    assert bad == []


def test_planner_takes_no_any_target() -> None:
    import inspect

    from parquet_core.file.pushdown import RowGroupPlanner, plan_row_groups

    assert inspect.signature(plan_row_groups).parameters["planner"].annotation == "RowGroupPlanner"
    assert callable(RowGroupPlanner.plan) and callable(RowGroupPlanner.index_ranges)

"""What the import contracts in pyproject.toml cannot say by themselves.

* The layers contract lets ``parquet_core.table`` / ``parquet_core.schema`` import
  ``parquet_core.interop`` at a few listed places: each must be a function-level
  import in a method that only delegates (no conversion logic below interop).
* The integrations contract forbids parquet_core's internals by listing them: every
  subpackage and module of parquet_core must be either listed there or public.
* ``parquet_core.table.ingest`` refuses pyarrow / pandas objects it was not given
  converters for, instead of reading them as generic sequences.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]


def _contract(name_start: str) -> dict:
    return next(c for c in CONFIG["contracts"] if c["name"].startswith(name_start))


def _module_path(module: str) -> Path:
    base = ROOT.joinpath(*module.split("."))
    return base / "__init__.py" if base.is_dir() else base.with_suffix(".py")


def _functions(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node


def _imports_of(node: ast.AST, target: str) -> list[ast.ImportFrom | ast.Import]:
    found = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.ImportFrom) and sub.module == target:
            found.append(sub)
        elif isinstance(sub, ast.Import) and any(a.name == target for a in sub.names):
            found.append(sub)
    return found


def test_upward_imports_into_interop_are_thin_delegations() -> None:
    ignored = _contract("parquet_core layers")["ignore_imports"]
    assert ignored, "the layers contract lists its sanctioned upward imports"
    for line in ignored:
        importer, imported = (s.strip() for s in line.split("->"))
        assert imported.startswith("parquet_core.interop."), line
        tree = ast.parse(_module_path(importer).read_text())
        in_functions = []
        for fn in _functions(tree):
            hits = _imports_of(fn, imported)
            if not hits:
                continue
            in_functions += hits
            # the body: an optional docstring, imports, guards that raise, and one return
            body = [s for s in fn.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
            kinds = {type(s).__name__ for s in body}
            assert kinds <= {"ImportFrom", "Import", "Return", "If"}, (line, fn.name, kinds)
            assert sum(isinstance(s, ast.Return) for s in body) == 1, (line, fn.name)
        everywhere = _imports_of(tree, imported)
        assert everywhere and len(everywhere) == len(in_functions), f"{line}: a module-level import"


def _all_modules(package: str) -> set[str]:
    out = set()
    for path in (ROOT / package).rglob("*.py"):
        rel = path.relative_to(ROOT).with_suffix("")
        parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
        out.add(".".join(parts))
    return out


def test_integrations_contract_covers_every_internal_module() -> None:
    contract = _contract("integrations use parquet_core's public API only")
    assert contract["source_modules"] == ["parquet_core_integrations"]
    forbidden = set(contract["forbidden_modules"])
    public = {"parquet_core", "parquet_core.errors", "parquet_core.predicate"}
    for module in _all_modules("parquet_core"):
        if module in public:
            continue
        covered = any(module == f or module.startswith(f + ".") for f in forbidden)
        assert covered, f"{module} is neither public nor forbidden to the integrations"
    assert not forbidden & public


@pytest.mark.parametrize("kind", ["pyarrow", "pandas"])
def test_table_ingest_refuses_foreign_objects_without_converters(kind: str) -> None:
    from parquet_core.interop.ingest import as_table as front_door
    from parquet_core.table.ingest import as_array, as_table

    lib = pytest.importorskip(kind)
    if kind == "pyarrow":
        data, column = lib.table({"a": [1, 2]}), lib.array([1, 2])
    else:
        data, column = lib.DataFrame({"a": [1, 2]}), lib.Series([1, 2])
    with pytest.raises(TypeError, match="interop"):
        as_table(data)
    with pytest.raises(TypeError, match="interop"):
        as_table({"a": column})
    with pytest.raises(TypeError, match="interop"):
        as_array(column)
    # the front door converts both, as before
    assert front_door(data).column("a").to_pylist() == [1, 2]
    assert front_door({"a": column}).column("a").to_pylist() == [1, 2]

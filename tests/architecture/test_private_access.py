"""No module reads a ``_private`` member of another package (an AST check).

A package here is a subpackage of ``parquet_core``, ``spark_adapter`` or
``parquet_core_integrations`` (``parquet_core.file``, ``spark_adapter.core``,
``parquet_core_integrations.kartothek``, ...); a module directly below one of the three
(``parquet_core.errors``) is a package of its own.  Flagged, in a module of package A:

* ``from B.mod import _name`` and ``B.mod._name`` through an imported module;
* ``x._name`` where ``x`` is a class or function imported from B, or a variable or parameter
  annotated with, or assigned from a call of, such a class.

Dunder names are not private.  Each exception is listed in :data:`ALLOWED` with its reason.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("parquet_core", "spark_adapter", "parquet_core_integrations")

#: (module, "package:name" it reads) -> why it may
ALLOWED: dict[tuple[str, str], str] = {
}


def _package(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:2])


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _modules() -> list[tuple[str, Path]]:
    out = []
    for top in PACKAGES:
        for path in sorted((ROOT / top).rglob("*.py")):
            rel = path.relative_to(ROOT).with_suffix("")
            if "generated" in rel.parts:
                continue
            parts = list(rel.parts)
            if parts[-1] == "__init__":
                parts.pop()
            out.append((".".join(parts), path))
    return out


def _resolve(module: str, node: ast.ImportFrom, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")
    base = base if is_package else base[:-1]
    base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _annotation_names(ann: ast.expr | None) -> set[str]:
    if ann is None:
        return set()
    if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
        try:
            ann = ast.parse(ann.value, mode="eval").body
        except SyntaxError:
            return set()
    return {n.id for n in ast.walk(ann) if isinstance(n, ast.Name)}


def _own_nodes(scope: ast.AST) -> list[ast.AST]:
    """The nodes of *scope*, not those of the functions defined inside it (their own scopes)."""
    out: list[ast.AST] = []
    todo = list(ast.iter_child_nodes(scope))
    while todo:
        node = todo.pop()
        out.append(node)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            todo.extend(ast.iter_child_nodes(node))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.extend(node.decorator_list)
    return out


def _typed_by(name: str, annotation: ast.expr | None, foreign: dict[str, str]) -> dict[str, str]:
    hits = [foreign[n] for n in sorted(_annotation_names(annotation)) if n in foreign]
    return {name: hits[0]} if hits else {}


def _violations(module: str, path: Path) -> list[tuple[str, str, int]]:
    """``(module, "package:name", line)`` of every cross-package private read in one module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    mine = _package(module)
    foreign: dict[str, str] = {}     # local name -> package of the module or object it is bound to
    found: list[tuple[str, str, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                # "import a.b.c" binds "a", the top package: only "import ... as x" names a module
                if alias.asname and alias.name.split(".")[0] in PACKAGES and _package(alias.name) != mine:
                    foreign[alias.asname] = _package(alias.name)
        elif isinstance(node, ast.ImportFrom):
            source = _resolve(module, node, path.name == "__init__.py")
            if source.split(".")[0] not in PACKAGES:
                continue
            for alias in node.names:
                # "from parquet_core import file" imports a package: its own package
                target = _package(f"{source}.{alias.name}") if source == "parquet_core" else _package(source)
                if target == mine:
                    continue
                if _private(alias.name):
                    found.append((module, f"{target}:{alias.name}", node.lineno))
                foreign[alias.asname or alias.name] = target
    # names of foreign objects, per scope (a function's parameters and assignments stay in it)
    scopes = [tree, *(n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))]
    for scope in scopes:
        typed = dict(foreign)
        for node in _own_nodes(scope):
            if isinstance(node, ast.arg):
                typed.update(_typed_by(node.arg, node.annotation, foreign))
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                typed.update(_typed_by(node.target.id, node.annotation, foreign))
            elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
                func = node.value.func
                if isinstance(func, ast.Name) and func.id in foreign:
                    typed.update({t.id: foreign[func.id] for t in node.targets if isinstance(t, ast.Name)})
        for node in _own_nodes(scope):
            if isinstance(node, ast.Attribute) and _private(node.attr) and isinstance(node.value, ast.Name):
                pkg = typed.get(node.value.id)
                if pkg is not None and pkg != mine and node.value.id not in ("self", "cls"):
                    found.append((module, f"{pkg}:{node.attr}", node.lineno))
    return found


@functools.cache
def _all_violations() -> list[tuple[str, str, int]]:
    return [v for module, path in _modules() for v in _violations(module, path)]


@pytest.mark.slow
def test_no_private_access_across_packages() -> None:
    bad = [f"{m}:{line} reads {what}" for m, what, line in _all_violations() if (m, what) not in ALLOWED]
    assert not bad, "cross-package private access (make it public, or list it in ALLOWED with a reason):\n" + \
        "\n".join(bad)


@pytest.mark.slow
def test_allowlist_has_reasons_and_no_stale_entries() -> None:
    seen = {(m, what) for m, what, _ in _all_violations()}
    assert [k for k in ALLOWED if k not in seen] == []
    assert all(reason.strip() for reason in ALLOWED.values())


def test_the_check_catches_a_planted_access(tmp_path: Path) -> None:
    planted = tmp_path / "planted.py"
    planted.write_text("from parquet_core.file.pushdown import _once\n"
                       "from parquet_core.file.reader import ParquetFile\n"
                       "import parquet_core.table.concat as concat\n"
                       "def f(pf: ParquetFile):\n"
                       "    x = ParquetFile('p')\n"
                       "    return pf._path, x._owned, concat._unify, pf.__class__\n")
    got = {what for _, what, _ in _violations("parquet_core.dataset.planted", planted)}
    assert got == {"parquet_core.file:_once", "parquet_core.file:_path", "parquet_core.file:_owned",
                   "parquet_core.table:_unify"}

"""One name per module: the project installs and imports its code only as ``parquet_core``,
``parquet_core_integrations``, ``spark_adapter`` and the ``pyspark_*`` shims.

The folders are the import names (no ``package-dir`` mapping), so the checkout that
pytest imports (``pythonpath = ["."]``), Spark's Python workers and the installs all
see the same names.  What would break that: an import of a retired generic name
(``integrations``, ``thrift_defs``) or an alias that loads a file a second time under
another name.  The wheel's contents are checked in ``tests/spark/test_packaging.py``.
"""

from __future__ import annotations

import ast
import importlib
import os
import pkgutil
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("parquet_core", "parquet_core_integrations", "spark_adapter")
RETIRED = ("integrations", "thrift_defs")
_SKIP_DIRS = {".git", "build", "dist", "__pycache__", ".hypothesis"}
#: an import of a retired name holds it as a whole word of the source (identifiers are tokens);
#: a file without one has nothing to find, so only the others are parsed (parsing all ~850
#: files cost ~8 s of CPU).  Python reads identifiers NFKC-normalised, so a non-ASCII source
#: is searched in that form
_MAY_NAME_RETIRED = re.compile(r"\b(?:" + "|".join(RETIRED) + r")\b")


def _python_files():
    for dirpath, dirnames, filenames in os.walk(ROOT):
        dirnames[:] = [d for d in dirnames if d not in _SKIP_DIRS and not d.startswith((".venv", "venv"))
                       and not d.endswith(".egg-info")]
        for name in filenames:
            if name.endswith(".py"):
                yield Path(dirpath, name)


def test_no_code_imports_a_retired_top_level_name() -> None:
    bad = []
    for path in _python_files():
        text = path.read_text(encoding="utf-8")
        if not _MAY_NAME_RETIRED.search(text if text.isascii() else unicodedata.normalize("NFKC", text)):
            continue
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            bad += [f"{path.relative_to(ROOT)}:{node.lineno} {n}" for n in names if n.split(".")[0] in RETIRED]
    assert not bad, bad


def test_the_retired_folders_are_not_packages() -> None:
    assert not (ROOT / "integrations").exists()
    assert (ROOT / "thrift_defs" / "parquet.thrift").is_file()
    assert not (ROOT / "thrift_defs" / "__init__.py").exists()
    assert not (ROOT / "thrift_defs" / "parquet").exists()


def _duplicates(modules: dict) -> dict[str, list[str]]:
    """Files of the checkout's packages that are loaded under more than one module name."""
    by_file: dict[str, list[str]] = {}
    for name, mod in list(modules.items()):
        file = getattr(mod, "__file__", None)
        if not file:
            continue
        path = Path(file).resolve()
        if path.is_relative_to(ROOT) and path.relative_to(ROOT).parts[0] in PACKAGES:
            by_file.setdefault(str(path), []).append(name)
    return {f: names for f, names in by_file.items() if len(names) > 1}


def test_this_process_loads_each_module_once() -> None:
    """Every module of the integrations (and whatever this pytest run loaded before) has
    one name in ``sys.modules``."""
    for pkg in ("parquet_core_integrations",):
        root = importlib.import_module(pkg)
        for info in pkgutil.walk_packages(root.__path__, pkg + "."):
            importlib.import_module(info.name)
    assert not [m for m in sys.modules if m.split(".")[0] in RETIRED]
    assert not _duplicates(sys.modules)


def test_the_checkout_loads_each_module_once() -> None:
    """As pytest sees the checkout (the repository root first on ``sys.path``): import
    every module of the three packages that imports without optional extras, then look
    for a file under two names."""
    code = f"""
import importlib, pkgutil, sys
sys.path.insert(0, {str(ROOT)!r})
for pkg in {PACKAGES!r}:
    root = importlib.import_module(pkg)
    for info in pkgutil.walk_packages(root.__path__, pkg + "."):
        if info.name.endswith("__main__"):
            continue
        try:
            importlib.import_module(info.name)
        except ImportError:      # optional extras (pyspark, pyarrow, tqdm...) may be missing
            pass
print("\\n".join(f"{{n}}={{getattr(m, '__file__', '') or ''}}" for n, m in list(sys.modules.items())))
"""
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    loaded = dict(line.split("=", 1) for line in proc.stdout.splitlines() if "=" in line)
    assert not [m for m in loaded if m.split(".")[0] in RETIRED]

    class _M:
        def __init__(self, file: str) -> None:
            self.__file__ = file

    assert not _duplicates({n: _M(f) for n, f in loaded.items()})
    assert "parquet_core_integrations.xskipper.skipping" in loaded

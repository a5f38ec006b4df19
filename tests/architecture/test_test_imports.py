"""Test modules share helpers through ``tests/_support/`` (or a helper module that is not a
test module), never by importing another test module or a ``conftest``.

Importing a test module runs its module-level code again under another name, registers its
tests' names where they do not run, and ties two test files together; a conftest is
pytest's to load.  The imports still to move are listed in :data:`TO_MOVE`.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: (importing file, imported module) -> why it is still there
TO_MOVE: dict[tuple[str, str], str] = {
}


def _is_test_module(name: str) -> bool:
    last = name.rsplit(".", 1)[-1]
    return name.startswith("tests.") and (last.startswith("test_") or last == "conftest")


@functools.cache
def _imports() -> set[tuple[str, str]]:
    """Every (file, test module) import under tests/ (parsed once per process: ~5 s of CPU)."""
    found = set()
    for path in sorted((ROOT / "tests").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            found.update((rel, n) for n in names if _is_test_module(n))
    return found


def test_test_modules_import_no_test_module() -> None:
    bad = sorted(pair for pair in _imports() if pair not in TO_MOVE)
    assert not bad, "import the helper from tests/_support instead:\n" + "\n".join(f"{a} imports {b}" for a, b in bad)


def test_to_move_has_no_stale_entries() -> None:
    # (nothing listed: nothing can be stale, and the tests are not parsed again)
    assert not TO_MOVE or sorted(set(TO_MOVE) - _imports()) == []

"""Repository layout facts that keep test imports unambiguous."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_repository_root_is_not_a_package() -> None:
    # With an __init__.py at the root, pytest names test modules after the checkout's
    # folder ("main.tests....") and a test importing "tests...." loads a second copy.
    assert not (ROOT / "__init__.py").exists()


def test_tests_package_loaded_once() -> None:
    import tests

    assert Path(tests.__file__).resolve() == ROOT / "tests" / "__init__.py"
    same_file = [name for name, mod in list(sys.modules.items())
                 if getattr(mod, "__file__", None) and name.endswith(".tests")
                 and Path(mod.__file__).resolve() == ROOT / "tests" / "__init__.py"]
    assert not same_file, same_file

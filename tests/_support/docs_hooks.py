"""docs/hooks.py (the MkDocs hooks, not a package module) loaded for the docs tests."""

from __future__ import annotations

import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location("docs_hooks", Path(__file__).resolve().parents[2] / "docs" / "hooks.py")
assert _spec is not None and _spec.loader is not None
hooks = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hooks)

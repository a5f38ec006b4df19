"""``_metadata`` / ``_common_metadata`` summary files (filled in below)."""

from __future__ import annotations

from typing import Any


def load_summary(ds: Any) -> tuple[Any, Any]:
    return None, None


def write_metadata(*args: Any, **kwargs: Any) -> None:
    raise NotImplementedError


def dataset_metadata(ds: Any) -> Any:
    raise NotImplementedError


def metadata_with_file_path(fs: Any, root: str, path: str) -> Any:
    raise NotImplementedError

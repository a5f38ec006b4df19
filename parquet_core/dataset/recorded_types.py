"""The Arrow types a dataset's files record in ``ARROW:schema``, and when they disagree.

A dataset read gives the types the dataset's first file (or its ``_metadata`` /
``_common_metadata``) records, as ``pyarrow.dataset`` takes its schema from the
first file: time zones, durations, large and view types, dictionaries... are
restored by ``to_arrow()`` from that one entry, for every file's rows.

That is right only when the other files' entries mean the same values.  Two
entries may differ in how values are held (``string`` / ``large_string`` /
``string_view``, a dictionary or not, list / large list, the zone a timestamp
is shown in: the instants are the same) and still mean the same; they may not
differ in what the stored numbers are (an int64 column one file records as a
``duration[s]`` and another as plain int64 or ``duration[ms]``, an extension
type in one file only).  pyarrow casts the latter silently (an int64 becomes
seconds) or fails midway; :func:`check_recorded` refuses it up front with a
:class:`~parquet_core.errors.ParquetSchemaError` naming both files and the column.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

from parquet_core.errors import ParquetSchemaError
from parquet_core.metadata.arrow_ipc import FieldFacts, schema_field_facts

__all__ = ["recorded_meanings", "check_recorded"]

_ARROW_SCHEMA = b"ARROW:schema"


def _meaning(fa: FieldFacts) -> Any:
    """What *fa* says about the stored values beyond Parquet's own types, or None when
    nothing (how they are held aside): a duration's unit, an extension's name, at any depth."""
    kids = tuple(_meaning(c) for c in fa.children)
    own = ("duration", fa.unit) if fa.kind == "duration" else None
    if own is None and fa.extension is None and all(k is None for k in kids):
        return None
    return own, fa.extension, kids


def _describe(m: Any) -> str:
    if m is None:
        return "plain Parquet values (no duration or extension type)"
    own, ext, kids = m
    parts = []
    if own is not None:
        parts.append(f"duration[{own[1]}]")
    if ext is not None:
        parts.append(f"extension {ext}")
    if not parts and any(k is not None for k in kids):
        parts.append("nested " + ", ".join(_describe(k) for k in kids if k is not None))
    return " ".join(parts)


@lru_cache(maxsize=64)
def _meanings(encoded: bytes | str) -> tuple[tuple[str, Any], ...]:
    facts = schema_field_facts(encoded) or []
    return tuple((fa.name, _meaning(fa)) for fa in facts)


def recorded_meanings(key_values: Mapping[bytes, Any] | None) -> dict[str, Any]:
    """Top-level column name -> what its ``ARROW:schema`` field says beyond Parquet's type
    (None: nothing; see :func:`_meaning`) for a footer's *key_values* (empty without the entry;
    the first field of a name when several share it)."""
    encoded = (key_values or {}).get(_ARROW_SCHEMA)
    if not isinstance(encoded, (bytes, str)):
        return {}
    out: dict[str, Any] = {}
    for name, m in _meanings(encoded):
        out.setdefault(name, m)
    return out


def check_recorded(dataset: dict[str, Any], dataset_source: str, key_values: Mapping[bytes, Any] | None,
                   columns: Iterable[str], path: str) -> None:
    """Refuse a file (*path*, footer *key_values*) whose ``ARROW:schema`` gives one of *columns*
    a meaning other than the dataset's (*dataset*: :func:`recorded_meanings` of *dataset_source*)."""
    mine = recorded_meanings(key_values)
    if not mine and not any(m is not None for m in dataset.values()):
        return
    for name in columns:
        theirs, ours = dataset.get(name), mine.get(name)
        if theirs != ours:
            raise ParquetSchemaError(
                f"column {name!r} of {path!r} is recorded (ARROW:schema) as {_describe(ours)}, but the "
                f"dataset's schema, taken from {dataset_source!r}, records {_describe(theirs)}: the same "
                "stored numbers would mean other values; read the files separately, or give schema=")

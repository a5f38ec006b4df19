"""The one parser of ``format("kartothek")``'s option strings.

:func:`read_options` / :func:`write_options` turn Spark's lower-cased option
map, once, into frozen typed objects.  The source's own names match with or
without underscores (``dataset_uuid`` or ``datasetUuid``, as before); a name
it does not know fails at ``load()`` / ``save()`` listing the ones it knows.

Reads: ``path`` (the store), ``dataset_uuid``, ``table`` (default ``table``),
``predicates`` (Kartothek's DNF as JSON; one conjunction may be given without
the outer list), ``batchSize``.  Writes: ``path``, ``dataset_uuid``, ``table``,
``partition_on``, ``secondary_indices`` (comma-separated or JSON lists),
``metadata_format`` (``json`` / ``msgpack``), ``metadata`` (a JSON object),
``rowsPerFile`` and every ``pc.ParquetWriter`` option
(:mod:`spark_adapter.core.write_options`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from spark_adapter.core.option_values import check_names, lowered, positive

__all__ = ["KARTOTHEK_NAME", "KartothekReadOptions", "KartothekWriteOptions", "read_options",
           "write_options"]

KARTOTHEK_NAME = "kartothek"
DEFAULT_BATCH_SIZE = 65536
DEFAULT_ROWS_PER_FILE = 1_000_000

READ_OPTIONS = ("path", "dataset_uuid", "table", "predicates", "batchSize")
WRITE_OPTIONS = ("path", "dataset_uuid", "table", "partition_on", "secondary_indices", "metadata_format",
                 "metadata", "rowsPerFile")


@dataclass(frozen=True)
class KartothekReadOptions:
    path: str
    dataset_uuid: str
    table: str = "table"
    predicates: Any = None            # list of conjunctions of (column, op, value) lists, or None
    batch_size: int = DEFAULT_BATCH_SIZE


@dataclass(frozen=True)
class KartothekWriteOptions:
    path: str
    dataset_uuid: str
    table: str = "table"
    partition_on: tuple[str, ...] = ()
    secondary_indices: tuple[str, ...] = ()
    metadata_format: str | None = None
    metadata: dict[str, Any] | None = None
    rows_per_file: int = DEFAULT_ROWS_PER_FILE
    engine: dict[str, Any] = field(default_factory=dict)    # pc.ParquetWriter keyword arguments


def _own(options: Mapping[str, Any], names: tuple[str, ...]) -> tuple[dict[str, str], dict[str, Any]]:
    """``({canonical lower name without underscores: value}, the other options)``."""
    canon = {n.lower().replace("_", ""): n.lower().replace("_", "") for n in names}
    own: dict[str, str] = {}
    rest: dict[str, Any] = {}
    for key, value in lowered(options).items():
        norm = key.replace("_", "")
        if norm in canon:
            own[norm] = str(value)
        else:
            rest[key] = value
    return own, rest


def _store_and_uuid(own: Mapping[str, str]) -> tuple[str, str]:
    path, uuid = own.get("path"), own.get("datasetuuid")
    if not path or not uuid:
        raise ValueError("kartothek: give the store as load(path)/save(path) and .option('dataset_uuid', ...)")
    return path, uuid


def _predicates(text: str | None) -> Any:
    if not text:
        return None
    try:
        preds = json.loads(text)
    except ValueError as exc:
        raise ValueError(f"kartothek: option 'predicates' is not JSON: {exc}") from exc
    if isinstance(preds, list) and preds and isinstance(preds[0], list) and preds[0] \
            and isinstance(preds[0][0], str):
        preds = [preds]               # one conjunction given without the outer list
    return preds


def _names(text: str | None, option: str) -> tuple[str, ...]:
    text = (text or "").strip()
    if not text:
        return ()
    try:
        cols = json.loads(text) if text.startswith("[") else text.split(",")
    except ValueError as exc:
        raise ValueError(f"kartothek: option {option!r} is not a JSON list: {exc}") from None
    return tuple(str(c).strip() for c in cols if str(c).strip())


def read_options(options: Mapping[str, Any] | KartothekReadOptions | None) -> KartothekReadOptions:
    """Parse a read's options; raises ValueError naming a bad or unknown option."""
    if isinstance(options, KartothekReadOptions):
        return options
    own, rest = _own(options or {}, READ_OPTIONS)
    check_names(KARTOTHEK_NAME, rest, READ_OPTIONS)
    path, uuid = _store_and_uuid(own)
    return KartothekReadOptions(path, uuid, own.get("table", "table"), _predicates(own.get("predicates")),
                                positive(own, "batchsize", DEFAULT_BATCH_SIZE, source=KARTOTHEK_NAME))


def write_options(options: Mapping[str, Any] | KartothekWriteOptions | None) -> KartothekWriteOptions:
    """Parse a write's options; unknown names raise ValueError listing the known ones."""
    if isinstance(options, KartothekWriteOptions):
        return options
    from spark_adapter.core.write_options import parse_writer_options

    own, rest = _own(options or {}, WRITE_OPTIONS)
    if any(k.startswith("parquet.encryption.") for k in rest):
        # the engine options would skip them: data asked to be encrypted must not be written plain
        raise ValueError("kartothek: parquet.encryption.* options are not supported (Kartothek datasets "
                         "are written unencrypted); use format('pqcore') for encrypted files")
    path, uuid = _store_and_uuid(own)
    meta = own.get("metadata")
    try:
        metadata = json.loads(meta) if meta else None
    except ValueError as exc:
        raise ValueError(f"kartothek: option 'metadata' is not JSON: {exc}") from None
    if metadata is not None and not isinstance(metadata, dict):
        raise ValueError("kartothek: option 'metadata' must be a JSON object")
    try:
        engine = parse_writer_options(rest)
    except ValueError as exc:
        raise ValueError(f"kartothek: {exc} (and the kartothek options {', '.join(WRITE_OPTIONS)})") from None
    return KartothekWriteOptions(
        path, uuid, own.get("table", "table"), _names(own.get("partitionon"), "partition_on"),
        _names(own.get("secondaryindices"), "secondary_indices"), own.get("metadataformat"), metadata,
        positive(own, "rowsperfile", DEFAULT_ROWS_PER_FILE, source=KARTOTHEK_NAME), engine)

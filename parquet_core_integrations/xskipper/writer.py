"""Writing a metadata store in format version 4, as xskipper on Spark <= 4.0 writes it.

Columns: ``obj_name``, then ``virtual_<partition column>`` in partition
order, then one column per index in the order the indexes were added, named
by the v2+ rule.  Every field is optional.  The Spark schema JSON (compact)
goes under ``org.apache.spark.sql.parquet.row.metadata`` together with
``org.apache.spark.version``; metadata keys are emitted in the order
xskipper's maps produce (``tableIdentifier`` before ``version``; ``cols``,
``name``, ``key_metadata``, ``params``; ndv before fpp).  Timestamps are
INT96, the codec snappy, the file ``part-00000-<uuid>-c000.snappy.parquet``.
A write puts the new file in place first and only then deletes the files it
replaces (a refresh rewrites the whole directory, as xskipper does).
"""

from __future__ import annotations

import datetime as dt
import math
import os
import uuid
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Sequence

import parquet_core as pc
from parquet_core_integrations.xskipper.names import CURRENT_VERSION, column_name
from parquet_core_integrations.xskipper.pme import encryption_metadata, require_encryption
from parquet_core_integrations.xskipper.sparkjson import (
    ROW_METADATA_KEY,
    SPARK_VERSION_KEY,
    dumps,
    to_pc_type,
)
from parquet_core_integrations.xskipper.store import list_metadata_files

__all__ = ["BLOOM_UDT", "IndexColumn", "java_double", "spark_schema", "write_store"]

BLOOM_UDT = "io.xskipper.metadatastore.parquet.ParquetBaseClauseTranslator$BloomFilterMetaDataTypeUDT"
SPARK_VERSION = "3.0.1"  # the Spark whose writer these files imitate


@dataclass
class IndexColumn:
    """One index as stored: type name, lower-case source columns, Spark type of the source, params, label."""

    kind: str
    cols: list[str]
    source_type: Any
    params: dict[str, str] | None = None
    key_metadata: str | None = None

    @property
    def column(self) -> str:
        return column_name(self.cols, self.kind, CURRENT_VERSION)

    def spark_type(self) -> Any:
        t = self.source_type
        if self.kind == "minmax":
            return {"type": "struct", "fields": [{"name": n, "type": t, "nullable": True, "metadata": {}}
                                                 for n in ("min", "max")]}
        if self.kind == "valuelist":
            return {"type": "array", "elementType": t, "containsNull": True}
        if self.kind == "bloomfilter":
            return {"type": "udt", "class": BLOOM_UDT, "pyClass": None, "sqlType": "binary"}
        raise ValueError(f"unknown index type {self.kind!r}")

    def metadata(self) -> dict[str, Any]:
        index: dict[str, Any] = {"cols": list(self.cols), "name": self.kind}
        if self.key_metadata is not None:
            index["key_metadata"] = self.key_metadata
        if self.params:
            index["params"] = dict(self.params)
        return {"index": index}


def java_double(x: float) -> str:
    """Java ``Double.toString``: shortest digits, plain for 1e-3 <= |x| < 1e7, else ``d.dddE<n>``."""
    if math.isnan(x) or math.isinf(x):
        return "NaN" if math.isnan(x) else ("Infinity" if x > 0 else "-Infinity")
    if x == 0 or 1e-3 <= abs(x) < 1e7:
        return repr(float(x))  # Python prints this range plainly, with the same shortest digits
    sign, digits, exponent = Decimal(repr(float(x))).as_tuple()
    text = "".join(map(str, digits)).rstrip("0") or "0"
    exp10 = len(digits) + int(exponent) - 1
    return f"{'-' if sign else ''}{text[0]}.{text[1:] or '0'}E{exp10}"


def spark_schema(table_identifier: str, partitions: Sequence[tuple[str, Any]], indexes: Sequence[IndexColumn],
                 encryption: dict[str, str] | None = None) -> dict[str, Any]:
    """The Spark StructType (as a JSON-ready dict) of a v4 store."""
    master: dict[str, Any] = {}
    if encryption:
        master["encryption"] = encryption
    master["tableIdentifier"] = table_identifier
    master["version"] = CURRENT_VERSION
    fields = [{"name": "obj_name", "type": "string", "nullable": True, "metadata": master}]
    fields += [{"name": "virtual_" + p, "type": t, "nullable": True, "metadata": {}} for p, t in partitions]
    fields += [{"name": ix.column, "type": ix.spark_type(), "nullable": True, "metadata": ix.metadata()}
               for ix in indexes]
    return {"type": "struct", "fields": fields}


def _utc(v: Any) -> Any:
    if isinstance(v, dt.datetime):
        return v.replace(tzinfo=dt.timezone.utc) if v.tzinfo is None else v
    if isinstance(v, list):
        return [_utc(x) for x in v]
    if isinstance(v, dict):
        return {k: _utc(x) for k, x in v.items()}
    return v


def write_store(md_dir: str, table_identifier: str, partitions: Sequence[tuple[str, Any]],
                indexes: Sequence[IndexColumn], rows: Sequence[dict[str, Any]],
                footer_key: str | None = None, plaintext_footer: bool = False,
                encryption: dict[str, str] | None = None, keys: Any = None) -> str:
    """Write *rows* (``obj_name``, ``virtual_*`` and index-column values) as the store's only file.

    *encryption* (a stored ``encryption`` object, reused on refresh) wins
    over *footer_key* / *plaintext_footer*; an encrypted store needs *keys*
    (:class:`~parquet_core_integrations.xskipper.pme.PmeKeys`).  Returns the new file's path.
    """
    virtual = ["virtual_" + p for p, _ in partitions]
    if encryption is None:
        encryption = encryption_metadata([(ix.kind, ix.column, ix.key_metadata) for ix in indexes],
                                         footer_key, plaintext_footer, virtual)
    require_encryption(encryption, "write", keys)
    schema = spark_schema(table_identifier, partitions, indexes, encryption)
    pc_schema = pc.schema([pc.field(f["name"], to_pc_type(f["type"], f["name"]), nullable=True)
                           for f in schema["fields"]])
    names = [f["name"] for f in schema["fields"]]
    columns = {n: [_utc(r.get(n)) for r in rows] for n in names}
    os.makedirs(md_dir, exist_ok=True)
    old = list_metadata_files(md_dir)
    target = os.path.join(md_dir, f"part-00000-{uuid.uuid4()}-c000.snappy.parquet")
    crypto = keys.write_options(encryption, target) if encryption else {}
    pc.write_table(columns, target, schema=pc_schema, compression="snappy",
                   use_deprecated_int96_timestamps=True,
                   key_value_metadata={SPARK_VERSION_KEY: SPARK_VERSION, ROW_METADATA_KEY: dumps(schema)},
                   **crypto)
    for path in old:  # the new file is complete: now the ones it replaces go
        os.remove(path)
    for name in os.listdir(md_dir):  # Spark's side files (_SUCCESS, .crc) would describe the old files
        if name.startswith(("_", ".")) and os.path.isfile(os.path.join(md_dir, name)):
            os.remove(os.path.join(md_dir, name))
    return target

"""Which Parquet format features a file uses, read from its footer, and the shipped
compatibility table (``parquet_core/_data/compat_table.json``) that says which readers read them.

Feature ids are those of ``pqc compat``'s catalogue (:mod:`parquet_core.compat.features`):
``<group>.<name>``, e.g. ``logical.FLOAT16``, ``encoding.BYTE_STREAM_SPLIT.int32``,
``codec.LZ4_RAW``.  :func:`features_used` reads them from a FileMetaData (the validator's
``--target`` warnings); :func:`schema_features` from schema elements alone (the writer's
``compatible_with=`` presets, before anything is written).  No I/O but the table's file.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from parquet_core.constants import CompressionCodec, Encoding, PhysicalType
from parquet_core.thrift import pt
from parquet_core.thrift.codec import parse

__all__ = ["features_used", "schema_features", "footer_crypto", "load_table", "parse_target", "unsupported",
           "TABLE_PATH", "READERS", "measured_versions", "pick_measurement", "version_key", "codec_feature",
           "encoding_feature", "leaf_kind"]

TABLE_PATH = Path(__file__).resolve().parents[1] / "_data" / "compat_table.json"

#: the readers the table covers (``--target`` / ``compatible_with`` names)
READERS = ("pyarrow", "duckdb", "polars", "fastparquet", "spark")

_CODECS = {CompressionCodec.SNAPPY: "SNAPPY", CompressionCodec.GZIP: "GZIP", CompressionCodec.LZO: "LZO",
           CompressionCodec.BROTLI: "BROTLI", CompressionCodec.LZ4: "LZ4_HADOOP", CompressionCodec.ZSTD: "ZSTD",
           CompressionCodec.LZ4_RAW: "LZ4_RAW"}
_KINDS: dict[int, str] = {PhysicalType.BOOLEAN: "boolean", PhysicalType.INT32: "int32", PhysicalType.INT64: "int64",
          PhysicalType.FLOAT: "float", PhysicalType.DOUBLE: "double", PhysicalType.BYTE_ARRAY: "byte_array",
          PhysicalType.FIXED_LEN_BYTE_ARRAY: "flba"}
_DATA_PAGE, _DATA_PAGE_V2 = 0, 3
_UNITS = (("MILLIS", "MILLIS"), ("MICROS", "MICROS"), ("NANOS", "NANOS"))
_INTERVAL = 21   # ConvertedType.INTERVAL


def _unit(t: Any) -> str:
    for attr, name in _UNITS:
        if getattr(t.unit, attr, None) is not None:
            return name
    return "?"


#: converted types (the legacy annotations) -> the catalogue's logical feature
_CONVERTED = {4: "logical.ENUM", 6: "logical.DATE", 7: "logical.TIME_MILLIS_UTC", 8: "logical.TIME_MICROS_UTC",
              9: "logical.TIMESTAMP_MILLIS_UTC", 10: "logical.TIMESTAMP_MICROS_UTC", 11: "logical.UINT8",
              12: "logical.UINT16", 13: "logical.UINT32", 14: "logical.UINT64", 15: "logical.INT8",
              16: "logical.INT16", 19: "logical.JSON", 20: "logical.BSON", _INTERVAL: "logical.INTERVAL"}
_CONVERTED_LIST, _CONVERTED_MAPS = 3, (1, 2)


def _nesting(el: Any) -> str | None:
    """"LIST", "MAP" or None, from the logical type or (older writers) the converted type."""
    lt = el.logicalType
    if (lt is not None and lt.LIST is not None) or el.converted_type == _CONVERTED_LIST:
        return "LIST"
    if (lt is not None and lt.MAP is not None) or el.converted_type in _CONVERTED_MAPS:
        return "MAP"
    return None


def _children(schema: list, i: int) -> list[int]:
    """Positions of the direct children of schema element *i* (depth-first, flattened)."""
    out = []
    j = i + 1
    for _ in range(schema[i].num_children or 0):
        if j >= len(schema):
            break
        out.append(j)
        j = _subtree_end(schema, j)
    return out


def _subtree_end(schema: list, i: int) -> int:
    """The position just after element *i* and all its descendants."""
    todo = 1
    j = i
    while todo and j < len(schema):
        todo += (schema[j].num_children or 0) - 1
        j += 1
    return j


def _logical(el: Any, schema: list, pos: int, kids: int) -> str | None:
    """The logical-type feature of one schema element (None: none of the catalogue's)."""
    lt = el.logicalType
    if lt is None:
        if el.converted_type == 5:
            lt_decimal_precision = el.precision or 0
        else:
            return _CONVERTED.get(el.converted_type) if el.converted_type is not None else None
    elif lt.DECIMAL is not None:
        lt_decimal_precision = lt.DECIMAL.precision or 0
    else:
        if lt.INTEGER is not None:
            bits, signed = lt.INTEGER.bitWidth, lt.INTEGER.isSigned
            return f"logical.UINT{bits}" if not signed else f"logical.INT{bits}" if bits in (8, 16) else None
        for simple in ("ENUM", "JSON", "BSON", "UUID", "FLOAT16", "UNKNOWN", "GEOMETRY", "GEOGRAPHY",
                       "FILE", "DATE"):
            if getattr(lt, simple) is not None:
                return f"logical.{simple}"
        for temporal in ("TIME", "TIMESTAMP"):
            t = getattr(lt, temporal)
            if t is not None:
                return f"logical.{temporal}_{_unit(t)}_{'UTC' if t.isAdjustedToUTC else 'LOCAL'}"
        if lt.VARIANT is not None:
            typed = [schema[i] for i in _children(schema, pos - 1) if schema[i].name == "typed_value"]
            if not typed:
                return "logical.VARIANT"
            return "logical.VARIANT_shredded_array" if _nesting(typed[0]) == "LIST" else "logical.VARIANT_shredded"
        return None
    if el.type == PhysicalType.INT32:
        return "logical.DECIMAL_INT32"
    if el.type == PhysicalType.INT64:
        return "logical.DECIMAL_INT64"
    if el.type == PhysicalType.FIXED_LEN_BYTE_ARRAY:
        p = lt_decimal_precision
        return "logical.DECIMAL_FLBA" if p <= 18 else "logical.DECIMAL_FLBA_38" if p <= 38 else \
            "logical.DECIMAL_FLBA_60"
    if el.type == PhysicalType.BYTE_ARRAY:
        return "logical.DECIMAL_BYTE_ARRAY"
    return None


def schema_features(schema: list, out: dict[str, str]) -> None:
    """Walk the flattened schema (depth first, num_children) and name the features of each node."""
    pos = 0

    def node(parent: str | None, depth: int) -> None:
        nonlocal pos
        el = schema[pos]
        pos += 1
        name = el.name
        kids = el.num_children or 0
        if el.type == PhysicalType.INT96:
            out.setdefault("physical.INT96", name)
        fid = _logical(el, schema, pos, kids)
        if fid is not None:
            out.setdefault(fid, name)
        nesting = _nesting(el)
        if nesting == "MAP":
            out.setdefault("nested.map", name)
        repeated = el.repetition_type == 2
        if parent == "LIST" and repeated:
            if not kids:
                out.setdefault("nested.list_2level_legacy", name)
            elif name in ("bag", "array") or name.endswith("_tuple"):
                out.setdefault("nested.list_legacy_bag", name)
            else:
                out.setdefault("nested.list_3level", name)
        elif repeated and parent != "MAP" and depth > 0:
            out.setdefault("nested.list_2level_legacy", name)   # a bare repeated field
        elif kids and depth > 0 and nesting is None and fid is None and parent is None:
            out.setdefault("nested.struct", name)
        for _ in range(kids):
            node(nesting, depth + 1)

    while pos < len(schema):
        node(None, 0)


def footer_crypto(source: Any, size: int) -> Any:
    """The FileCryptoMetaData of a file with an encrypted footer (``PARE``), else None."""
    if size < 12:
        return None
    tail = bytes(source.read_at(size - 8, 8))
    if tail[4:] != b"PARE":
        return None
    n = int.from_bytes(tail[:4], "little")
    if not 0 < n <= size - 12:
        return None
    try:
        crypto, _ = parse(bytes(source.read_at(size - 8 - n, n)), pt.FileCryptoMetaData)
    except Exception:  # noqa: BLE001 - the footer rules report a broken footer
        return None
    return crypto


def features_used(raw: Any, encrypted_footer: Any = None) -> dict[str, str]:
    """The catalogue features a file's footer shows it uses: ``{feature id: where}``.

    *encrypted_footer*: the file's FileCryptoMetaData when its footer is encrypted
    (:func:`footer_crypto`); *raw* (the FileMetaData) may then be None, without keys."""
    out: dict[str, str] = {}
    alg = None
    if encrypted_footer is not None:
        out["encryption.gcm_footer"] = "footer"
        alg = getattr(encrypted_footer, "encryption_algorithm", None)
    if raw is not None and raw.schema:
        schema_features(raw.schema, out)
    if raw is not None and raw.encryption_algorithm is not None:
        alg = raw.encryption_algorithm
    if alg is not None:
        if getattr(alg, "AES_GCM_CTR_V1", None) is not None:
            out.setdefault("encryption.ctr", "file")
            inner = alg.AES_GCM_CTR_V1
        else:
            inner = getattr(alg, "AES_GCM_V1", None)
        if encrypted_footer is None:
            out.setdefault("encryption.plaintext_footer", "footer")
        if inner is not None and inner.supply_aad_prefix:
            out.setdefault("encryption.aad_prefix_supplied", "file")
        elif inner is not None and inner.aad_prefix:
            out.setdefault("encryption.aad_prefix_stored", "file")
    if raw is None:
        return out
    for order in raw.column_orders or []:
        if getattr(order, "IEEE_754_TOTAL_ORDER", None) is not None:
            out.setdefault("stats.float_total_order", "column_orders")
    leaves = [el for el in (raw.schema or []) if not el.num_children]
    for g, rg in enumerate(raw.row_groups or []):
        if rg.sorting_columns:
            out.setdefault("sorting_columns", f"row group {g}")
        for c, chunk in enumerate(rg.columns or []):
            where = ".".join(chunk.meta_data.path_in_schema) if chunk.meta_data else f"column {c}"
            if chunk.file_path:
                out.setdefault("external.file_path", where)
            if chunk.column_index_offset is not None:
                out.setdefault("index.page_index", where)
            if chunk.crypto_metadata is not None and getattr(chunk.crypto_metadata, "ENCRYPTION_WITH_COLUMN_KEY",
                                                              None) is not None:
                out.setdefault("encryption.column_keys", where)
            md = chunk.meta_data
            if md is None:
                continue
            if md.codec in _CODECS:
                out.setdefault(codec_feature(md.codec), where)
            if md.size_statistics is not None:
                out.setdefault("stats.size_statistics", where)
            if md.geospatial_statistics is not None:
                out.setdefault("stats.geospatial", where)
            if md.bloom_filter_offset is not None:
                out.setdefault("bloom.filter", where)
            st = md.statistics
            if st is not None and (st.is_max_value_exact is False or st.is_min_value_exact is False):
                out.setdefault("stats.minmax_truncated", where)
            kind = leaf_kind(leaves[c] if c < len(leaves) else None, md.type)
            if kind is None:          # INT96: PLAIN or dictionary only
                continue
            data_encodings: set[int] = set()
            if md.encoding_stats:
                for es in md.encoding_stats:
                    if es.page_type in (_DATA_PAGE, _DATA_PAGE_V2):
                        data_encodings.add(es.encoding)
                    if es.page_type == _DATA_PAGE_V2:
                        out.setdefault("page.v2_compressed" if md.codec else "page.v2", where)
            else:
                data_encodings = {e for e in (md.encodings or []) if e not in (Encoding.RLE, Encoding.BIT_PACKED)}
            for e in data_encodings:
                if e in (Encoding.PLAIN, Encoding.BIT_PACKED):
                    continue
                out.setdefault(encoding_feature(e, kind), where)
    return out


def leaf_kind(leaf: Any, physical: int | None) -> str | None:
    """The catalogue's name of a leaf's type for encodings: int32 ... flba, float16, decimal_flba."""
    kind = _KINDS.get(physical) if physical is not None else None
    if kind is None:
        return None
    lt = getattr(leaf, "logicalType", None)
    if lt is not None:
        if lt.FLOAT16 is not None:
            return "float16"
        if lt.DECIMAL is not None and physical == PhysicalType.FIXED_LEN_BYTE_ARRAY:
            return "decimal_flba"
    return kind


def codec_feature(codec: int) -> str:
    return f"codec.{_CODECS[CompressionCodec(codec)]}"


def encoding_feature(encoding: int, kind: str) -> str:
    try:
        name = Encoding(encoding).name
    except ValueError:
        return f"encoding.unknown_{encoding}"
    if name == "PLAIN_DICTIONARY":      # the format-1 name of a dictionary page
        name = "RLE_DICTIONARY"
    return f"encoding.{name}.{kind}"


@lru_cache(maxsize=4)
def load_table(path: str | None = None) -> dict:
    """The shipped compatibility table (built by ``python -m parquet_core.compat.table``)."""
    return json.loads(Path(path or TABLE_PATH).read_text(encoding="utf-8"))


def version_key(v: str) -> tuple:
    """``"15.0.2"`` -> ``(15, 0, 2)`` (the digits of each dot- or dash-separated part)."""
    parts = []
    for p in v.replace("-", ".").split("."):
        digits = "".join(ch for ch in p if ch.isdigit())
        parts.append(int(digits) if digits else 0)
    return tuple(parts)


_version_key = version_key


def older(a: str, b: str) -> bool:
    """True when version *a* is older than *b* (compared on as many parts as *a* names)."""
    ka, kb = _version_key(a), _version_key(b)
    return ka < kb[:len(ka)]


def measured_versions(entry: dict) -> dict[str, dict]:
    """A table entry's measurements: version -> ``{"features": ..., ...}`` (its ``version`` and the
    ``older_versions``; a table from before ``older_versions`` has the one)."""
    out: dict[str, dict] = {}
    if "version" in entry:
        out[entry["version"]] = {"features": entry.get("features", {})}
    for version, m in entry.get("older_versions", {}).items():
        out.setdefault(version, m)
    return out


def pick_measurement(entry: dict, name: str, version: str | None) -> tuple[str, dict, str]:
    """``(measured version, its features, caveat)`` for a *version* target (``None``: the newest).

    A version measured (``15`` names ``15.0.2``) uses that measurement (its oldest if several
    match); between measured versions, the nearest measured one below; below the oldest, the oldest.
    The caveat (``""`` for an exact measurement) says which was taken.
    """
    versions = measured_versions(entry)
    if not versions:
        return "?", {}, ""
    order = sorted(versions, key=version_key)
    if version is None:
        return order[-1], versions[order[-1]].get("features", {}), ""
    want = version_key(version)
    same = [v for v in order if version_key(v)[:len(want)] == want]
    if same:
        return same[0], versions[same[0]].get("features", {}), ""
    below = [v for v in order if version_key(v)[:len(want)] < want]
    if below:
        at = below[-1]
        caveat = (f"; measured on {name} {at}, the nearest measured version below {version}: "
                  f"a newer version may read it")
        return at, versions[at].get("features", {}), caveat
    at = order[0]
    return at, versions[at].get("features", {}), (
        f"; measured on {name} {at}, the oldest measured version ({name} {version} is older: "
        f"it may not read more)")


def parse_target(text: str) -> tuple[str, str | None]:
    """``"spark-3.5"`` -> ``("spark", "3.5")``; ``"duckdb"`` -> ``("duckdb", None)``.

    Raises
    ------
    ValueError
        A reader the table does not cover.
    """
    if not isinstance(text, str):
        raise TypeError(f"a compatibility target is a str such as 'spark-3.5', not {type(text).__name__}")
    name, _, version = text.strip().partition("-")
    name = name.lower()
    if name not in READERS:
        raise ValueError(f"unknown reader {name!r} for a compatibility target; known: {', '.join(READERS)}")
    return name, (version or None)


def unsupported(target: str, features: dict[str, str], table: dict | None = None) -> list[tuple[str, str]]:
    """``(feature, why)`` for each of *features* the *target* reader does not read.

    The measurement used is :func:`pick_measurement`'s; the hand ``release_notes`` entries add the
    features a target older than their ``since`` version does not read, and drop a finding of an
    older measurement for a target at or after their ``since``.
    """
    table = table if table is not None else load_table()
    name, version = parse_target(target)
    entry = table.get("readers", {}).get(name)
    if entry is None:
        return []
    measured, found, caveat = pick_measurement(entry, name, version)
    out = []
    for fid in features:
        cell = found.get(fid)
        if cell is not None and version and any(
                hand["feature"] == fid and older(measured, hand["since"]) and not older(version, hand["since"])
                for hand in entry.get("release_notes", [])):
            # measured on an older version than the target, and a release note says it is read since
            # a version between the two (e.g. spark-4.0 between the measured 3.5.3 and 4.3.0)
            continue
        if cell is not None:
            out.append((fid, f"{cell['verdict']} on {name} {measured}: {cell.get('detail', '')}{caveat}"))
            continue
        for hand in entry.get("release_notes", []):
            if hand["feature"] == fid and version and older(version, hand["since"]):
                out.append((fid, f"read since {name} {hand['since']} ({hand['source']})"))
                break
    return out

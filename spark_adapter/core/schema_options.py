"""The read schema's options: ``mergeSchema`` (all footers merged) and ``columns`` (a projection).

* without ``mergeSchema`` the schema is the first file's (Spark does the
  same); a later file with a column of another type fails when it is read,
  naming the file and the column;
* ``.option("mergeSchema", "true")`` reads every footer on the driver and
  takes the union of the columns, in order of first appearance, struct
  fields merged at any depth; a column whose type differs between files
  (other than in struct fields it adds) is an error naming both files.
  Files without a column read it as nulls;
* ``.option("columns", "a, b.c, `odd name`")`` keeps only those columns
  (names case-insensitive, dotted names select fields of structs, back
  quotes around a name with dots or commas); only the columns (and struct
  leaves) kept are read from the files.  Spark itself does no column
  pruning for Python data sources, so this, or a user ``.schema(...)``,
  is the way to read fewer columns.
"""

from __future__ import annotations

import re
from typing import Any

from pyspark.sql.types import ArrayType, DataType, MapType, StructField, StructType

__all__ = ["merge_schemas", "project", "parse_columns"]


def _merge_types(a: DataType, b: DataType, where: str) -> DataType:
    if isinstance(a, StructType) and isinstance(b, StructType):
        return _merge_structs(a, b, where + ".")
    if isinstance(a, ArrayType) and isinstance(b, ArrayType):
        return ArrayType(_merge_types(a.elementType, b.elementType, where + "[]"), True)
    if isinstance(a, MapType) and isinstance(b, MapType):
        return MapType(_merge_types(a.keyType, b.keyType, where + "{key}"),
                       _merge_types(a.valueType, b.valueType, where + "{value}"), True)
    if a == b:
        return a
    raise TypeError(f"column {where!r} is {a.simpleString()} in one file and {b.simpleString()} in another")


def _merge_structs(a: StructType, b: StructType, prefix: str = "") -> StructType:
    out = [StructField(f.name, f.dataType, True) for f in a.fields]
    index = {f.name.lower(): i for i, f in enumerate(out)}
    for f in b.fields:
        i = index.get(f.name.lower())
        if i is None:
            index[f.name.lower()] = len(out)
            out.append(StructField(f.name, f.dataType, True))
        else:
            out[i] = StructField(out[i].name, _merge_types(out[i].dataType, f.dataType, prefix + f.name), True)
    return StructType(out)


def merge_schemas(schemas: list[tuple[str, StructType]]) -> StructType:
    """The union of the files' schemas (``(path, schema)`` pairs, in listing order)."""
    merged = schemas[0][1]
    for i, (path, schema) in enumerate(schemas[1:], 1):
        try:
            merged = _merge_structs(merged, schema)
        except TypeError as exc:
            first = next(p for p, s in schemas[:i] if _has_column(s, str(exc)))
            raise TypeError(f"pqcore: mergeSchema: {exc} ({first} and {path})") from None
    return merged


def _has_column(schema: StructType, message: str) -> bool:
    name = message.split("'")[1].split(".")[0].split("[")[0].split("{")[0]
    return any(f.name.lower() == name.lower() for f in schema.fields)


_NAME = re.compile(r"\s*(`(?:[^`]|``)+`|[^,.`]+)\s*")


def parse_columns(text: str) -> list[list[str]]:
    """``"a, b.c, `x.y`"`` as name paths: ``[["a"], ["b", "c"], ["x.y"]]``."""
    out: list[list[str]] = []
    pos = 0
    while pos < len(text):
        path = []
        while True:
            m = _NAME.match(text, pos)
            if m is None:
                raise ValueError(f"pqcore: option 'columns': cannot read a column name at position {pos} "
                                 f"of {text!r}")
            name = m.group(1).strip()
            path.append(name[1:-1].replace("``", "`") if name.startswith("`") else name)
            pos = m.end()
            if pos < len(text) and text[pos] == ".":
                pos += 1
                continue
            break
        out.append(path)
        if pos < len(text):
            if text[pos] != ",":
                raise ValueError(f"pqcore: option 'columns': expected ',' at position {pos} of {text!r}")
            pos += 1
    if not out:
        raise ValueError("pqcore: option 'columns' is empty")
    return out


def _find(struct: StructType, name: str) -> StructField | None:
    exact = [f for f in struct.fields if f.name == name]
    if exact:
        return exact[0]
    cands = [f for f in struct.fields if f.name.lower() == name.lower()]
    return cands[0] if len(cands) == 1 else None


def _add(out: list[StructField], source: StructType, path: list[str], full: str) -> None:
    field = _find(source, path[0])
    if field is None:
        raise ValueError(f"pqcore: option 'columns': no column {full!r} (columns: "
                         f"{', '.join(source.fieldNames())})")
    existing = next((i for i, f in enumerate(out) if f.name == field.name), None)
    if len(path) == 1:
        if existing is None:
            out.append(field)
        else:
            out[existing] = field       # the whole field wins over a part of it
        return
    if not isinstance(field.dataType, StructType):
        raise ValueError(f"pqcore: option 'columns': {full!r}: {field.name!r} is not a struct")
    if existing is not None and out[existing].dataType == field.dataType:
        return                          # already whole
    have = out[existing].dataType if existing is not None else None
    inner = list(have.fields) if isinstance(have, StructType) else []
    _add(inner, field.dataType, path[1:], full)
    new = StructField(field.name, StructType(inner), field.nullable)
    if existing is None:
        out.append(new)
    else:
        out[existing] = new


def project(schema: StructType, text: str) -> StructType:
    """*schema* cut down to the columns of the ``columns`` option, in the option's order."""
    out: list[StructField] = []
    for path in parse_columns(text):
        _add(out, schema, path, ".".join(path))
    return StructType(out)


def leaf_selection(name: str, spark_type: Any, file_type: Any) -> list[str]:
    """What to ask parquet_core for to read a Spark field from a file column: the column
    itself, or the dotted paths of the struct fields Spark wants when it wants fewer."""
    if not (isinstance(spark_type, StructType) and getattr(file_type, "name", None) == "struct"):
        return [name]
    file_fields = {f.name: f for f in file_type.fields}
    same_names = len(spark_type.fields) == len(file_fields) and all(f.name in file_fields for f in spark_type.fields)
    if same_names and all(not isinstance(f.dataType, StructType) for f in spark_type.fields):
        return [name]
    out: list[str] = []
    for f in spark_type.fields:
        sub = file_fields.get(f.name)
        if sub is None:
            return [name]           # a field this file lacks: read the whole struct, nulls filled later
        out.extend(leaf_selection(f"{name}.{f.name}", f.dataType, sub.type))
    return out

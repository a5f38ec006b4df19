"""Keys of a Kartothek dataset and the percent-encoding of partition labels.

Kartothek quotes keys and values like ``urllib.parse.quote(s, safe="/")``
(every UTF-8 byte outside ``A-Z a-z 0-9 _ . - ~ /`` becomes ``%XX``).  We
quote ``/`` as well: Kartothek leaves it raw, which adds a directory level
and truncates the value on read (its bug B4).  Decoding is the same for
both, so Kartothek reads our labels correctly.
"""

from __future__ import annotations

import datetime as _dt
import re
from typing import Any
from urllib.parse import quote as _quote
from urllib.parse import unquote_to_bytes

from parquet_core_integrations.kartothek.errors import KartothekError

__all__ = ["METADATA_SUFFIXES", "metadata_key", "quote", "unquote", "value_text", "partition_label",
           "parse_label", "data_key", "index_key", "common_metadata_key", "check_uuid", "utc_isoformat"]

METADATA_SUFFIXES = {"json": ".by-dataset-metadata.json", "msgpack": ".by-dataset-metadata.msgpack.zstd"}
INDEX_SUFFIX = ".by-dataset-index.parquet"
_UUID = re.compile(r"[a-zA-Z0-9+\-_]+")


def check_uuid(uuid: str) -> str:
    """Return *uuid* if it is a valid dataset uuid (``[a-zA-Z0-9+-_]+``)."""
    if not isinstance(uuid, str) or not _UUID.fullmatch(uuid):
        raise KartothekError(f"dataset uuid {uuid!r} contains illegal characters "
                             "(allowed: letters, digits, '+', '-', '_')")
    return uuid


def metadata_key(uuid: str, fmt: str) -> str:
    """Key of the dataset metadata file in format ``json`` or ``msgpack``."""
    return uuid + METADATA_SUFFIXES[fmt]


def quote(text: str | bytes) -> str:
    """Percent-encode *text* (UTF-8), ``/`` included."""
    return _quote(text, safe="")


def unquote(text: str) -> str:
    """Decode ``%XX`` escapes (``+`` stays ``+``) and the UTF-8 bytes they form."""
    try:
        return unquote_to_bytes(text).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise KartothekError(f"partition label part {text!r} is not percent-encoded UTF-8") from exc


def value_text(value: Any) -> str:
    """The text Kartothek writes for a partition value (before quoting)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        try:                    # read back with unquote(), which decodes UTF-8
            return value.decode("utf-8")
        except UnicodeDecodeError:
            raise KartothekError(f"binary partition value {value!r} is not UTF-8; "
                                 "it could not be read back from the label") from None
    if isinstance(value, _dt.datetime):
        # pandas' Timestamp.__str__: a space, microseconds only when non-zero, offset if aware
        return value.isoformat(sep=" ")
    return str(value)


def partition_label(pairs: list[tuple[str, Any]], base_label: str) -> str:
    """``quote(k1)=quote(v1)/.../<base_label>``."""
    parts = [f"{quote(k)}={quote(value_text(v))}" for k, v in pairs]
    return "/".join(parts + [base_label])


def parse_label(label: str, keys: list[str] | None = None) -> list[tuple[str, str]]:
    """The decoded ``(key, text)`` pairs of a label.

    Without *keys*, each ``k=v`` component is a pair (others are skipped).  With the
    partition keys the dataset declares, in order, a value runs from its ``key=``
    component up to the component that starts the next key (the last one: up to the
    file's own label), joined with ``/``: Kartothek writes ``/`` inside a value
    unescaped, so ``"a/b"`` becomes ``P=a/b/<label>``.  A label that does not start
    its components with the keys in that order is parsed without them.
    """
    parts = label.split("/")[:-1]
    if keys:
        pairs = _split_on_keys(parts, keys)
        if pairs is not None:
            return pairs
    pairs = []
    for part in parts:
        kv = part.split("=")
        if len(kv) == 2:
            pairs.append((unquote(kv[0]), unquote(kv[1])))
    return pairs


def _split_on_keys(parts: list[str], keys: list[str]) -> list[tuple[str, str]] | None:
    """``parse_label`` with declared keys, or ``None`` when *parts* do not follow them."""
    heads = [(quote(k) + "=", k + "=") for k in keys]   # quoted, or as another writer left it
    starts = []
    at = 0
    for n, (quoted, plain) in enumerate(heads):
        while at < len(parts) and not parts[at].startswith((quoted, plain)):
            if n == 0:
                return None      # the first component must name the first key
            at += 1
        if at == len(parts):
            return None
        starts.append(at)
        at += 1
    pairs = []
    for n, key in enumerate(keys):
        end = starts[n + 1] if n + 1 < len(keys) else len(parts)
        head = parts[starts[n]]
        first = head[len(heads[n][0]):] if head.startswith(heads[n][0]) else head[len(heads[n][1]):]
        pairs.append((key, "/".join(unquote(p) for p in [first, *parts[starts[n] + 1:end]])))
    return pairs


def data_key(uuid: str, table: str, label: str) -> str:
    return f"{uuid}/{table}/{label}.parquet"


def common_metadata_key(uuid: str, table: str) -> str:
    return f"{uuid}/{table}/_common_metadata"


def utc_isoformat(now: _dt.datetime | None = None) -> str:
    """Naive UTC ``datetime.isoformat()``, as Kartothek stamps creation times and index keys."""
    now = now or _dt.datetime.now(_dt.timezone.utc)
    return now.astimezone(_dt.timezone.utc).replace(tzinfo=None).isoformat()


def index_key(uuid: str, column: str, stamp: str) -> str:
    """``<uuid>/indices/<quote(column)>/<quote(stamp)>.by-dataset-index.parquet``."""
    return f"{uuid}/indices/{quote(column)}/{quote(stamp)}{INDEX_SUFFIX}"

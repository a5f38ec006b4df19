"""Parquet modular encryption (PME) labels of a metadata store: labels only, never keys.

An index is plaintext or encrypted with its own key *label* (its
``key_metadata``).  Encryption is on iff at least one index is encrypted, and
then a footer key label is required (a footer label without any encrypted
index is an error).  The footer key also encrypts ``obj_name`` and every
``virtual_*`` column.  The store records, in ``obj_name``'s metadata::

    "encryption": {"encryption.column.keys": "<label>:<col>,<col>;<label2>:...",
                   ["encryption.plaintext.footer": "true",] "encryption.footer.key": "<label>"}

Columns in the key list are Parquet leaf paths: ``<mm>.min,<mm>.max`` for
MinMax, ``<vl>.list.element`` for ValueList, ``<bf>`` for a Bloom filter.
Groups appear in order of first use by an index, the footer label's group
ending with ``obj_name`` and the ``virtual_*`` columns.

:func:`writer_options` gives the Parquet writer properties (both the short and
the ``parquet.``-prefixed names); :class:`PmeKeys` turns the labels into
encryption through parquet_core's crypto factory and a KMS.
"""

from __future__ import annotations

from typing import Any, Sequence

import parquet_core as pc
from parquet_core_integrations.xskipper.errors import XskipperIndexError

__all__ = ["PmeKeys", "column_key_list", "encryption_metadata", "leaf_paths",
           "parse_column_keys", "writer_options"]


def leaf_paths(kind: str, column: str) -> list[str]:
    """Parquet leaf paths of an index's metadata column."""
    if kind == "minmax":
        return [f"{column}.min", f"{column}.max"]
    if kind == "valuelist":
        return [f"{column}.list.element"]
    return [column]


def column_key_list(indexes: Sequence[tuple[str, str, str | None]], footer_key: str,
                    virtual_columns: Sequence[str]) -> str:
    """``label:cols;label:cols`` from ``(kind, metadata column, label or None)`` per index."""
    groups: dict[str, list[str]] = {}
    for kind, column, label in indexes:
        if label is not None:
            groups.setdefault(label, []).extend(leaf_paths(kind, column))
    groups.setdefault(footer_key, []).extend(["obj_name", *virtual_columns])
    return ";".join(f"{label}:{','.join(cols)}" for label, cols in groups.items())


def parse_column_keys(text: str) -> dict[str, list[str]]:
    """``{label: [column paths]}`` of a key list string."""
    out: dict[str, list[str]] = {}
    for group in filter(None, text.split(";")):
        label, sep, cols = group.partition(":")
        if not sep or not label:
            raise XskipperIndexError(f"bad encryption.column.keys group {group!r}")
        out.setdefault(label.strip(), []).extend(c.strip() for c in cols.split(",") if c.strip())
    return out


def encryption_metadata(indexes: Sequence[tuple[str, str, str | None]], footer_key: str | None,
                        plaintext_footer: bool, virtual_columns: Sequence[str]) -> dict[str, str] | None:
    """The ``encryption`` object of ``obj_name``'s metadata (None when nothing is encrypted)."""
    encrypted = any(label is not None for _, _, label in indexes)
    if not encrypted:
        if footer_key is not None:
            raise XskipperIndexError("a footer key label is set but no index is encrypted")
        return None
    if not footer_key:
        raise XskipperIndexError("encrypted indexes need a footer key label (footer_key=...)")
    out = {"encryption.column.keys": column_key_list(indexes, footer_key, virtual_columns)}
    if plaintext_footer:
        out["encryption.plaintext.footer"] = "true"
    out["encryption.footer.key"] = footer_key
    return out


def writer_options(encryption: dict[str, str] | None) -> dict[str, str]:
    """The PME writer properties for a stored ``encryption`` object (labels only)."""
    if not encryption:
        return {}
    out = {}
    for key in ("encryption.column.keys", "encryption.footer.key", "encryption.plaintext.footer"):
        if key in encryption:
            out[key] = out["parquet." + key] = encryption[key]
    return out


def require_encryption(encryption: dict[str, Any] | None, action: str, keys: Any = None) -> None:
    """Fail clearly when an encrypted store must be written or read without key tools."""
    if not encryption:
        return
    if keys is None:
        raise XskipperIndexError(f"cannot {action} an encrypted metadata store without key tools "
                                 f"(keys=PmeKeys(crypto_factory, kms_connection_config))")


class PmeKeys:
    """Key tools resolving the stored labels: parquet_core's ``CryptoFactory`` and a KMS connection.

    Labels are master key ids of the KMS; the store keeps only labels, the
    factory makes per-file data keys wrapped by them (key material inside the
    file).
    """

    def __init__(self, crypto_factory: Any, kms_connection_config: Any = None) -> None:
        self.factory = crypto_factory
        self.kms = kms_connection_config

    def write_options(self, encryption: dict[str, str], path: str) -> dict[str, Any]:
        """``pc.write_table`` keyword arguments encrypting a store file with *encryption*'s labels."""
        config = pc.EncryptionConfiguration(
            footer_key=encryption["encryption.footer.key"],
            column_keys=encryption["encryption.column.keys"],
            plaintext_footer=encryption.get("encryption.plaintext.footer") == "true")
        return {"encryption": self.factory.file_encryption_properties(self.kms, config, path)}

    def read_options(self, path: str) -> dict[str, Any]:
        """``pc.ParquetFile`` keyword arguments decrypting a store file."""
        config = pc.DecryptionConfiguration()
        return {"decryption": self.factory.file_decryption_properties(self.kms, config, path)}

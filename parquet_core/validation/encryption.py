"""Encryption rules: algorithm, keys, AADs, footer signature, column metadata.

Spec: Encryption.md.  Only what the given keys open is checked; a missing
key is reported as ``info`` (it is not a fault of the file).  Page, index
and Bloom filter modules are authenticated where the other rule modules
read them; a failure there is reported under ``encryption.module``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from parquet_core.errors import ParquetEncryptionError, ParquetError, UnsupportedFeatureError
from parquet_core.file.footer import read_footer
from parquet_core.metadata.wrappers import ColumnChunkMetadata
from parquet_core.validation.context import Checker, ChunkState
from parquet_core.validation.rules import ERROR, INFO, WARNING, rule

__all__ = ["no_footer_key", "footer_failed", "chunk_metadata", "MODULE"]

FOOTER_KEY_NEEDED = rule("encryption.footer-key-needed", INFO, "Encryption.md#54-encrypted-footer-mode",
                         "a file with an encrypted footer (PARE) can only be checked with its footer key")
FOOTER = rule("encryption.footer", ERROR, "Encryption.md#54-encrypted-footer-mode",
              "the encrypted footer decrypts and authenticates with the footer key")
SIGNATURE = rule("encryption.footer-signature", ERROR, "Encryption.md#55-plaintext-footer-mode",
                 "a plaintext footer's 28-byte signature (nonce, GCM tag) matches the footer")
FOOTER_UNVERIFIED = rule("encryption.footer-not-verified", INFO, "Encryption.md#55-plaintext-footer-mode",
                         "a signed plaintext footer could not be verified (no footer key given)")
ALGORITHM = rule("encryption.algorithm", ERROR, "Encryption.md#42-parquet-encryption-algorithms",
                 "the algorithm is AES_GCM_V1 or AES_GCM_CTR_V1 and carries aad_file_unique")
AAD_PREFIX = rule("encryption.aad-prefix", INFO, "Encryption.md#441-aad-prefix",
                  "the AAD prefix the file needs (supply_aad_prefix) was given and agrees with a stored one")
COLUMN_KEY = rule("encryption.column-key-missing", INFO, "Encryption.md#43-key-metadata",
                  "an encrypted column whose key was not given is not checked")
COLUMN_META = rule("encryption.column-metadata", ERROR, "Encryption.md#53-protection-of-sensitive-metadata",
                   "encrypted column metadata decrypts, and its crypto metadata names its own column")
PLAIN_STATS = rule("encryption.plaintext-statistics", WARNING, "Encryption.md#55-plaintext-footer-mode",
                   "in plaintext footer mode, an encrypted column's plaintext metadata is stripped of statistics")
PLAIN_MISMATCH = rule("encryption.plaintext-metadata-mismatch", ERROR, "Encryption.md#55-plaintext-footer-mode",
                      "an encrypted column's plaintext metadata agrees with its decrypted metadata (offsets, sizes, counts)")
MODULE = rule("encryption.module", ERROR, "Encryption.md#44-additional-authenticated-data",
              "every encrypted module (page header, page, index, Bloom filter) decrypts with its AAD")


def no_footer_key(ck: Checker) -> None:
    """A PARE file checked without keys: nothing past the tail can be read."""
    ck.report(FOOTER_KEY_NEEDED, "the footer is encrypted; pass its key (--footer-key) to check the file")
    ck.readable = False


def _prefix_problem(text: str) -> bool:
    """True for the AAD prefix errors the decryptor raises before trying any key."""
    return "AAD prefix given" in text or "does not store" in text


def footer_failed(ck: Checker, exc: ParquetError) -> None:
    """Report an encrypted footer (PARE) that could not be opened; the file is then unreadable."""
    text = str(exc)
    if _prefix_problem(text):
        ck.report(AAD_PREFIX, text)
    elif isinstance(exc, ParquetEncryptionError):
        ck.report(FOOTER, f"the encrypted footer does not decrypt: {text}", offset=ck.footer_start)
    elif "algorithm" in text or "aad_file_unique" in text:
        ck.report(ALGORITHM, text, offset=ck.footer_start)
    else:
        from parquet_core.validation.footer import THRIFT

        ck.report(THRIFT, f"the footer does not decode: {text}", offset=ck.footer_start)
    ck.readable = False


def plaintext_footer(ck: Checker) -> None:
    """A signed plaintext footer (already parsed): verify it and build the file's decryptor."""
    try:
        _, _, ck.decryptor = read_footer(ck.source, ck.decryption)
        return
    except (UnsupportedFeatureError, ParquetError) as exc:
        text = str(exc)
        if _prefix_problem(text):
            ck.report(AAD_PREFIX, text)
        elif isinstance(exc, ParquetEncryptionError) and ck.decryption is not None:
            ck.report(SIGNATURE, f"the plaintext footer's signature does not verify: {text}", offset=ck.footer_start)
        else:
            ck.report(ALGORITHM, text, offset=ck.footer_start)
            return
    if ck.decryption is not None:   # go on without verifying, to check the columns the keys open
        try:
            _, _, ck.decryptor = read_footer(ck.source, replace(ck.decryption, verify_plaintext_footer=False))
        except (UnsupportedFeatureError, ParquetError):
            ck.decryptor = None


def chunk_metadata(ck: Checker, ch: ChunkState) -> Any:
    """The decrypted ``ColumnMetaData`` of an encrypted chunk, or None (reported) when it cannot be had."""
    cc = ch.raw
    if ck.decryptor is None:
        if cc.crypto_metadata is not None and ck.raw.encryption_algorithm is not None:
            ck.report_chunk(COLUMN_KEY, ch, "the column is encrypted and the footer could not be opened for it")
        elif cc.crypto_metadata is not None:
            ck.report_chunk(ALGORITHM, ch, "the chunk has crypto metadata but the file declares no "
                            "encryption algorithm")
        else:
            ck.report_chunk(COLUMN_META, ch, "the chunk has neither plaintext nor crypto metadata")
        return None
    if ck.decryption is None or not _has_key(ck, cc, ch.path):
        ck.report_chunk(COLUMN_KEY, ch, "the column is encrypted with a key that was not given")
        return None
    g = ck.raw.row_groups[ch.rg]
    try:
        ch.wrapper = ColumnChunkMetadata(cc, ch.desc, _order_defined(ck, ch.col), ch.rg, ch.col, ck.writer,
                                         ck.decryptor, g.ordinal)
    except (UnsupportedFeatureError, ParquetError) as exc:
        rule_ = AAD_PREFIX if _prefix_problem(str(exc)) else COLUMN_META
        ck.report_chunk(rule_, ch, f"the column metadata cannot be decrypted: {exc}")
        return None
    meta = ch.wrapper.meta
    plain = cc.meta_data
    if plain is not None and cc.encrypted_column_metadata is not None:
        if plain.statistics is not None and (plain.statistics.min_value is not None
                                             or plain.statistics.max_value is not None):
            ck.report_chunk(PLAIN_STATS, ch, "the plaintext metadata of an encrypted column keeps its "
                            "min/max statistics")
        for name in ("num_values", "total_compressed_size", "data_page_offset", "dictionary_page_offset", "codec"):
            if getattr(plain, name) != getattr(meta, name):
                ck.report_chunk(PLAIN_MISMATCH, ch, f"{name}: the plaintext metadata says {getattr(plain, name)}, "
                                f"the encrypted metadata {getattr(meta, name)}")
    return meta


def _order_defined(ck: Checker, i: int) -> bool:
    orders = ck.raw.column_orders
    return orders is not None and len(orders) == len(ck.schema) and orders[i].TYPE_ORDER is not None


def _has_key(ck: Checker, cc: Any, path: str) -> bool:
    crypto = cc.crypto_metadata
    props = ck.decryption
    try:
        if crypto is not None and crypto.ENCRYPTION_WITH_COLUMN_KEY is not None:
            return props.key_for_column(path, crypto.ENCRYPTION_WITH_COLUMN_KEY.key_metadata) is not None
        return props.find_footer_key(ck.decryptor.footer_key_metadata) is not None
    except ParquetError:
        return False


KEY_METADATA = rule("encryption.key-metadata", WARNING, "Encryption.md#43-key-metadata; KeyTools (PKMT1 key material)",
                    "key metadata written as key-tools JSON parses as PKMT1 key material or a key reference "
                    "and says the right key kind (footer or column)")


def _key_metadata_problem(km: Any, footer: bool) -> str | None:
    """What is wrong with key-tools JSON key metadata (None: fine, or not key-tools JSON at all).

    The spec leaves ``key_metadata`` opaque; only values that start as a JSON
    object are held to the key tools' format, which parquet-java, Arrow and
    this package share: a KMS-based reader fails on anything else.
    """
    from parquet_core.encryption.keytools.material import KeyMetadata

    raw = bytes(km)
    if not raw.lstrip().startswith(b"{"):
        return None
    try:
        meta = KeyMetadata.parse(raw)
    except ParquetError as exc:
        return f"it starts as a JSON object but is not PKMT1 key metadata: {exc}"
    if meta.material is not None and meta.material.is_footer_key != footer:
        return (f"its key material says isFooterKey={str(meta.material.is_footer_key).lower()} for "
                f"the {'footer' if footer else 'column'} key")
    return None


def check_key_metadata(ck: Checker) -> None:
    """Footer and column key metadata in the key tools' format, when they use it."""
    dec = ck.decryptor
    footer_km = dec.footer_key_metadata if dec is not None else None
    if footer_km is None and ck.raw is not None:
        footer_km = ck.raw.footer_signing_key_metadata
    if footer_km:
        problem = _key_metadata_problem(footer_km, True)
        if problem:
            ck.report(KEY_METADATA, f"footer key metadata: {problem}")
    if ck.raw is None:
        return
    for g, rg in enumerate(ck.raw.row_groups or []):
        for i, cc in enumerate(rg.columns or []):
            crypto = cc.crypto_metadata
            col = crypto.ENCRYPTION_WITH_COLUMN_KEY if crypto is not None else None
            if col is None or not col.key_metadata:
                continue
            problem = _key_metadata_problem(col.key_metadata, False)
            if problem:
                path = ".".join(col.path_in_schema or []) or (
                    ck.schema.column(i).dotted_path if ck.schema is not None and i < len(ck.schema) else None)
                ck.report(KEY_METADATA, f"column key metadata: {problem}", row_group=g, column=path)


def check_footer_verified(ck: Checker) -> None:
    """Info when a signed plaintext footer was read without verifying its signature."""
    dec = ck.decryptor
    if dec is None or bytes(ck.source.read_at(ck.size - 4, 4)) != b"PAR1":
        return
    if not dec.footer_verified and not any(f.rule in (SIGNATURE.id, AAD_PREFIX.id) for f in ck.findings):
        ck.report(FOOTER_UNVERIFIED, "the plaintext footer's signature was not verified (no footer key)")

"""Keys of the encrypted files in parquet-testing (from its data/README.md and issue 6).

The files were written by parquet-cpp (and one by parquet-java); their
keys are ASCII strings of digits. Nothing here comes from our own output.
"""

from __future__ import annotations

from pathlib import Path

import parquet_core as pc

FOOTER_16 = b"0123456789012345"
COLUMNS_16 = {"double_field": b"1234567890123450", "float_field": b"1234567890123451"}
KEY_IDS_16 = {b"kf": FOOTER_16, b"kc1": COLUMNS_16["double_field"], b"kc2": COLUMNS_16["float_field"]}

FOOTER_32 = b"01234567890123456789012345678901"
_COLUMN_ORDER_32 = ["double_field", "float_field", "boolean_field", "int32_field", "ba_field",
                    "flba_field", "int64_field.list.element", "int96_field"]
COLUMNS_32 = {path: b"123456789012345678901234567890" + str(12 + i).encode()
              for i, path in enumerate(_COLUMN_ORDER_32)}

AAD_PREFIX = b"tester"

#: Every encrypted corpus file but the one with external key material (key tools).
FILES = [
    "uniform_encryption.parquet.encrypted",
    "encrypt_columns_and_footer.parquet.encrypted",
    "encrypt_columns_and_footer_aad.parquet.encrypted",
    "encrypt_columns_and_footer_ctr.parquet.encrypted",
    "encrypt_columns_and_footer_disable_aad_storage.parquet.encrypted",
    "encrypt_columns_plaintext_footer.parquet.encrypted",
    "encrypt_columns_and_footer_bloom_filter.parquet.encrypted",
    "aes256/uniform_encryption.parquet.encrypted",
    "aes256/encrypt_columns_and_footer.parquet.encrypted",
    "aes256/encrypt_columns_and_footer_ctr.parquet.encrypted",
    "aes256/encrypt_columns_and_footer_disable_aad_storage.parquet.encrypted",
    "aes256/encrypt_columns_plaintext_footer.parquet.encrypted",
]
EXTERNAL = "external_key_material_java.parquet.encrypted"


def keys(name: str) -> dict:
    """``footer_key``, ``column_keys`` and ``aad_prefix`` of corpus file *name*."""
    wide = name.startswith("aes256/")
    out = {"footer_key": FOOTER_32 if wide else FOOTER_16,
           "column_keys": dict(COLUMNS_32 if wide else COLUMNS_16)}
    if "_aad" in name:   # ..._aad and ..._disable_aad_storage were written with the prefix "tester"
        out["aad_prefix"] = AAD_PREFIX
    return out


def decryption(name: str, **overrides) -> pc.FileDecryptionProperties:
    """Our decryption properties for corpus file *name* (fields overridable)."""
    return pc.FileDecryptionProperties(**{**keys(name), **overrides})


def path(corpus: Path, name: str) -> Path:
    return corpus / name

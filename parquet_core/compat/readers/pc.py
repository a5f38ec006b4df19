"""parquet_core itself: ``pc.read_table`` with explicit keys (or its key tools for KMS-encrypted
files), values through ``to_pylist()``."""

from __future__ import annotations

from typing import Any

from parquet_core.compat.canonical import from_python


def version() -> str:
    import parquet_core
    return parquet_core.__version__


def read(path: str, keys: dict[str, Any] | None) -> dict[str, list]:
    import parquet_core as pc
    decryption = None
    if keys and "kms" in keys:   # through our key tools, as a user of a KMS reads
        from parquet_core.encryption.keytools import InMemoryKms
        masters = {k: bytes.fromhex(v) for k, v in keys["kms"].items()}
        decryption = pc.CryptoFactory(lambda config: InMemoryKms(masters)).file_decryption_properties(None)
    elif keys:
        decryption = pc.FileDecryptionProperties(
            footer_key=bytes.fromhex(keys["footer_key"]),
            column_keys={k: bytes.fromhex(v) for k, v in keys.get("column_keys", {}).items()} or None,
            aad_prefix=bytes.fromhex(keys["aad_prefix"]) if keys.get("aad_prefix") else None)
    table = pc.read_table(path, decryption=decryption)
    return {name: [from_python(v) for v in table.column(name).to_pylist()] for name in table.column_names}

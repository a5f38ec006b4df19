"""pyarrow's key-tool configuration objects, read by their attributes (no pyarrow import).

``pyarrow.parquet.encryption``'s ``KmsConnectionConfig``, ``EncryptionConfiguration``
and ``DecryptionConfiguration`` carry the same fields as ours (pyarrow's
names were kept), so :class:`~parquet_core.CryptoFactory` accepts them: each is
copied field by field into ours, and checked as ours are.  A pyarrow KMS client
(a subclass of ``pyarrow.parquet.encryption.KmsClient`` with ``wrap_key`` /
``unwrap_key``) works as it is.  What pyarrow's own ``CryptoFactory`` returns
(``FileEncryptionProperties`` and ``FileDecryptionProperties``: C++ objects
whose keys cannot be read) is refused by the readers and writers.
"""

from __future__ import annotations

from typing import Any

from parquet_core.encryption.keytools.config import DecryptionConfiguration, EncryptionConfiguration
from parquet_core.encryption.keytools.kms import KmsConnectionConfig

__all__ = ["foreign_kms_config", "foreign_encryption_config", "foreign_decryption_config"]


def _is_pyarrow(obj: Any, name: str) -> bool:
    cls = type(obj)
    return cls.__name__ == name and (cls.__module__ or "").startswith("pyarrow")


def foreign_kms_config(obj: Any) -> Any:
    """Ours for pyarrow's ``KmsConnectionConfig``; anything else unchanged."""
    if not _is_pyarrow(obj, "KmsConnectionConfig"):
        return obj
    return KmsConnectionConfig(kms_instance_id=obj.kms_instance_id, kms_instance_url=obj.kms_instance_url,
                               key_access_token=obj.key_access_token,
                               custom_kms_conf=dict(obj.custom_kms_conf or {}))


def foreign_encryption_config(obj: Any) -> Any:
    """Ours for pyarrow's ``EncryptionConfiguration``; anything else unchanged."""
    if not _is_pyarrow(obj, "EncryptionConfiguration"):
        return obj
    column_keys = {k: list(v) for k, v in (obj.column_keys or {}).items()}
    return EncryptionConfiguration(
        footer_key=obj.footer_key, column_keys=column_keys or None,
        encryption_algorithm=obj.encryption_algorithm, plaintext_footer=obj.plaintext_footer,
        double_wrapping=obj.double_wrapping, cache_lifetime=obj.cache_lifetime,
        internal_key_material=obj.internal_key_material, data_key_length_bits=obj.data_key_length_bits,
        uniform_encryption=bool(getattr(obj, "uniform_encryption", False)))


def foreign_decryption_config(obj: Any) -> Any:
    """Ours for pyarrow's ``DecryptionConfiguration``; anything else unchanged."""
    if not _is_pyarrow(obj, "DecryptionConfiguration"):
        return obj
    return DecryptionConfiguration(cache_lifetime=obj.cache_lifetime)

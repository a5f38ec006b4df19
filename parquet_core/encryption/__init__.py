"""Parquet modular encryption (the spec's "Parquet Modular Encryption" chapter).

Layers inside this package, lowest first:

``modules``     module type numbers and AAD construction (facts from the spec)
``ciphers``     AES-GCM and AES-CTR module framing on top of ``cryptography``
``properties``  the user-facing :class:`FileEncryptionProperties` and
                :class:`FileDecryptionProperties`

The file and page layers call into these; nothing here knows about thrift.
``ciphers`` imports ``cryptography`` and is imported only when a file is
encrypted, so ``import parquet_core`` stays light.
"""

from parquet_core.encryption.modules import ModuleType, file_aad, module_aad
from parquet_core.encryption.properties import (
    AES_GCM_CTR_V1,
    AES_GCM_V1,
    FileDecryptionProperties,
    FileEncryptionProperties,
)

__all__ = [
    "AES_GCM_CTR_V1", "AES_GCM_V1", "FileDecryptionProperties", "FileEncryptionProperties",
    "ModuleType", "file_aad", "module_aad",
]

"""Parquet modular encryption (the spec's "Parquet Modular Encryption" chapter).

Layers inside this package, lowest first:

``modules``     module type numbers and AAD construction (facts from the spec)
``ciphers``     AES-GCM and AES-CTR module framing on top of ``cryptography``
``properties``  the user-facing :class:`FileEncryptionProperties` and
                :class:`FileDecryptionProperties`
``context``     the read and write contexts (Protocols) the page, index and Bloom filter
                code goes through, and their plaintext null objects
``decryptor``   the encrypted read contexts: footer, column metadata, page headers and
``encryptor``   bodies are thrift modules, which these parse and serialize (the package
                sits above ``parquet_core.thrift`` in the layers for that)
``keytools``    key management (KMS clients, wrapped keys, key material)

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

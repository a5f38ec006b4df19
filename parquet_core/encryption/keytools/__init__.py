"""Key management tools: KMS clients, envelope encryption, the crypto factory.

Compatible with parquet-java's and Arrow's "properties-driven crypto
factory": files written through either one's factory with the same KMS are
readable here, and the reverse. Layers, lowest first:

``wrap``       local AES-GCM key wrapping (imports ``cryptography`` lazily)
``material``   the PKMT1 key material / key metadata JSON
``kms``        :class:`KmsClient`, :class:`KmsConnectionConfig`, :class:`InMemoryKms`,
               :class:`LocalWrapKmsClient`
``store``      external key material files (``_KEY_MATERIAL_FOR_<file>.json``)
``cache``      per-token expiring caches
``file_keys``  wrapping and unwrapping one file's keys (single/double wrapping)
``config``     :class:`EncryptionConfiguration`, :class:`DecryptionConfiguration`
``factory``    :class:`CryptoFactory`
"""

from parquet_core.encryption.keytools.config import (
    DecryptionConfiguration,
    EncryptionConfiguration,
    parse_column_keys,
)
from parquet_core.encryption.keytools.factory import CryptoFactory
from parquet_core.encryption.keytools.kms import (
    InMemoryKms,
    KmsClient,
    KmsConnectionConfig,
    LocalWrapKmsClient,
)
from parquet_core.encryption.keytools.material import KeyMaterial, KeyMetadata
from parquet_core.encryption.keytools.store import KeyMaterialStore, key_material_path

__all__ = [
    "CryptoFactory", "DecryptionConfiguration", "EncryptionConfiguration", "InMemoryKms",
    "KeyMaterial", "KeyMaterialStore", "KeyMetadata", "KmsClient", "KmsConnectionConfig",
    "LocalWrapKmsClient",
    "key_material_path", "parse_column_keys",
]

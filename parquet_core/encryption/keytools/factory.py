"""The properties-driven crypto factory (as in parquet-java and Arrow).

Given master key *ids* (``footer_key="kf"``, ``column_keys="k1:a,b;k2:c"``)
and a KMS client, it generates random data keys, wraps them, and returns the
:class:`~parquet_core.FileEncryptionProperties` to write a file with; for
reading it returns :class:`~parquet_core.FileDecryptionProperties` whose
``key_retriever`` unwraps the keys named by each file's key metadata.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from parquet_core.encryption.keytools.config import (
    DecryptionConfiguration,
    EncryptionConfiguration,
    seconds,
)
from parquet_core.encryption.keytools.file_keys import FileKeyUnwrapper, FileKeyWrapper, KeyToolkit
from parquet_core.encryption.keytools.foreign import (
    foreign_decryption_config,
    foreign_encryption_config,
    foreign_kms_config,
)
from parquet_core.encryption.keytools.kms import KmsClient, KmsConnectionConfig
from parquet_core.encryption.keytools.material import FOOTER_KEY_ID_IN_FILE, KeyMaterial
from parquet_core.encryption.keytools.store import KeyMaterialStore
from parquet_core.encryption.keytools.wrap import random_bytes
from parquet_core.encryption.properties import FileDecryptionProperties, FileEncryptionProperties
from parquet_core.errors import ParquetEncryptionError

__all__ = ["CryptoFactory"]


def _check_config(config: KmsConnectionConfig | None) -> KmsConnectionConfig:
    if config is None:
        return KmsConnectionConfig()
    config = foreign_kms_config(config)     # pyarrow's, copied into ours
    if not isinstance(config, KmsConnectionConfig):
        raise TypeError("kms_connection_config must be a KmsConnectionConfig")
    return config


class CryptoFactory:
    """Builds encryption/decryption properties from master key ids and a KMS.

    *kms_client_factory* is called with a :class:`KmsConnectionConfig` and
    returns a :class:`KmsClient`; clients and key encryption keys are cached
    per access token for the configured ``cache_lifetime``.

    One :meth:`file_encryption_properties` result is meant for one file: its
    data keys are fresh random keys.
    """

    def __init__(self, kms_client_factory: Callable[[KmsConnectionConfig], KmsClient]) -> None:
        self._toolkit = KeyToolkit(kms_client_factory)

    def file_encryption_properties(self, kms_connection_config: KmsConnectionConfig | None,
                                   encryption_config: EncryptionConfiguration,
                                   parquet_file_path: str | os.PathLike | None = None,
                                   ) -> FileEncryptionProperties:
        """Fresh data keys for one file, wrapped per *encryption_config*.

        With ``internal_key_material=False`` the key material goes to
        ``_KEY_MATERIAL_FOR_<name>.json`` beside the file; it is written by the
        returned properties' ``on_file_written`` hook, which the writer calls
        when the file is complete (with the path it writes, else
        *parquet_file_path*, which is then required).
        """
        config = _check_config(kms_connection_config)
        encryption_config = foreign_encryption_config(encryption_config)
        if not isinstance(encryption_config, EncryptionConfiguration):
            raise TypeError("encryption_config must be an EncryptionConfiguration")
        enc = encryption_config
        store = None
        if not enc.internal_key_material:
            if parquet_file_path is None:
                raise ValueError("external key material (internal_key_material=False) needs "
                                 "parquet_file_path")
            store = KeyMaterialStore(parquet_file_path)
        wrapper = FileKeyWrapper(self._toolkit, config, store, seconds(enc.cache_lifetime, "cache_lifetime"),
                                 enc.double_wrapping)
        dek_length = enc.data_key_length_bits // 8
        footer_key = random_bytes(dek_length)
        footer_meta = wrapper.key_metadata(footer_key, enc.footer_key, is_footer_key=True)
        column_keys: dict[str, bytes] = {}
        column_meta: dict[str, str] = {}
        for column, master_key_id in enc.column_master_keys.items():
            column_keys[column] = random_bytes(dek_length)
            column_meta[column] = wrapper.key_metadata(column_keys[column], master_key_id,
                                                       is_footer_key=False)
        return FileEncryptionProperties(
            footer_key=footer_key, column_keys=column_keys, algorithm=enc.encryption_algorithm,
            plaintext_footer=enc.plaintext_footer, footer_key_metadata=footer_meta,
            column_key_metadata=column_meta,
            on_file_written=None if store is None else store.save,
        )

    def file_decryption_properties(self, kms_connection_config: KmsConnectionConfig | None,
                                   decryption_config: DecryptionConfiguration | None = None,
                                   parquet_file_path: str | os.PathLike | None = None,
                                   ) -> FileDecryptionProperties:
        """Properties whose ``key_retriever`` unwraps keys through the KMS.

        *parquet_file_path* is needed only for files with external key material.
        """
        config = _check_config(kms_connection_config)
        dec = foreign_decryption_config(decryption_config) if decryption_config is not None \
            else DecryptionConfiguration()
        if not isinstance(dec, DecryptionConfiguration):
            raise TypeError("decryption_config must be a DecryptionConfiguration")
        retriever = FileKeyUnwrapper(self._toolkit, config, seconds(dec.cache_lifetime, "cache_lifetime"),
                                     parquet_file_path)
        return FileDecryptionProperties(key_retriever=retriever)

    def rotate_master_keys(self, kms_connection_config: KmsConnectionConfig | None,
                           parquet_file_path: str | os.PathLike, double_wrapping: bool = True,
                           cache_lifetime: float | None = None) -> None:
        """Re-wrap a file's data keys under the KMS's current master keys.

        Only for files with external key material: the data keys (and so the
        Parquet file) stay the same; the key material file is rewritten
        atomically with freshly wrapped keys (new KEKs when *double_wrapping*).
        """
        config = _check_config(kms_connection_config)
        lifetime = seconds(cache_lifetime, "cache_lifetime")
        # Master keys are changing: KEKs cached for writing must not be reused.
        self._toolkit.kek_write.remove_token(config.key_access_token)
        old = KeyMaterialStore(parquet_file_path)
        key_ids = old.key_ids()
        if FOOTER_KEY_ID_IN_FILE not in key_ids:
            raise ParquetEncryptionError(f"key material file {old.path} has no {FOOTER_KEY_ID_IN_FILE!r}")
        unwrapper = FileKeyUnwrapper(self._toolkit, config, lifetime, store=old)
        # The footer key first: its material records the KMS instance id and URL.
        ordered = [FOOTER_KEY_ID_IN_FILE] + [k for k in key_ids if k != FOOTER_KEY_ID_IN_FILE]
        unwrapped = []
        for key_id in ordered:
            material = KeyMaterial.parse(old.get(key_id), what=f"key material {key_id!r} in {old.path}")
            unwrapped.append((key_id, material.is_footer_key, *unwrapper.key_and_master_id(material)))
        new = KeyMaterialStore(parquet_file_path)
        wrapper = FileKeyWrapper(self._toolkit, unwrapper.config, new, lifetime, double_wrapping)
        for key_id, is_footer, dek, master_key_id in unwrapped:
            wrapper.key_metadata(dek, master_key_id, is_footer, key_id_in_file=key_id)
        new.save()

    def remove_cache_entries_for_token(self, access_token: str) -> None:
        """Forget KMS clients and KEKs cached for *access_token* (e.g. a revoked one)."""
        self._toolkit.clear(access_token)

    def remove_cache_entries_for_all_tokens(self) -> None:
        self._toolkit.clear()

"""Envelope encryption of one file's keys: wrapping (write) and unwrapping (read).

*Single wrapping*: each data encryption key (DEK) is sent to the KMS and
wrapped with its master key. *Double wrapping* (the default): a random
16-byte key encryption key (KEK) per master key is wrapped by the KMS once
and cached; DEKs are wrapped locally with the KEK (AES-GCM, the KEK's raw
16-byte id as AAD), so writing many files costs few KMS calls.
"""

from __future__ import annotations

import base64
import dataclasses
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from parquet_core.encryption.keytools.cache import TokenCache
from parquet_core.encryption.keytools.kms import DEFAULT_KMS_INSTANCE, KmsClient, KmsConnectionConfig
from parquet_core.encryption.keytools.material import (
    COLUMN_KEY_ID_IN_FILE_PREFIX,
    FOOTER_KEY_ID_IN_FILE,
    KeyMaterial,
    KeyMetadata,
)
from parquet_core.encryption.keytools.store import KeyMaterialStore
from parquet_core.encryption.keytools.wrap import (
    b64decode,
    decrypt_key_locally,
    encrypt_key_locally,
    random_bytes,
)
from parquet_core.errors import ParquetEncryptionError, quoted

__all__ = ["KeyToolkit", "FileKeyWrapper", "FileKeyUnwrapper", "KEK_LENGTH", "KEK_ID_LENGTH"]

KEK_LENGTH = 16
KEK_ID_LENGTH = 16


@dataclass(frozen=True)
class _Kek:
    key: bytes
    kek_id: bytes
    wrapped: str

    @property
    def encoded_id(self) -> str:
        return base64.b64encode(self.kek_id).decode("ascii")


class KeyToolkit:
    """The KMS client factory plus the caches shared by a crypto factory's files."""

    def __init__(self, kms_client_factory: Callable[[KmsConnectionConfig], KmsClient]) -> None:
        if not callable(kms_client_factory):
            raise TypeError("kms_client_factory must be callable(KmsConnectionConfig) -> KmsClient")
        self.kms_client_factory = kms_client_factory
        self.kms_clients = TokenCache()   # token -> kms instance id -> client
        self.kek_write = TokenCache()     # token -> master key id -> _Kek
        self.kek_read = TokenCache()      # token -> encoded KEK id -> KEK bytes

    def kms_client(self, config: KmsConnectionConfig, lifetime: float) -> KmsClient:
        clients = self.kms_clients.inner(config.key_access_token, lifetime)
        client = clients.get(config.kms_instance_id)
        if client is None:
            client = self.kms_client_factory(config)
            if client is None or not all(callable(getattr(client, m, None))
                                         for m in ("wrap_key", "unwrap_key")):
                raise TypeError("kms_client_factory must return an object with wrap_key and unwrap_key")
            clients[config.kms_instance_id] = client
        return client

    def clear(self, token: str | None = None) -> None:
        for cache in (self.kms_clients, self.kek_write, self.kek_read):
            if token is None:
                cache.clear()
            else:
                cache.remove_token(token)


def _kms_call(method: Any, verb: str, master_key_id: str, *args: Any) -> Any:
    """Call a KmsClient method; any failure but our own becomes a ParquetEncryptionError."""
    try:
        return method(*args, master_key_id)
    except ParquetEncryptionError:
        raise
    except Exception as exc:
        raise ParquetEncryptionError(f"the KMS failed to {verb} a key with master key "
                                     f"{quoted(master_key_id)}: {exc}") from exc


def _kms_wrap(client: KmsClient, key: bytes, master_key_id: str) -> str:
    wrapped = _kms_call(client.wrap_key, "wrap", master_key_id, key)
    if isinstance(wrapped, (bytes, bytearray)):
        wrapped = bytes(wrapped).decode("utf-8")
    if not isinstance(wrapped, str):
        raise ParquetEncryptionError(f"KmsClient.wrap_key returned {type(wrapped).__name__}, not str")
    return wrapped


def _kms_unwrap(client: KmsClient, wrapped: str, master_key_id: str) -> bytes:
    key = _kms_call(client.unwrap_key, "unwrap", master_key_id, wrapped)
    if not isinstance(key, (bytes, bytearray, memoryview)):
        raise ParquetEncryptionError(f"KmsClient.unwrap_key returned {type(key).__name__}, not bytes")
    return bytes(key)


class FileKeyWrapper:
    """Wraps the DEKs of one file and produces their key metadata."""

    def __init__(self, toolkit: KeyToolkit, config: KmsConnectionConfig,
                 store: KeyMaterialStore | None, lifetime: float, double_wrapping: bool) -> None:
        self._config = dataclasses.replace(
            config, kms_instance_id=config.kms_instance_id or DEFAULT_KMS_INSTANCE,
            kms_instance_url=config.kms_instance_url or DEFAULT_KMS_INSTANCE)
        self._kms = toolkit.kms_client(self._config, lifetime)
        self._store = store
        self._double = double_wrapping
        self._keks = toolkit.kek_write.inner(config.key_access_token, lifetime) if double_wrapping else None
        self._column_counter = 0

    def _kek_for(self, master_key_id: str) -> _Kek:
        keks = self._keks
        if keks is None:   # pragma: no cover - only double wrapping asks for a KEK
            raise ParquetEncryptionError("single wrapping uses no key encryption key")
        kek = keks.get(master_key_id)
        if kek is None:
            key = random_bytes(KEK_LENGTH)
            kek = _Kek(key, random_bytes(KEK_ID_LENGTH), _kms_wrap(self._kms, key, master_key_id))
            keks[master_key_id] = kek
        return kek

    def key_metadata(self, dek: bytes, master_key_id: str, is_footer_key: bool,
                     key_id_in_file: str | None = None) -> str:
        """Wrap *dek* and return the key metadata to store in the file."""
        if self._double:
            kek = self._kek_for(master_key_id)
            material = KeyMaterial(is_footer_key, master_key_id, encrypt_key_locally(dek, kek.key, kek.kek_id),
                                   True, kek_id=kek.encoded_id, wrapped_kek=kek.wrapped,
                                   kms_instance_id=self._config.kms_instance_id,
                                   kms_instance_url=self._config.kms_instance_url)
        else:
            material = KeyMaterial(is_footer_key, master_key_id, _kms_wrap(self._kms, dek, master_key_id),
                                   False, kms_instance_id=self._config.kms_instance_id,
                                   kms_instance_url=self._config.kms_instance_url)
        if self._store is None:
            return material.to_json(internal_storage=True)
        if key_id_in_file is None:
            if is_footer_key:
                key_id_in_file = FOOTER_KEY_ID_IN_FILE
            else:
                key_id_in_file = f"{COLUMN_KEY_ID_IN_FILE_PREFIX}{self._column_counter}"
                self._column_counter += 1
        self._store.add(key_id_in_file, material.to_json(internal_storage=False))
        return KeyMetadata.external_json(key_id_in_file)


class FileKeyUnwrapper:
    """A ``key_retriever``: key metadata bytes -> data key, through the KMS."""

    def __init__(self, toolkit: KeyToolkit, config: KmsConnectionConfig, lifetime: float,
                 parquet_file_path: str | os.PathLike | None = None,
                 store: KeyMaterialStore | None = None) -> None:
        self._toolkit = toolkit
        self._config = dataclasses.replace(config)
        self._lifetime = lifetime
        self._path = parquet_file_path
        self._store = store
        self._keks = toolkit.kek_read.inner(config.key_access_token, lifetime)

    @property
    def config(self) -> KmsConnectionConfig:
        """The connection settings, with the KMS instance learned from the footer key."""
        return self._config

    def __call__(self, key_metadata: bytes) -> bytes:
        return self.key_and_master_id(self.material_of(key_metadata))[0]

    def material_of(self, key_metadata: bytes | str) -> KeyMaterial:
        """The key material *key_metadata* holds or refers to."""
        meta = KeyMetadata.parse(key_metadata)
        if meta.material is not None:
            return meta.material
        if meta.key_reference is None:   # KeyMetadata.parse gives one or the other
            raise ParquetEncryptionError("the key metadata holds neither key material nor a reference to it")
        if self._store is None:
            if self._path is None:
                raise ParquetEncryptionError(
                    "the file's key material is stored externally: give parquet_file_path to "
                    "CryptoFactory.file_decryption_properties")
            self._store = KeyMaterialStore(self._path)
        return KeyMaterial.parse(self._store.get(meta.key_reference),
                                 what=f"key material {quoted(meta.key_reference)} in {self._store.path}")

    def _kms_client(self, material: KeyMaterial) -> KmsClient:
        # An empty id/URL in the configuration is filled from the footer key's
        # material, which records them; column key material does not.
        for name, value in (("kms_instance_id", material.kms_instance_id),
                            ("kms_instance_url", material.kms_instance_url)):
            if not getattr(self._config, name):
                if not value:
                    raise ParquetEncryptionError(
                        f"{name} is missing both in the KmsConnectionConfig and in the file's key "
                        "material (read the footer key first, or configure it)")
                setattr(self._config, name, value)
        return self._toolkit.kms_client(self._config, self._lifetime)

    def key_and_master_id(self, material: KeyMaterial) -> tuple[bytes, str]:
        """Unwrap the DEK of *material*; also return its master key id."""
        kms = self._kms_client(material)
        master = material.master_key_id
        if not material.double_wrapping:
            return _kms_unwrap(kms, material.wrapped_dek, master), master
        if material.kek_id is None or material.wrapped_kek is None:   # parse reads both when double wrapped
            raise ParquetEncryptionError("double-wrapped key material lacks its key encryption key")
        kek = self._keks.get(material.kek_id)
        if kek is None:
            kek = _kms_unwrap(kms, material.wrapped_kek, master)
            self._keks[material.kek_id] = kek
        kek_id = b64decode(material.kek_id, "keyEncryptionKeyID")
        dek = decrypt_key_locally(material.wrapped_dek, kek, kek_id,
                                  what=f"data key wrapped under master key {quoted(master)}")
        return dek, master

"""The KMS client interface, its connection settings and an in-memory KMS.

A KMS (key management service) holds *master keys* that never leave it; the
key tools only ask it to wrap (encrypt) and unwrap (decrypt) small keys with
a master key named by its id. Subclass :class:`KmsClient` to talk to a real
KMS, and give :class:`~parquet_core.encryption.keytools.CryptoFactory` a
callable that builds one from a :class:`KmsConnectionConfig`.
"""

from __future__ import annotations

import abc
import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field

from parquet_core.encryption.keytools.wrap import decrypt_key_locally, encrypt_key_locally
from parquet_core.encryption.properties import check_key
from parquet_core.errors import ParquetEncryptionError, quoted

__all__ = ["DEFAULT_KMS_INSTANCE", "KmsClient", "KmsConnectionConfig", "InMemoryKms", "LocalWrapKmsClient"]

#: The instance id and URL recorded when none is configured (as parquet-java does).
DEFAULT_KMS_INSTANCE = "DEFAULT"


@dataclass
class KmsConnectionConfig:
    """How to reach a KMS (the fields of pyarrow's ``KmsConnectionConfig``).

    ``key_access_token`` also partitions the key tools' caches: entries made
    with one token are never served to another.
    """

    kms_instance_id: str = ""
    kms_instance_url: str = ""
    key_access_token: str = DEFAULT_KMS_INSTANCE
    custom_kms_conf: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("kms_instance_id", "kms_instance_url", "key_access_token"):
            if not isinstance(getattr(self, name), str):
                raise TypeError(f"KmsConnectionConfig.{name} must be a str")
        if not isinstance(self.custom_kms_conf, Mapping):
            raise TypeError("KmsConnectionConfig.custom_kms_conf must be a mapping")
        self.custom_kms_conf = dict(self.custom_kms_conf)

    def refresh_key_access_token(self, value: str) -> None:
        """Replace the access token (a KMS client may read it on each call)."""
        if not isinstance(value, str):
            raise TypeError("key_access_token must be a str")
        self.key_access_token = value


class KmsClient(abc.ABC):
    """Wraps and unwraps keys with master keys kept in a KMS."""

    @abc.abstractmethod
    def wrap_key(self, key_bytes: bytes, master_key_identifier: str) -> str:
        """Encrypt *key_bytes* with the master key; return it as text (e.g. base64)."""

    @abc.abstractmethod
    def unwrap_key(self, wrapped_key: str, master_key_identifier: str) -> bytes:
        """Decrypt what :meth:`wrap_key` returned."""


class InMemoryKms(KmsClient):
    """A KMS whose master keys sit in a dict: **for tests only**.

    Wrapping is AES-GCM under the master key with the master key id (UTF-8)
    as AAD, base64-encoded; parquet-java's and Arrow's in-memory test KMSs
    wrap the same way, so their files unwrap here and ours there. Master keys
    given as ``str`` are taken as their UTF-8 bytes (the corpus keys are
    ASCII digit strings), which also allows
    ``InMemoryKms(config.custom_kms_conf)``.
    """

    def __init__(self, master_keys: Mapping[str, bytes | str]) -> None:
        if not isinstance(master_keys, Mapping):
            raise TypeError("master_keys must be a mapping of master key id -> key")
        self._keys = {
            str(kid): check_key(k.encode("utf-8") if isinstance(k, str) else k, f"master key {quoted(kid)}")
            for kid, k in master_keys.items()
        }

    def _master_key(self, master_key_identifier: str) -> bytes:
        try:
            return self._keys[master_key_identifier]
        except KeyError:
            raise ParquetEncryptionError(
                f"master key {quoted(master_key_identifier)} is not known to the in-memory KMS") from None

    def wrap_key(self, key_bytes: bytes, master_key_identifier: str) -> str:
        return encrypt_key_locally(bytes(key_bytes), self._master_key(master_key_identifier),
                                   master_key_identifier.encode("utf-8"))

    def unwrap_key(self, wrapped_key: str, master_key_identifier: str) -> bytes:
        return decrypt_key_locally(wrapped_key, self._master_key(master_key_identifier),
                                   master_key_identifier.encode("utf-8"),
                                   what=f"key wrapped with master key {quoted(master_key_identifier)}")


class LocalWrapKmsClient(KmsClient):
    """A client for KMSs that hand out master keys instead of wrapping keys.

    Implement :meth:`get_master_key`; keys are then wrapped here (AES-GCM,
    master key id as AAD) and stored, as in parquet-java and Arrow's local
    wrapping mode, as ``{"masterKeyVersion":"NO_VERSION","encryptedKey":
    "<base64>"}``. Master keys are fetched once per client. Master key
    versions (and so key rotation) are not supported in this mode.
    """

    NO_VERSION = "NO_VERSION"

    def __init__(self) -> None:
        self._master_keys: dict[str, bytes] = {}
        self._lock = threading.Lock()

    @abc.abstractmethod
    def get_master_key(self, master_key_identifier: str) -> bytes:
        """Fetch the master key's bytes (16, 24 or 32) from the KMS."""

    def _master_key(self, master_key_identifier: str) -> bytes:
        with self._lock:
            key = self._master_keys.get(master_key_identifier)
        if key is None:
            key = check_key(self.get_master_key(master_key_identifier), f"master key {quoted(master_key_identifier)}")
            with self._lock:
                self._master_keys[master_key_identifier] = key
        return key

    def wrap_key(self, key_bytes: bytes, master_key_identifier: str) -> str:
        encrypted = encrypt_key_locally(bytes(key_bytes), self._master_key(master_key_identifier),
                                        master_key_identifier.encode("utf-8"))
        return json.dumps({"masterKeyVersion": self.NO_VERSION, "encryptedKey": encrypted},
                          separators=(",", ":"))

    def unwrap_key(self, wrapped_key: str, master_key_identifier: str) -> bytes:
        try:
            obj = json.loads(wrapped_key)
        except (TypeError, ValueError):
            obj = None
        if not isinstance(obj, dict) or not isinstance(obj.get("encryptedKey"), str):
            raise ParquetEncryptionError("a locally wrapped key must be JSON with a string 'encryptedKey'")
        version = obj.get("masterKeyVersion")
        if version != self.NO_VERSION:
            raise ParquetEncryptionError(
                f"master key version {quoted(version)} is not supported in local wrapping mode")
        return decrypt_key_locally(obj["encryptedKey"], self._master_key(master_key_identifier),
                                   master_key_identifier.encode("utf-8"),
                                   what=f"key wrapped locally with master key {quoted(master_key_identifier)}")

"""The one parser of ``format("pqmeta")``'s option strings.

:func:`meta_options` turns Spark's lower-cased option map, once, into a frozen
:class:`MetaOptions`; an option name pqmeta does not know fails at ``load()``
listing the ones it knows (they used to be ignored).

Options: ``path`` / ``paths``, ``level`` (``file``, ``schema``, ``rowgroup``,
``column``, ``page``, ``index``, ``bloom``, ``check``), ``mode``
(``permissive`` / ``failfast``), ``probe`` (the ``bloom`` level's value),
``checkLevel`` (``footer`` / ``pages`` / ``data``, the ``check`` level's),
``pathGlobFilter``, ``basePath``, ``filesPerTask``, ``bytesPerTask``,
``minPartitions`` and the ``parquet.encryption.*`` family.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from spark_adapter.core.option_values import check_names, lowered, positive

__all__ = ["META_NAME", "META_OPTIONS", "MetaOptions", "meta_options"]

META_NAME = "pqmeta"
ENCRYPTION_PREFIX = "parquet.encryption."
DEFAULT_FILES_PER_TASK = 256
DEFAULT_BYTES_PER_TASK = 128 * 1024 * 1024
LEVEL_NAMES = ("file", "schema", "rowgroup", "column", "page", "index", "bloom", "check")

META_OPTIONS = ("path", "paths", "level", "mode", "probe", "checkLevel", "pathGlobFilter", "basePath",
                "filesPerTask", "bytesPerTask", "minPartitions")


@dataclass(frozen=True)
class MetaOptions:
    """A pqmeta ``load(...)``'s options, typed."""

    paths: tuple[str, ...] = ()
    level: str = "file"
    mode: str = "permissive"
    probe: str | None = None
    check_level: str = "data"
    path_glob_filter: str | None = None
    base_path: str | None = None
    files_per_task: int = DEFAULT_FILES_PER_TASK
    bytes_per_task: int = DEFAULT_BYTES_PER_TASK
    min_partitions: int | None = None      # None: the planning host's CPU count
    encryption: dict[str, str] = field(default_factory=dict)


def _choice(opts: Mapping[str, str], key: str, shown: str, choices: tuple[str, ...], default: str) -> str:
    value = str(opts.get(key, default)).strip().lower()
    if value not in choices:
        raise ValueError(f"{META_NAME}: option {shown} must be one of {', '.join(choices)}, got {value!r}")
    return value


def meta_options(options: Mapping[str, Any] | MetaOptions | None) -> MetaOptions:
    """Parse pqmeta's options; raises ValueError naming a bad or unknown option."""
    if isinstance(options, MetaOptions):
        return options
    from spark_adapter.core.files import paths_from_options

    opts = lowered(options)
    check_names(META_NAME, opts, META_OPTIONS, (ENCRYPTION_PREFIX,))
    level = str(opts.get("level", "file")).lower()
    if level not in LEVEL_NAMES:
        raise ValueError(f"{META_NAME}: unknown level {level!r}; expected one of {sorted(LEVEL_NAMES)}")
    min_partitions = opts.get("minpartitions")
    return MetaOptions(
        paths=tuple(paths_from_options(opts)),
        level=level,
        mode=_choice(opts, "mode", "mode", ("permissive", "failfast"), "permissive"),
        probe=opts.get("probe"),
        check_level=_choice(opts, "checklevel", "checkLevel", ("footer", "pages", "data"), "data"),
        path_glob_filter=opts.get("pathglobfilter"),
        base_path=opts.get("basepath"),
        files_per_task=positive(opts, "filespertask", DEFAULT_FILES_PER_TASK, source=META_NAME),
        bytes_per_task=positive(opts, "bytespertask", DEFAULT_BYTES_PER_TASK, source=META_NAME),
        min_partitions=None if min_partitions is None else positive(opts, "minpartitions", 1,
                                                                    source=META_NAME),
        encryption=_encryption(opts),
    )


def _encryption(opts: Mapping[str, Any]) -> dict[str, str]:
    from spark_adapter.core.crypto_options import ENCRYPTION_OPTIONS

    out = {k: str(v) for k, v in opts.items() if k.startswith(ENCRYPTION_PREFIX)}
    check_names(META_NAME, out, ENCRYPTION_OPTIONS)
    return out

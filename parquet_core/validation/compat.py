"""Compatibility warnings (``pqc check --target READER[-VERSION],...``): rules ``compat.<reader>``.

Which format features a file uses is read from its footer
(:func:`parquet_core.metadata.features.features_used`: physical and logical
types, encodings, codecs, page versions, nested layouts, statistics kinds,
Bloom filters, page indexes, external column data, sorting columns,
encryption), with the feature ids of ``pqc compat``'s catalogue.  The shipped
table (``parquet_core/_data/compat_table.json``) holds, per reader, the
features ``pqc compat`` runs measured as not read correctly (refused,
different values, crash) for each version measured, and hand entries from
cited release notes (``since``: the first version that reads the feature),
which apply to older targets.  A target version that was measured uses that
measurement; one between measured versions (or newer than all) the nearest
measured version below it, one older than all the oldest, each with that
caveat in the message (:func:`parquet_core.metadata.features.pick_measurement`).
"""

from __future__ import annotations

from typing import Iterable

from parquet_core.metadata.features import (
    READERS,
    features_used,
    footer_crypto,
    load_table,
    parse_target,
    unsupported,
)
from parquet_core.validation.rules import WARNING, Rule, rule

__all__ = ["TARGET_RULES", "features_used", "footer_crypto", "parse_target", "target_findings", "load_table"]

_LABELS = {"pyarrow": "pyarrow (Arrow C++)", "duckdb": "duckdb", "polars": "polars", "fastparquet": "fastparquet",
           "spark": "Spark's built-in reader (parquet-java)"}

TARGET_RULES: dict[str, Rule] = {
    name: rule(f"compat.{name}", WARNING, "docs/compat.md",
               f"with --target {name}[-VERSION]: the file uses a feature {_LABELS[name]} does not read "
               f"(measured by pqc compat, or from cited release notes)")
    for name in READERS
}


def target_findings(used: dict[str, str], targets: Iterable[str], table: dict | None = None
                    ) -> list[tuple[Rule, str, str]]:
    """``(rule, feature, message)`` for each used feature a target reader does not read."""
    out = []
    for target in targets:
        name, version = parse_target(target)
        label = f"{name} {version}" if version else name
        for fid, why in unsupported(target, used, table):
            out.append((TARGET_RULES[name], fid, f"{label} does not read {fid} (used by {used[fid]}): {why}"))
    return out

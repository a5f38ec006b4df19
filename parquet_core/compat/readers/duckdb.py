"""duckdb's read_parquet; encrypted files with a single footer key (GCM) through add_parquet_key."""

from __future__ import annotations

import base64
import os
from typing import Any

from parquet_core.compat.canonical import from_arrow
from parquet_core.compat.readers import NotApplicable


def version() -> str:
    import duckdb
    return duckdb.__version__


def read(path: str, keys: dict[str, Any] | None) -> dict[str, list]:
    import duckdb
    con = duckdb.connect()
    try:
        con.execute("SET TimeZone = 'UTC'")
        target = os.path.join(path, "*.parquet") if os.path.isdir(path) else path
        if keys:
            if keys.get("column_keys") or keys.get("aad_prefix"):
                raise NotApplicable("duckdb takes one footer key only (no column keys, no AAD prefix)")
            key = base64.b64encode(bytes.fromhex(keys["footer_key"])).decode()
            con.execute(f"PRAGMA add_parquet_key('k', '{key}')")
            rel = con.execute("SELECT * FROM read_parquet(?, encryption_config = {footer_key: 'k'})", [target])
        else:
            rel = con.execute("SELECT * FROM read_parquet(?)", [target])
        # newer duckdb names fetch_arrow_table to_arrow_table (and its stubs declare only the new name)
        method = "to_arrow_table" if hasattr(rel, "to_arrow_table") else "fetch_arrow_table"
        return from_arrow(getattr(rel, method)())
    finally:
        con.close()

"""pandas ``period`` and ``interval`` columns read back without pyarrow.

pyarrow stores them as the extension types pandas registers with it:
``pandas.period`` (int64 ordinals; ``ARROW:extension:metadata`` ``{"freq": "M"}``)
and ``pandas.interval`` (a struct of ``left`` and ``right`` bounds;
``{"subtype": "int64", "closed": "right"}``), and records ``period[M]`` /
``interval[int64, right]`` as the column's ``numpy_type`` in the ``pandas``
metadata.  As pyarrow's ``to_pandas``, the extension type decides when
``ARROW:schema`` has one (so ``ignore_metadata=True`` keeps the dtype), else the
``pandas`` metadata; the arrays are then built as pandas' own ``__from_arrow__``
builds them (ordinals, null as NaT; bounds cast to the subtype).
"""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np

from parquet_core.metadata.arrow_ipc import FieldFacts

__all__ = ["period_or_interval_dtype", "period_array", "interval_array"]

_NAT = np.iinfo(np.int64).min

#: Arrow type names pandas writes as an interval's subtype, as numpy dtypes
_SUBTYPES = {"halffloat": "float16", "float": "float32", "double": "float64"}


def _subtype(text: Any) -> str | None:
    if not isinstance(text, str):
        return None
    if text in _SUBTYPES:
        return _SUBTYPES[text]
    if re.fullmatch(r"u?int(8|16|32|64)", text):
        return text
    unit = re.fullmatch(r"(timestamp|duration)\[(s|ms|us|ns)\]", text)
    if unit:
        return f"{'datetime64' if unit.group(1) == 'timestamp' else 'timedelta64'}[{unit.group(2)}]"
    return None


def _from_extension(pd: Any, facts: FieldFacts) -> Any:
    try:
        meta = json.loads(facts.extension_metadata or "")
    except ValueError:
        return None
    if not isinstance(meta, dict):
        return None
    try:
        if facts.extension == "pandas.period" and isinstance(meta.get("freq"), str):
            return pd.PeriodDtype(meta["freq"])
        subtype = _subtype(meta.get("subtype"))
        if facts.extension == "pandas.interval" and subtype is not None \
                and meta.get("closed") in ("left", "right", "both", "neither"):
            return pd.IntervalDtype(subtype, meta["closed"])
    except (TypeError, ValueError):
        return None
    return None


def period_or_interval_dtype(pd: Any, facts: FieldFacts | None, numpy_type: Any) -> Any:
    """The ``PeriodDtype`` / ``IntervalDtype`` of a column (its Arrow extension type first,
    then its ``numpy_type`` in the pandas metadata), or None for other columns."""
    if facts is not None and facts.extension in ("pandas.period", "pandas.interval"):
        found = _from_extension(pd, facts)
        if found is not None:
            return found
    if isinstance(numpy_type, str) and numpy_type.startswith(("period[", "interval[")):
        try:
            return pd.api.types.pandas_dtype(numpy_type)
        except (TypeError, ValueError):
            return None
    return None


def period_array(pd: Any, ordinals: np.ndarray, null: np.ndarray | None, dtype: Any) -> Any:
    """Period ordinals (int64), NaT where *null*, as a ``PeriodArray`` of *dtype*."""
    values = np.array(ordinals, dtype=np.int64)
    if null is not None:
        values[null] = _NAT
    return pd.arrays.PeriodArray(values, dtype=dtype)


def interval_array(pd: Any, left: Any, right: Any, dtype: Any) -> Any:
    """Bounds (numpy arrays, NaN / NaT where missing) as an ``IntervalArray`` of *dtype*."""
    subtype = dtype.subtype
    return pd.arrays.IntervalArray.from_arrays(np.asarray(left, dtype=subtype), np.asarray(right, dtype=subtype),
                                               closed=dtype.closed)

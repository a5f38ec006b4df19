"""Row predicates for ``filters=``: expressions, exact row filtering, pruning on bounds.

* :mod:`~parquet_core.predicate.expr` - ``col("a") > 5``, pyarrow's DNF lists,
  negation normal form;
* :mod:`~parquet_core.predicate.compare` - a column's storage against one
  literal, vectorised (the kernel both filtering and pruning use);
* :mod:`~parquet_core.predicate.evaluate` - SQL three-valued filtering of a
  table, and "could any row match?" on statistics or page bounds.
"""

from __future__ import annotations

from parquet_core.predicate.evaluate import Bounds, filter_mask, may_match
from parquet_core.predicate.expr import Expression, col, from_filters, negation_normal_form

__all__ = ["Expression", "col", "from_filters", "negation_normal_form", "filter_mask", "may_match", "Bounds"]

"""Row predicates for ``filters=``: expressions, exact row filtering, pruning on bounds.

``parquet_core.predicate`` is a public subpackage: the names in its ``__all__``
(expression nodes, DNF conversion, :func:`filter_mask` on an in-memory table,
:func:`may_match` on bounds) are a stable surface; its modules are internal.

* :mod:`~parquet_core.predicate.expr` - ``col("a") > 5``, pyarrow's DNF lists,
  negation normal form;
* :mod:`~parquet_core.predicate.compare` - a column's storage against one
  literal, vectorised (the kernel both filtering and pruning use);
* :mod:`~parquet_core.predicate.evaluate` - SQL three-valued filtering of a
  table, and "could any row match?" on statistics or page bounds.
"""

from __future__ import annotations

from parquet_core.predicate.evaluate import Bounds, filter_mask, may_match
from parquet_core.predicate.expr import (
                                         And,
                                         Column,
                                         Comparison,
                                         Expression,
                                         Intersects,
                                         IsIn,
                                         IsNan,
                                         IsNull,
                                         Not,
                                         Or,
                                         StartsWith,
                                         col,
                                         from_filters,
                                         negation_normal_form,
)

# Public: code built on parquet_core (parquet_core_integrations, spark_adapter) may
# import these names from this package, never from its modules.
__all__ = ["Expression", "col", "from_filters", "negation_normal_form", "filter_mask", "may_match", "Bounds",
           # the expression tree, to walk or build one
           "Column", "Comparison", "IsIn", "IsNull", "IsNan", "StartsWith", "Intersects", "And", "Or", "Not"]

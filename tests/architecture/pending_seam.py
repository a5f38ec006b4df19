"""Files another change (issue 34, items 1-3: the write seam and the dataset doors) is rewriting.

The type-check and lint tests skip findings in these files until that change lands; the
integrator empties this set after merging it (and then both tests cover them too).
"""

from __future__ import annotations

REWRITTEN_BY_WRITE_SEAM: frozenset[str] = frozenset()   # the write seam has landed

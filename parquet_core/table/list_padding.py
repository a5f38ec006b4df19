"""Level entries that repeat a list without defining an element of it.

The spec (README.md "Nested Encoding") has an entry with repetition level
``R + 1`` start a new element of a list whose slot opened at ``R``, so its
definition level reaches the element (``elem_def``).  duckdb writes a NULL
fixed-size array (``FLOAT[3]``) as one such entry per missing element: the
entry that opens the slot says "null" (definition level below the list's
element) and the ones after it repeat the list at the same level.  duckdb and
Spark read them as a NULL list; so do we, and ``pc.check`` reports
them (rule ``values.null-list-padding``).  Any other entry that repeats a list
without reaching its element stays an error: it has no reading.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

__all__ = ["StrayRepeats", "stray_repeats"]


class StrayRepeats(NamedTuple):
    """What :func:`stray_repeats` found: the padding entries, and the first other one."""

    padding: int        # entries padding a null list (read as that list)
    first_bad: int      # the first entry that repeats the list with no reading, or -1


def stray_repeats(reps: npt.NDArray[np.integer], defs: npt.NDArray[np.integer], slot_rep: int,
                  elem_def: int, null_below: int, stray: npt.NDArray[np.bool_] | None = None
                  ) -> StrayRepeats:
    """Sort the entries repeating a list (slot opened at repetition level *slot_rep*) whose
    definition level is below *elem_def* into padding and errors.

    An entry is padding when the entry opening its slot (the last one with repetition level
    at most *slot_rep*) says the list is null (definition level below *null_below*, the
    list's own level: the list or an ancestor is null), and the entry is defined exactly as
    far as that one.  Repeats of an empty list are not padding: duckdb's arrays are never
    empty, and nothing else writes them.  *stray*: those entries when the caller has them.
    """
    if stray is None:
        stray = (reps == slot_rep + 1) & (defs < elem_def)
    where = np.flatnonzero(stray)
    if len(where) == 0:
        return StrayRepeats(0, -1)
    # (a new array: numpy holds the GIL throughout an accumulate into its own input)
    opens = np.maximum.accumulate(np.where(reps <= slot_rep, np.arange(len(reps)), -1))
    opener = opens[where]
    ok = opener >= 0
    opener_def = defs[np.where(ok, opener, 0)]
    ok &= (opener_def < null_below) & (defs[where] == opener_def)
    bad = where[~ok]
    return StrayRepeats(int(np.count_nonzero(ok)), int(bad[0]) if len(bad) else -1)

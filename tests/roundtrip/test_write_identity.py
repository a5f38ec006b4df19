"""The writer's bytes are those of the write matrix's reference digests.

The digests (``data/write_matrix_digests.json``) were produced by the writer
before the write path was split into ``table.write_leaves`` / ``file.row_group_writer``
/ ``file.footer_writer`` (commit ebfe85e); see :mod:`tests.roundtrip.write_matrix`.
"""

from __future__ import annotations

import json

import pytest

from tests.roundtrip.write_matrix import DIGESTS, digests

_WANT: dict[str, str] = json.loads(DIGESTS.read_text())


@pytest.mark.parametrize("name", sorted(_WANT))
def test_write_matrix_case_is_byte_identical(name: str) -> None:
    assert digests([name]) == {name: _WANT[name]}

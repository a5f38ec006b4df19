"""Encrypted chunks through the read-ahead page walk (``iter_batches``).

The lazy walk reads an encrypted chunk window by window through the same
loop as the whole-chunk read (the header module's length field says where
the page starts). Expected values are the written input; pyarrow reads the
same data from a plaintext copy for the page count sanity check.
"""

from __future__ import annotations

import numpy as np
import pyarrow.parquet as pq
import pytest

import parquet_core as pc
import parquet_core.file.chunk_reader as chunk_reader
from parquet_core.file.chunk_reader import READ_AHEAD

FOOTER_KEY = b"0123456789012345"
COLUMN_KEY = b"1234567890123450"


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(7)
    n = 120_000
    ints = rng.integers(-(1 << 40), 1 << 40, n)
    words = np.array([f"w{x}" for x in rng.integers(0, 300, n)], dtype=object)
    mask = rng.random(n) < 0.2
    return {"i": ints, "s": words, "m": mask}


@pytest.mark.parametrize("algorithm", ["AES_GCM_V1", "AES_GCM_CTR_V1"])
@pytest.mark.parametrize("column_keys", [False, True])
def test_iter_batches_of_an_encrypted_file_match_the_input(tmp_path, monkeypatch, data, algorithm,
                                                           column_keys):
    probes = []
    walk = chunk_reader.walk_pages

    def spy(*args, **kwargs):
        probes.append(kwargs.get("probe"))
        return walk(*args, **kwargs)

    monkeypatch.setattr(chunk_reader, "walk_pages", spy)
    path = tmp_path / "enc.parquet"
    table = {"i": data["i"], "s": list(data["s"]),
             "n": [None if m else int(v) for v, m in zip(data["i"], data["m"])]}
    props = pc.FileEncryptionProperties(footer_key=FOOTER_KEY, algorithm=algorithm,
                                        column_keys={"s": COLUMN_KEY} if column_keys else {})
    pc.write_table(table, path, encryption=props, data_page_size=4096, row_group_size=100_000)
    dec = pc.FileDecryptionProperties(footer_key=FOOTER_KEY, column_keys={"s": COLUMN_KEY})
    with pc.ParquetFile(path, decryption=dec) as pf:
        chunk = pf.metadata.row_group(0).column(0)
        assert chunk.total_compressed_size > 2 * READ_AHEAD   # several windows
        got = {"i": [], "s": [], "n": []}
        for batch in pf.iter_batches(batch_size=7_777):
            d = batch.to_pydict()
            for k in got:
                got[k] += d[k]
    assert probes and all(p == READ_AHEAD for p in probes)   # the read-ahead walk, not whole chunks
    assert got["i"] == [int(v) for v in data["i"]]
    assert got["s"] == list(data["s"])
    assert got["n"] == table["n"]


def test_plaintext_file_walked_lazily_matches_pyarrow(tmp_path, data):
    path = tmp_path / "plain.parquet"
    pc.write_table({"i": data["i"], "s": list(data["s"])}, path, data_page_size=4096)
    with pc.ParquetFile(path) as pf:
        rows = [v for b in pf.iter_batches(batch_size=5_000) for v in b.to_pydict()["i"]]
    assert rows == pq.read_table(path, use_threads=False).column("i").to_pylist()

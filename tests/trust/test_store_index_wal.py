"""The index's WAL does not grow toward the index's size while a long record
goes in: the writer checkpoints and truncates it every CHECKPOINT_ROWS rows."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from hale_runtime.record import index as index_module
from hale_runtime.record.index import Index
from hale_runtime.record.row import make_row


def test_store_the_index_wal_stays_small_on_a_rebuild(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(index_module, "CHECKPOINT_ROWS", 200)
    (tmp_path / "hale").mkdir()
    index = Index(tmp_path)
    rng = random.Random(7)
    seq, last = 0, ""
    for n in range(30):
        rows = []
        for _ in range(100):
            seq += 1
            text = rng.randbytes(2_000).hex()  # as little as deflate can shrink
            row = make_row("note.made", f"k{seq}", {"text": text}, "org@box:c0ffee00",
                           1_767_225_600_000 + seq, "c0ffee00")  # fmt: skip
            rows.append(row._replace(seq=seq))
        hexid = f"{n:040x}"
        index.extend((n, last), [(hexid, last, len(rows))], rows)
        last = hexid
    wal = Path(f"{index.path}-wal")
    assert index.path.stat().st_size > 8 << 20  # the index holds the record
    assert index.end()[1] == 3_000
    assert not wal.exists() or wal.stat().st_size < 2 << 20, wal.stat().st_size
    index.close()

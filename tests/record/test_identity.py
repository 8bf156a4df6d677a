"""A clone's id: processes starting together in a fresh clone agree on one."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pygit2

from hale_runtime.record.identity import CLONE_KEY, clone_id


def _one(root: str, barrier, out) -> None:
    barrier.wait()
    out.put(clone_id(pygit2.Repository(root)))


def test_processes_starting_together_in_a_fresh_clone_share_one_id(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("fork")
    for n in range(5):  # a race: several fresh clones, eight processes each
        root = str(tmp_path / f"c{n}")
        pygit2.init_repository(root)
        barrier, out = ctx.Barrier(8), ctx.Queue()
        procs = [ctx.Process(target=_one, args=(root, barrier, out)) for _ in range(8)]
        for p in procs:
            p.start()
        ids = {out.get(timeout=60) for _ in procs}
        for p in procs:
            p.join(60)
            assert p.exitcode == 0
        assert ids == {str(pygit2.Repository(root).config[CLONE_KEY])}

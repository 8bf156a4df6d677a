"""A reader following the record across the rebases syncs make: every row is
handed out once, including rows another clone pushed that a rebase slips in
below rows already read."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path

import pygit2
from hostile import append_lines, line
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from record_helpers import make_project, stepping_clock

from hale_runtime.record import Record
from hale_runtime.record.follow import Follower


def open_clone(path: Path, start: int) -> Record:
    return Record.open(path, clock=stepping_clock(start))


def test_rows_another_clone_pushed_are_handed_out_after_a_rebase(
    make_clone: Callable[[str], Path],
) -> None:
    a, b = open_clone(make_clone("a"), 1_000), open_clone(make_clone("b"), 2_000)
    follower = Follower(a)
    a.append("x.a", "1", {})
    assert [r.key for r in follower.new_rows()] == ["1"]
    b.append("x.b", "2", {})
    b.sync()
    a.sync()  # a's unstamped row is replayed on top of b's
    assert [r.key for r in a.rows()] == ["2", "1"]
    # a seq cursor (2: a's row, after its batch's signature) would skip b's row for good
    assert [r.key for r in a.rows(since=2)] == ["1"]
    assert [r.key for r in follower.new_rows()] == ["2"]
    assert list(follower.new_rows()) == []
    a.append("x.a", "3", {})
    assert [r.key for r in follower.new_rows()] == ["3"]


STEP = st.sampled_from(["a", "b", "sync a", "sync b", "read", "read one", "poison"])
STEPS = st.lists(STEP, max_size=24)
EXAMPLES = itertools.count()


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=STEPS)
def test_every_row_is_handed_out_once_whatever_the_interleaving(tmp_path, steps) -> None:
    folder = tmp_path / str(next(EXAMPLES))
    remote = pygit2.init_repository(str(folder / "remote.git"), bare=True).path
    a, b = (
        open_clone(make_project(folder / name, name * 8), start)
        for name, start in (("a", 1_000), ("b", 2_000))
    )
    for record in (a, b):
        record.repo.remotes.create("origin", remote)
    follower, handed = Follower(a), []
    for i, step in enumerate(steps):
        if step in ("a", "b"):
            (a if step == "a" else b).append(f"x.{step}", str(i), {})
        elif step == "read":
            handed += list(follower.new_rows())
        elif step == "read one":  # a reader that stops part way (its fold raised)
            handed += list(itertools.islice(follower.new_rows(), 1))
        elif step == "poison":  # a hostile clone's row: reads leave it out, places count it
            append_lines(b.repo.workdir, [line("attempt.outcome", f"p{i}", {"calls": "lots"})])
        else:
            (a if step == "sync a" else b).sync()
    handed += list(follower.new_rows())
    assert sorted(r.id for r in handed) == sorted(r.id for r in a.rows())  # each once

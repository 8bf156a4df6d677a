"""Every row fits what its readers store: a row no store could hold (a time
past 64 bits, a body with a number past them, a key with control or direction
characters) is quarantined at the door of every reader (the index, memory's
projection, the folds, the printed history) and stops none of them."""

from __future__ import annotations

import unicodedata
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hostile import append_lines, line  # noqa: E402
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.projects import make_project

from hale_runtime.cli import hale
from hale_runtime.engine import Budget, BudgetPolicy, State
from hale_runtime.memory import open_memory
from hale_runtime.memory.projection import PROJECTIONS
from hale_runtime.record import Record, kinds
from hale_runtime.record.bounds import MAX_LINE, printed
from hale_runtime.record.errors import RowRefused
from hale_runtime.record.index import Index
from hale_runtime.record.row import read_line
from hale_runtime.schedules.state import Fold

BIG = [2**63, 2**63 - 1, -(2**63) - 1, 2**64 + 5, 10**30, -1]
KINDS = sorted(kinds.KINDS)
TEXT = st.text(
    alphabet=st.sampled_from(list("ab/.:t1 ") + ["\n", "\r", "\x1b", "\u202e", "\u2028", "\x7f"]),
    max_size=12,
)
leaves = st.none() | st.booleans() | st.sampled_from(BIG) | st.integers() | TEXT
values = st.recursive(leaves, lambda inner: st.lists(inner, max_size=3), max_leaves=8)


@st.composite
def row_lines(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from([*KINDS, "note.made"]))
    body: dict[str, Any] = dict(kinds.example(kind)) if kind in kinds.KINDS else {}
    if body and draw(st.booleans()):
        body[draw(st.sampled_from(sorted(body)))] = draw(values)
    if draw(st.booleans()):
        body[draw(TEXT)] = draw(values)
    key = draw(st.sampled_from(["t1", "position:board", "nightly"]) | TEXT)
    at = draw(st.sampled_from(BIG) | st.integers(0, 2**62))
    return line(kind, key, body, at=at)


def one_printable_line(text: str) -> bool:
    return all(c == " " or c.isprintable() for c in text) and not any(
        unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") for c in text
    )


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(row_lines(), min_size=1, max_size=6))
def test_store_every_reader_takes_any_row(tmp_path: Path, lines: list[str]) -> None:
    gitdir = tmp_path / "git"
    (gitdir / "hale").mkdir(parents=True, exist_ok=True)
    index = Index(gitdir)
    commits, rows_held, last = index.end()
    rows = [read_line(text, 0, "fuzz") for text in lines]
    rows = [r._replace(seq=rows_held + n + 1) for n, r in enumerate(rows)]
    poison = {
        r.id: why for r in rows if (why := kinds.check_row(*r[:2], r.body, r.who, r.at, r.clone))
    }
    # the index: every row goes in and comes back as it was read
    index.extend((commits, last), [(f"{commits:040x}", last, len(rows))], rows, poison)
    back = list(index.scan(rows_held, rows_held + len(rows), poison=True, signatures=True))
    assert [(r.id, r.at, r.body) for r in back] == [(r.id, r.at, r.body) for r in rows]
    index.close()
    memory = open_memory(tmp_path / "m.sqlite3")
    memory.migrate()
    state, schedules = State(Budget(BudgetPolicy())), Fold()
    for row in rows:
        assert 0 <= row.at < 2**63  # the door: a time no store holds is never read as one
        # memory's projection of a row that fits its kind: it stores, or projects nothing
        if row.id not in poison and row.kind in PROJECTIONS:
            try:
                ops = PROJECTIONS[row.kind](row)
            except Exception:  # projection.py reads such a row as projecting nothing
                ops = []
            memory.apply(ops)
        state.fold(row)  # never raises: a row it cannot fold is noted as poison
        schedules.apply(row)
        shown = printed(f"{row.kind} {row.key} {row.body}")
        assert one_printable_line(shown)
    memory.close()


def test_store_a_time_past_64_bits_does_not_brick_the_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "p"
    (root / "dna" / "org").mkdir(parents=True)
    (root / "dna" / "org" / "main.hl").write_text("// the organization\n")
    import pygit2

    pygit2.init_repository(str(root)).config["hale.clone"] = "c0ffee00"
    Record.open(root, sign=False).close()  # the clone's own record (and its index) begin
    append_lines(root, [line("note.made", "late", {"n": 1}, at=2**63)])
    for n in range(80):  # enough commits after it that the index is kept on disk
        append_lines(root, [line("note.made", f"k{n}", {"n": n})])
    record = Record.open(root, sign=False)
    seen = record.rows(poison=True)
    assert (root / ".git" / "hale" / "record.index").exists()
    assert seen[0].kind == kinds.ROW_UNREADABLE and "outside" in record.poison_of(seen[0])
    assert [r.key for r in record.rows()][-1] == "k79"
    monkeypatch.chdir(root)
    result = CliRunner().invoke(hale, ["dna", "history", "--offline"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert result.output.startswith("row.unreadable ")


@pytest.mark.parametrize(
    "key", ["a\nnote.made forged {}", "\u202egnp.exe", "x\x1b[2Jy", "p\u2028q"]
)
def test_store_history_escapes_what_would_forge_a_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, key: str
) -> None:
    root = tmp_path / "p"
    (root / "dna" / "org").mkdir(parents=True)
    (root / "dna" / "org" / "main.hl").write_text("// the organization\n")
    import pygit2

    pygit2.init_repository(str(root)).config["hale.clone"] = "c0ffee00"
    append_lines(root, [line("note.made", key, {"text": key})])
    monkeypatch.chdir(root)
    result = CliRunner().invoke(hale, ["dna", "history", "--offline"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    out = result.output.rstrip("\n")
    assert "\n" not in out and one_printable_line(out)
    assert out.startswith("note.made ")


OVERSIZE = [
    line("note.made", "big", {"text": "x" * (MAX_LINE + 1)}),  # past what a row may be
    line("note.made", "nul", {"text": "a\u0000b"}).replace("\\u0000", "\u0000"),
    '{"a":' * 100_000 + "1" + "}" * 100_000,  # nested past any parser's depth
]


@pytest.mark.parametrize("text", OVERSIZE, ids=["too-long", "nul", "too-deep"])
def test_store_a_row_past_its_bounds_is_unreadable_and_stops_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    """Sizes are bounded: a line past MAX_LINE (or holding a NUL, or nested past
    any parser's depth) is read as `row.unreadable`, quarantined like any poison,
    and every verb reading the record goes on; the writer's door refuses one."""
    root = tmp_path / "p"
    make_project(root)
    append_lines(root, [text])
    append_lines(root, [line("note.made", "after", {"n": 1})])
    record = Record.open(root, sign=False)
    first = record.rows(poison=True)[0]
    assert first.kind == kinds.ROW_UNREADABLE and record.poison_of(first)
    assert [r.key for r in record.rows()] == ["after"]
    monkeypatch.chdir(root)
    result = CliRunner().invoke(hale, ["dna", "history", "--offline"], catch_exceptions=False)
    assert result.exit_code == 0, result.output[:500]
    assert len(result.output) < 10_000  # the unreadable row is named, not printed whole
    with pytest.raises(RowRefused, match="at most"):
        record.append("note.made", "big", {"text": "x" * (MAX_LINE + 1)})

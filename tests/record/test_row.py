"""Rows: canonical content, ids, the stored line."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hale_runtime.record import RecordError
from hale_runtime.record.errors import RowRefused
from hale_runtime.record.kinds import ID
from hale_runtime.record.row import canonical, decode_line, encode_line, make_row, new_row

# text a row can hold: no NUL, no half of a surrogate pair (record/kinds.py)
texts = st.text(st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)))
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | texts
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=8,
)


def test_the_id_is_the_digest_of_the_content() -> None:
    a = make_row("claim.taken", "plan/i7", {"token": 1, "holder": "h"}, "ann@box:c0", 5, "c0")
    b = make_row("claim.taken", "plan/i7", {"holder": "h", "token": 1}, "ann@box:c0", 5, "c0")
    c = make_row("claim.taken", "plan/i7", {"holder": "h", "token": 2}, "ann@box:c0", 5, "c0")
    assert a.id == b.id != c.id
    assert len(a.id) == 64


def test_the_line_is_canonical_json_of_every_field() -> None:
    row = make_row("claim.taken", "plan/i7", {"b": "é", "a": [1, 2]}, "ann@box:c0", 5, "c0")
    line = encode_line(row)
    fields = {name: value for name, value in row.as_json().items() if name != "seq"}
    assert line == canonical(fields)
    assert '"body":{"a":[1,2],"b":"é"}' in line


@given(st.dictionaries(texts, json_values, max_size=4), st.text().filter(lambda k: not ID(k)))
def test_a_row_reads_back_as_written(body: dict, key: str) -> None:
    row, line = new_row("a.b", key, body, "w", 7, "c")
    assert line == encode_line(row)
    back = decode_line(line, 3, "refs/dna/record")
    assert back == row._replace(seq=3)


def test_a_tampered_line_is_refused_naming_the_ref() -> None:
    line = encode_line(make_row("a.b", "k", {"n": 1}, "w", 1, "c"))
    with pytest.raises(RecordError, match="refs/dna/record: a row's id does not match"):
        decode_line(line.replace('"n":1', '"n":2'), 1, "refs/dna/record")
    with pytest.raises(RecordError, match="not JSON"):
        decode_line("{nope", 1, "refs/dna/record")


@pytest.mark.parametrize(
    "kind,key,body",
    [
        ("", "k", {}),
        ("a b", "k", {}),
        ("a.b", "k\nk", {}),
        ("a.b", "k\u2028", {}),
        ("a.b", "k\x00", {}),
        ("a.b", "k" * 513, {}),
        ("a.b", "k", {"x": "\ud800"}),
        ("claim.taken", "k", {"token": "1"}),
        ("attempt.outcome.requested", "k", {"calls": [{"micros": "lots"}]}),
        ("a.b", "k", []),
        ("a.b", "k", {1: 2}),
        ("a.b", "k", {"x": float("nan")}),
        ("a.b", "k", {"x": object()}),
    ],
)
def test_a_row_that_is_not_one_is_refused(kind: str, key: str, body: object) -> None:
    with pytest.raises(RowRefused):
        make_row(kind, key, body, "w", 1, "c")  # type: ignore[arg-type]

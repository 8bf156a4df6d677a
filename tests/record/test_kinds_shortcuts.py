"""The kinds door's shortcuts keep its verdicts: a repeated writer, a kind of the table."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hale_runtime.record import kinds


class Named(str):
    """A str that is not exactly a str: the door checks it as any other value."""


def test_a_writer_after_one_that_fit_is_still_checked() -> None:
    assert kinds.check_writer("org@box", 5, "c0") == ""
    assert kinds.check_writer("org@box", 5, "c0") == ""  # the kept one
    assert kinds.check_writer("org\nbox", 5, "c0") != ""
    assert kinds.check_writer("org@box", -1, "c0") != ""
    assert kinds.check_writer("org@box", 5, "c\x00") != ""
    assert kinds.check_writer(Named("org@box"), 5, "c0") != ""  # not exactly text: as before


def test_a_kind_joins_the_table_only_as_one_word() -> None:
    with pytest.raises(ValueError, match="one word"):
        kinds.kind("two words")
    assert "two words" not in kinds.KINDS
    assert kinds.envelope(kinds.ATTEMPT_CLAIMED, "k", {}) == ""
    assert kinds.envelope("two words", "k", {}) != ""


@given(who=st.text(max_size=20), clone=st.text(max_size=10), at=st.integers(-5, 2**63))
def test_the_kept_writer_never_changes_a_verdict(who: str, clone: str, at: int) -> None:
    fresh = kinds.check_writer(who, at, clone)
    kinds.check_writer("org@box", 5, "c0")  # another writer kept in between
    assert kinds.check_writer(who, at, clone) == fresh
    assert kinds.check_writer(who, at, clone) == fresh  # and once it is the kept one

"""Issue 29: a stranger writing random rows of every kind changes nothing the
organization does. Each row whose kind a bound writer must write (every kind
but a request that only asks) is refused, whatever key signs it and whatever
name it claims; the trust fold (keys, holders, grants, conveners) is as it
was; and the verbs keep running over a record holding one of every kind."""

from __future__ import annotations

from pathlib import Path

from authority_helpers import Person
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from trust_helpers import forge

from hale_runtime.cli import hale
from hale_runtime.record import Record, kinds

ACTING = sorted(k for k, w in kinds.WRITERS.items() if w != kinds.ANYONE)
NAMES = ["mallory", "alice", "org", "board"]  # her own, and names she claims


def body_of(kind: str, overrides: dict) -> dict:
    return {**kinds.example(kind), **overrides}


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(
    kind=st.sampled_from(ACTING),
    key=st.sampled_from(["t1", "position:board", "grant/leader", "key:x", "evil"]),
    name=st.sampled_from(NAMES),
    signed=st.booleans(),
    rows=st.integers(1, 3),
)
def test_a_strangers_row_of_any_kind_is_refused(
    project: Path, mallory: Person, kind: str, key: str, name: str, signed: bool, rows: int
) -> None:
    if signed and not getattr(mallory, "registered", False):
        assert mallory.hale("key", "register").exit_code == 0
        mallory.registered = True  # type: ignore[attr-defined]
    before = Record.open(project).trust
    written = [(kind, f"{key}{n or ''}", body_of(kind, {})) for n in range(rows)]
    ids = forge(project, written, mallory.key() if signed else None,
                who=f"{name}@elsewhere:0badc0de", record=before.record)  # fmt: skip

    record = Record.open(project)
    for row in record.rows(kind=kind, poison=True):
        if row.id in ids:
            why = record.poison_of(row)
            fits = not kinds.check(row.kind, row.key, row.body)
            assert why.startswith("refused: ") if fits else why, (kind, name, signed, why)
    assert not [r for r in record.rows() if r.id in ids]
    after = record.trust.snapshot()
    assert after == {**before.snapshot(), "keys": after["keys"]}  # only her own key's row
    assert {fp: k for fp, k in after["keys"].items() if k[2]} == {
        fp: k for fp, k in before.snapshot()["keys"].items() if k[2]
    }  # no key endorsed by her


def test_one_of_every_kind_and_the_verbs_keep_running(project: Path, mallory: Person) -> None:
    assert mallory.hale("key", "register").exit_code == 0
    record = Record.open(project).trust.record
    every = [(k, f"forged/{n}", kinds.example(k)) for n, k in enumerate(sorted(kinds.WRITERS))]
    every = [(k, "t9" if kinds.KINDS[k].key is kinds.TASK else key, b) for k, key, b in every]
    forge(project, every, mallory.key(), record=record)
    for args in (["status"], ["history"], ["schedule"], ["key", "list"], ["whoami"]):
        result = CliRunner().invoke(hale, ["dna", *args])
        assert result.exit_code == 0, (args, result.output)
        assert "Traceback" not in result.output

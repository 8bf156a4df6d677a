"""`hale dna body provision`: a person's provisioning of a host, recorded as a
row for body-provision to observe, and projected into memory's graph; the
refusal of body-provision at admission names this verb, which exists."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from node_helpers import hale

from hale_runtime.memory import open_memory
from hale_runtime.memory.projection import project
from hale_runtime.node.provision import check_name
from hale_runtime.record import Record


def test_a_host_is_provisioned_once_listed_and_projected(make_clone):
    a = make_clone("a")
    assert hale(a, "dna", "body", "provision").stdout == (
        "hosts: none provisioned (`hale dna body provision HOST` records one)\n"
    )
    done = hale(a, "dna", "body", "provision", "localhost", "--note", "a spare box",
                env={"HALE_DNA_OWNER": "acme"})  # fmt: skip
    assert done.returncode == 0, done.stderr
    (row,) = Record.open(a).rows(kind="body.provisioned")
    assert done.stdout == (
        f"host localhost provisioned at 127.0.0.1 by {row.who} (body.provisioned host:localhost)\n"
    )
    assert (row.key, row.body) == ("host:localhost", {
        "host": "localhost", "address": "127.0.0.1", "owner": "acme", "by": row.who,
        "note": "a spare box"})  # fmt: skip
    again = hale(a, "dna", "body", "provision", "localhost", env={"HALE_DNA_OWNER": "acme"})
    assert again.stdout == "host localhost is provisioned already, at 127.0.0.1 (nothing written)\n"
    listing = hale(a, "dna", "body", "provision").stdout.splitlines()
    assert listing[0] == "hosts: 1 provisioned"
    assert listing[1].startswith(f"  localhost at 127.0.0.1, owner acme: by {row.who}, 20")

    memory = open_memory(a / ".git" / "hale" / "memory.sqlite3")
    memory.migrate()
    project(Record.open(a), memory)
    node = memory.node("host:localhost")
    assert node is not None and node.kind == "host"
    assert {k: node.props[k] for k in ("address", "owner", "by")} == {
        "address": "127.0.0.1", "owner": "acme", "by": row.who,
    }  # fmt: skip


def test_a_host_that_is_no_name_or_does_not_resolve_writes_nothing(make_clone):
    a = make_clone("a")
    Record.open(a).sync()  # the verb syncs first: hold what it would fetch
    before = Record.open(a).cursor()
    bad = hale(a, "dna", "body", "provision", "two words")
    assert bad.returncode == 2 and bad.stderr.startswith("hale: 'two words' is not a host name")
    gone = hale(a, "dna", "body", "provision", "nowhere.invalid")
    assert gone.returncode == 1
    assert gone.stderr.startswith("hale: host nowhere.invalid does not resolve from here (")
    assert Record.open(a).cursor() == before


def test_the_refusal_of_body_provision_names_a_verb_that_exists(make_clone):
    a = make_clone("a")
    listing = hale(a, "dna", "definitions").stdout
    assert (
        "refused at admission: workflow body-provision@1 step 0 (provision) writes a host, "
        "which a person provisions with `hale dna body provision`"
    ) in listing
    assert hale(a, "dna", "body", "provision", "--help").returncode == 0


@given(st.text(max_size=80))
def test_a_host_name_is_judged_without_failing(text):
    why = check_name(text)
    assert why == "" or why.startswith(repr(text))
    if not why:
        assert text and " " not in text and len(text) <= 253

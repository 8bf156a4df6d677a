"""The verbs, as a user runs them, every printed line pinned."""

from __future__ import annotations

import re
import threading
import time

from schedule_helpers import DAY, HOUR, START, Org, hale_cli, terms

from hale_runtime.nerves import Message
from hale_runtime.node.relay import message_of
from hale_runtime.record import Record

ASKER = {"HALE_DNA_NODE": "org@desk:c0ffee00", "HALE_DNA_ANSWER_WAIT": "5"}
NIGHTLY = [
    "schedule", "declare", "nightly", "--cron", "0 2 * * *", "--definition", "ask-edit",
    "--convener", "editor", "--args", '{"objective": "reconcile the records of the day"}',
]  # fmt: skip


def out(result) -> str:
    return re.sub(r"sr-[0-9a-f]{12}", "sr-<request>", result.output)


def test_a_fresh_project_has_no_schedule(project, snapshot):
    result = hale_cli(project, "schedule")
    assert result.exit_code == 0
    assert result.output == snapshot


def test_declare_from_a_clone_with_no_organism_leaves_the_request(project, snapshot):
    result = hale_cli(project, *NIGHTLY, env=ASKER)
    assert result.exit_code == 0
    assert out(result) == snapshot
    row = Record.open(project).rows(kind="schedule.requested")[0]
    assert row.who == "org@desk:c0ffee00"
    assert row.body == {
        "id": "nightly", "every_ms": 0, "cron": "0 2 * * *", "definition": "ask-edit",
        "args": '{"objective": "reconcile the records of the day"}',
        "convener": "position:editor", "by": "org@desk:c0ffee00",
    }  # fmt: skip


def test_give_exactly_one_of_every_and_cron(project):
    both = hale_cli(project, "schedule", "declare", "x", "--every", "5", "--cron", "* * * * *",
                    "--definition", "ask-edit", "--convener", "editor")  # fmt: skip
    neither = hale_cli(project, "schedule", "declare", "x", "--definition", "ask-edit",
                       "--convener", "editor")  # fmt: skip
    assert both.exit_code == neither.exit_code == 2
    assert "give exactly one of --every and --cron" in both.output
    assert Record.open(project).rows(kind="schedule.requested") == []


def _beat(project) -> None:
    """A node's heartbeat in memory: the organism is running beside the verb."""
    from hale_runtime.memory import open_memory

    memory = open_memory(project / ".git" / "hale" / "memory.sqlite3")
    memory.migrate()
    memory.upsert_node("node:n1", "node", {"last_tick": time.time_ns() // 1_000_000})
    memory.close()


def _answering(project, clock, ready: threading.Event, stop: threading.Event) -> threading.Thread:
    """The organization hearing relayed requests, in a thread (and stores) of its own."""

    def serve() -> None:
        org = Org(project, clock)
        ready.set()
        while not stop.is_set():
            for row in org.record.rows(kind="schedule.requested"):
                org.locus.on_schedule_requested(Message(1, row.kind, message_of(row)))
            time.sleep(0.05)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return thread


def _beside_organism(project, clock, *args: str):
    _beat(project)
    ready, stop = threading.Event(), threading.Event()
    thread = _answering(project, clock, ready, stop)
    ready.wait(30)
    try:
        return hale_cli(project, *args, env=ASKER)
    finally:
        stop.set()
        thread.join()


def test_beside_a_running_organism_the_verb_prints_the_answer(project, clock, snapshot):
    result = _beside_organism(project, clock, *NIGHTLY)
    assert result.exit_code == 0
    assert result.output == snapshot


def test_an_interval_answer_prints_its_milliseconds(project, clock, snapshot):
    args = ["schedule", "declare", "often", "--every", "90000", "--definition", "optimize-walk",
            "--convener", "leader"]  # fmt: skip
    result = _beside_organism(project, clock, *args)
    assert result.output == snapshot


def test_the_same_terms_again_say_so(project, clock, snapshot):
    _beside_organism(project, clock, *NIGHTLY)
    result = _beside_organism(project, clock, *NIGHTLY)
    assert result.exit_code == 0
    assert result.output == snapshot
    assert len(Record.open(project).rows(kind="schedule.declared")) == 1


def test_beside_a_running_organism_a_refusal_is_printed(project, clock, snapshot):
    args = [*NIGHTLY[:4], "0 2 * *", *NIGHTLY[5:]]
    result = _beside_organism(project, clock, *args)
    assert result.exit_code == 1
    assert result.output == snapshot


def test_no_answer_in_time_says_so_and_the_request_stays(project, clock, snapshot):
    _beat(project)
    result = hale_cli(project, *NIGHTLY, env={**ASKER, "HALE_DNA_ANSWER_WAIT": "0.3"})
    assert result.exit_code == 1
    assert out(result) == snapshot
    assert len(Record.open(project).rows(kind="schedule.requested")) == 1


def test_pause_and_resume_print_their_rows(org, snapshot):
    org.ask(terms())
    lines = []
    for verb in ("pause", "pause", "resume", "resume"):
        result = hale_cli(org.root, "schedule", verb, "nightly", env=ASKER)
        assert result.exit_code == 0
        lines.append(result.output)
    assert lines == snapshot
    kinds = [r.kind for r in org.rows(("schedule.paused", "schedule.resumed"))]
    assert kinds == ["schedule.paused", "schedule.resumed"]
    assert {r.who for r in org.rows(("schedule.paused", "schedule.resumed"))} == {
        "org@desk:c0ffee00"
    }


def test_pausing_an_unknown_schedule_is_refused(project, snapshot):
    result = hale_cli(project, "schedule", "pause", "nightly")
    assert result.exit_code == 1
    assert result.output == snapshot


def test_the_listing_counts_occurrences_skips_and_misses(org, clock, snapshot):
    org.ask(terms())
    org.ask(terms(id="person", every_ms=HOUR, definition="ask-person"))
    org.ask(terms(id="walk", every_ms=DAY, definition="optimize-walk", args={},
                  convener="position:leader"))  # fmt: skip
    org.run_until(START + 3 * HOUR)
    clock.now = START + 2 * DAY + 3 * HOUR
    org.start()
    org.locus.tick()
    org.record.append("schedule.paused", "walk", {"by": "ann"})
    result = hale_cli(org.root, "schedule")
    assert result.output == snapshot


def test_the_listing_reads_the_record_alone_on_any_clone(org, tmp_path, snapshot):
    import pygit2

    org.ask(terms())
    org.run_until(START + 3 * HOUR)
    remote = tmp_path / "remote.git"
    pygit2.init_repository(str(remote), bare=True)
    pygit2.Repository(str(org.root)).remotes.create("origin", str(remote))
    org.record.sync()
    clone = tmp_path / "clone"
    pygit2.clone_repository(str(remote), str(clone))
    repo = pygit2.Repository(str(clone))
    # the genome is not on the remote's branches here: the clone reads only the record
    (clone / "dna" / "org").mkdir(parents=True)
    (clone / "dna" / "org" / "main.hl").write_text("// a clone\n")
    repo.remotes.create("mirror", str(remote))
    Record.open(clone).sync()
    result = hale_cli(clone, "schedule")
    assert result.output == snapshot
    assert result.output == hale_cli(org.root, "schedule").output


def test_fill_names_a_holder(org, snapshot):
    from hale_runtime.memory.projection import project

    result = hale_cli(org.root, "fill", "auditor", "ann")
    assert result.output == snapshot
    assert org.rows("position.filled")[0].body == {"position": "auditor", "holder": "ann"}
    assert org.memory.holder_of("auditor") is None  # memory is never written ahead of the record
    project(Record.open(org.root), org.memory)
    assert org.memory.holder_of("auditor") == "ann"


def test_show_processes_ends_with_one_line_a_rhythm(org, snapshot):
    org.ask(terms())
    org.ask(terms(id="often", every_ms=90_000, convener="position:leader"))
    org.ask(terms(id="daily", every_ms=DAY, definition="optimize-walk", args={},
                  convener="position:leader"))  # fmt: skip
    result = hale_cli(org.root, "show", "processes")
    assert result.exit_code == 0
    assert result.output == snapshot


def test_pause_from_a_clone_that_has_not_synced_reads_the_remote_first(org, tmp_path):
    import pygit2

    remote = tmp_path / "remote.git"
    pygit2.init_repository(str(remote), bare=True)
    pygit2.Repository(str(org.root)).remotes.create("origin", str(remote))
    org.record.sync()
    clone = tmp_path / "clone"
    pygit2.clone_repository(str(remote), str(clone))
    (clone / "dna" / "org").mkdir(parents=True)
    (clone / "dna" / "org" / "main.hl").write_text("// a clone\n")
    Record.open(clone).sync()
    org.ask(terms())  # declared after the clone last synced
    org.record.sync()
    result = hale_cli(clone, "schedule", "pause", "nightly", env=ASKER)
    assert result.exit_code == 0, result.output
    assert result.output.startswith("schedule nightly paused (schedule.paused;")
    org.record.sync()
    assert [r.who for r in org.rows("schedule.paused")] == ["org@desk:c0ffee00"]

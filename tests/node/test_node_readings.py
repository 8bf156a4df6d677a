"""Readings and concerns through real nodes: an application event recorded
before anything acts on it, the instance it names restarted with a row
saying so, a second firing within the window a concern that
concern-escalate answers once, and nothing planned on any of it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from node_helpers import clone, hale, make_dna_forge, wait_for

# starts twice with an event, then quietly: each event restarts it
APP = (
    'n=$(cat "$STARTS" 2>/dev/null || echo 0); n=$((n + 1)); echo "$n" > "$STARTS"\n'
    'if [ "$n" -le 2 ]; then echo "unhealthy start $n" >> "$HALE_DNA_EVENTS"; fi\n'
    "echo '{not json' >> \"$HALE_DNA_EVENTS\"\n"
    "while :; do sleep 0.2; done\n"
)


@pytest.fixture
def dna_forge(tmp_path: Path) -> tuple[Path, Path]:
    return make_dna_forge(tmp_path)


def with_app(a: Path) -> None:
    text = f"x-application:\n  name: web\n  environment:\n    STARTS: {a / 'starts'}\n"
    text += "  command: |\n" + "".join(f"    {line}\n" for line in APP.splitlines())
    (a / "dna" / "compose.yaml").write_text(text)


def rows(cwd: Path, *args: str) -> list[dict]:
    done = hale(cwd, "dna", "history", *args, "--json")
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def at_least(n: int, found: list) -> list | None:
    if len(found) < n:
        return None
    return found


def instance_of(node) -> str:
    return wait_for(lambda: re.findall(r"application: (web@\S+) runs", node.log()), 30, "app")[0]


def test_an_event_is_a_reading_the_instance_restarted_and_a_second_a_concern(
    dna_forge, tmp_path, nodes
):
    a, b = clone(dna_forge[0], tmp_path / "a"), clone(dna_forge[0], tmp_path / "b")
    with_app(a)
    node = nodes(a)
    node.wait_running()
    web = instance_of(node)
    acted = wait_for(lambda: at_least(2, rows(a, "--kind", "reading.acted")), 30, "two acts")
    taken = rows(a, "--kind", "reading.taken")
    assert [(r["key"], r["body"]["kind"], r["body"]["source"], r["protected_body"])
            for r in taken[:2]] == [
        (web, "unhealthy", "application", {"detail": f"start {n}"}) for n in (1, 2)
    ]  # fmt: skip
    for reading, act in zip(taken, acted, strict=False):
        assert act["body"]["reading"] == reading["id"] and reading["seq"] < act["seq"]
        assert act["body"]["did"].startswith("restarted: pid ")
    log = (a / ".git/hale/app/web.log").read_text()
    assert "an event line recorded as nothing" in log  # `{not json` is no reading
    concern = wait_for(lambda: rows(a, "--kind", "concern.raised"), 30, "the concern")
    assert concern[0]["body"]["readings"] == [r["id"] for r in taken[:2]]
    ask = f"concern:{concern[0]['id']}"
    admitted = wait_for(lambda: rows(a, "--kind", "workflow.admitted"), 30, "escalation")
    assert [(r["body"]["ask"], r["body"]["definition"]) for r in admitted] == [
        (ask, "concern-escalate@1")
    ]
    # the escalation raises a case on the Board's queue (readings/escalate.py) and waits
    # there for a person: its attempt is a case naming the concern
    case = wait_for(lambda: rows(a, "--kind", "board.case"), 60, "the Board's case")
    assert (
        case[0]["key"].startswith(admitted[0]["key"])
        and "concern at" in case[0]["body"]["objective"]
    )

    # a reflex outside, from another clone: the node restarts its instance again
    sensed = hale(b, "dna", "sense", web, "latency-high", "--detail", "p99 4s")
    assert sensed.returncode == 0, sensed.stderr
    assert re.fullmatch(rf"reading [0-9a-f]{{12}} recorded at the remote: {web} latency-high\n",
                        sensed.stdout)  # fmt: skip
    wait_for(lambda: at_least(3, rows(a, "--kind", "reading.acted")), 30, "the third act")
    listed = hale(a, "dna", "history", "--kind", "reading.").stdout.splitlines()
    assert {line.split()[0] for line in listed} == {"reading.taken", "reading.acted"}
    assert len(rows(a, "--kind", "concern.raised")) == 1  # the same burst: one concern
    assert node.stop() == 0
    everything = rows(a)
    # the spine never plans on a reading: no ask, no plan claim, no model call
    assert not [r for r in everything if r["kind"].startswith("intent.")]
    assert not [r for r in everything if r["kind"] == "model.called"]
    assert not [r for r in everything if r["key"].startswith("plan/")]


def test_a_reading_naming_no_instance_is_recorded_and_acts_on_nothing(dna_forge, tmp_path, nodes):
    a = clone(dna_forge[0], tmp_path / "a")
    node = nodes(a)
    node.wait_running()
    sensed = hale(a, "dna", "sense", "billing", "down", "--other")
    assert sensed.returncode == 0 and "billing down" in sensed.stdout
    refused = hale(a, "dna", "sense", "billing", "Not A Word")
    assert refused.returncode == 2
    assert refused.stderr.startswith("hale: a reading's kind is one word")
    assert refused.stderr.endswith("; nothing written\n")
    hale(a, "dna", "sense", "billing", "down", "--other")
    wait_for(lambda: rows(a, "--kind", "concern.raised"), 30, "the concern")
    assert rows(a, "--kind", "reading.acted") == []
    assert [r["body"]["kind"] for r in rows(a, "--kind", "reading.taken")] == ["down", "down"]
    assert node.stop() == 0

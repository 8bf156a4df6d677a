"""Tick step 4 carries out what the record asks: a redaction another clone
wrote erases the protected body in this node's clone and in its memory."""

from __future__ import annotations

import json
import subprocess

from node_helpers import hale, wait_for

from hale_runtime.memory import open_memory

SECRET = "ssn 078-05-1120"


def test_a_running_node_erases_a_redacted_body_in_its_clone_and_memory(make_clone, nodes):
    a, b = make_clone("a"), make_clone("b")
    node = nodes(a)
    node.wait_running()
    assert hale(a, "dna", "sense", "billing", "down", "--other", "--detail", SECRET).returncode == 0
    row = json.loads(hale(a, "dna", "history", "--kind", "reading.taken", "--json").stdout)
    digest = row["body"]["protected"]
    memory = open_memory(a / ".git/hale/memory.sqlite3")
    try:
        kept = wait_for(lambda: memory.protected_body(digest), 20, "memory keeping the body")
        assert kept == {"detail": SECRET}
        assert hale(b, "dna", "sync").returncode == 0
        redacted = hale(b, "dna", "redact", row["id"])
        assert redacted.returncode == 0, redacted.stderr
        wait_for(lambda: memory.protected_body(digest) is None, 20, "memory erasing it")
        wait_for(lambda: subprocess.run(["git", "cat-file", "-e", digest], cwd=a).returncode,
                 20, "the clone erasing it")  # fmt: skip
    finally:
        memory.close()
    assert node.stop() == 0
    assert hale(a, "dna", "history", "--kind", "reading.taken").stdout.endswith("[redacted]\n")

"""The acts a person takes in the face, each run as its verb.

An act is the verb itself: `hale dna task create`, `task cancel`, `effect
resolve`, `review`, `schedule pause|resume`, run as a child process in the
project's folder with the face's environment, so it writes the same row
through the same code, signed by the key of the person who started the
face (HALE_DNA_KEY or their own key, as the verb finds it), checked by the
same authority rules, and waits for the organization's answer as the verb
does. What the verb printed is the act's answer, word for word, and its
exit code says whether it was refused. Arguments go as a list after `--`,
never through a shell, so nothing a person types is read as an option.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

TIMEOUT_S = 180.0  # the verb's own wait for an answer is a minute; its syncs on top
VERB = "from hale_runtime.cli import main; main()"


@dataclass(frozen=True)
class Said:
    code: int
    text: str

    @property
    def refused(self) -> bool:
        return self.code != 0


def argv_of(act: str, form: dict[str, str]) -> list[str] | None:
    """The verb's arguments for `act` with the form's fields (None: no such act)."""
    get = form.get
    if act == "task-create":
        judgment = ["--judgment"] if get("judgment") else []
        return ["task", "create", *judgment, "--", get("objective", "")]
    if act == "task-cancel":
        return ["task", "cancel", "--", get("task", "")]
    if act == "effect-resolve":
        outcome = get("outcome", "")
        return ["effect", "resolve", "--outcome", outcome, "--note", get("note", ""), "--",
                f"attempt:{get('attempt', '')}"]  # fmt: skip
    if act == "review":
        return ["review", "--", get("review", ""), get("decision", "")]
    if act in ("schedule-pause", "schedule-resume"):
        return ["schedule", act.removeprefix("schedule-"), "--", get("schedule", "")]
    return None


def run(root: Path, act: str, form: dict[str, str]) -> Said:
    """Run the verb for `act` in `root`; what it said."""
    argv = argv_of(act, form)
    if argv is None:
        return Said(2, f"no such act: {act}")
    try:
        done = subprocess.run(
            [sys.executable, "-c", VERB, "dna", *argv],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
            env=os.environ.copy(),
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        return Said(1, f"hale dna {' '.join(argv[:2])} did not finish in {TIMEOUT_S:.0f}s")
    text = "\n".join(t.strip() for t in (done.stdout, done.stderr) if t.strip())
    return Said(done.returncode, text or f"hale dna {argv[0]}: exit {done.returncode}")

"""Issue 32 item 4: a spent budget window is written once and the Board is told:
the organization's `tell_board` says it and publishes it on the nerves, and
`hale dna review` and `hale dna status` show a line until the next window."""

from __future__ import annotations

import time
from pathlib import Path

from schedule_helpers import DAY, HandClock, Org, hale_cli, new_project, terms  # noqa: E402

from hale_runtime.engine import BudgetPolicy  # noqa: E402
from hale_runtime.nerves import open_nerves  # noqa: E402
from hale_runtime.node.board import SUBJECT, exhausted_now, teller  # noqa: E402


def test_a_spent_window_is_told_to_the_board_until_the_next_one(tmp_path: Path):
    now = int(time.time() * 1000)
    now -= now % DAY  # the passes all fall in today's window, the one the verbs read
    org = Org(new_project(tmp_path / "p"), HandClock(now), budget=BudgetPolicy("day", 1))
    nerves = open_nerves(org.root / ".git" / "hale" / "memory.sqlite3")  # migrated: Org
    heard = nerves.subscribe("board.")
    said: list[str] = []
    org.engine.tell_board = teller(nerves, said.append)
    t = terms(id="optimize", every_ms=60_000, definition="optimize-walk", args={},
              convener="position:leader")  # fmt: skip
    assert org.answer(org.ask(t))["declared"]
    org.run_until(now + 5 * 60_000, step=60_000)  # the first pass spends the window

    (row,) = org.rows("budget.exhausted")
    window = row.body["window"]
    line = f"budget: window {window} exhausted (spent {row.body['spent_micros']} of 1 micro-dollars"
    assert len(said) == 1 and line in said[0]  # told once, however many passes were refused
    (message,) = heard.poll(10.0)
    assert message.subject == SUBJECT and message.body["body"]["window"] == window
    nerves.close()

    review = hale_cli(org.root, "review", "--offline")
    assert review.exit_code == 0 and review.output.startswith(line), review.output
    status = hale_cli(org.root, "status", "--offline")
    assert status.exit_code == 0 and line in status.output, status.output
    assert exhausted_now(org.record, now)["window"] == window
    next_window = now - now % DAY + DAY
    assert exhausted_now(org.record, next_window) is None  # cleared when the next one starts

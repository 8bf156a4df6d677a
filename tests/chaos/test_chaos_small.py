"""The chaos run, small (bench/chaos.py has the full one): three bodies of one
shared record over one bare remote and one PostgreSQL, ten SIGKILLs of hosts,
organizations and fences with restarts, asks from three clones, a leg at each
head, bad rows from a hostile clone and malformed outcomes sent to the heads.
The final record, read from a fresh clone, has no violation."""

from __future__ import annotations

from pathlib import Path

from chaos import report, run  # noqa: E402


def test_ten_kills_leave_a_history_without_violation(tmp_path: Path) -> None:
    history, figures = run(kills=10, seed=12, tmp=tmp_path, pace_s=1.5, drain_s=120.0)
    said = "\n".join(report(history, figures, 12))
    print(said)
    assert history.violations == [], said
    assert sum(figures.kills.values()) == 10 and figures.restarts >= 10, said
    assert history.asks > 0 and history.tasks > 0 and history.rows > 100, said

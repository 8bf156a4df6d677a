"""What the hostile-clone tests share beside their fixtures: the stranger's
name, and `forge`, which writes raw rows past the door as a push from a
second clone would."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hostile import append_lines, line, row_id

from hale_runtime.record import keys
from hale_runtime.record.signing import key_of, signature_body

STRANGER = "mallory@elsewhere:0badc0de"


def forge(
    project: Path,
    rows: list[tuple[str, str, dict[str, Any]]],
    key: keys.SigningKey | None,
    who: str = STRANGER,
    record: str = "",
) -> list[str]:
    """The ids of `rows`, written past the door by `who` in one commit: signed
    by `key` for the record whose genesis row is `record`, or unsigned (None)."""
    lines = [line(kind, k, body, who=who) for kind, k, body in rows]
    ids = [row_id(one) for one in lines]
    if key is not None:
        signed = signature_body(key, record, ids)
        lines.insert(0, line("row.signed", key_of(key.fingerprint), signed, who=who))
    append_lines(project, lines)
    return ids

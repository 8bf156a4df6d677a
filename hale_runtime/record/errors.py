"""The record's errors, each said in one line: a row refused at the door, and
a damaged or foreign thing in git.

Verbs turn either into `hale: <message>` (exit 1). A RecordError's message
never spans lines, so libgit2's own text is flattened before it is carried.
"""

from __future__ import annotations

from hale_runtime.errors import HaleRuntimeError, Refused


class RowRefused(Refused):
    """A row that does not fit its kind (record/kinds.py): refused, nothing written."""


class RecordError(HaleRuntimeError):
    """The record cannot be read or written as it stands; the message names the ref."""

    def __init__(self, message: str):
        super().__init__(" ".join(str(message).split()))


REPAIR = "repair it with `hale dna repair` (it fetches what is missing from the remote)"


class RecordDamaged(RecordError):
    """An object or ref the record is made of is missing or corrupt in this
    clone: said in one line with the repair (`hale dna repair`), never a traceback."""

    def __init__(self, what: str):
        super().__init__(f"the record is damaged: {what}; {REPAIR}")

"""The record's one error: a damaged or foreign thing in git, said in one line.

Verbs turn a RecordError into `hale: <message>` (exit 1); its message never
spans lines, so libgit2's own text is flattened before it is carried.
"""

from __future__ import annotations


class RecordError(Exception):
    """The record cannot be read or written as it stands; the message names the ref."""

    def __init__(self, message: str):
        super().__init__(" ".join(str(message).split()))

"""A file only its owner may read (0600): the head's address and token, the
legs' credentials. Written aside, made private, then renamed into place, so
no reader ever sees it half written or readable by others."""

from __future__ import annotations

import os
from pathlib import Path


def write_private(file: Path, text: str) -> None:
    """Write `text` to `file` readable by its owner alone (0600): written aside,
    made private, then renamed into place, so it is never seen half written or open."""
    file.parent.mkdir(parents=True, exist_ok=True)
    aside = file.with_name(f".{file.name}.{os.getpid()}.tmp")
    fd = os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(text)
    os.chmod(aside, 0o600)  # whatever the file was, and whatever the umask
    os.replace(aside, file)

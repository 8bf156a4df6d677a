"""Starting racer processes together and collecting what each one printed."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

RACER = Path(__file__).with_name("claim_racer.py")


def race(mode: str, dsn: str, argvs: list[list[str]], lead_s: float = 1.5) -> list:
    """Run one racer per argv in `mode`, all starting `lead_s` from now; their results."""
    start_at = str(time.time() + lead_s)
    procs = [
        subprocess.Popen(
            [sys.executable, str(RACER), mode, dsn, start_at, *argv],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for argv in argvs
    ]
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, f"racer failed ({proc.returncode}):\n{err}"
        results.append(json.loads(out))
    return results

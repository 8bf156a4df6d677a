"""The host's two children: the fence and the organization.

Both start in sessions of their own, so a Ctrl-C at the terminal reaches
only the host, which stops them in order, and so the organization is one
process group the fence can kill with everything it started. The fence's
standard input is the host's pipe to it (fence.py); the organization says
it is ready on a pipe of its own (`--ready-fd`), leaving its standard
output to whatever it hosts. Every wait here is bounded.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

from hale_runtime import errors


class ChildFailed(errors.Failed):
    """A child did not start, or said why it stopped."""


def _wait_line(fd: int, timeout_s: float, proc: subprocess.Popen) -> bytes:
    """One line from `fd`, or b"" when the child ended or the time ran out."""
    deadline, data = time.monotonic() + timeout_s, b""
    while b"\n" not in data:
        left = deadline - time.monotonic()
        if left <= 0:
            return b""
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            chunk = os.read(fd, 256)
            if not chunk:
                return b""
            data += chunk
        elif proc.poll() is not None:
            return b""
    return data.split(b"\n", 1)[0]


def start_fence(
    root: Path,
    holder: str,
    token: int,
    remote: str | None,
    owner: str | None,
    env: dict[str, str],
) -> subprocess.Popen:
    argv = [sys.executable, "-m", "hale_runtime.node.fence", "--root", str(root)]
    argv += ["--holder", holder, "--token", str(token)]
    argv += ["--remote", remote] if remote else []
    argv += ["--owner", owner] if owner else []
    proc = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, start_new_session=True, env=env
    )
    if _wait_line(proc.stdout.fileno(), 30.0, proc) != b"ready":
        stop(proc, 0.0)
        raise ChildFailed(f"the fence did not start (exit {proc.poll()})")
    return proc


def tell(fence: subprocess.Popen, line: str) -> None:
    """Send the fence one command; a fence that is gone is noticed at the next tick."""
    with contextlib.suppress(BrokenPipeError, OSError):
        fence.stdin.write(line.encode() + b"\n")
        fence.stdin.flush()


def start_organization(
    root: Path, genome: Path, env: dict[str, str], timeout_s: float
) -> subprocess.Popen:
    read, write = os.pipe()
    argv = [sys.executable, "-m", "hale_runtime.node.organization", "--root", str(root)]
    argv += ["--genome", str(genome), "--ready-fd", str(write)]
    try:
        proc = subprocess.Popen(argv, start_new_session=True, env=env, pass_fds=(write,))
    finally:
        os.close(write)
    try:
        line = _wait_line(read, timeout_s, proc)
    finally:
        os.close(read)
    if line != b"ready":
        stop(proc, 0.0)
        raise ChildFailed(f"the organization did not start (exit {proc.poll()})")
    return proc


def stop(proc: subprocess.Popen | None, grace_s: float) -> int | None:
    """SIGTERM the child's group, SIGKILL it after `grace_s`; its exit code."""
    if proc is None:
        return None
    for sig, wait in ((signal.SIGTERM, grace_s), (signal.SIGKILL, 5.0)):
        if proc.poll() is not None:
            break
        if grace_s <= 0 and sig == signal.SIGTERM:
            continue
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, sig)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(wait)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)  # whatever it started and left behind
    return proc.poll()

"""Bounded git calls: every call a node makes to a remote is a `git`
subprocess with a timeout, killed when it overruns.

libgit2 calls cannot be interrupted from Python, so the lease, the fence and
the forge check talk to remotes through the git command line instead. The
child never prompts (no terminal, ssh in batch mode with a connect timeout),
and a call that outlasts its timeout is killed, with everything it started,
and reported as GitTimeout.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from pathlib import Path

from hale_runtime import errors


class GitFailed(errors.Failed):
    """A git call failed (`stderr` says why) or did not finish in time."""

    def __init__(self, message: str, stderr: str = ""):
        super().__init__(message)
        self.stderr = stderr


class GitTimeout(GitFailed):
    """A git call was killed after its timeout."""


def _env(timeout_s: float) -> dict[str, str]:
    env = dict(os.environ)
    env["GIT_TERMINAL_PROMPT"] = "0"
    connect = max(1, int(timeout_s))
    env.setdefault("GIT_SSH_COMMAND", f"ssh -o BatchMode=yes -o ConnectTimeout={connect}")
    return env


def git(
    root: Path, args: list[str], timeout_s: float, data: bytes | None = None, check: bool = True
) -> subprocess.CompletedProcess[bytes]:
    """Run `git -C root <args>` for at most `timeout_s` seconds.

    git runs in a session of its own, so a timeout kills its whole process
    group: ssh or a remote helper it started goes with it."""
    argv = ["git", "-C", str(root), *args]
    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE if data is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=_env(timeout_s),
            start_new_session=True,
        )
    except OSError as error:
        raise GitFailed(f"git could not be run: {error}") from error
    try:
        out, err = proc.communicate(data, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise GitTimeout(f"git {args[0]} gave no answer within {timeout_s:g}s") from None
    done = subprocess.CompletedProcess(argv, proc.returncode, out, err)
    if check and done.returncode != 0:
        text = err.decode(errors="replace").strip()
        last = text.splitlines()[-1] if text else done.returncode
        raise GitFailed(f"git {args[0]} failed: {last}", text)
    return done


def text(root: Path, args: list[str], timeout_s: float) -> str:
    """The stripped standard output of a git call."""
    return git(root, args, timeout_s).stdout.decode().strip()

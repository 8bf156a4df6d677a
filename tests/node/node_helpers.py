"""Real projects, forges and node processes for the node's tests.

A forge is a bare repository whose default branch is `main`; `make_forge`
writes a tiny project, pushes it there and keeps the source clone for
pushing new genomes. `clone` makes a fresh clone (its own clone id,
so its own holder). `Node` runs `hale dna dev` or `run` in a clone as a real
process with short timings, and finds its fence and organization through
/proc.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from waiting import wait_for  # noqa: F401 (the node tests take it from here)

HALE = [str(Path(sys.executable).parent / "hale")]
FAST = {
    "HALE_DNA_TICK": "0.2",
    "HALE_DNA_LEASE_S": "3",
    "HALE_DNA_LEASE_RENEW_S": "0.5",
    "HALE_DNA_LEASE_MARGIN_S": "1",
    "HALE_DNA_GENOME_POLL": "0",
    "HALE_DNA_GIT_TIMEOUT": "2",
    "HALE_DNA_STOP_GRACE": "2",
}


def sh(cwd: Path, *argv: str) -> str:
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, f"{argv} failed: {done.stderr}"
    return done.stdout.strip()


def commit(root: Path, message: str) -> str:
    """Commit every tracked change in `root`; the new commit's id."""
    sh(root, "git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", message)
    return sh(root, "git", "rev-parse", "HEAD")


def hale(cwd: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 60):
    full = {**os.environ, **FAST, **(env or {})}
    argv = [*HALE, *args]
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, env=full, timeout=timeout)


TINY_GENOME = {
    "dna/org/main.hl": '// a tiny genome\n\nfn organization() -> String {\n    return "tiny";\n}\n',
    "dna/org/purpose.hl": 'fn purpose() -> String {\n    return "to be tested";\n}\n',
}


def make_forge(tmp: Path) -> tuple[Path, Path]:
    """(the bare forge, the source clone that pushes to it), holding a tiny genome.

    The project is written here rather than by `hale dna new`, so these tests
    stand on a genome that does not change under them."""
    forge, src = tmp / "forge.git", tmp / "src"
    sh(tmp, "git", "init", "-q", "--bare", "--initial-branch=main", str(forge))
    sh(tmp, "git", "init", "-q", "--initial-branch=main", str(src))
    for rel, text in TINY_GENOME.items():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text(text)
    sh(src, "git", "add", "dna")
    sh(src, "git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "genome")
    sh(src, "git", "remote", "add", "origin", str(forge))
    sh(src, "git", "push", "-q", "origin", "main")
    return forge, src


def clone(forge: Path, path: Path) -> Path:
    sh(path.parent, "git", "clone", "-q", str(forge), str(path))
    return path


def push_genome(src: Path, rel: str, text: str) -> str:
    """Commit `text` as `rel` in the source clone and push it; the new commit."""
    (src / rel).write_text(text)
    sh(src, "git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", f"edit {rel}")
    sh(src, "git", "push", "-q", "origin", "main")
    return sh(src, "git", "rev-parse", "HEAD")


def children_of(pid: int) -> dict[str, int]:
    """{"fence": pid, "organization": pid} among the processes whose parent is `pid`."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmd = (entry / "cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) != pid:
            continue
        for name in ("fence", "organization"):
            if f"hale_runtime.node.{name}" in cmd:
                found[name] = int(entry.name)
    return found


def alive(pid: int) -> bool:
    """Running (not gone, not a zombie waiting for its parent)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


class Node:
    """`hale dna <verb>` running in `cwd`, its output collected in files."""

    def __init__(self, cwd: Path, verb: str = "dev", env: dict[str, str] | None = None):
        self.cwd = cwd
        self.out = cwd.parent / f"{cwd.name}-{time.monotonic_ns()}.log"
        full = {**os.environ, **FAST, **(env or {})}
        with open(self.out, "w") as log:
            self.proc = subprocess.Popen(
                [*HALE, "dna", verb], cwd=cwd, stdout=log, stderr=subprocess.STDOUT, env=full
            )

    def log(self) -> str:
        return self.out.read_text()

    def wait_running(self, timeout: float = 60) -> dict[str, int]:
        wait_for(
            lambda: "running;" in self.log() or self.proc.poll() is not None,
            timeout,
            "the node to run",
        )
        assert self.proc.poll() is None, self.log()
        return wait_for(lambda: _both(children_of(self.proc.pid)), 10, "fence and organization")

    def wait(self, timeout: float = 60) -> int:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"node still running after {timeout}s:\n{self.log()}") from None

    def stop(self, sig: int = signal.SIGTERM) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        return self.wait(30)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


def _both(found: dict[str, int]) -> dict[str, int] | None:
    return found if len(found) == 2 else None


def make_dna_forge(tmp: Path) -> tuple[Path, Path]:
    """(the bare forge, the source clone), holding the genome `hale dna new` writes
    and its record, so clones of it run an organization with a catalog."""
    forge, src = tmp / "forge.git", tmp / "src"
    sh(tmp, "git", "init", "-q", "--bare", "--initial-branch=main", str(forge))
    made = hale(tmp, "dna", "new", str(src))
    assert made.returncode == 0, made.stderr
    sh(src, "git", "remote", "add", "origin", str(forge))
    sh(src, "git", "push", "-q", "origin", "main")
    sh(src, "git", "push", "-q", "origin", "refs/dna/record:refs/dna/record",
       "refs/dna/receipts/*:refs/dna/receipts/*")  # fmt: skip
    return forge, src


@contextlib.contextmanager
def started_nodes() -> Iterator[Callable[..., Node]]:
    """start(cwd, verb="dev", env=None): a node process; on leaving, every node
    started is killed with the fence and organization it started."""
    started: list[Node] = []

    def start(cwd: Path, verb: str = "dev", env: dict[str, str] | None = None) -> Node:
        node = Node(cwd, verb, env)
        started.append(node)
        return node

    try:
        yield start
    finally:
        for node in started:
            pids = children_of(node.proc.pid).values()
            node.kill()
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGCONT)
                    os.killpg(pid, signal.SIGKILL)
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)

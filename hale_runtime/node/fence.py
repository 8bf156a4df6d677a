"""The body fence: renews the lease, and kills what runs once it cannot.

`python -m hale_runtime.node.fence --root R --holder H --token N [--remote X]
[--owner O]`
runs beside the host. Its standard input is a pipe from the host, carrying
one command a line: `guard <pgid>` (a process group to kill when the lease
is lost), `forget <pgid>`, `memory <key> <token>` (on an adopted ledger,
memory's body claim, renewed with the lease: one taken over is a lease
that is someone else's), `stop` (a clean stop: exit without killing). The
loop waits on that pipe with a timeout (select), so it never waits on the
host: every `renew_s` it renews the lease (each git call bounded); the lease
is proven until `start of the renewal + lease_s` on the monotonic clock. It
kills every guarded group, with SIGKILL, and exits when

  * the lease is someone else's (exit 3),
  * it has not proven the lease and is within `margin_s` of that expiry
    (exit 1), or
  * the pipe ends without `stop`: the host is gone (exit 1, after giving
    the lease back so another body may take it at once).

On SIGTERM it exits at once without killing (the host stops it last).

The fence kills from outside, and a paused body may wake before it does:
`guard` is the body's own check, run by the organization before each append
and each effect (record.guard). It reads this clone's lease mirror (no
network) and, unless the lease is still this holder's, of the same token
(the epoch), and live past the margin, writes one line and exits 3 at once
(os._exit: nothing unwinds to write a row).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import select
import signal
import sys
import time
from pathlib import Path

from hale_runtime.memory.types import Fenced, MemoryFailed
from hale_runtime.node.lease import (
    OWNER_ENV,
    BodyLease,
    LeaseHeld,
    LeaseUnprovable,
    lease_at,
    lease_ref,
    now_ms,
)
from hale_runtime.node.settings import Settings

EXIT_LOST = 1
EXIT_HELD = 3


TOKEN_ENV = "HALE_DNA_BODY_TOKEN"  # the lease's token, the body's epoch, set by the host


def epoch_from_env(env=os.environ) -> tuple[str, int] | None:
    """(lease ref, token) of the body this process runs under, as its host set it."""
    token = (env.get(TOKEN_ENV) or "").strip()
    if not token.isdigit() or not int(token):
        return None
    return lease_ref(env.get(OWNER_ENV) or None), int(token)


def guard(root: Path, holder: str, token: int, owner: str | None, margin_s: float):
    """The check a body runs before it writes or acts (see the module's comment)."""
    import pygit2

    repo, ref = pygit2.Repository(str(root)), lease_ref(owner)

    def check() -> None:
        try:
            lease = lease_at(repo, ref)[1]
        except LeaseUnprovable:
            lease = None
        if lease is not None and lease.holder == holder and lease.token == token:
            left_ms = lease.until - now_ms()
            if left_ms > margin_s * 1000:
                return
            why = f"its lease (epoch {token}) is not proven past the margin ({left_ms / 1000:.1f}s left)"
        else:
            why = (
                f"the body lease is now {lease.describe() if lease else 'gone'}, not epoch {token}"
            )
        print(f"hale organization: stopping, writing nothing: {why}", file=sys.stderr, flush=True)
        os._exit(EXIT_HELD)

    return check


class Fence:
    def __init__(self, lease: BodyLease, settings: Settings):
        self.lease, self.settings = lease, settings
        self.guarded: set[int] = set()
        self.proven_until = 0.0  # monotonic time the lease is proven until
        self.next_renew = 0.0
        self.claim: tuple[str, int] | None = None  # memory's body claim, on an adopted ledger
        self.memory = None

    def start(self, token: int) -> None:
        """Adopt the lease the host took; it was proven when the host wrote it."""
        lease = self.lease.adopt(token)
        remaining = max(0.0, (lease.until - time.time() * 1000) / 1000)
        self.proven_until = time.monotonic() + min(remaining, self.settings.lease_s)
        self.next_renew = time.monotonic() + self.settings.renew_s

    def kill_all(self) -> None:
        for pgid in sorted(self.guarded):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pgid, signal.SIGKILL)
        self.guarded.clear()

    def command(self, line: str) -> bool:
        """Apply one command from the host; False on `stop`."""
        verb, _, arg = line.strip().partition(" ")
        if verb == "guard" and arg.isdigit():
            self.guarded.add(int(arg))
        elif verb == "forget" and arg.isdigit():
            self.guarded.discard(int(arg))
        elif verb == "memory":
            key, _, token = arg.rpartition(" ")
            self.claim = (key, int(token)) if key and token.isdigit() else None
        elif verb == "stop":
            return False
        return True

    def renew(self) -> None:
        """One renewal, bounded; LeaseHeld propagates, an unreachable remote does not."""
        started = time.monotonic()
        left = self.proven_until - self.settings.margin_s - started
        self.lease.timeout_s = max(0.2, min(self.settings.git_timeout_s, left))
        try:
            self.lease.renew()
            self._renew_claim()
        except (LeaseUnprovable, MemoryFailed) as error:
            print(f"hale fence: lease not renewed: {error}", file=sys.stderr, flush=True)
            self.next_renew = started + min(1.0, self.settings.renew_s)
            return
        self.proven_until = started + self.settings.lease_s
        self.next_renew = started + self.settings.renew_s

    def _renew_claim(self) -> None:
        """Renew memory's body claim too, on an adopted ledger: a claim taken over,
        released or expired is a lease that is someone else's (LeaseHeld)."""
        if self.claim is None:
            return
        if self.memory is None:
            from hale_runtime.memory import memory_dsn, open_memory

            self.memory = open_memory(memory_dsn(self.lease.root))
        key, token = self.claim
        try:
            self.memory.renew(key, self.lease.holder, token, self.settings.lease_s)
        except Fenced as fenced:
            raise LeaseHeld(None, f"memory's body claim: {fenced}") from None

    def run(self, pipe) -> int:
        """Renew and watch until something ends it; the exit code."""
        buffer = b""
        while True:
            now = time.monotonic()
            if now >= self.proven_until - self.settings.margin_s:
                print("hale fence: the lease cannot be proven; killing", file=sys.stderr)
                self.kill_all()
                return EXIT_LOST
            if now >= self.next_renew:
                try:
                    self.renew()
                except LeaseHeld as held:
                    print(f"hale fence: {held}; killing", file=sys.stderr, flush=True)
                    self.kill_all()
                    return EXIT_HELD
                continue
            wait = min(self.next_renew, self.proven_until - self.settings.margin_s) - now
            ready, _, _ = select.select([pipe], [], [], max(0.0, wait))
            if not ready:
                continue
            chunk = os.read(pipe.fileno(), 4096)
            if not chunk:
                return self.host_gone()
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            if not all(self.command(line.decode()) for line in lines):
                return 0

    def host_gone(self) -> int:
        print("hale fence: the host is gone; killing and giving the lease back", file=sys.stderr)
        self.kill_all()
        self.lease.timeout_s = self.settings.git_timeout_s
        try:
            self.lease.release()
        except (LeaseUnprovable, LeaseHeld) as error:
            print(f"hale fence: lease not given back: {error}", file=sys.stderr)
        return EXIT_LOST


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="hale-fence")
    parser.add_argument("--root", required=True)
    parser.add_argument("--holder", required=True)
    parser.add_argument("--token", type=int, required=True)
    parser.add_argument("--remote", default=None)
    parser.add_argument("--owner", default=None)
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the host decides when a Ctrl-C stops us
    settings = Settings.from_env()
    lease = BodyLease(
        Path(args.root),
        args.holder,
        args.remote,
        settings.lease_s,
        settings.git_timeout_s,
        args.owner,
    )
    fence = Fence(lease, settings)
    try:
        fence.start(args.token)
    except (LeaseHeld, LeaseUnprovable) as error:
        print(f"hale fence: {error}", file=sys.stderr)
        return EXIT_HELD
    print("ready", flush=True)
    try:
        return fence.run(sys.stdin)
    except Exception as error:  # a fence that cannot go on kills: it cannot prove the lease
        print(f"hale fence: {type(error).__name__}: {error}; killing", file=sys.stderr)
        fence.kill_all()
        return EXIT_LOST


if __name__ == "__main__":
    sys.exit(main())

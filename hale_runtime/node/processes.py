"""The host's processes: the fence, the organization and, under `hale dna dev`,
the application, each started the moment after the lease is asserted.

A mixin of Host (node/host.py), split along its seam: every child gets the
node's environment (memory, nerves, the holder and the body's epoch token),
the fence is told to guard each pid the host starts and to forget each it
stops, and a child that exits says why through its exit code: the fence's
3 is the lease lost, the organization's 3 its own lease check; either
stops the node.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from typing import Any

from hale_runtime.memory.dsn import ENV_MEMORY, ENV_NERVES
from hale_runtime.node import children, organization_lock
from hale_runtime.node.stopping import EXIT_LEASE_HELD, EXIT_REFUSED, NodeStop
from hale_runtime.record.identity import NODE_ENV

ORG_START_S = 120.0
TOKEN_ENV = "HALE_DNA_BODY_TOKEN"


class Processes:
    """Host's children (the attributes are Host's)."""

    root: Any
    settings: Any
    holder: str
    token: int
    remote: Any
    owner: Any
    memory_dsn: str
    nerves_dsn: str
    fence: Any
    org: Any
    served: Any
    app: Any
    instance: Any
    say: Any

    def _child_env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(self.settings.as_env())
        env.update(
            {NODE_ENV: self.holder, ENV_MEMORY: self.memory_dsn, ENV_NERVES: self.nerves_dsn}
        )
        env[TOKEN_ENV] = str(self.token)  # the body's epoch, for what the organization hosts
        return env

    def _spawn_fence(self) -> None:
        self.assert_lease()
        try:
            self.fence = children.start_fence(
                self.root, self.holder, self.token, self.remote, self.owner, self._child_env()
            )
        except children.ChildFailed as error:
            raise NodeStop(EXIT_REFUSED, str(error)) from None

    def _spawn_organization(self) -> None:
        # an organization a killed host left (its fence not yet done) would act as us
        grace = self.settings.git_timeout_s + 1.0
        left = organization_lock.clear(self.root, grace, self.settings.stop_grace_s + 5.0)
        if left:
            raise NodeStop(EXIT_REFUSED, left)
        self.assert_lease()  # right before starting a process
        try:
            self.org = children.start_organization(
                self.root, self.served.folder, self._child_env(), ORG_START_S
            )
        except children.ChildFailed as error:
            raise NodeStop(EXIT_REFUSED, str(error)) from None
        children.tell(self.fence, f"guard {self.org.pid}")

    def _check_children(self) -> None:
        if self.org.poll() is not None:
            # the fence may have killed it and be on its way out: let it say why
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.fence.wait(2.0)
        if self.fence.poll() is not None:
            if self.fence.returncode == EXIT_LEASE_HELD:
                why = "the body lease is someone else's now; the fence killed the organization"
                raise NodeStop(EXIT_LEASE_HELD, why, True)
            raise NodeStop(EXIT_REFUSED, f"the fence stopped (exit {self.fence.returncode})", True)
        if self.org.poll() is not None:
            if self.org.returncode == EXIT_LEASE_HELD:  # its own check (fence.guard)
                why = "the organization found the body lease no longer its epoch's"
                raise NodeStop(EXIT_LEASE_HELD, why, True)
            raise NodeStop(EXIT_REFUSED, f"the organization stopped (exit {self.org.returncode})")

    def _start_application(self) -> int:
        """Start the application, the lease asserted the moment before; its pid."""
        self.assert_lease()
        pid = self.app.start(self._child_env())
        children.tell(self.fence, f"guard {pid}")
        if self.app.starts == 1:
            self.say(f"application: {self.app.instance} runs {self.app.spec.shown()} (pid {pid})")
            self.say(f"application: its output goes to {self.app.log_path}")
        return pid

    def _keep_application(self) -> None:
        """Step 7: echo its output, record its events and act on the readings naming
        it (instance.py), start it again once it exited."""
        if self.app is None:
            return
        for line in self.app.new_lines():
            self.say(f"{self.app.spec.name} | {line}")
        pid = self.app.pid
        assert self.instance is not None
        self.instance.tick(self._start_application, self.settings.stop_grace_s)
        if pid is not None and self.app.pid != pid:
            children.tell(self.fence, f"forget {pid}")
        if self.app.waiting():
            self._start_application()

    def _stop_application(self, grace_s: float) -> None:
        if self.app is not None:
            pid = self.app.pid
            self.app.stop(grace_s)
            if pid is not None and self.fence is not None:
                children.tell(self.fence, f"forget {pid}")

    def _restart_organization(self) -> None:
        children.tell(self.fence, f"forget {self.org.pid}")
        children.stop(self.org, self.settings.stop_grace_s)
        self._spawn_organization()

"""The genome a host serves: chosen at start, its forge watched every poll.

A mixin of Host (node/host.py), split along its seam. The candidate is the
forge's tip (the remote's default branch; without a forge, the local
default branch and its work tree); one that builds is remembered as the
last good genome, one that does not is a `node.build_failed` row and the
last good one is served instead (or, when none is remembered, the newest of
the commits before it that builds). Every `poll_s` the forge is fetched
again: a moved tip stops the node with exit 75, for its unit to start it on
the new genome.
"""

from __future__ import annotations

import time
from typing import Any

from hale_runtime.node import genome
from hale_runtime.node.git import GitFailed
from hale_runtime.node.stopping import EXIT_GENOME_MOVED, NodeStop, node_key
from hale_runtime.record import kinds


class Serving:
    """Host's genome steps (the attributes are Host's)."""

    root: Any
    settings: Any
    remote: Any
    holder: str
    record: Any
    forge: str | None
    forge_seen: str | None
    next_poll: float
    say: Any

    def choose_genome(self) -> genome.Genome:
        """The genome to serve: the forge's tip when it builds, else the last good one."""
        timeout = self.settings.git_timeout_s
        self.forge = genome.forge_of(self.root, self.remote, timeout)
        if self.forge is None:
            candidate = genome.work_tree_genome(self.root)
            self.forge_seen = genome.local_tip(self.root)  # the local branch stands for a forge
        else:
            try:
                self.forge_seen = genome.fetch_tip(self.root, self.forge, timeout)
            except GitFailed as error:
                return self._fall_back(None, f"the forge {self.forge} gave no genome: {error}")
            candidate = genome.materialize(self.root, self.forge_seen)
        self.next_poll = time.monotonic() + self.settings.poll_s
        try:
            genome.build(candidate)
        except genome.BuildFailed as failed:
            body = {"genome": failed.commit, "error": failed.text[-4000:]}
            self.record.append(kinds.NODE_BUILD_FAILED, node_key(self.holder), body)
            self._sync()
            return self._fall_back(candidate, f"genome {candidate.label} does not build")
        kept = genome.keep_work_tree(self.root, candidate) if candidate.work_tree else None
        genome.remember_good(self.root, kept or candidate.commit)
        return candidate

    def _fall_back(self, failed: genome.Genome | None, why: str) -> genome.Genome:
        """The last genome that built: the one remembered, else the newest commit
        before the failure that builds (remembered from then on)."""
        good = genome.last_good(self.root)
        if good is None:
            good = genome.built_before(self.root, failed)
            if good is None:  # served all the same: its organization refuses every ask
                self.say(f"hale: {why}, and no genome has built here before, nor any of the "
                         f"{genome.SEARCH} commits before it; every ask is refused until one "
                         "that builds lands")  # fmt: skip
                return failed or genome.Genome("", genome.genomes_dir(self.root) / "none")
            genome.remember_good(self.root, good)
        self.say(f"hale: {why}; serving {good[:7]}, the last genome that built")
        return genome.materialize(self.root, good)

    def _check_forge(self) -> None:
        if self.settings.poll_s <= 0 or time.monotonic() < self.next_poll:
            return
        self.next_poll = time.monotonic() + self.settings.poll_s
        if self.forge is None:  # the local default branch stands for one (genome.py)
            moved = genome.local_moved(self.root, self.forge_seen or "")
            if moved:
                raise NodeStop(EXIT_GENOME_MOVED, moved)
            return
        try:
            tip = genome.fetch_tip(self.root, self.forge, self.settings.git_timeout_s)
        except GitFailed as error:
            self._warn(f"the forge {self.forge} was not reached: {error}")
            return
        if tip != self.forge_seen:
            seen = (self.forge_seen or "nothing")[:7]
            raise NodeStop(
                EXIT_GENOME_MOVED, f"the genome moved at {self.forge}: {seen} -> {tip[:7]}"
            )

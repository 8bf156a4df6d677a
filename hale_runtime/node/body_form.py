"""A record's bodies are all owners', or one without an owner: never both at once.

A body without an owner takes `refs/dna/body`, an owner's body takes
`refs/dna/owners/<owner>/body`, so neither lease ever sees a body of the
other form, and the two would admit the same asks (the one without an owner
admits every ask). So right after taking its own lease, the host reads the
other form's leases (at the remote when there is one: one fetch of both
globs) and a live one (held and not expired, on this machine's clock)
refuses it: it gives its lease back and exits 3. Reading after taking closes
the race of two starting at once: each sees the other's lease, both give
way, and neither runs beside the other. A lease given back (a clean stop)
leaves the record to either form.
"""

from __future__ import annotations

from pathlib import Path

import pygit2

from hale_runtime.node.git import GitFailed, git
from hale_runtime.node.lease import LEASE_REF, Lease, LeaseUnprovable, lease_at, now_ms

OWNERS = "refs/dna/owners/"


def live_beside(
    root: Path, remote: str | None, owner: str | None, timeout_s: float
) -> tuple[str, Lease] | None:
    """A live lease of the other form than `owner`'s, as (its ref, the lease), or None."""
    repo = pygit2.Repository(str(root))
    prefix = f"refs/dna/remotes/{remote}/" if remote else "refs/dna/"
    if remote is not None:
        _fetch(root, remote, prefix, timeout_s)
    if owner:
        refs = [prefix + LEASE_REF.removeprefix("refs/dna/")]
    else:
        under = prefix + OWNERS.removeprefix("refs/dna/")
        refs = [r for r in repo.references if r.startswith(under) and r.endswith("/body")]
    at = now_ms()
    for ref in refs:
        lease = lease_at(repo, ref)[1]
        if lease is not None and lease.live(at):
            return ref.replace(prefix, "refs/dna/", 1), lease
    return None


def refusal(owner: str | None, ref: str, lease: Lease) -> str:
    """Why a body of `owner`'s form does not run beside `lease`."""
    held = f"{lease.describe()} holds {ref}"
    if owner:
        return (
            f"a body without an owner runs this record ({held}); "
            f"owner {owner}'s body does not run beside it"
        )
    return f"owners' bodies share this record ({held}); set HALE_DNA_OWNER to run as one of them"


def _fetch(root: Path, remote: str, prefix: str, timeout_s: float) -> None:
    specs = [f"+{LEASE_REF}*:{prefix}body*", f"+{OWNERS}*:{prefix}owners/*"]
    try:
        git(root, ["fetch", "-q", "--no-tags", remote, *specs], timeout_s)
    except GitFailed as error:
        raise LeaseUnprovable(f"reading the leases at {remote}: {error}") from None

"""The node: the program every body runs (`hale dna run`, `hale dna dev`).

    host.Host(root, Settings.from_env(), memory_dsn, nerves_dsn).run() -> exit code
    lease.BodyLease(root, holder, remote, length_s, timeout_s, owner).take()/renew()/release()
    fence.py          python -m hale_runtime.node.fence (started by the host)
    organization.py   python -m hale_runtime.node.organization (started by the host)
    projection.PROJECTIONS   row kind -> graph ops; project(record, memory)
    relay.Relay       unanswered `*.requested` rows onto the nerves
    quarantine.Quarantine    one `row.quarantined` for each row the organization cannot apply
    status.gather(root) / render(status)

Exit codes: 0 ok, 1 refused, 2 usage, 3 lease held elsewhere, 75 genome moved.
docs/node.md records the choices the seeds leave open.
"""

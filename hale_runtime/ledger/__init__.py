"""The ledger: a store the record can adopt for the legs' rows.

The git record is the one chain every clone syncs, and each append costs a
commit and a flush. The legs' rows (what the head writes for them: claims,
allowance and outcome asks, releases) come many at once from many legs, so
the record may adopt a ledger for them: a table in memory's database
(`ledger`, PostgreSQL for several nodes), where an append is one insert
and a database commit, sharing the database's group commit with every
other leg's. Rows keep their form there (the stored line, the same id), and
the host carries them into the git record every tick (step 4), in one
commit, deleting what the record now holds; carrying twice is one row
(the record drops an id it holds). So the record stays the chain, and a
row reaches it within a tick. The head signs what it appends, as it would
sign an append (`Record.sealed`), and the carrier writes those signature
rows with the rows and signs nothing itself, so a carried row still proves
the body that wrote it, and a row any other hand put in the table proves
nothing.

Adoption and abandonment are asked by rows (`ledger.adopt.requested`,
`ledger.abandon.requested`, from any clone: `hale dna ledger adopt|abandon`)
and carried out by a node in step 4, each claimed in memory by the row
that asked for it (`ledger/<row id>`), answered once (`.done` or
`.refused`). On an adopted ledger the body lease is also a row of memory's
claims table (`body`, or `owner/<owner>` over a shared record): its token
is the epoch the host hands its head, the fence renews it beside the git
lease, and memory refuses an append under an epoch that was taken over,
released or expired (`Fenced`), in the same transaction as the insert
(a takeover or a release of the claim first locks the ledger table, so it
waits for the appends in flight and every later one fails the check).
"""

"""A hostile clone's world: a project its Board made, and a stranger.

alice ran `hale dna new`: her key is the record's genesis (the Board while
it is unheld), and she endorsed the session's key for `org`, the identity
the tests' organization writes as (tests/conftest.py). mallory has a key of
her own that nobody endorsed; what she writes reaches this clone as a
commit of raw rows (`forge`), as a push from a second clone would.
"""

from __future__ import annotations

from authority_helpers import alice, mallory, project  # noqa: F401 (fixtures)

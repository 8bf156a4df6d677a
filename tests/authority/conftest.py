"""Two people on one record: two homes, two keys, one project (the fixtures
live in authority_helpers, which the hostile-clone tests share)."""

from __future__ import annotations

from authority_helpers import alice, mallory, project  # noqa: F401 (fixtures)

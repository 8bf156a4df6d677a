"""Fixtures for the face's tests: the debugger's close-month record (two
cases waiting for a person), served by a face, and the organization played
in-process (an engine and a Settler over the same record) so a test can
admit an ask and settle a resolve without a node."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import scenario  # noqa: E402
from face_helpers import Organization, Served  # noqa: E402

from hale_runtime.face.server import FaceServer  # noqa: E402


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    root = scenario.cases(tmp_path_factory.mktemp("face") / "project")
    face = FaceServer(root)
    face.start()
    yield Served(root, face, Organization(root))
    face.stop()

"""The head admits only its own: a token in `<git dir>/hale/head.json`, mode 0600."""

from __future__ import annotations

import http.client
import json
import stat
from urllib.parse import urlsplit

import pytest
from ask_helpers import Project

from hale_runtime.head import HeadClient, HeadError, HeadServer
from hale_runtime.head.client import find_head
from hale_runtime.head.server import head_file
from hale_runtime.record import Record


def _call(url: str, headers: dict[str, str], method: str = "POST") -> tuple[int, dict]:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    body = json.dumps({"method": "dna.attempt.claim", "params": {"leg": "leg:mallory"}})
    conn.request(method, "/", body if method == "POST" else None, headers)
    response = conn.getresponse()
    return response.status, json.loads(response.read())


def test_the_token_is_kept_for_the_projects_own_users_only(project: Project, served) -> None:
    file = head_file(project.root)
    assert stat.S_IMODE(file.stat().st_mode) == 0o600
    kept = json.loads(file.read_text())
    assert kept["url"] == served.url and kept["token"] == served.token
    assert len(served.token) >= 32
    assert find_head(project.root) == (served.url, served.token)


@pytest.mark.parametrize("authorization", [None, "Bearer ", "Bearer not-the-token", "Basic x"])
def test_a_call_without_the_token_is_refused_with_nothing_written(
    project: Project, served: HeadServer, authorization: str | None
) -> None:
    rows = Record.open(project.root).cursor()
    headers = {"Content-Type": "application/json"}
    if authorization is not None:
        headers["Authorization"] = authorization
    for method in ("POST", "GET"):
        status, answer = _call(served.url, headers, method)
        assert status == 401
        assert answer["error"].startswith("refused: this head admits only its own")
    assert Record.open(project.root).cursor() == rows
    with pytest.raises(HeadError, match="admits only its own"):
        HeadClient(served.url, "not-the-token").call("dna.attempt.claim", leg="leg:mallory")


def test_a_call_with_the_token_and_a_legs_credential_is_heard(served: HeadServer) -> None:
    door = {"Authorization": f"Bearer {served.token}"}
    status, answer = _call(served.url, door)  # the door opens, but no leg proved itself
    assert status == 401 and answer["error"].startswith("refused: a leg proves who it is")
    client = HeadClient(served.url, served.token)
    credential = client.register("leg:ann")
    assert len(credential) == 64
    status, answer = _call(served.url, {**door, "Hale-Leg": credential})
    assert status == 403 and "proves leg:ann; a leg speaks for itself" in answer["error"]
    assert client.call("dna.attempt.claim") == {"attempt": None}
    assert client.call("dna.attempt.claim", leg="leg:ann") == {"attempt": None}

"""A leg is who its credential proves: the issue's third break (a caller with the
head's shared token settling another leg's attempt) refused, lease tokens no
one else is told, refusals that name no other leg, and the parser's 400s."""

from __future__ import annotations

import http.client
import json
import socket
import stat
from urllib.parse import urlsplit

import pytest
from ask_helpers import Project
from test_legs import Organization

from hale_runtime.head import HeadClient, HeadError, HeadServer, Leg, open_head_for
from hale_runtime.head.identity import KEYS_FILE
from hale_runtime.head.server import head_file


def _one_attempt(project: Project) -> Organization:
    org = Organization(project)
    project.record().append("intent.requested", "i-1", {"objective": "judge", "judgment": True})
    org.tick()
    return org


def test_a_caller_with_the_heads_token_cannot_settle_another_legs_attempt(
    project: Project, served: HeadServer
) -> None:
    org = _one_attempt(project)
    leg_a = Leg(project.root, "leg-a", HeadClient(served.url, served.token))
    got = leg_a.next()
    assert got is not None and got["attempt"] == "t1/wf1/s0/j/a0"
    before = project.lines()
    mallory = HeadClient(served.url, served.token)  # the door's token, not leg-a's credential
    posing = {"leg": "leg-a", "attempt": got["attempt"], "outcome": "failed"}
    for token in (1, "1", got["token"]):
        with pytest.raises(HeadError, match="refused: a leg proves who it is"):
            mallory.call("dna.attempt.outcome", token=token, **posing)
    with pytest.raises(HeadError, match="registered already"):
        mallory.register("leg-a")  # nor can it take the name over
    mallory.register("leg-m")
    with pytest.raises(HeadError, match="proves leg-m; a leg speaks for itself") as refused:
        mallory.call("dna.attempt.outcome", token=got["token"], **posing)
    for guess in ("1", "0" * 32):  # as itself, with a guessed token: refused, naming no one
        with pytest.raises(HeadError, match="leg-m holds no live lease") as refused:
            mallory.call("dna.attempt.outcome", **{**posing, "leg": "leg-m", "token": guess})
        assert "leg-a" not in str(refused.value)
    assert project.lines() == before
    assert leg_a.submit("succeeded")["submitted"] == "succeeded"  # the real leg is heard
    org.tick()
    assert project.rows("attempt.outcome", got["attempt"])[0].body["outcome"] == "succeeded"


def test_the_credential_is_the_legs_alone_and_outlives_the_head(
    project: Project, served: HeadServer
) -> None:
    _one_attempt(project)
    leg = Leg(project.root, "leg:ann", HeadClient(served.url, served.token))
    assert leg.next() is not None
    for kept in (leg.keyfile, head_file(project.root).parent / KEYS_FILE):
        assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    credential = leg.keyfile.read_text().strip()
    assert credential not in (head_file(project.root).parent / KEYS_FILE).read_text()
    served.stop()
    again = HeadServer(
        open_head_for(project.root, str(project.memory_path), "org@box:c0ffee00"), root=project.root
    )
    again.start()
    try:  # a new head knows the leg by its credential; its lease is its own again
        leg = Leg(project.root, "leg:ann", HeadClient(again.url, again.token))
        got = leg.next()
        assert got is not None and got["attempt"] == "t1/wf1/s0/j/a0"
        assert leg.submit("failed")["submitted"] == "failed"
    finally:
        again.stop()
    (head_file(project.root).parent / KEYS_FILE).unlink()  # the head's registry lost
    third = HeadServer(
        open_head_for(project.root, str(project.memory_path), "org@box:c0ffee00"), root=project.root
    )
    third.start()
    try:  # the leg is unknown there: it registers its name again, and is heard
        leg = Leg(project.root, "leg:ann", HeadClient(third.url, third.token))
        assert leg.next() is None  # nothing left open, but the call was heard
        assert leg.keyfile.read_text().strip() != credential
    finally:
        third.stop()


def _raw(url: str, token: str, head: str, body: bytes) -> tuple[int, dict]:
    """One request as bytes on a socket: the head's answer, status and JSON."""
    parts = urlsplit(url)
    with socket.create_connection((parts.hostname, parts.port), timeout=60) as sock:
        sock.sendall(
            f"POST / HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n{head}\r\n\r\n".encode()
            + body
        )
        sock.shutdown(socket.SHUT_WR)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    response_head, _, payload = data.partition(b"\r\n\r\n")
    return int(response_head.split()[1]), json.loads(payload)


@pytest.mark.parametrize(
    "head, body",
    [
        ("Content-Length: lots", b"{}"),
        ("Content-Length: -5", b"{}"),
        ("Content-Length: 99999999999999", b"{}"),
        ("Content-Length: 2048", b"[" * 2048),
        ("Content-Length: 200000", b"[" * 100_000 + b"]" * 100_000),
        ("Content-Length: 4", b'"x"]'),
    ],
)
def test_the_parser_answers_400_to_what_is_not_a_call(
    served: HeadServer, head: str, body: bytes
) -> None:
    status, answer = _raw(served.url, served.token, head, body)
    assert status == 400 and answer["error"].startswith("refused: not a call")
    conn = http.client.HTTPConnection(*urlsplit(served.url).netloc.split(":"), timeout=60)
    conn.request("GET", "/", headers={"Authorization": f"Bearer {served.token}"})
    assert conn.getresponse().status == 200  # and the head serves on

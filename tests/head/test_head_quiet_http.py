"""A request that fails on the head's or the face's server is one line on stderr, never
a traceback; a client gone mid-answer (a killed leg) is not said at all."""

from __future__ import annotations

import http.client
import threading
from http.server import BaseHTTPRequestHandler

import pytest

from hale_runtime.quiet_http import QuietHTTPServer


class Failing(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path == "/gone":
            raise BrokenPipeError(32, "Broken pipe")  # what writing to a killed leg raises
        raise ValueError("the stores\nfailed")

    def log_message(self, format: str, *args: object) -> None:
        """Quiet, as the head's handler is."""


@pytest.fixture
def served():
    server = QuietHTTPServer(("127.0.0.1", 0), Failing)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    thread.join()
    server.server_close()


def ask(port: int, path: str) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", path)
    with pytest.raises((http.client.RemoteDisconnected, ConnectionError)):
        conn.getresponse()  # the server closes without an answer, after handle_error ran
    conn.close()


def test_a_client_gone_mid_answer_is_not_said(served, capfd) -> None:
    ask(served, "/gone")
    assert capfd.readouterr().err == ""


def test_any_other_failure_is_one_line_naming_the_client(served, capfd) -> None:
    ask(served, "/bad")
    said = capfd.readouterr().err.splitlines()
    assert len(said) == 1, said
    assert said[0].startswith("hale: a request from 127.0.0.1 failed: ") and "stores" in said[0]

"""The HTTP server the head and the face answer on: a request that fails is one
line on stderr, never a traceback in the node's output.

The standard library's server prints a traceback for any exception a handler
lets out. The usual one is a client gone mid-answer (a leg killed, a browser
tab closed): the answer has nowhere to go and nothing was lost (what the
request did is in the record), so it is not said at all. Anything else is said
in one line naming the client.
"""

from __future__ import annotations

import sys
from http.server import ThreadingHTTPServer
from typing import Any

from hale_runtime.errors import one_line


class QuietHTTPServer(ThreadingHTTPServer):
    daemon_threads = True  # a request's thread never holds the process open

    def handle_error(self, request: Any, client_address: Any) -> None:
        error = sys.exc_info()[1]
        if isinstance(error, ConnectionError):  # the client left mid-answer
            return
        where = client_address[0] if isinstance(client_address, tuple) else client_address
        print(f"hale: a request from {where} failed: {one_line(error)}", file=sys.stderr)

"""`hale dna face`: the organism in a browser, served over this clone's record.

Serves the face (hale_runtime/face/server.py) on loopback, whether or not a
node runs here, prints one line, `face: http://127.0.0.1:<port>/?token=<token>`,
and serves until interrupted (Ctrl-C ends it with exit 0). `--port 0`
(the default) takes a free port; `--open` opens the address in the user's
browser. The token is made anew each time and travels once in that address.
"""

from __future__ import annotations

import threading

import click

from hale_runtime.cli.common import fail


@click.command("face")
@click.option("--port", type=click.IntRange(0, 65535), default=0, help="0: a free port")
@click.option("--open", "open_browser", is_flag=True, help="open it in your browser")
def face(port: int, open_browser: bool) -> None:
    """Serve the face: executions, schedules, cases and the organism, in a browser."""
    from hale_runtime.project import find_root

    root = find_root()
    server = serve_face(root, port)
    click.echo(f"face: {server.url}")
    if open_browser:
        import webbrowser

        webbrowser.open(server.url)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()


def serve_face(root, port: int = 0):
    """Start the face over `root`'s record; the running FaceServer (refused in one line)."""
    from hale_runtime.face.server import FaceServer

    try:
        server = FaceServer(root, port)
    except OSError as error:
        fail(f"the face could not listen on 127.0.0.1:{port}: {error.strerror or error}")
    server.start()
    return server

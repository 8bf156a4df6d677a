"""hale as users install it: a wheel, in a fresh virtual environment outside
the checkout, doing its whole job.

The wheel is built from this checkout with `pip wheel`, installed into a new
venv under the test's temporary folder (its dependencies come from pip's
cache or index, as a user's would), and every command below runs with the
venv's `hale` from a folder that is not the checkout, so nothing can be read
through a path relative to the source tree.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

CHECKOUT = Path(__file__).resolve().parents[2]
FAST = {
    "HALE_DNA_TICK": "0.2",
    "HALE_DNA_LEASE_S": "5",
    "HALE_DNA_LEASE_RENEW_S": "1",
    "HALE_DNA_LEASE_MARGIN_S": "1",
    "HALE_DNA_GENOME_POLL": "0",
    "HALE_DNA_ANSWER_WAIT": "30",
}
# Every file hale reads at run time, as the wheel must name it.
RUNTIME_FILES = (
    "hale_lang/grammar/hale.lark",
    "hale_runtime/vendor/dna/mod.hl",
    "hale_runtime/vendor/dna/baseline.hl",
    "hale_runtime/vendor/dna/templates/dna/core/scheduler.hl",
    "hale_runtime/vendor/dna/templates/dna/org/main.hl",
    "hale_runtime/vendor/dna/templates/dna/compose.yaml",
    "hale_lang/stdlib/prelude.py",
    "hale_runtime/face/templates/execution.html",
    "hale_runtime/face/static/face.js",
    "hale_runtime/face/static/face.css",
)


def _run(argv: list[str], cwd: Path, **kw) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    done = subprocess.run(
        argv, cwd=cwd, capture_output=True, text=True, env={**env, **FAST}, timeout=600, **kw
    )
    assert done.returncode == 0, f"{argv}: {done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the wheel, the `hale` of a fresh venv it is installed into)."""
    base = tmp_path_factory.mktemp("wheel")
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    _run([*pip, "wheel", "--no-deps", "-w", str(base / "dist"), str(CHECKOUT)], base)
    (wheel,) = (base / "dist").glob("hale-*.whl")
    _run([sys.executable, "-m", "venv", str(base / "venv")], base)
    venv_pip = [str(base / "venv" / "bin" / "python"), "-m", "pip"]
    _run([*venv_pip, "--disable-pip-version-check", "-q", "install", str(wheel)], base)
    return wheel, base / "venv" / "bin" / "hale"


def test_the_wheel_carries_every_file_hale_reads(installed: tuple[Path, Path]) -> None:
    names = set(zipfile.ZipFile(installed[0]).namelist())
    assert [f for f in RUNTIME_FILES if f not in names] == []
    # only hale's own names at the top level: no `stdlib` any other project may claim
    assert {name.split("/")[0] for name in names if not name.startswith("hale-")} == {
        "hale_lang",
        "hale_runtime",
    }
    python = installed[1].with_name("python")
    probe = "import importlib.util as u; print(u.find_spec('stdlib') is None)"
    assert _run([str(python), "-c", probe], installed[0].parent).stdout.strip() == "True"
    wheel = zipfile.ZipFile(installed[0])
    (metadata,) = [n for n in names if n.endswith(".dist-info/METADATA")]
    said = wheel.read(metadata).decode()
    for extra in ("postgres", "tui", "lsp", "all"):
        assert f"Provides-Extra: {extra}" in said
    for name in ("textual", "psycopg", "pygls", "lsprotocol"):  # none of them in the core
        lines = [ln for ln in said.splitlines() if ln.startswith(f"Requires-Dist: {name}")]
        assert lines and all("extra ==" in ln for ln in lines), name
    assert (
        "Project-URL: " in said and "# hale" in said
    )  # the URLs, and the README as the description
    assert any(n.endswith("LICENSE") and "Apache License" in wheel.read(n).decode() for n in names)


def test_the_installed_hale_makes_checks_and_runs_a_project(
    installed: tuple[Path, Path], tmp_path: Path
) -> None:
    hale = str(installed[1])
    assert _run([hale, "--version"], tmp_path).stdout.startswith("hale, version ")
    made = _run([hale, "dna", "new", "proj"], tmp_path).stdout
    assert made.startswith("new genome in proj: 10 files, first commit ")
    proj = tmp_path / "proj"
    listed = _run([hale, "dna", "definitions"], proj).stdout
    assert listed.startswith("catalog dna/org/workflows.hl\nask-edit@1")
    assert "checked 9 files: 0 error(s)" in _run([hale, "check", "dna"], proj).stderr
    window = ["--from", "2026-12-01T00:00Z", "--to", "2026-12-08T00:00Z"]
    simulated = _run([hale, "dna", "simulate", *window], proj).stdout
    assert "on a copy of the record" in simulated and "schedules: none declared" in simulated
    (tmp_path / "sum.hl").write_text("fn main() -> Int {\n    return len([1, 2, 3]) + 4;\n}\n")
    assert _run([hale, "run", "sum.hl", "--fn", "main"], tmp_path).stdout.strip() == "7"
    # the core install has no LSP stack: one line names the extra, and installing it serves
    lacking = subprocess.run([hale, "lsp"], cwd=proj, capture_output=True, text=True, timeout=120)
    assert lacking.returncode == 1 and lacking.stdout == ""
    assert (
        lacking.stderr
        == "hale: the language server (`hale lsp`) needs the `lsp` extra: pip install 'hale[lsp]'\n"
    )
    wheel, venv_pip = installed[0], [str(installed[1].with_name("python")), "-m", "pip", "-q"]
    _run(
        [*venv_pip, "--disable-pip-version-check", "install", f"hale[lsp] @ {wheel.as_uri()}"],
        tmp_path,
    )
    assert '"hoverProvider":true' in _lsp_session(hale, proj).replace(" ", "")
    pygmentize = str(installed[1].with_name("pygmentize"))
    raw = _run([pygmentize, "-l", "hale", "-f", "raw", "sum.hl"], tmp_path).stdout
    assert "Token.Keyword.Declaration\t'fn'" in raw


def test_the_installed_hale_serves_the_face(installed: tuple[Path, Path], tmp_path: Path) -> None:
    """`hale dna face` from the wheel: its address, then a page and its script with the cookie."""
    import re
    import signal
    import urllib.request

    hale = str(installed[1])
    _run([hale, "dna", "new", "proj"], tmp_path)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    face = subprocess.Popen([hale, "dna", "face"], cwd=tmp_path / "proj", env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        line = face.stdout.readline()
        found = re.fullmatch(r"face: (http://127\.0\.0\.1:\d+)/\?token=(\S+)\n", line)
        assert found, line + (face.stderr.read() if face.poll() is not None else "")
        for path, word in (("/", "Create task"), ("/static/face.js", "EventSource")):
            asked = urllib.request.Request(
                found[1] + path,
                headers={"Cookie": f"hale_face_{found[1].rsplit(':', 1)[1]}={found[2]}"},
            )
            with urllib.request.urlopen(asked, timeout=60) as answer:
                assert word in answer.read().decode()
    finally:
        face.send_signal(signal.SIGINT)
        assert face.wait(60) == 0


def _lsp_session(hale: str, cwd: Path) -> str:
    """What `hale lsp` answers to initialize, shutdown and exit, all at once."""
    frames = b""
    for i, (method, params) in enumerate(
        [
            ("initialize", {"processId": None, "rootUri": None, "capabilities": {}}),
            ("shutdown", None),
        ]
    ):
        body = json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
        frames += b"Content-Length: %d\r\n\r\n%s" % (len(body), body.encode())
    body = json.dumps({"jsonrpc": "2.0", "method": "exit"}).encode()
    frames += b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
    return _run([hale, "lsp"], cwd, input=frames.decode()).stdout


def test_the_installed_hale_runs_a_node_that_admits_an_ask(
    installed: tuple[Path, Path], tmp_path: Path
) -> None:
    hale = str(installed[1])
    _run([hale, "dna", "new", "proj"], tmp_path)
    proj = tmp_path / "proj"
    log_path = tmp_path / "node.log"
    with open(log_path, "w") as log:
        node = subprocess.Popen(
            [hale, "dna", "dev"],
            cwd=proj,
            stdout=log,
            stderr=subprocess.STDOUT,
            env={**os.environ, **FAST},
        )
        try:
            deadline = time.monotonic() + 60
            while "running;" not in log_path.read_text():
                assert node.poll() is None and time.monotonic() < deadline, log_path.read_text()
                time.sleep(0.1)
            asked = _run([hale, "dna", "task", "create", "add a health check"], proj)
            assert asked.stdout.startswith("task t1 born: ask-edit@1 for ask i-")
            # the demo's application runs under the same host, its output echoed and kept
            while "demo | demo: beat 1" not in log_path.read_text():
                assert node.poll() is None and time.monotonic() < deadline, log_path.read_text()
                time.sleep(0.1)
            assert "demo: beat 1" in (proj / ".git/hale/app/demo.log").read_text()
        finally:
            node.send_signal(signal.SIGTERM)
            assert node.wait(30) == 0, log_path.read_text()


def test_new_refuses_and_writes_nothing_when_the_install_lacks_a_file(
    installed: tuple[Path, Path], tmp_path: Path
) -> None:
    hale = installed[1]
    site = next((hale.parent.parent / "lib").glob("python*/site-packages"))
    baseline = site / "hale_runtime" / "vendor" / "dna" / "baseline.hl"
    hidden = baseline.with_suffix(".away")
    baseline.rename(hidden)
    try:
        env = {**os.environ, **FAST}
        done = subprocess.run(
            [str(hale), "dna", "new", "proj"], cwd=tmp_path, capture_output=True, text=True, env=env
        )
    finally:
        hidden.rename(baseline)
    assert done.returncode == 1
    assert "lacks vendor/dna/baseline.hl" in done.stderr
    assert "nothing written" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "proj").exists()

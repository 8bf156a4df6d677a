"""`hale dap` as an editor drives it: a real process speaking the Debug
Adapter Protocol over stdio, stepping a genome fn with locals in Hale's syntax."""

from __future__ import annotations

from pathlib import Path

import pytest
from dap_client import DapClient

SUMS = """\
fn double(x: Int) -> Int {
    let y = x * 2;
    return y;
}

fn total(xs: List<Int>) -> Int {
    let sum = 0;
    let seen: List<Bool> = [];
    for x in xs {
        sum += double(x);
        seen.push(x > 1);
    }
    return sum;
}
"""


@pytest.fixture
def genome(tmp_path: Path) -> Path:
    (tmp_path / "dna/org").mkdir(parents=True)
    (tmp_path / "dna/org/sums.hl").write_text(SUMS)
    return tmp_path


def start(client: DapClient, genome: Path, **launch) -> None:
    caps = client.request("initialize", {"adapterID": "hale", "linesStartAt1": True})
    assert caps["success"] and caps["body"]["supportsConfigurationDoneRequest"]
    client.event("initialized")
    args = {"program": "dna/org/sums.hl:total", "args": [[1, 2]], "cwd": str(genome), **launch}
    assert client.request("launch", args)["success"]


def frames(client: DapClient) -> list[tuple[str, int]]:
    body = client.request("stackTrace", {"threadId": 1})["body"]
    return [(f["name"], f["line"]) for f in body["stackFrames"]]


def local_values(client: DapClient, frame: int = 0) -> dict[str, str]:
    top = client.request("stackTrace", {"threadId": 1})["body"]["stackFrames"][frame]
    (scope,) = client.request("scopes", {"frameId": top["id"]})["body"]["scopes"]
    ref = scope["variablesReference"]
    found = client.request("variables", {"variablesReference": ref})["body"]["variables"]
    return {v["name"]: v["value"] for v in found}


def test_breakpoints_steps_stack_and_hale_values(genome: Path) -> None:
    client = DapClient(genome)
    start(client, genome)
    source = {"path": str(genome / "dna/org/sums.hl")}
    bps = client.request("setBreakpoints", {"source": source, "breakpoints": [{"line": 11}]})
    assert [b["verified"] for b in bps["body"]["breakpoints"]] == [True]
    assert client.request("configurationDone")["success"]
    assert client.event("stopped")["reason"] == "breakpoint"
    threads = client.request("threads")["body"]["threads"]
    assert [t["id"] for t in threads] == [1]
    assert frames(client) == [("total", 11)]
    assert local_values(client) == {"xs": "[1, 2]", "sum": "2", "seen": "[]", "x": "1"}
    client.request("continue", {"threadId": 1})
    assert client.event("stopped")["reason"] == "breakpoint"
    assert local_values(client)["seen"] == "[false]"  # Hale's syntax, not Python's
    client.request("setBreakpoints", {"source": source, "breakpoints": [{"line": 2}]})
    client.request("stepBack", {"threadId": 1})
    client.event("stopped")
    client.request("reverseContinue", {"threadId": 1})
    assert client.event("stopped")["reason"] == "breakpoint"
    assert frames(client) == [("double", 2), ("total", 10)]  # the caller, at its call
    assert local_values(client, 1)["x"] == "1"  # back before this iteration's call
    client.request("next", {"threadId": 1})
    client.event("stopped")
    assert frames(client)[0] == ("double", 3) and local_values(client)["y"] == "2"
    client.request("stepOut", {"threadId": 1})
    client.event("stopped")
    assert local_values(client)["(returned)"] == "2"
    client.request("stepIn", {"threadId": 1})
    client.event("stopped")
    assert frames(client) == [("total", 11)]
    client.request("setBreakpoints", {"source": source, "breakpoints": []})
    client.request("continue", {"threadId": 1})
    assert client.event("output")["output"] == "returned 6\n"
    assert client.event("exited")["exitCode"] == 0
    client.event("terminated")
    assert client.request("disconnect")["success"]
    assert client.close() == 0


def test_stop_on_entry_and_refusals_in_one_line(genome: Path) -> None:
    client = DapClient(genome)
    caps = client.request("initialize", {"adapterID": "hale"})
    assert caps["body"]["supportsStepBack"]
    bad = client.request("launch", {"program": "dna/org/sums.hl:nothing", "cwd": str(genome)})
    assert not bad["success"] and "nothing" in bad["message"]
    bad = client.request("launch", {"program": "sums", "cwd": str(genome)})
    assert not bad["success"] and "<file.hl>:<fn>" in bad["message"]
    start(client, genome, stopOnEntry=True)
    client.request("configurationDone")
    assert client.event("stopped")["reason"] == "entry"
    assert frames(client) == [("total", 7)] and local_values(client) == {"xs": "[1, 2]"}
    assert not client.request("evaluate", {"expression": "sum"})["success"]
    assert client.request("disconnect")["success"]
    assert client.close() == 0

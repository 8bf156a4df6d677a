"""The face's door and listing, over HTTP without a browser: no token, no
page; the token once in the URL becomes a strict cookie; an act needs its
CSRF field; every answer forbids inline script; the listing pages from its
own table; `hale dna face` prints its address and stops on Ctrl-C."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from face_helpers import Served

from hale_runtime.face.executions import Executions, Filter


class _Kept(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):  # a redirect is answered, not followed
        return None


def _get(url: str, cookie: str = "", data: bytes | None = None, origin: str = ""):
    headers = {"Cookie": cookie} if cookie else {}
    if origin:
        headers["Origin"] = origin
    request = urllib.request.Request(url, data=data, headers=headers)
    try:
        with urllib.request.build_opener(_Kept).open(request, timeout=60) as got:
            return got.status, dict(got.headers), got.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read().decode()


def test_no_token_no_page_and_the_token_becomes_a_strict_cookie(served: Served) -> None:
    face = served.face
    for path in ("/", "/x/t1", "/waiting", "/events", "/static/face.js"):
        status, headers, body = _get(face.address + path)
        assert status == 401, path
        assert "admits only whoever started it" in body
        assert "t1/wf1" not in body
    wrong = _get(f"{face.address}/?token=not-{face.token}")
    assert wrong[0] == 401
    assert _get(face.address + "/", cookie=f"{face.cookie}=x{face.token}")[0] == 401

    status, headers, _ = _get(f"{face.address}/waiting?token={face.token}")
    assert status == 303 and headers["Location"] == "/waiting"
    cookie = headers["Set-Cookie"]
    assert cookie.startswith(f"{face.cookie}={face.token};")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie

    status, headers, body = _get(face.address + "/waiting", cookie=f"{face.cookie}={face.token}")
    assert status == 200 and "t1/wf1/s1/post/a0" in body
    csp = headers["Content-Security-Policy"]
    assert "default-src 'self'" in csp and "unsafe-inline" not in csp
    scripts = re.findall(r"<script([^>]*)>(.*?)</script>", body, re.S)
    assert scripts and all('src="/static/' in tag and not inline for tag, inline in scripts)
    assert re.search(r"<[^>]*\son[a-z]+=", body) is None  # no handler attribute


def test_an_act_without_its_csrf_field_or_from_another_origin_writes_nothing(
    served: Served,
) -> None:
    face = served.face
    cookie = f"{face.cookie}={face.token}"
    before = served.org.record.cursor()
    form = b"objective=forged&csrf=" + b"0" * 64
    assert _get(face.address + "/act/task-create", cookie, form)[0] == 403
    good = f"objective=forged&csrf={face.csrf}".encode()
    assert _get(face.address + "/act/task-create", cookie, good, "http://evil.example")[0] == 403
    assert _get(face.address + "/act/task-create", "", good)[0] == 401
    assert served.org.record.cursor() == before


def test_the_listing_pages_and_filters_from_its_own_table(tmp_path: Path) -> None:
    from hale_runtime.record.row import Row

    table = Executions(tmp_path)

    def row(seq: int, kind: str, key: str, body: dict, at: int) -> Row:
        return Row(id=f"{seq:064x}", kind=kind, key=key, body=body, who="w", clone="c", at=at,
                   seq=seq)  # fmt: skip

    rows = [row(1, "intent.requested", "i-1", {"objective": "close <b>March</b>", "by": "ann"}, 0)]
    for n in range(1, 121):
        ask = "i-1" if n == 7 else f"sched:nightly@{n}" if n % 2 else f"a-{n}"
        body = {"definition": "close-month@1" if n % 3 else "other@2", "ask": ask, "convener": "x"}
        rows.append(row(n * 3, "workflow.admitted", f"t{n}", body, n * 1000))
        if n % 4 == 0:
            rows.append(row(n * 3 + 1, "workflow.settled", f"t{n}", {"outcome": "failed"},
                            n * 1000 + 500))  # fmt: skip
    rows.append(
        row(999, "workflow.admitted", "t1.s0.b", {"definition": "sub@1", "parent": "t1"}, 1)
    )
    table.feed(iter(rows), 1000)
    first = table.page(Filter(), now_ms=10**6)
    assert [x.root for x in first[:3]] == ["t120", "t119", "t118"] and len(first) == 50
    second = table.page(Filter(before=first[-1].n), now_ms=10**6)
    assert second[0].root == "t70" and "t1.s0.b" not in {x.root for x in first + second}
    failed = table.page(Filter(state="failed", definition="other@2"), now_ms=10**6)
    assert [x.root for x in failed][:2] == ["t120", "t108"] and failed[0].took_ms == 500
    assert table.page(Filter(search="march"), 10**6)[0].objective == "close <b>March</b>"
    assert table.page(Filter(search="t7"), 10**6)[0].who == "ann"
    nightly = table.page(Filter(schedule="nightly"), 10**6, size=100)
    assert {x.root for x in nightly} == {f"t{n}" for n in range(1, 121, 2)} - {"t7"}
    assert table.page(Filter(window="hour"), now_ms=3_700_000)[-1].root == "t100"
    assert table.definitions() == ["close-month@1", "other@2"]


def test_hale_dna_face_prints_its_address_and_stops_on_ctrl_c(served: Served) -> None:
    verb = "from hale_runtime.cli import main; main()"
    proc = subprocess.Popen(
        [sys.executable, "-c", verb, "dna", "face", "--port", "0"],
        cwd=served.root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ},
    )  # fmt: skip
    try:
        line = proc.stdout.readline()
        found = re.fullmatch(r"face: (http://127\.0\.0\.1:\d+)/\?token=([\w-]{40,})\n", line)
        assert found, line + proc.stderr.read() if proc.poll() is not None else line
        status, headers, _ = _get(f"{found[1]}/?token={found[2]}")
        assert status == 303 and "HttpOnly" in headers["Set-Cookie"]
        port = found[1].rsplit(":", 1)[1]
        assert _get(found[1] + "/", f"hale_face_{port}={found[2]}")[0] == 200
        assert _get(found[1] + "/", f"hale_face={found[2]}")[0] == 401  # another face's name
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(60) == 0


REFUSED = {
    "schedule-pause": (
        {"schedule": "--nope"},
        "hale: no schedule --nope is declared in the record (`hale dna schedule` lists them)",
    ),
    "no-such": ({}, "no such act: no-such"),
}


@pytest.mark.parametrize("act", sorted(REFUSED))
def test_a_refused_act_says_its_verbs_own_words(served: Served, act: str) -> None:
    from hale_runtime.face import acts

    before = served.org.record.cursor()
    form, words = REFUSED[act]
    said = acts.run(served.root, act, form)
    assert said.refused and said.text == words
    assert served.org.record.cursor() == before


def test_a_table_that_is_not_ours_or_ahead_of_the_record_is_made_again(served: Served) -> None:
    gitdir = Path(served.org.record.repo.path)
    scratch = gitdir.parent / "scratch-git"
    (scratch / "hale").mkdir(parents=True)
    (scratch / "hale" / "face.sqlite3").write_bytes(b"not a database at all" * 100)
    assert Executions(scratch).cursor == 0
    table = Executions(gitdir)
    end = table.catch_up(served.org.record)
    assert end > 0 and table.one("t1").definition == "close-month@1"
    table.db.execute("UPDATE meta SET value = '999999999' WHERE name = 'cursor'")
    assert table.catch_up(served.org.record) == end and table.one("t2").state == "open"


def test_schedules_and_the_organism_read_and_a_schedule_pauses_by_its_verb(
    tmp_path: Path,
) -> None:
    """The debugger's record with a schedule `hourly` (occurred, skipped, missed)."""
    import scenario

    from hale_runtime.face import acts
    from hale_runtime.face.server import FaceServer

    root = scenario.build(tmp_path / "project")
    face = FaceServer(root)
    try:
        status, html = face.page("/schedules", {})
        assert status == 200 and 'hourly <span class="live">[live]</span>' in html
        assert "occurred 1, skipped 2, missed 2" in html
        for mark in ("mark-occurred", "mark-skipped", "mark-missed", "mark-next"):
            assert f'class="{mark}"><title>' in html
        said = acts.run(root, "schedule-pause", {"schedule": "hourly"})
        assert not said.refused and "hourly" in said.text and "pause" in said.text
        assert "[paused]" in face.page("/schedules", {})[1]
        status, html = face.page("/organism", {})
        assert status == 200 and "body: " in html and "spent today" in html
        status, html = face.page("/x/t2", {})
        assert "Why it failed" in html and "t2/wf1/s0/f/a1: agent said failed" in html
        assert face.page("/x/t99", {})[0] == 404
    finally:
        face.executions.close()


def test_a_step_shows_the_genome_line_that_declared_its_members(
    served: Served, tmp_path: Path
) -> None:
    """The catalog's call sites (as its document records them) mapped to a step."""
    from hale_runtime.engine.show import read_root
    from hale_runtime.face.views import Genome

    (tmp_path / "dna" / "org").mkdir(parents=True)
    lines = ["fn own(c) {", '    c.define("close-month", 1, "record record", "close");',
             '    c.leaf("close-month", 1, 1, "post", work("post it", "human"), 1);', "}"]  # fmt: skip
    (tmp_path / "dna" / "org" / "own_workflows.hl").write_text("\n".join(lines) + "\n")
    genome = Genome(tmp_path)
    genome.sites = {("close-month", 1, 1, "post"): "dna/org/own_workflows.hl:3:5"}
    found = genome.lines_for(read_root(served.org.record, "t1"), "t1")
    assert found == {"t1/wf1/s1": f"dna/org/own_workflows.hl:3: {lines[2].strip()}"}
    assert Genome(tmp_path).lines_for(read_root(served.org.record, "t1"), "t1") == {}

"""`hale lsp`: diagnostics after an edit, side by side with a cold `hale check`.

The genome is generated from bench/lang_parse.py's templates: ten modules
of about 1,000 lines each under `dna/`, all importing one small types
module (`lib/types.hl`), about 10,000 lines in all. A real `hale lsp`
process is driven over stdio by tests/lsp/lsp_client.py: it opens one
1,000-line module, and each edit replaces the whole text (as an editor
with full sync sends it), alternately breaking and mending a name inside a
body. The figure is the time from sending the change to receiving that
module's diagnostics. Beside it, in the same rounds (the sides alternate),
a cold `hale check dna` of the same genome: a new process, an empty build
cache. A second row edits a signature in the types module (a field more
on a struct), which every module imports: the server checks again every
item that read what moved, in every module (lsp/deps.py), and publishes
once they are all checked; nobody reads the new field, so only the types
module is. A third row changes the parameters of a host method that half
the functions of every module call (each then has an error), and back:
about 320 function bodies checked again. Each body's check is kept by what
it read (lsp/memo.py), so from the second round on both sides of that
toggle are found kept; a fourth row gives the method a signature never seen
before in each round (one `Int` parameter more each time), which every body
is checked against, and is then turned back. The server's CPU time per edit is
read from /proc beside the wall clock, which on a loaded machine also
counts the waits for a core.
Goals (issue 31): a body edit's diagnostics under 15 ms at the median, a
signature edit's under 50 ms.

    .venv/bin/python bench/lsp.py [--rounds 7] [--edits 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))  # support/, which the client uses
sys.path.insert(0, str(HERE.parent / "tests" / "lsp"))

from lang_parse import TYPES, UNIT  # noqa: E402
from lsp_client import HALE, LspClient  # noqa: E402

MODULES = 10
# a host method's signature every `define_` fn of every module calls
EVERYONE_READS = ("input: String) -> String;", "input: String, note: String) -> String;")
UNITS = -(-1000 // UNIT.count("\n"))  # units of ~32 lines: 1,000 lines a module


def generate(root: Path) -> int:
    """Write the genome; its line count."""
    (root / "lib").mkdir(parents=True)
    (root / "dna").mkdir()
    (root / "lib/types.hl").write_text(TYPES)
    total = TYPES.count("\n")
    for m in range(MODULES):
        body = "".join(UNIT.format(i=m * UNITS + i) for i in range(UNITS))
        text = '// Generated genome module.\nimport "lib/types" as t;\n\n' + body
        (root / f"dna/gen_{m:02}.hl").write_text(text)
        total += text.count("\n")
    return total


def cold_check(root: Path) -> float:
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "HALE_CACHE_DIR": cache}
        t = time.perf_counter()
        done = subprocess.run(
            [str(HALE), "check", "dna"], cwd=root, env=env, capture_output=True, text=True
        )
        took = time.perf_counter() - t
    if done.returncode != 0:
        raise SystemExit(f"hale check failed:\n{done.stderr}")
    return took


def cpu_seconds(pid: int) -> float:
    """The CPU time a process has used (user + system), from /proc; on a
    machine shared with other work it says what an edit cost the server,
    where the wall clock also says how long it waited for a core."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Editor:
    """One open document, edited by toggling between two texts."""

    def __init__(self, client: LspClient, file: Path, old: str, new: str):
        self.client, self.old, self.new = client, old, new
        self.text = file.read_text()
        assert old in self.text, old
        self.uri = client.open(file, self.text)
        client.diagnostics(self.uri, timeout=120)
        self.version = 1

    def edit(self, old: str = "", new: str = "") -> tuple[float, int, float]:
        """One change (toggling `old` and `new`, by default the editor's own
        pair); (seconds until its diagnostics, how many there are, the
        server's CPU seconds meanwhile)."""
        if old:  # a pair that occurs once: toggled by what the text holds
            a, b = (old, new) if old in self.text else (new, old)
        else:  # the editor's own, which may occur more than once: by turns
            a, b = (self.old, self.new) if self.version % 2 else (self.new, self.old)
        self.text = self.text.replace(a, b, 1)
        self.version += 1
        self.client.drop_notes()
        pid = self.client.proc.pid
        cpu, t = cpu_seconds(pid), time.perf_counter()
        self.client.change(self.uri, self.version, self.text)
        diags = self.client.diagnostics(self.uri, timeout=120)
        return time.perf_counter() - t, len(diags), cpu_seconds(pid) - cpu


def row(name: str, times: list[float], cpu: list[float] | None = None) -> str:
    ms = [x * 1000 for x in times]
    text = f"{name:<48} min {min(ms):8.1f} ms   median {statistics.median(ms):8.1f} ms"
    if cpu:
        text += f"   server CPU {statistics.mean(cpu) * 1000:6.1f} ms (mean)"
        text += f" {statistics.median(cpu) * 1000:6.1f} ms (median)"
    return text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--edits", type=int, default=5, help="body edits per round")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "genome"
        lines = generate(root)
        client = LspClient(root)
        client.initialize(root)
        body = Editor(client, root / "dna/gen_04.hl", "len(d) > 0", "lenght(d) > 0")
        types = Editor(client, root / "lib/types.hl", "runs: Int }", "runs: Int, late: Int }")
        edits, sig_edits, colds, counts = [], [], [], set()
        cpu, sig_cpu, all_edits, all_cpu, new_edits, new_cpu = [], [], [], [], [], []
        for r in range(args.rounds):
            for _ in range(args.edits):
                took, n, used = body.edit()
                edits.append(took)
                cpu.append(used)
                counts.add(n)
            took, _, used = types.edit()
            sig_edits.append(took)
            sig_cpu.append(used)
            for _ in range(2):  # broken in every module, then mended
                took, _, used = types.edit(*EVERYONE_READS)
                all_edits.append(took)
                all_cpu.append(used)
            old, new = EVERYONE_READS
            fresh = new.replace(") ->", ", n: Int" * (r + 1) + ") ->")
            took, _, used = types.edit(old, fresh)  # never seen: every body checked
            new_edits.append(took)
            new_cpu.append(used)
            types.edit(old, fresh)  # turned back
            colds.append(cold_check(root))
        assert counts == {0, 1}, counts  # the edits really broke and mended the module
        client.close()
    print(f"genome: {lines:,} lines in {MODULES + 1} modules; edited module ~1,000 lines")
    load = os.getloadavg()[0]
    print(f"load average {load:.1f} on {os.cpu_count()} cores")
    print(row("hale lsp: diagnostics after a body edit", edits, cpu))
    print(row("hale lsp: after a signature edit (a new field)", sig_edits, sig_cpu))
    print(row("  ... that every module reads (all re-checked)", all_edits, all_cpu))
    print(row("  ... the same, to a signature never seen before", new_edits, new_cpu))
    print(row("cold `hale check dna` (new process)", colds))
    ratio = statistics.median(colds) / statistics.median(edits)
    print(f"{'cold check / body edit (medians)':<48} {ratio:8.1f}x")
    print("goals: a body edit under 15 ms at the median, a signature edit under 50 ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

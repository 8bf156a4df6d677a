"""The small genome the language server's tests run on."""

from __future__ import annotations

import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

LIB = """\
// Shared helpers of the organization.

// How many words a text has.
fn words(text: String) -> Int {
    return len(text.split(" "));
}

// A tally kept per key.
struct Tally {
    key: String,
    count: Int,
}
"""

MAIN = """\
import "vendor/dna" as dna;
import "dna/org/lib" as lib;

// The month's close, counted.
fn plan(catalog: dna::WorkflowCatalog, objective: String) -> String {
    let t = lib::Tally { key: "k", count: lib::words(objective) };
    let d = catalog.define("close", 1, "record", "close the month");
    if t.count > 0 {
        return d;
    }
    return "";
}
"""


def write_genome(root: Path) -> Path:
    (root / "vendor/dna").mkdir(parents=True)
    shutil.copy(REPO / "vendor/dna/mod.hl", root / "vendor/dna/mod.hl")
    (root / "dna/org").mkdir(parents=True)
    (root / "dna/org/lib.hl").write_text(LIB)
    (root / "dna/org/main.hl").write_text(MAIN)
    return root

"""Every `.hl` file hale ships is in the one canonical layout, and checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from hale_lang.formatter import format_source

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted(
    p
    for folder in ("vendor", "examples", "hale_lang/stdlib")
    for p in (ROOT / folder).rglob("*.hl")
)


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(ROOT)))
def test_shipped_hale_is_formatted(path: Path) -> None:
    text = path.read_text()
    assert format_source(text, str(path)) == text, f"run `hale fmt {path.relative_to(ROOT)}`"

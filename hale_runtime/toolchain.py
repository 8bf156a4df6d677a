"""The toolchain's vendored `dna` package, found as a package resource.

`vendor/` ships as the package `hale_runtime.vendor` (setup.py maps the
checkout's folder into it), so the same lookup works in a wheel and in an
editable checkout. The folder above it holds `vendor/dna/`, which makes it
a genome root of its own: the toolchain's Scheduler builds from there when
a genome carries none.
"""

from __future__ import annotations

from pathlib import Path

from hale_lang.resources import package_dir


def vendor_dna() -> Path:
    """The toolchain's `vendor/dna` folder."""
    return package_dir("hale_runtime.vendor") / "dna"


def toolchain_root() -> Path:
    """A folder that holds `vendor/dna/`, as a genome root does."""
    return package_dir("hale_runtime.vendor").parent

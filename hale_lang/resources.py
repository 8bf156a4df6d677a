"""The toolchain's own files, found as package resources.

The grammar ships inside `hale_lang.grammar` and the standard library's
modules inside `hale_lang.stdlib`. setup.py maps the checkout's top-level `grammar/`
folder into its package, so the same lookup finds the files in an installed
wheel and in an editable checkout. pip always installs a wheel unpacked, so
a resource is a real folder: the loader tests files with `is_file` and Lark
reads the grammar from disk.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path


def package_dir(package: str) -> Path:
    """The folder a package's files are in."""
    found = files(package)
    if not isinstance(found, Path):  # a zipped install: not one pip makes
        raise RuntimeError(f"hale's package {package} is not installed as a folder")
    return found


def grammar_file() -> Path:
    return package_dir("hale_lang.grammar") / "hale.lark"


def stdlib_dir() -> Path:
    return package_dir("hale_lang.stdlib")

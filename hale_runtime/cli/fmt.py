"""`hale fmt [--check] PATHS…`: rewrite `.hl` files in their canonical layout.

Each path is a file or a folder (searched recursively for `*.hl`, skipping
hidden folders). A file whose layout changes is rewritten atomically (a
temporary file beside it, then a rename) and its path printed; with
`--check` nothing is written, the paths that would change are printed and
the exit code is 1 if there are any. A syntax error is printed as its
diagnostic and makes the exit code 1; the other files are still formatted.

Before a file is rewritten its new text is parsed again and compared with
the old tree and comments; a mismatch would be a formatter bug, and the
file is left alone rather than changed.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import click

from hale_runtime.cli.common import EXIT_OK, EXIT_REFUSED, echo_diagnostics


@click.command()
@click.option("--check", is_flag=True, help="Write nothing; exit 1 if any file would change.")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
def fmt(check: bool, paths: tuple[Path, ...]) -> None:
    """Format Hale files (and folders of them) in place."""
    failed = changed = False
    for file in _hale_files(paths):
        status = _format_one(file, check)
        failed |= status == "failed"
        changed |= status == "changed"
    raise SystemExit(EXIT_REFUSED if failed or (check and changed) else EXIT_OK)


def _hale_files(paths: tuple[Path, ...]) -> list[Path]:
    """The files named, and the `*.hl` files under the folders named, in order."""
    out: list[Path] = []
    for path in paths:
        if path.is_dir():
            out += sorted(
                p
                for p in path.rglob("*.hl")
                if p.is_file() and not any(part.startswith(".") for part in _below(p, path))
            )
        else:
            out.append(path)
    seen: set[Path] = set()
    return [p for p in out if not (p.resolve() in seen or seen.add(p.resolve()))]


def _below(file: Path, folder: Path) -> tuple[str, ...]:
    return file.relative_to(folder).parts[:-1]


def _format_one(file: Path, check: bool) -> str:
    """Format one file: "changed", "same" or "failed" (after printing why)."""
    from hale_lang.diagnostics import HaleError, SourceMap
    from hale_lang.formatter import format_source

    shown = file.as_posix()
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        click.echo(f"hale: cannot read {shown}: {e}", err=True)
        return "failed"
    try:
        new = format_source(text, shown)
    except HaleError as e:
        echo_diagnostics(e.diagnostics, SourceMap({shown: text}))
        return "failed"
    if new == text:
        return "same"
    if not _same_program(text, new, shown):
        click.echo(
            f"hale: internal error: formatting {shown} would change it; left as is", err=True
        )
        return "failed"
    if not check:
        try:
            _write_atomically(file, new)
        except OSError as e:
            click.echo(f"hale: cannot write {shown}: {e}", err=True)
            return "failed"
    click.echo(shown)
    return "changed"


def _same_program(old: str, new: str, path: str) -> bool:
    from hale_lang.diagnostics import HaleError
    from hale_lang.formatter import tree_shape
    from hale_lang.parser import parse

    before = parse(old, path)
    try:
        after = parse(new, path)
    except HaleError:
        return False
    same_comments = sorted(c.text.rstrip() for c in before.comments) == sorted(
        c.text for c in after.comments
    )
    return same_comments and tree_shape(before) == tree_shape(after)


def _write_atomically(file: Path, text: str) -> None:
    """Replace `file` by a new one holding `text`, keeping its permissions."""
    mode = file.stat().st_mode & 0o7777
    fd, tmp = tempfile.mkstemp(dir=file.parent, prefix=f".{file.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, file)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise

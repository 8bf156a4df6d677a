"""`hale fmt [--check | --diff] [PATHS…]`: rewrite `.hl` files in their canonical layout.

With no path it formats the project's genome (as `hale check` reads it); `-`
reads one file's text from standard input and writes the formatted text to
standard output (`--stdin-filename` names it in diagnostics), as an editor
or a pre-commit hook calls ruff or black; `--diff` writes nothing and
prints a unified diff of what would change (exit 1 when anything would).

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
@click.option("--diff", is_flag=True, help="Write nothing; print a unified diff of the changes.")
@click.option(
    "--stdin-filename", default="<stdin>", help="The name `-`'s text goes by in diagnostics."
)
@click.argument("paths", nargs=-1, type=click.Path(allow_dash=True, path_type=Path))
def fmt(check: bool, diff: bool, stdin_filename: str, paths: tuple[Path, ...]) -> None:
    """Format Hale files (and folders of them) in place; `-` formats standard input
    to standard output; with no path, the project's genome."""
    if paths == (Path("-"),):
        raise SystemExit(_format_stdin(stdin_filename, check, diff))
    for path in paths:
        if path == Path("-"):
            raise click.UsageError("`-` (standard input) is formatted alone, with no other path")
        if not path.exists():
            raise click.BadParameter(f"Path '{path}' does not exist.", param_hint="PATHS")
    if not paths:
        from hale_runtime.cli.lang import project_paths

        paths = project_paths()
    failed = changed = False
    for file in _hale_files(paths):
        status = _format_one(file, check or diff, diff)
        failed |= status == "failed"
        changed |= status == "changed"
    raise SystemExit(EXIT_REFUSED if failed or ((check or diff) and changed) else EXIT_OK)


def _format_stdin(name: str, check: bool, diff: bool) -> int:
    """Format standard input onto standard output (or say what would change)."""
    import sys

    from hale_lang.diagnostics import HaleError, SourceMap
    from hale_lang.formatter import format_source

    text = sys.stdin.read()
    try:
        new = format_source(text, name)
    except HaleError as e:
        echo_diagnostics(e.diagnostics, SourceMap({name: text}))
        return EXIT_REFUSED
    if new != text and not _same_program(text, new, name):
        click.echo(f"hale: internal error: formatting {name} would change it", err=True)
        return EXIT_REFUSED
    if diff:
        click.echo(_diff(text, new, name), nl=False)
    elif not check:
        click.echo(new, nl=False)
    return EXIT_REFUSED if (check or diff) and new != text else EXIT_OK


def _diff(old: str, new: str, name: str) -> str:
    import difflib

    lines = difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), name, name
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


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


def _format_one(file: Path, check: bool, diff: bool = False) -> str:
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
    click.echo(_diff(text, new, shown) if diff else shown, nl=not diff)
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

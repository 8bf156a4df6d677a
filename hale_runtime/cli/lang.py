"""`hale check` and `hale run`: the language verbs.

Both find the genome root as `hale_lang.roots` does unless `--root` names
it. Imports resolve from that root and diagnostics name paths under it.

`check` builds every `.hl` file under the given paths, each from its own
root (so `hale check examples` checks each genome under it from that
genome's root), one build per root so each module is checked once, and
prints every diagnostic on stderr, rustc-style; exit 1 on any error, 0
with warnings only. `run` builds one file, calls one fn with `--arg` JSON
values converted to its parameter types, and prints the result as JSON
(structs as objects). Every failure is a diagnostic; a Python traceback
never reaches the user.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from pathlib import Path

import click

from hale_lang.roots import genome_root, hl_files

from .common import EXIT_REFUSED, EXIT_USAGE, echo_diagnostics

USAGE_CODES = {"E0412", "E0414"}  # wrong arguments or names given on the command line


def _guarded(fn: Callable) -> Callable:
    """Turn any unexpected exception into an internal-error diagnostic."""

    @wraps(fn)
    def run(*args, **kwargs):
        from hale_lang.diagnostics import HaleError

        try:
            return fn(*args, **kwargs)
        except HaleError as e:
            echo_diagnostics(e.diagnostics, getattr(e, "sources", None))
            codes = {d.code for d in e.diagnostics}
            raise SystemExit(EXIT_USAGE if codes <= USAGE_CODES else EXIT_REFUSED) from None
        except (SystemExit, KeyboardInterrupt, click.exceptions.ClickException):
            raise
        except Exception as e:  # a bug in hale: reported, never a traceback
            click.echo(f"error[E0499]: internal error: {type(e).__name__}: {e}", err=True)
            click.echo("  = help: this is a bug in hale; please report it", err=True)
            raise SystemExit(EXIT_REFUSED) from None

    return run


def project_paths() -> tuple[Path, ...]:
    """What `check` and `fmt` read when given no path: the project's genome
    (`dna/` of the project the current folder is in), else the current folder."""
    from hale_runtime.project import NotAProject, find_root

    try:
        root = find_root()
    except NotAProject:
        return (Path("."),)
    return ((root / "dna") if (root / "dna").is_dir() else root,)


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option(
    "--root",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="The genome root imports resolve from (default: found from each path).",
)
@click.option(
    "--output-format",
    "output_format",
    type=click.Choice(["full", "concise", "json", "sarif", "github"]),
    default="full",
    show_default=True,
    help="full: rendered on stderr; the others on stdout, for tools (json's shape: docs/cli.md)",
)
@_guarded
def check(paths: tuple[Path, ...], root: Path | None, output_format: str) -> None:
    """Check .hl files (or every .hl file under folders; default: the project's genome)
    and print all diagnostics, with the catalog's and the budget's refusals when they
    hold a genome."""
    from hale_lang.build import compile_entries

    from .report import genome_diagnostics, plain, render

    paths = paths or project_paths()
    groups: dict[Path, list[str]] = {}
    for path in paths:
        for f in hl_files(path):  # each file's own root: a folder may hold several genomes
            r = (root or genome_root(f)).resolve()
            entry = f.resolve().relative_to(r).as_posix()
            if entry not in groups.setdefault(r, []):
                groups[r].append(entry)
    errors = warnings = files = 0
    found: list[dict] = []
    for r, entries in groups.items():
        compiled = compile_entries(r, entries)
        diagnostics = list(compiled.diagnostics)
        if not compiled.errors:
            diagnostics += genome_diagnostics(r)
        if output_format == "full":
            echo_diagnostics(diagnostics, compiled.sources)
        found += [plain(d, r) for d in diagnostics]
        errors += sum(d.severity == "error" for d in diagnostics)
        warnings += sum(d.severity != "error" for d in diagnostics)
        files += len(compiled.texts)
    if output_format != "full":
        text = render(output_format, found, files)
        if text:
            click.echo(text)
        raise SystemExit(EXIT_REFUSED if errors else 0)
    summary = f"checked {files} file{'s' * (files != 1)}: {errors} error(s), {warnings} warning(s)"
    if errors:
        click.echo(("\n" if errors + warnings else "") + f"error: {summary}", err=True)
        raise SystemExit(EXIT_REFUSED)
    click.echo(("\n" if warnings else "") + summary, err=True)


@click.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--fn", "fn_name", default="main", show_default=True, help="The fn to call.")
@click.option("--arg", "args", multiple=True, help="One argument as JSON (repeat, in order).")
@click.option(
    "--root",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="The genome root imports resolve from (default: found from FILE).",
)
@click.option(
    "--max-memory",
    "max_memory",
    metavar="SIZE",
    help="The call's memory ceiling, like 64M or 1G (default: $HALE_MAX_MEMORY, else 64M).",
)
@_guarded
def run(
    file: Path, fn_name: str, args: tuple[str, ...], root: Path | None, max_memory: str | None
) -> None:
    """Build FILE, call one of its fns, and print what it returns as JSON."""
    from hale_lang.build import build
    from hale_lang.meter import parse_size
    from hale_lang.stdlib.plain import parse_json

    ceiling = None
    if max_memory is not None:
        try:
            ceiling = parse_size(max_memory)
        except ValueError as e:
            raise click.BadParameter(str(e), param_hint="--max-memory") from None
    values = []
    for i, text in enumerate(args, 1):
        try:
            values.append(parse_json(text))
        except ValueError as e:
            _bad_arg(i, text, e)
            raise SystemExit(EXIT_USAGE) from None
    r = (root or genome_root(file)).resolve()
    module = file.resolve().relative_to(r).as_posix()
    program = build(r, [module], max_memory=ceiling)
    if program.warnings:
        echo_diagnostics(program.warnings, program.sources)
        click.echo("", err=True)
    click.echo(result_text(program.call_json(module, fn_name, values), fn_name))


def result_text(value: object, fn_name: str) -> str:
    """What `hale run` prints for the value `fn_name` returned (bench/fuzz.py
    prints it the same way); HaleError when it has no JSON form."""
    from hale_lang.diagnostics import Diagnostic, Fault, HaleError
    from hale_lang.stdlib.plain import dump, to_plain

    try:
        return dump(to_plain(value), indent=2, default=_host_value)
    except Fault as f:  # the result cannot become JSON (it nests too deeply)
        msg = f"the result of `{fn_name}`: {f.message}"
        raise HaleError(Diagnostic(f.code, msg, None, f.help)) from None


def _bad_arg(i: int, text: str, e: ValueError) -> None:
    """Say why --arg i was refused: JSON that is not a Hale value (too deep, NaN)
    is named as such; other text most often wanted quoting as a String."""
    from hale_lang.stdlib.plain import JsonRefused

    if isinstance(e, JsonRefused):
        click.echo(f"error[E0412]: --arg {i} is refused: {e}", err=True)
        click.echo(
            "  = help: pass a Hale value: finite numbers, nesting at most 100 levels", err=True
        )
        return
    click.echo(f"error[E0412]: --arg {i} is not JSON: {e}", err=True)
    shown = text if len(text) <= 60 else text[:57] + "..."
    click.echo(f"  = help: quote JSON strings for the shell: --arg '\"{shown}\"'", err=True)


def _host_value(obj: object) -> str:
    return f"<host value {type(obj).__name__}>"

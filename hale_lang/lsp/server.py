"""`hale lsp`: the language server, on pygls, over stdio.

This module only translates: LSP positions (UTF-16 by default) to the
1-based character columns of spans and back, URIs to module paths, and the
answers of analysis/navigate/complete to lsprotocol types. Each file
belongs to the genome whose root `roots.genome_root` finds for it; one
Genome (analysis.py) per root keeps that genome checked.

Every open, change, save or close of a document refreshes its genome and
publishes the diagnostics of each module whose diagnostics may have changed
(the edited module and its importers, anywhere in the genome, open or not).
A diagnostic carries its code, its help line, the span of an earlier
definition where it names one, and, for a "did you mean", a quick fix (an
unused variable's fix adds a `_`). On a genome's first open and on each
save, the organization's own admission runs as well (the catalog's and the
budget's refusals: Genome.admit, with the check the host hands `serve`). A
buffer with no file (`untitled:`) joins the workspace's genome under
`untitled/`. Rename, signature help and workspace symbols are edit.py's.
"""

from __future__ import annotations

import re
from pathlib import Path

from lsprotocol import types as t
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path
from pygls.workspace.position_codec import PositionCodec

from ..diagnostics import Diagnostic, HaleError, Span
from ..formatter import format_source
from ..roots import genome_root
from . import edit, navigate
from .analysis import Admission, Genome
from .complete import complete

_DID_YOU_MEAN = re.compile(r"did you mean `([^`]+)`\?")
_UNNECESSARY = {"W0201", "W0202", "W0204"}
_COMPLETION_KINDS = {
    "variable": t.CompletionItemKind.Variable,
    "fn": t.CompletionItemKind.Function,
    "hostfn": t.CompletionItemKind.Function,
    "struct": t.CompletionItemKind.Struct,
    "hosttype": t.CompletionItemKind.Interface,
    "const": t.CompletionItemKind.Constant,
    "module": t.CompletionItemKind.Module,
    "field": t.CompletionItemKind.Field,
    "method": t.CompletionItemKind.Method,
    "type": t.CompletionItemKind.Class,
    "keyword": t.CompletionItemKind.Keyword,
}
_SYMBOL_KINDS = {
    "fn": t.SymbolKind.Function,
    "hostfn": t.SymbolKind.Function,
    "struct": t.SymbolKind.Struct,
    "hosttype": t.SymbolKind.Interface,
    "const": t.SymbolKind.Constant,
    "import": t.SymbolKind.Module,
    "field": t.SymbolKind.Field,
    "method": t.SymbolKind.Method,
}


class HaleServer(LanguageServer):
    """A pygls server holding one Genome per genome root."""

    def __init__(self) -> None:
        from importlib.metadata import version

        super().__init__("hale", version("hale"))
        self.genomes: dict[Path, Genome] = {}
        self.admission: Admission | None = None  # the host's (`serve`)
        self._lines: dict[str, tuple[str, list[str]]] = {}  # path -> (text, its lines)

    def locate(self, uri: str) -> tuple[Genome, str] | None:
        """The genome a document belongs to, and its module path there. A
        buffer with no file (`untitled:Untitled-1`) joins the workspace's
        genome as `untitled/<name>.hl`, so it may import the genome's modules."""
        fs = to_fs_path(uri) if uri.startswith("file:") else None
        if fs is None:
            genome = self.genome_at(Path(self.workspace.root_path or Path.cwd()))
            for path, known in genome.virtual.items():
                if known == uri:
                    return genome, path
            name = re.sub(r"[^A-Za-z0-9_.-]+", "_", uri.partition(":")[2]).strip("_.")
            path = f"untitled/{name or 'buffer'}"
            path = path if path.endswith(".hl") else path + ".hl"
            genome.virtual[path] = uri
            return genome, path
        file = Path(fs)
        genome = self.genome_at(file)
        path = genome.module_path(file)
        return (genome, path) if path is not None else None

    def genome_at(self, file: Path) -> Genome:
        root = genome_root(file).resolve()
        genome = self.genomes.get(root)
        if genome is None:
            genome = self.genomes[root] = Genome(root, self.admission)
        return genome

    @property
    def codec(self) -> PositionCodec:
        return self.workspace.position_codec

    def lines(self, genome: Genome, path: str) -> list[str]:
        """The text a module's spans refer to, as lines (split once per text:
        a refresh may publish hundreds of diagnostics of one module)."""
        text = genome.text(path)
        kept = self._lines.get(path)
        if kept is None or kept[0] is not text:
            kept = self._lines[path] = (text, text.splitlines())
        return kept[1]

    def range(self, genome: Genome, span: Span) -> t.Range:
        lines = self.lines(genome, span.path)
        start = t.Position(span.line - 1, span.col - 1)
        end = t.Position(span.end_line - 1, span.end_col - 1)
        if end.line < len(lines) and lines[start.line].isascii() and lines[end.line].isascii():
            return t.Range(start, end)  # a code point is one unit in UTF-8, -16 and -32
        return self.codec.range_to_client_units(lines, t.Range(start, end))

    def location(self, genome: Genome, span: Span) -> t.Location:
        return t.Location(genome.uri(span.path), self.range(genome, span))

    def position(self, uri: str, pos: t.Position) -> tuple[int, int]:
        """An LSP position in an open document as (line, col) of a span."""
        doc = self.workspace.get_text_document(uri)
        server = self.codec.position_from_client_units(doc.lines, pos)
        return server.line + 1, server.character + 1

    # --- diagnostics ------------------------------------------------------------------

    def refresh(self, genome: Genome, admit: bool = False) -> None:
        """Publish what changed; with `admit` (a save, the genome's first
        open), the organization's admission runs again too."""
        changed = genome.refresh()
        if admit or genome.organization is None:
            changed |= genome.admit()
        for path in sorted(changed):
            uri = genome.uri(path)
            diags = [self.diagnostic(genome, d) for d in genome.diagnostics(path) if d.span]
            self.text_document_publish_diagnostics(t.PublishDiagnosticsParams(uri, diags))

    def diagnostic(self, genome: Genome, d: Diagnostic) -> t.Diagnostic:
        message = d.message + (f"\nhelp: {d.help}" if d.help else "")
        suggestion = _DID_YOU_MEAN.search(d.help or "")
        related = [
            t.DiagnosticRelatedInformation(self.location(genome, span), note)
            for span, note in d.related
        ]
        return t.Diagnostic(
            range=self.range(genome, d.span),
            message=message,
            severity=t.DiagnosticSeverity.Error if d.is_error else t.DiagnosticSeverity.Warning,
            code=d.code,
            source="hale",
            related_information=related or None,
            tags=[t.DiagnosticTag.Unnecessary] if d.code in _UNNECESSARY else None,
            data={"replace": suggestion.group(1)} if suggestion else None,
        )


server = HaleServer()


def _opened(uri: str, text: str) -> None:
    found = server.locate(uri)
    if found is not None:
        genome, path = found
        genome.edit(path, text)
        server.refresh(genome)


@server.feature(t.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: HaleServer, params: t.DidOpenTextDocumentParams) -> None:
    _opened(params.text_document.uri, params.text_document.text)


@server.feature(t.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: HaleServer, params: t.DidChangeTextDocumentParams) -> None:
    uri = params.text_document.uri
    _opened(uri, ls.workspace.get_text_document(uri).source)


@server.feature(t.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: HaleServer, params: t.DidSaveTextDocumentParams) -> None:
    found = ls.locate(params.text_document.uri)
    if found is not None:
        found[0].files_changed()
        ls.refresh(found[0], admit=True)


@server.feature(t.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: HaleServer, params: t.DidCloseTextDocumentParams) -> None:
    found = ls.locate(params.text_document.uri)
    if found is not None:
        genome, path = found
        genome.close(path)
        ls.refresh(genome)


@server.feature(t.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def files_changed(ls: HaleServer, params: t.DidChangeWatchedFilesParams) -> None:
    for genome in ls.genomes.values():
        genome.files_changed()
        ls.refresh(genome, admit=True)


# --- reading ---------------------------------------------------------------------------


def _at(ls: HaleServer, params: t.TextDocumentPositionParams):
    found = ls.locate(params.text_document.uri)
    if found is None:
        return None
    return (*found, *ls.position(params.text_document.uri, params.position))


@server.feature(t.TEXT_DOCUMENT_HOVER)
def hover(ls: HaleServer, params: t.HoverParams) -> t.Hover | None:
    at = _at(ls, params)
    answer = navigate.hover(*at) if at else None
    if answer is None:
        return None
    text, span = answer
    contents = t.MarkupContent(kind=t.MarkupKind.Markdown, value=text)
    return t.Hover(contents=contents, range=ls.range(at[0], span))


@server.feature(t.TEXT_DOCUMENT_DEFINITION)
def definition(ls: HaleServer, params: t.DefinitionParams) -> list[t.Location]:
    at = _at(ls, params)
    return [ls.location(at[0], s) for s in navigate.definition(*at)] if at else []


@server.feature(t.TEXT_DOCUMENT_REFERENCES)
def references(ls: HaleServer, params: t.ReferenceParams) -> list[t.Location]:
    at = _at(ls, params)
    if at is None:
        return []
    spans = navigate.references(*at, params.context.include_declaration)
    return [ls.location(at[0], s) for s in spans]


@server.feature(t.TEXT_DOCUMENT_COMPLETION, t.CompletionOptions(trigger_characters=[".", ":"]))
def completion(ls: HaleServer, params: t.CompletionParams) -> t.CompletionList:
    at = _at(ls, params)
    items = []
    if at is not None:
        genome, path, line, col = at
        text = ls.workspace.get_text_document(params.text_document.uri).source
        for c in complete(genome, path, text, line, col):
            kind = _COMPLETION_KINDS.get(c.kind, t.CompletionItemKind.Text)
            items.append(t.CompletionItem(c.label, kind=kind, detail=c.detail or None))
    return t.CompletionList(is_incomplete=False, items=items)


@server.feature(t.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
def document_symbol(ls: HaleServer, params: t.DocumentSymbolParams) -> list[t.DocumentSymbol]:
    found = ls.locate(params.text_document.uri)
    if found is None:
        return []
    genome, path = found

    def convert(s: navigate.Symbol) -> t.DocumentSymbol:
        return t.DocumentSymbol(
            name=s.name,
            kind=_SYMBOL_KINDS[s.kind],
            range=ls.range(genome, s.span),
            selection_range=ls.range(genome, s.name_span),
            detail=s.detail or None,
            children=[convert(c) for c in s.children] or None,
        )

    return [convert(s) for s in navigate.symbols(genome, path)]


@server.feature(t.TEXT_DOCUMENT_FORMATTING)
def formatting(ls: HaleServer, params: t.DocumentFormattingParams) -> list[t.TextEdit]:
    """The whole document in `hale fmt`'s layout; nothing while it does not parse."""
    doc = ls.workspace.get_text_document(params.text_document.uri)
    try:
        new = format_source(doc.source, doc.path)
    except HaleError:
        return []
    if new == doc.source:
        return []
    end = t.Position(len(doc.lines), 0)
    return [t.TextEdit(t.Range(t.Position(0, 0), end), new)]


@server.feature(
    t.TEXT_DOCUMENT_CODE_ACTION,
    t.CodeActionOptions(code_action_kinds=[t.CodeActionKind.QuickFix]),
)
def code_action(ls: HaleServer, params: t.CodeActionParams) -> list[t.CodeAction]:
    """A "did you mean `x`?" diagnostic offers to write `x` in its place; an
    unused variable, to prefix its name with `_` (as rustc suggests)."""
    out = []
    for d in params.context.diagnostics:
        if d.code == "W0204" and d.source == "hale":
            start = t.Range(d.range.start, d.range.start)
            edit = t.WorkspaceEdit(changes={params.text_document.uri: [t.TextEdit(start, "_")]})
            out.append(
                t.CodeAction(
                    title="prefix the variable with `_`",
                    kind=t.CodeActionKind.QuickFix,
                    diagnostics=[d],
                    edit=edit,
                    is_preferred=True,
                )
            )
            continue
        name = d.data.get("replace") if isinstance(d.data, dict) else None
        if not name:
            continue
        edit = t.WorkspaceEdit(changes={params.text_document.uri: [t.TextEdit(d.range, name)]})
        out.append(
            t.CodeAction(
                title=f"replace with `{name}`",
                kind=t.CodeActionKind.QuickFix,
                diagnostics=[d],
                edit=edit,
                is_preferred=True,
            )
        )
    return out


# --- editing across modules ------------------------------------------------------------

_REQUEST_FAILED = -32803  # LSP's RequestFailed: the editor shows the message


@server.feature(t.TEXT_DOCUMENT_PREPARE_RENAME)
def prepare_rename(ls: HaleServer, params: t.PrepareRenameParams):
    """The name to rename and its range; None where nothing can be renamed."""
    at = _at(ls, params)
    if at is None:
        return None
    try:
        span, name = edit.prepare_rename(*at)
    except edit.RenameRefused as e:
        raise JsonRpcException(str(e), code=_REQUEST_FAILED) from None
    return t.PrepareRenamePlaceholder(range=ls.range(at[0], span), placeholder=name)


@server.feature(t.TEXT_DOCUMENT_RENAME)
def rename(ls: HaleServer, params: t.RenameParams) -> t.WorkspaceEdit | None:
    """Every occurrence of the name's key, in every module that has one."""
    at = _at(ls, params)
    if at is None:
        return None
    genome = at[0]
    try:
        spans = edit.rename(*at, params.new_name)
    except edit.RenameRefused as e:
        raise JsonRpcException(str(e), code=_REQUEST_FAILED) from None
    changes = {
        genome.uri(path): [t.TextEdit(ls.range(genome, s), params.new_name) for s in found]
        for path, found in spans.items()
    }
    return t.WorkspaceEdit(changes=changes)


@server.feature(
    t.TEXT_DOCUMENT_SIGNATURE_HELP,
    t.SignatureHelpOptions(trigger_characters=["(", ","], retrigger_characters=[","]),
)
def signature_help(ls: HaleServer, params: t.SignatureHelpParams) -> t.SignatureHelp | None:
    at = _at(ls, params)
    if at is None:
        return None
    genome, path, line, col = at
    text = ls.workspace.get_text_document(params.text_document.uri).source
    found = edit.signature_help(genome, path, text, line, col)
    if not found:
        return None
    sigs = [
        t.SignatureInformation(
            label=s.label,
            parameters=[t.ParameterInformation(label=p) for p in s.params],
            active_parameter=s.active,
        )
        for s in found
    ]
    return t.SignatureHelp(signatures=sigs, active_signature=0, active_parameter=found[0].active)


@server.feature(t.WORKSPACE_SYMBOL)
def workspace_symbol(ls: HaleServer, params: t.WorkspaceSymbolParams) -> list[t.SymbolInformation]:
    """Items, fields and methods of every genome the server holds (the
    workspace's own, checked on the first ask when nothing is open yet)."""
    if not ls.genomes and ls.workspace.root_path:
        genome = ls.genome_at(Path(ls.workspace.root_path))
        genome.refresh()
    out = []
    for genome in list(ls.genomes.values()):
        for f in edit.workspace_symbols(genome, params.query):
            out.append(
                t.SymbolInformation(
                    name=f.name,
                    kind=_SYMBOL_KINDS[f.kind],
                    location=ls.location(genome, f.span),
                    container_name=f.container or None,
                )
            )
    return out


def serve(admission: Admission | None = None) -> None:
    """Speak LSP on stdin and stdout until the client says exit; `admission`
    is the host's check of a genome root (the catalog's and the budget's
    refusals, shown as diagnostics on open and save), None for none."""
    server.admission = admission
    server.start_io()

"""Reading a checked genome by position: definition, references, hover, symbols.

Every answer starts from the name under the position (`Index.at`) and its
key (index.py). A definition is where the key's module defines it; the
references of a local or an alias are in its own module, of anything else
in every module of the genome. Hover shows a declaration as its author
wrote it (the header, sliced from the source), its doc comment (the `//`
lines just above it), and for what the host binds, where vendor/dna
declares it; a variable or an expression shows its type as the checker
computed it. Natives show their prelude signatures.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .. import nodes as n
from ..diagnostics import Span
from ..natives import SIGS, NativeSig
from ..resolver import Sym
from .analysis import Genome
from .index import Index, Key, Occurrence, name_span

HOST_KINDS = ("hostfn", "hosttype")


def occurrence(genome: Genome, path: str, line: int, col: int) -> Occurrence | None:
    index = genome.index(path)
    return index.at(line, col) if index is not None else None


def definition(genome: Genome, path: str, line: int, col: int) -> list[Span]:
    occ = occurrence(genome, path, line, col)
    if occ is None:
        return []
    key = occ.key
    if key[0] == "alias" and occ.is_def:  # on the import itself: the module it names
        target = genome.imports.get(path, {}).get(key[2])
        return [Span(target, 1, 1, 1, 1)] if target else []
    where = defined_at(genome, key)
    return [where] if where is not None else []


def defined_at(genome: Genome, key: Key) -> Span | None:
    if key[0] == "module":
        return Span(key[1], 1, 1, 1, 1)
    if key[0] in ("native", "type"):
        return None
    index = genome.index(key[1])
    return index.defs.get(key) if index is not None else None


def references(genome: Genome, path: str, line: int, col: int, declaration: bool) -> list[Span]:
    occ = occurrence(genome, path, line, col)
    if occ is None:
        return []
    key = occ.key
    where = [path] if key[0] in ("local", "alias") else None
    return [
        o.span
        for index in genome.indexes(where)
        for o in index.uses(key)
        if declaration or not o.is_def
    ]


# --- hover ----------------------------------------------------------------------------


def hover(genome: Genome, path: str, line: int, col: int) -> tuple[str, Span] | None:
    occ = occurrence(genome, path, line, col)
    if occ is None:
        return None
    text = describe(genome, occ)
    return (text, occ.span) if text else None


def describe(genome: Genome, occ: Occurrence) -> str:
    key = occ.key
    kind = key[0]
    if kind == "local":
        return _code(f"{key[3]}: {occ.ty}") if occ.ty is not None else ""
    if kind == "native":
        return _code("\n".join(native_signature(sig) for sig in SIGS.get(key[1], ())))
    if kind == "type":
        return _code(key[1]) + "\na builtin type"
    if kind == "alias":
        target = genome.imports.get(key[1], {}).get(key[2])
        return _module(genome, target) if target else ""
    if kind == "module":
        return _module(genome, key[1])
    sym = _sym(genome, key)
    if sym is None:
        return ""
    return _item(sym, genome.index(key[1]), occ.ty, owner=key[2] if kind == "member" else "")


def _sym(genome: Genome, key: Key) -> Sym | n.StructField | None:
    env = genome.envs.get(key[1])
    sym = env.items.get(key[2]) if env is not None else None
    if sym is None or key[0] == "item":
        return sym
    if sym.kind == "hosttype":
        return sym.fields.get(key[3])
    return next((f for f in sym.node.fields if f.name == key[3]), None)


def _item(sym: Sym | n.StructField, index: Index | None, ty, owner: str) -> str:
    if index is None:
        return ""
    src = index.source
    if isinstance(sym, n.StructField):  # a struct's field
        head = f"{owner}.{sym.name}: {ty if ty is not None else src.slice(sym.type.span)}"
        return _with_doc(_code(head), index, sym.span.line)
    node = sym.node
    if sym.kind == "const":
        head = f"const {sym.name}: {sym.type}"
    elif sym.kind == "fn":
        whole = src.slice(node.span)
        head = _one_line(whole[: len(whole) - len(src.slice(node.body.span))])
    elif sym.kind == "hosttype":
        methods = "".join(f"\n    {_one_line(src.slice(m.span))}" for m in node.methods)
        head = f"host type {sym.name} {{{methods}\n}}"
    elif sym.kind == "struct":
        head = src.slice(node.span)
    else:
        head = _one_line(src.slice(node.span))
    text = _with_doc(_code(head), index, node.span.line)
    if sym.kind in HOST_KINDS or owner:
        what = f"a method of host type `{owner}`" if owner else "bound by the host"
        text += f"\n\n{what}; declared at `{index.module.path}:{node.span.line}`"
    return text


def _module(genome: Genome, path: str) -> str:
    checked = genome.checked.get(path)
    head = _code(f'module "{path}"')
    if checked is None:
        return head
    lines = []
    for line in checked.text.splitlines():
        if not line.startswith("//"):
            break
        lines.append(line[2:].removeprefix(" "))
    return head + ("\n" + "\n".join(lines) if lines else "")


def _with_doc(code: str, index: Index, line: int) -> str:
    doc = index.doc(line)
    return f"{code}\n{doc}" if doc else code


def _code(text: str) -> str:
    return f"```hale\n{text}\n```"


def _one_line(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().removesuffix(";").replace("( ", "(").replace(" )", ")")


def native_signature(sig: NativeSig) -> str:
    """`len(String) -> Int`; a method drops its receiver: `String.split(String) -> …`."""
    params = [str(p) for p in sig.params[1 if "." in sig.name else 0 :]]
    if sig.variadic:
        params.append("…")
    return f"{sig.name}({', '.join(params)}) -> {sig.ret}"


# --- document symbols ---------------------------------------------------------------


@dataclass
class Symbol:
    name: str
    kind: str  # fn, hostfn, struct, hosttype, const, import, field, method
    span: Span
    name_span: Span
    detail: str = ""
    children: list[Symbol] = field(default_factory=list)


_ITEM_KINDS = {
    n.FnDecl: "fn",
    n.HostFn: "hostfn",
    n.StructDecl: "struct",
    n.HostTypeDecl: "hosttype",
    n.Const: "const",
    n.Import: "import",
}


def symbols(genome: Genome, path: str) -> list[Symbol]:
    checked = genome.checked.get(path)
    if checked is None:
        return []
    out = []
    for item in checked.module.items:
        sym = Symbol(item.name, _ITEM_KINDS[type(item)], item.span, item.name_span)
        if isinstance(item, n.Import):
            sym.detail = f'"{item.path}"'
        elif isinstance(item, n.StructDecl):
            sym.children = [
                Symbol(f.name, "field", f.span, name_span(f.span, f.name)) for f in item.fields
            ]
        elif isinstance(item, n.HostTypeDecl):
            sym.children = [Symbol(m.name, "method", m.span, m.name_span) for m in item.methods]
        out.append(sym)
    return out

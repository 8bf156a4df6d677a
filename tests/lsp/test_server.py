"""`hale lsp` as an editor meets it: a real process speaking LSP over stdio.

Every test talks to one server (module scope) on one small genome; a test
that edits a module opens it under its own name or puts its text back.
Positions are LSP's: lines and UTF-16 units from 0.
"""

from __future__ import annotations

from pathlib import Path

from lsp_genome import MAIN


def at(text: str, needle: str, nth: int = 0, offset: int = 0) -> tuple[int, int]:
    """The LSP position of `needle`'s nth occurrence (plus `offset` chars)."""
    i = -1
    for _ in range(nth + 1):
        i = text.index(needle, i + 1)
    i += offset
    line = text.count("\n", 0, i)
    start = text.rfind("\n", 0, i) + 1
    return line, len(text[start:i].encode("utf-16-le")) // 2


def span_of(text: str, needle: str, nth: int = 0, width: int | None = None) -> dict:
    """The LSP range of `needle`'s nth occurrence (its first `width` chars)."""
    line, ch = at(text, needle, nth)
    if width is None:
        width = len(needle.encode("utf-16-le")) // 2
    return {
        "start": {"line": line, "character": ch},
        "end": {"line": line, "character": ch + width},
    }


def new_module(client, root: Path, name: str, text: str) -> str:
    file = root / "dna/org" / name
    file.write_text(text)
    uri = client.open(file, text)
    client.diagnostics(uri)
    return uri


def test_diagnostics_on_open_have_codes_help_and_utf16_ranges(served) -> None:
    client, root = served
    text = 'fn f() -> Int {\n    let s = "é😀";\n    return lenght(s);\n}\n'
    file = root / "dna/org/emoji.hl"
    file.write_text(text)
    (d,) = client.diagnostics(client.open(file, text))
    assert d["code"] == "E0201" and d["source"] == "hale" and d["severity"] == 1
    assert d["message"] == "undefined name `lenght`\nhelp: did you mean `len`?"
    assert d["range"] == span_of(text, "lenght")
    assert d["data"] == {"replace": "len"}


def test_a_change_rechecks_and_a_fix_clears(served) -> None:
    client, root = served
    uri = new_module(client, root, "change.hl", "fn f() -> Int {\n    return 1;\n}\n")
    client.change(uri, 2, 'fn f() -> Int {\n    return "one";\n}\n')
    (d,) = client.diagnostics(uri)
    assert d["code"] == "E0304" and "String" in d["message"]
    client.change(uri, 3, "fn f() -> Int {\n    return 2;\n}\n")
    assert client.diagnostics(uri) == []


def test_an_edited_signature_reaches_the_modules_importing_it(served) -> None:
    client, root = served
    lib = root / "dna/org/lib.hl"
    lib_uri = client.open(lib)
    client.diagnostics(lib_uri)
    main_uri = (root / "dna/org/main.hl").resolve().as_uri()
    client.drop_notes()
    broken = lib.read_text().replace("fn words(text: String)", "fn words(text: Int)")
    client.change(lib_uri, 2, broken)
    (d,) = client.diagnostics(main_uri)  # published for a file nobody opened
    assert d["code"] == "E0302" and d["range"] == span_of(MAIN, "objective", 1)
    client.change(lib_uri, 3, lib.read_text())
    assert client.diagnostics(main_uri) == []


def test_a_duplicate_points_at_the_first_definition(served) -> None:
    client, root = served
    text = "fn f() {}\n\nfn f() {}\n"
    uri = new_module(client, root, "dup.hl", "fn f() {}\n")
    client.change(uri, 2, text)
    (d,) = client.diagnostics(uri)
    assert d["code"] == "E0210"
    (related,) = d["relatedInformation"]
    assert related["location"] == {"uri": uri, "range": span_of(text, "f()", width=1)}
    assert related["message"] == "the first definition"


def test_a_syntax_error_is_reported_until_it_parses(served) -> None:
    client, root = served
    uri = new_module(client, root, "syntax.hl", "fn f() -> Int {\n    return 1;\n}\n")
    client.change(uri, 2, "fn f() -> Int {\n    return 1\n}\n")
    (d,) = client.diagnostics(uri)
    assert d["code"] == "E0001"
    client.change(uri, 3, "fn f() -> Int {\n    return 1;\n}\n")
    assert client.diagnostics(uri) == []


def test_hover_shows_types_signatures_docs_and_host_declarations(served) -> None:
    client, root = served
    uri = client.open(root / "dna/org/main.hl")
    local = client.at("textDocument/hover", uri, *at(MAIN, "t.count"))
    assert local["contents"]["value"] == "```hale\nt: Tally\n```"
    fn = client.at("textDocument/hover", uri, *at(MAIN, "words", 0, 2))["contents"]["value"]
    assert fn == "```hale\nfn words(text: String) -> Int\n```\nHow many words a text has."
    host = client.at("textDocument/hover", uri, *at(MAIN, "define"))["contents"]["value"]
    assert host.startswith("```hale\nfn define(id: String, rev: Int, stores: String, summary:")
    assert "a method of host type `WorkflowCatalog`; declared at `vendor/dna/mod.hl:" in host
    param = client.at("textDocument/hover", uri, *at(MAIN, "objective", 1))["contents"]
    assert param["value"] == "```hale\nobjective: String\n```"
    lib = (root / "dna/org/lib.hl").read_text()
    lib_uri = client.open(root / "dna/org/lib.hl")
    native = client.at("textDocument/hover", lib_uri, *at(lib, "len("))["contents"]["value"]
    assert native.startswith("```hale\nlen(String) -> Int\nlen(List<T>) -> Int\n")


def test_definition_goes_across_imports_and_into_vendor_dna(served) -> None:
    client, root = served
    uri = client.open(root / "dna/org/main.hl")
    lib_uri = (root / "dna/org/lib.hl").resolve().as_uri()
    mod = root / "vendor/dna/mod.hl"
    (words,) = client.at("textDocument/definition", uri, *at(MAIN, "words"))
    assert words == {
        "uri": lib_uri,
        "range": span_of((root / "dna/org/lib.hl").read_text(), "words(", width=5),
    }
    (define,) = client.at("textDocument/definition", uri, *at(MAIN, "define"))
    assert define["uri"] == mod.resolve().as_uri()
    assert define["range"] == span_of(mod.read_text(), "define")
    (field,) = client.at("textDocument/definition", uri, *at(MAIN, "t.count", 0, 2))
    assert field["range"] == span_of((root / "dna/org/lib.hl").read_text(), "count", width=5)
    (module,) = client.at("textDocument/definition", uri, *at(MAIN, "lib", 0))
    assert module["uri"] == lib_uri
    (local,) = client.at("textDocument/definition", uri, *at(MAIN, "d;"))
    assert local["range"] == span_of(MAIN, "d =", width=1)


def test_references_are_found_in_the_whole_genome(served) -> None:
    client, root = served
    lib = (root / "dna/org/lib.hl").read_text()
    lib_uri = client.open(root / "dna/org/lib.hl")
    refs = client.at(
        "textDocument/references", lib_uri, *at(lib, "Tally"), context={"includeDeclaration": True}
    )
    main_uri = (root / "dna/org/main.hl").resolve().as_uri()
    assert sorted((r["uri"], r["range"]["start"]["line"]) for r in refs) == [
        (lib_uri, at(lib, "Tally")[0]),
        (main_uri, at(MAIN, "Tally")[0]),
    ]
    uses = client.at(
        "textDocument/references",
        lib_uri,
        *at(lib, "count:"),
        context={"includeDeclaration": False},
    )
    assert [(r["uri"], r["range"]) for r in uses] == [
        (main_uri, span_of(MAIN, "count:", width=5)),
        (main_uri, span_of(MAIN, "count >", width=5)),
    ]


def labels(result: dict) -> dict[str, str | None]:
    return {i["label"]: i.get("detail") for i in result["items"]}


def test_completion_of_locals_members_fields_and_methods(served) -> None:
    client, root = served
    uri = new_module(client, root, "complete.hl", MAIN)
    typing = MAIN.replace('    return "";', "    let n = t.\n    return lib::")
    client.change(uri, 2, typing)
    client.diagnostics(uri)
    fields = labels(client.at("textDocument/completion", uri, *at(typing, "t.\n", 0, 2)))
    assert fields == {"key": "String", "count": "Int"}
    members = labels(client.at("textDocument/completion", uri, *at(typing, "lib::\n", 0, 5)))
    assert members == {"words": "fn(text: String) -> Int", "Tally": "struct"}
    methods = labels(client.at("textDocument/completion", uri, *at(typing, "catalog.define", 0, 8)))
    assert methods["leaf"].startswith("fn(id: String, rev: Int, step: Int")
    text = MAIN.replace("    return d;", "    return d.sp;")
    client.change(uri, 3, text)
    client.diagnostics(uri)
    strings = labels(client.at("textDocument/completion", uri, *at(text, "d.sp", 0, 4)))
    assert strings["split"] == "String.split(String) -> List<String>"
    anywhere = labels(client.at("textDocument/completion", uri, *at(text, "return d.sp")))
    assert anywhere["t"] == "Tally" and anywhere["objective"] == "String"
    assert anywhere["len"] is not None and "while" in anywhere and "plan" in anywhere


def test_formatting_is_hale_fmt_and_leaves_a_broken_file_alone(served) -> None:
    client, root = served
    messy = "fn  f( )->Int{return 1;}\n"
    uri = new_module(client, root, "fmt.hl", messy)
    (edit,) = client.request("textDocument/formatting", _fmt(uri))
    assert edit["newText"] == "fn f() -> Int {\n    return 1;\n}\n"
    client.change(uri, 2, "fn f( {\n")
    client.diagnostics(uri)
    assert client.request("textDocument/formatting", _fmt(uri)) == []


def _fmt(uri: str) -> dict:
    return {"textDocument": {"uri": uri}, "options": {"tabSize": 4, "insertSpaces": True}}


def test_document_symbols_and_the_did_you_mean_fix(served) -> None:
    client, root = served
    lib_uri = client.open(root / "dna/org/lib.hl")
    symbols = client.request("textDocument/documentSymbol", {"textDocument": {"uri": lib_uri}})
    assert [(s["name"], s["kind"]) for s in symbols] == [("words", 12), ("Tally", 23)]
    assert [c["name"] for c in symbols[1]["children"]] == ["key", "count"]
    text = "fn f() -> Int {\n    return lenght([1]);\n}\n"
    uri = new_module(client, root, "fix.hl", "fn f() -> Int {\n    return 0;\n}\n")
    client.change(uri, 2, text)
    diags = client.diagnostics(uri)
    params = {
        "textDocument": {"uri": uri},
        "range": diags[0]["range"],
        "context": {"diagnostics": diags},
    }
    (action,) = client.request("textDocument/codeAction", params)
    assert action["title"] == "replace with `len`" and action["kind"] == "quickfix"
    assert action["edit"]["changes"][uri] == [{"range": span_of(text, "lenght"), "newText": "len"}]

"""`hale lsp`'s author's kit, through a real server: rename across modules,
signature help, workspace symbols, untitled and unsaved buffers, the
unused-variable warning and its fix, a byte order mark.

One server for the module (the `served` fixture); a test that writes a
module uses its own file name, and renames are asked for, never applied to
the files the other tests read.
"""

from __future__ import annotations

import pytest
from lsp_genome import LIB, MAIN
from test_server import at, new_module, span_of


def _edits(result: dict) -> dict[str, list[tuple[dict, str]]]:
    return {
        uri.rsplit("/", 1)[-1]: sorted(
            ((e["range"]["start"]["line"], e["range"]["start"]["character"]), e["newText"])
            for e in edits
        )
        for uri, edits in result["changes"].items()
    }


def test_rename_a_fn_across_modules(served) -> None:
    client, root = served
    lib_uri = client.open(root / "dna/org/lib.hl")
    client.diagnostics(lib_uri)
    line, ch = at(LIB, "words(text")
    prepared = client.at("textDocument/prepareRename", lib_uri, line, ch + 2)
    assert prepared["placeholder"] == "words" and prepared["range"] == span_of(
        LIB, "words(", width=5
    )
    result = client.at("textDocument/rename", lib_uri, line, ch, newName="word_count")
    assert _edits(result) == {
        "lib.hl": [(at(LIB, "words("), "word_count")],
        "main.hl": [(at(MAIN, "words"), "word_count")],
    }


def test_rename_a_struct_field_and_a_local(served) -> None:
    client, root = served
    main_uri = client.open(root / "dna/org/main.hl")
    client.diagnostics(main_uri)
    line, ch = at(MAIN, "count:")  # the field, as the literal names it
    result = client.at("textDocument/rename", main_uri, line, ch, newName="total")
    assert _edits(result) == {
        "lib.hl": [(at(LIB, "count"), "total")],
        "main.hl": [(at(MAIN, "count:"), "total"), (at(MAIN, "count >"), "total")],
    }
    line, ch = at(MAIN, "let d")
    result = client.at("textDocument/rename", main_uri, line, ch + 4, newName="defined")
    assert _edits(result) == {
        "main.hl": [(at(MAIN, "d ="), "defined"), (at(MAIN, "d;"), "defined")]
    }


@pytest.mark.parametrize(
    ("needle", "offset", "new", "why"),
    [
        ("len(", 0, "size", "prelude"),
        ("let d", 4, "t", "already has a variable `t`"),
        ("let d", 4, "fn", "not a name Hale accepts"),
        ("define(", 0, "make", "toolchain's"),
    ],
)
def test_rename_refuses_in_one_line(served, needle, offset, new, why) -> None:
    client, root = served
    text = LIB if needle == "len(" else MAIN
    uri = client.open(root / ("dna/org/lib.hl" if text is LIB else "dna/org/main.hl"))
    client.diagnostics(uri)
    line, ch = at(text, needle, offset=offset)
    with pytest.raises(RuntimeError) as refused:
        client.at("textDocument/rename", uri, line, ch, newName=new)
    assert why in str(refused.value) and "-32803" in str(refused.value)


def test_signature_help_while_a_call_is_typed(served) -> None:
    client, root = served
    text = 'import "dna/org/lib" as lib;\n\nfn f() -> Int {\n    return lib::words("a, b'
    uri = new_module(client, root, "typing.hl", text)
    line = text.count("\n")
    help = client.at("textDocument/signatureHelp", uri, line, len(text.splitlines()[-1]))
    (sig,) = help["signatures"]
    assert sig["label"] == "fn lib::words(text: String) -> Int" and help["activeParameter"] == 0
    label = sig["label"]
    start, end = sig["parameters"][0]["label"]
    assert label[start:end] == "text: String"
    text2 = 'fn g() -> Int {\n    return format("{} {}", 1, '
    uri2 = new_module(client, root, "typing2.hl", text2)
    help = client.at("textDocument/signatureHelp", uri2, 1, len(text2.splitlines()[-1]))
    assert help["signatures"][0]["label"].startswith("format(") and help["activeParameter"] == 1


def test_workspace_symbols_are_fuzzy_over_the_genome(served) -> None:
    client, root = served
    found = client.request("workspace/symbol", {"query": "wrds"})
    assert [(s["name"], s["location"]["uri"].rsplit("/", 1)[-1]) for s in found] == [
        ("words", "lib.hl")
    ]
    found = client.request("workspace/symbol", {"query": "cnt"})
    where = {(s["name"], s.get("containerName"), s["kind"]) for s in found}
    assert ("count", "dna/org/lib.hl Tally", 8) in where  # a field


def test_untitled_and_unsaved_buffers_get_diagnostics(served) -> None:
    client, root = served
    uri = "untitled:Untitled-1"
    text = 'import "dna/org/lib" as lib;\n\nfn f() -> Int {\n    return lib::wrds("x");\n}\n'
    item = {"uri": uri, "languageId": "hale", "version": 1, "text": text}
    client.notify("textDocument/didOpen", {"textDocument": item})
    (d,) = client.diagnostics(uri)
    assert d["code"] == "E0203" and "did you mean `words`" in d["message"]
    client.change(uri, 2, text.replace("wrds", "words"))
    assert client.diagnostics(uri) == []
    never_saved = root / "dna/org/not_on_disk.hl"
    uri2 = client.open(never_saved, "fn g() -> Int {\n    return true;\n}\n")
    (d,) = client.diagnostics(uri2)
    assert d["code"] == "E0304" and not never_saved.exists()


def test_an_unused_variable_is_warned_and_fixed_with_an_underscore(served) -> None:
    client, root = served
    text = "fn f() -> Int {\n    let spare = 1;\n    return 2;\n}\n"
    uri = client.open(root / "dna/org/unused.hl", text)
    (d,) = client.diagnostics(uri)
    assert (d["code"], d["severity"], d["tags"]) == ("W0204", 2, [1])
    assert d["message"].startswith("unused variable `spare`") and d["range"] == span_of(
        text, "spare"
    )
    params = {
        "textDocument": {"uri": uri},
        "range": d["range"],
        "context": {"diagnostics": [d]},
    }
    (action,) = client.request("textDocument/codeAction", params)
    (edit,) = action["edit"]["changes"][uri]
    assert edit["newText"] == "_" and edit["range"]["start"] == d["range"]["start"]
    client.change(uri, 2, text.replace("spare", "_spare"))
    assert client.diagnostics(uri) == []


def test_a_byte_order_mark_is_no_error(served) -> None:
    client, root = served
    text = "\ufefffn f() -> Int {\n    return 1;\n}\n"
    uri = client.open(root / "dna/org/bom.hl", text)
    assert client.diagnostics(uri) == []


OWN = """\
import "vendor/dna" as dna;

fn own_workflows(catalog: dna::WorkflowCatalog) -> String {
    let d = catalog.define("p", 1, "record record", "p");
    let w = dna::WorkRequest { objective: "x", requires: "" };
    let a = catalog.leaf("p", 1, 0, "Bad", w, 1);
    return d + a;
}
"""


def test_the_catalogs_and_the_budgets_refusals_stand_where_they_are(tmp_path) -> None:
    import shutil

    from lsp_client import LspClient
    from lsp_genome import REPO

    root = tmp_path / "org"
    shutil.copytree(
        REPO / "vendor/dna", root / "vendor/dna", ignore=shutil.ignore_patterns("templates")
    )
    shutil.copytree(REPO / "vendor/dna/templates/dna", root / "dna")
    models = root / "dna/org/models.hl"
    models.write_text(models.read_text().replace('window: "day"', 'window: "month"'))
    (root / "dna/org/own_workflows.hl").write_text(OWN)
    client = LspClient(root)
    client.initialize(root)
    try:
        own_uri = client.open(root / "dna/org/own_workflows.hl")
        models_uri = models.resolve().as_uri()
        got = {}
        while len(got) < 2:  # both modules are published, in either order
            note = client.diagnostics(own_uri) if own_uri not in got else None
            got[own_uri] = note if note is not None else got[own_uri]
            got[models_uri] = client.diagnostics(models_uri)
        (refused,) = got[own_uri]
        assert refused["code"] == "E0601" and "`Bad`" in refused["message"]
        assert refused["range"] == span_of(OWN, "catalog.leaf")
        (budget,) = got[models_uri]
        assert budget["code"] == "E0504" and "'month'" in budget["message"]
        models.write_text(models.read_text().replace('"month"', '"day"'))
        client.notify("textDocument/didSave", {"textDocument": {"uri": own_uri}})
        assert client.diagnostics(models_uri) == []
    finally:
        assert client.close() == 0

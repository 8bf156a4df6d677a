"""The parser: each construct builds the expected nodes, spans point at the
right characters, and each `fixtures/syntax/*.hl` fails with the diagnostic
pinned in the snapshot (rendered as a user sees it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hale_lang import nodes as n
from hale_lang.diagnostics import HaleError, SourceMap, Span, render_all
from hale_lang.formatter import tree_shape
from hale_lang.parser import parse

SYNTAX = Path(__file__).parent / "fixtures" / "syntax"
SYNTAX_CASES = sorted(SYNTAX.glob("*.hl"))


def module(text: str) -> n.Module:
    return parse(text, "m.hl")


def body(stmts: str) -> list[n.Stmt]:
    fn = module(f"fn f() {{\n{stmts}\n}}").items[0]
    assert isinstance(fn, n.FnDecl)
    return fn.body.stmts


def expr(text: str) -> n.Expr:
    const = module(f"const X = {text};").items[0]
    assert isinstance(const, n.Const)
    return const.value


def shape(text: str) -> object:
    return tree_shape(expr(text))


# --- items -------------------------------------------------------------------


def test_items():
    m = module(
        'import "vendor/dna" as dna;\n'
        "const A: Int = 1;\n"
        "struct S { a: Int, b: List<dna::Position>, }\n"
        "fn f(x: Int, y: Map<String, Int>) -> Bool { return true; }\n"
        "host fn now() -> Int;\n"
        "host type Clock { fn tick(n: Int); fn now() -> Int; }\n"
    )
    imp, const, struct, fn, host_fn, host_type = m.items
    assert isinstance(imp, n.Import) and (imp.path, imp.name) == ("vendor/dna", "dna")
    assert isinstance(const, n.Const) and const.name == "A" and const.type.path == ("Int",)
    assert isinstance(struct, n.StructDecl) and [f.name for f in struct.fields] == ["a", "b"]
    inner = struct.fields[1].type
    assert inner.path == ("List",) and inner.args[0].path == ("dna", "Position")
    assert isinstance(fn, n.FnDecl) and [p.name for p in fn.params] == ["x", "y"]
    assert [a.path for a in fn.params[1].type.args] == [("String",), ("Int",)]
    assert fn.ret.path == ("Bool",) and isinstance(fn.body.stmts[0], n.Return)
    assert isinstance(host_fn, n.HostFn) and host_fn.params == [] and host_fn.ret.path == ("Int",)
    assert isinstance(host_type, n.HostTypeDecl)
    assert [(m.name, m.ret) for m in host_type.methods][0] == ("tick", None)
    assert host_type.methods[1].ret.path == ("Int",)


def test_optional_parts_of_items():
    const, fn = module("const B = 2; fn g() {}").items
    assert const.type is None and fn.ret is None and fn.params == [] and fn.body.stmts == []


# --- statements --------------------------------------------------------------


def test_let_and_assignments():
    let, typed, plain, compound, indexed = body(
        "let x = 1; let y: List<Int> = []; x = 2; x -= 3; m[k] *= 4;"
    )
    assert isinstance(let, n.Let) and let.name == "x" and let.type is None
    assert typed.type.path == ("List",) and isinstance(typed.value, n.ListLit)
    assert isinstance(plain, n.Assign) and isinstance(plain.value, n.IntLit)
    # `x -= 3` is `x = x - 3`, the Binary spanning the whole statement
    assert isinstance(compound.value, n.Binary) and compound.value.op == "-"
    assert compound.value.left is compound.target and compound.value.span == compound.span
    assert isinstance(indexed.target, n.Index) and indexed.value.op == "*"


def test_if_else_chain_is_flattened_but_else_block_is_not():
    chain, nested = body("if a { } else if b { x; } else { } if a { } else { if b { } }")
    assert isinstance(chain, n.If) and len(chain.branches) == 2 and chain.orelse is not None
    assert isinstance(chain.branches[1][0], n.Name) and len(chain.branches[1][1].stmts) == 1
    assert len(nested.branches) == 1 and isinstance(nested.orelse.stmts[0], n.If)


def test_loops_and_jumps():
    loop, each = body("while x < 3 { break; continue; } for k in keys { return; return k; }")
    assert isinstance(loop, n.While) and isinstance(loop.cond, n.Binary)
    assert [type(s) for s in loop.body.stmts] == [n.Break, n.Continue]
    assert isinstance(each, n.For) and each.name == "k" and isinstance(each.iterable, n.Name)
    bare, valued = each.body.stmts
    assert bare.value is None and isinstance(valued.value, n.Name)


def test_expression_statement():
    (stmt,) = body("log(1);")
    assert isinstance(stmt, n.ExprStmt) and isinstance(stmt.expr, n.Call)


# --- expressions ---------------------------------------------------------------


def test_literals():
    assert expr("1_000").value == 1000
    assert expr(r'"a\tb\"\\\n\u{e9}\0"').value == 'a\tb"\\\n\xe9\0'
    assert expr("true").value is True and expr("false").value is False
    assert [i.value for i in expr("[1, 2,]").items] == [1, 2]
    m = expr('{"a": 1, "b": [2]}')
    assert isinstance(m, n.MapLit) and [k.value for k, _ in m.entries] == ["a", "b"]
    s = expr('dna::WorkRequest { objective: "o", requires: "r" }')
    assert isinstance(s, n.StructLit) and s.path == ("dna", "WorkRequest")
    assert [f.name for f in s.fields] == ["objective", "requires"]
    assert expr("Empty {}").fields == [] and expr("{}").entries == []


def test_names_and_paths():
    assert isinstance(expr("x"), n.Name)
    p = expr("dna::LIMIT")
    assert isinstance(p, n.Path) and p.parts == ("dna", "LIMIT")


def test_postfix_forms():
    call = expr("dna::f(1, 2)")
    assert isinstance(call, n.Call) and isinstance(call.func, n.Path) and len(call.args) == 2
    mc = expr("a.b(1).c[0]")
    assert isinstance(mc, n.Index) and isinstance(mc.obj, n.FieldAccess)
    assert isinstance(mc.obj.obj, n.MethodCall) and mc.obj.obj.method == "b"
    fc = expr("(a.b)(1)")
    assert isinstance(fc, n.Call) and isinstance(fc.func, n.FieldAccess)


def test_precedence_and_associativity():
    assert shape("a || b && c") == shape("a || (b && c)")
    assert shape("a && b == c") == shape("a && (b == c)")
    assert shape("a == b + c") == shape("a == (b + c)")
    assert shape("a + b * c") == shape("a + (b * c)")
    assert shape("a - b - c") == shape("(a - b) - c")
    assert shape("a / b % c") == shape("(a / b) % c")
    assert shape("a < b == c") == shape("(a < b) == c")
    assert shape("-a.b()") == shape("-(a.b())")
    assert shape("!a && b") == shape("(!a) && b")
    assert shape("a - -b") == shape("a - (-b)")
    u = expr("!-x")
    assert isinstance(u, n.Unary) and u.op == "!" and u.operand.op == "-"


def test_parentheses_leave_no_node():
    assert shape("((a))") == shape("a")


def test_struct_literal_needs_parentheses_in_a_condition():
    (s,) = body("if x == (P { a: 1 }) { }")
    assert isinstance(s.branches[0][0].right, n.StructLit)
    with pytest.raises(HaleError):
        body("if x == P { a: 1 } { }")


# --- spans and comments -------------------------------------------------------


def test_spans_point_at_the_source():
    text = 'import "a" as a;\nfn f(x: Int) -> Int {\n    let y = x + 10;\n    return y;\n}\n'
    imp, fn = module(text).items
    assert imp.span == Span("m.hl", 1, 1, 1, 17)
    assert imp.name_span == Span("m.hl", 1, 15, 1, 16)
    assert fn.span == Span("m.hl", 2, 1, 5, 2)
    assert fn.params[0].span == Span("m.hl", 2, 6, 2, 12)
    let = fn.body.stmts[0]
    assert let.span == Span("m.hl", 3, 5, 3, 20)
    assert let.name_span == Span("m.hl", 3, 9, 3, 10)
    assert let.value.span == Span("m.hl", 3, 13, 3, 19)
    assert let.value.right.span == Span("m.hl", 3, 17, 3, 19)
    assert fn.body.span == Span("m.hl", 2, 21, 5, 2)


def test_method_and_field_name_spans():
    mc = expr("abc.len()")
    assert mc.method_span == Span("m.hl", 1, 15, 1, 18)
    fa = expr("abc.field")
    assert fa.name_span == Span("m.hl", 1, 15, 1, 20)


def test_comments_are_kept_with_their_spans():
    m = module('// one\nfn f() { // two\n    let s = "// not a comment";\n}\n// three')
    assert [(c.text, c.span.line, c.span.col) for c in m.comments] == [
        ("// one", 1, 1),
        ("// two", 2, 10),
        ("// three", 5, 1),
    ]


# --- syntax errors -------------------------------------------------------------


def test_there_are_enough_syntax_fixtures():
    assert len(SYNTAX_CASES) >= 10


@pytest.mark.parametrize("case", SYNTAX_CASES, ids=lambda p: p.stem)
def test_syntax_error(case: Path, snapshot):
    text = case.read_text()
    with pytest.raises(HaleError) as e:
        parse(text, case.name)
    (diag,) = e.value.diagnostics
    assert diag.code in ("E0001", "E0002", "E0003", "E0004") and diag.span is not None
    assert render_all(e.value.diagnostics, SourceMap({case.name: text})) == snapshot

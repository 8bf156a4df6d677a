"""The wording of the type checker's diagnostics, in one place.

The checker decides *that* something is wrong and where; `Messages` says it:
one method per kind of mistake, each choosing the code, the lowercase
message and the help line (mypy keeps its messages apart from its checker
the same way). Keeping the words together keeps them consistent: a type is
always shown in backticks, with its article where a sentence needs one, and
a help line names the fix.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from . import nodes as n
from .diagnostics import Diagnostic, Span, did_you_mean
from .types import ERROR, INT, JSON, STRING, Prim, Type

_ERROR_SHOWN = str(ERROR)


def a(t: Type) -> str:
    """The type in backticks with its article: a `String`, an `Int`."""
    text = str(t)
    return f"{'an' if text[0] in 'AEIOU' else 'a'} `{text}`"


def plural(k: int, word: str) -> str:
    return f"{k} {word}{'' if k == 1 else 's'}"


def were(k: int) -> str:
    return f"{k} {'was' if k == 1 else 'were'} given"


def show(e: n.Expr) -> str:
    """A short name for an expression in a message: the name, or 'this expression'."""
    c = e.__class__
    if c is n.Name:
        return f"`{e.name}`"
    if c is n.Path:
        return f"`{'::'.join(e.parts)}`"
    if c is n.Call and e.func.__class__ in (n.Name, n.Path):
        return f"{show(e.func)[:-1]}(…)`"
    if c is n.MethodCall:
        return f"`.{e.method}(…)`"
    return "this expression"


def convert_help(want: Type, got: Type) -> str | None:
    if want is STRING and got is not STRING:
        return "convert it with `to_string(…)`"
    if want is INT and got is STRING:
        return "convert it with `to_int(…)`"
    if got is JSON and want.__class__ is Prim:
        return f"convert it with `.as_{want.name.lower()}()`"
    return None


class Messages:
    """Reports the checker's diagnostics into one module's list."""

    def __init__(self, diags: list[Diagnostic]):
        self.diags = diags

    def error(self, code: str, message: str, span: Span | None, help: str | None = None) -> None:
        if _ERROR_SHOWN in message:  # a type holding ERROR: a mistake already reported
            return
        self.diags.append(Diagnostic(code, message, span, help))

    def warn(self, code: str, message: str, span: Span | None, help: str | None = None) -> None:
        self.diags.append(Diagnostic(code, message, span, help, severity="warning"))

    # --- flow ---------------------------------------------------------------------

    def missing_return(self, name: str, ret: Type, span: Span) -> None:
        self.error(
            "E0309",
            f"function `{name}` can reach its end without returning {a(ret)}",
            span,
            f"end every path with `return …;`, or drop `-> {ret}`",
        )

    def unreachable(self, span: Span) -> None:
        self.warn("W0202", "unreachable statement", span, "nothing after it runs")

    def outside_loop(self, word: str, span: Span) -> None:
        self.error("E0310", f"`{word}` outside of a loop", span)

    def return_needs_value(self, ret: Type, span: Span) -> None:
        self.error("E0304", f"`return;` needs {a(ret)} value", span)

    def return_in_void(self, span: Span) -> None:
        self.error(
            "E0304",
            "this function returns nothing, but `return` has a value",
            span,
            "declare what it returns: `-> T`, or write `return;`",
        )

    def unused_variable(self, name: str, span: Span) -> None:
        self.warn(
            "W0204",
            f"unused variable `{name}`",
            span,
            f"if this is intentional, prefix it with an underscore: `_{name}`",
        )

    def unused_value(self, span: Span) -> None:
        self.warn(
            "W0203",
            "the value of this expression is never used",
            span,
            "store it with `let`, or remove it",
        )

    def condition(self, t: Type, span: Span) -> None:
        help = "compare it, e.g. `len(x) > 0` or `x != 0`" if t in (INT, STRING) else None
        self.error("E0306", f"expected a `Bool` condition, found `{t}`", span, help)

    def cannot_iterate(self, t: Type, span: Span) -> None:
        help = "iterate over `j.as_list()` or `j.keys()`" if t is JSON else None
        self.error("E0315", f"cannot iterate over {a(t)}", span, help)

    # --- variables and places -----------------------------------------------------

    def shadowing(self, name: str, span: Span) -> None:
        self.error(
            "E0209",
            f"`{name}` is already a variable in scope",
            span,
            f"Hale does not shadow variables: pick another name, or assign with `{name} = …`",
        )

    def immutable(self, t: Type, span: Span) -> None:
        self.error(
            "E0312",
            f"cannot assign into {a(t)}: it is immutable",
            span,
            "build a new value and assign it to the variable",
        )

    def assign_const(self, name: str, whole: bool, span: Span) -> None:
        msg = f"cannot assign to constant {name}" if whole else f"cannot modify {name}, a constant"
        self.error("E0312", msg, span, "copy it into a variable with `let` first")

    def mutate_const(self, name: str, method: str, span: Span) -> None:
        msg = f"cannot modify {name}, a constant, with `.{method}()`"
        self.error("E0312", msg, span, "copy it into a variable with `let` first")

    def not_a_place(self, span: Span) -> None:
        self.error(
            "E0312",
            "cannot assign to this expression",
            span,
            "assign to a variable, a field of one, or an element of one",
        )

    # --- values and types ---------------------------------------------------------

    def mismatch(self, code: str, want: Type, got: Type, span: Span) -> None:
        self.error(code, f"expected `{want}`, found `{got}`", span, convert_help(want, got))

    def no_value(self, e: n.Expr) -> None:
        self.error(
            "E0313",
            f"{show(e)} produces no value",
            e.span,
            "it returns `Void`; call it as a statement of its own",
        )

    def undefined(self, name: str, candidates: Iterable[str], span: Span) -> None:
        self.error("E0201", f"undefined name `{name}`", span, did_you_mean(name, candidates))

    def not_value(self, message: str, span: Span, help: str | None = None) -> None:
        self.error("E0213", message, span, help)

    def item_not_value(self, kind: str, shown: str, span: Span) -> None:
        """A function, type or module named where a value belongs."""
        if kind in ("fn", "hostfn"):
            self.not_value(
                f"{shown} is a function, not a value", span, f"call it: {shown[:-1]}(…)`"
            )
        elif kind == "struct":
            help = f"build one with `{shown[1:-1]} {{ … }}`"
            self.not_value(f"{shown} is a type, not a value", span, help)
        elif kind == "hosttype":
            self.not_value(f"{shown} is a type, not a value", span)
        else:
            help = f"name one of its items: `{shown[1:-1]}::…`"
            self.not_value(f"{shown} is a module, not a value", span, help)

    def const_before_definition(self, name: str, span: Span) -> None:
        self.error(
            "E0215",
            f"constant `{name}` is used before its definition",
            span,
            "a constant may use only the constants defined above it",
        )

    # --- literals -----------------------------------------------------------------

    def empty_list(self, span: Span) -> None:
        self.error(
            "E0308",
            "cannot infer the type of an empty list",
            span,
            "give the variable a type, e.g. `let xs: List<Int> = [];`",
        )

    def empty_map(self, span: Span) -> None:
        self.error(
            "E0308",
            "cannot infer the type of an empty map",
            span,
            "give the variable a type, e.g. `let m: Map<String, Int> = {};`",
        )

    def empty_literal_argument(self, span: Span) -> None:
        self.error(
            "E0308",
            "cannot infer the type of this empty literal here",
            span,
            "bind it to a typed variable first: `let xs: List<Int> = [];`",
        )

    def empty_misfit(self, expected: Type, what: str, span: Span) -> None:
        self.error("E0301", f"expected `{expected}`, found an empty {what}", span)

    def disagree(self, code: str, what: str, t: Type, elem: Type, span: Span) -> None:
        self.error(code, f"{what} must agree: this is `{t}`, expected `{elem}`", span)

    def map_key(self, key: Type, span: Span) -> None:
        self.error("E0311", f"`{key}` cannot be a map key", span, "use Int, String or Bool")

    def field_twice(self, name: str, span: Span) -> None:
        self.error("E0211", f"field `{name}` is given twice", span)

    def no_such_field(self, code: str, owner: str, name: str, fields, span: Span) -> None:
        help = did_you_mean(name, fields) or f"its fields are: {', '.join(fields)}"
        self.error(code, f"{owner} has no field `{name}`", span, help)

    def missing_fields(self, struct: str, missing: Sequence[str], span: Span) -> None:
        names = ", ".join(f"`{f}`" for f in missing)
        self.error(
            "E0208",
            f"missing field{'s' * (len(missing) > 1)} {names} in `{struct}`",
            span,
            "every field of a struct must be given",
        )

    def unknown_struct(self, name: str, candidates: Iterable[str], span: Span) -> None:
        self.error("E0204", f"unknown struct `{name}`", span, did_you_mean(name, candidates))

    def not_a_struct(self, path: str, kind: str, span: Span) -> None:
        help = "a host type's values come from the host" if kind == "hosttype" else None
        self.error("E0216", f"`{path}` is not a struct", span, help)

    # --- calls --------------------------------------------------------------------

    def not_callable(self, message: str, span: Span, help: str | None = None) -> None:
        self.error("E0214", message, span, help)

    def item_not_callable(self, kind: str, shown: str, span: Span) -> None:
        if kind == "const":
            self.not_callable(f"{shown} is a constant, not a function", span)
        elif kind == "struct":
            help = f"build one with `{shown[1:-1]} {{ … }}`"
            self.not_callable(f"{shown} is a struct, not a function", span, help)
        elif kind == "hosttype":
            self.not_callable(f"{shown} is a host type, not a function", span)
        else:
            self.not_callable(f"{shown} is a module, not a function", span)

    def arity(self, shown: str, params: Sequence[Type], decl, given: int, span: Span) -> None:
        sig = ", ".join(f"{p.name}: {t}" for p, t in zip(decl, params, strict=True))
        self.error(
            "E0303",
            f"{shown} takes {plural(len(params), 'argument')} but {were(given)}",
            span,
            f"its parameters are ({sig})" if sig else "it takes no arguments",
        )

    def argument(self, want: Type, name: str, got: Type, span: Span) -> None:
        help = convert_help(want, got)
        self.error("E0302", f"expected `{want}` for `{name}`, found `{got}`", span, help)

    def native_arity(self, shown: str, arities: list[int], sigs, given: int, span: Span) -> None:
        want = " or ".join(str(k) for k in arities)
        more = " or more" if sigs[0].variadic else ""
        self.error(
            "E0303",
            f"{shown} takes {want}{more} argument{'s' * (arities != [1] or bool(more))} "
            f"but {were(given)}",
            span,
            f"its signature is `{sigs[0].shown()}`" if len(sigs) == 1 else None,
        )

    def format_arity(self, holes: int, given: int, span: Span) -> None:
        self.error(
            "E0303",
            f"`format`'s template has {holes} `{{}}` but "
            f"{plural(given, 'argument')} follow{'s' * (given == 1)} it",
            span,
            "each `{}` takes the next argument; write `{{` and `}}` for braces",
        )

    def unordered(self, t: Type, span: Span) -> None:
        self.error(
            "E0325",
            f"cannot sort {a(t)}",
            span,
            "only lists of Int or of String can be sorted",
        )

    def receiver_mismatch(self, shown: str, want: Type, got: Type, span: Span) -> None:
        self.error(
            "E0302",
            f"{shown} needs a receiver of type `{want}`, found `{got}`",
            span,
            convert_help(want, got),
        )

    def no_overload(self, shown: str, types, sigs, span: Span) -> None:
        shown_types = ", ".join(str(t) if t else "_" for t in types)
        alts = "; ".join(f"`{s.text}`" for s in sigs)
        self.error("E0317", f"{shown} does not take ({shown_types})", span, f"it takes {alts}")

    def host_to_text(self, t: Type, span: Span) -> None:
        self.error("E0318", f"{a(t)} holds a host value, which has no text or JSON form", span)

    def no_method(self, method: str, t: Type, help: str | None, span: Span) -> None:
        shown = str(t).replace(_ERROR_SHOWN, "_")  # methods depend on the kind alone
        self.error("E0206", f"no method `{method}` on `{shown}`", span, help)

    # --- access and operators -----------------------------------------------------

    def not_a_field(self, t: Type, name: str, help: str | None, span: Span) -> None:
        self.error("E0207", f"{a(t)} has no field `{name}`", span, help)

    def cannot_index(self, t: Type, span: Span) -> None:
        self.error("E0314", f"cannot index into {a(t)}", span)

    def index_type(self, t: Type, by: str, got: Type, span: Span) -> None:
        self.error("E0314", f"{a(t)} is indexed by {by}, not `{got}`", span)

    def compare(self, lt: Type, rt: Type, span: Span) -> None:
        self.error(
            "E0305",
            f"cannot compare `{lt}` with `{rt}`",
            span,
            "`==` and `!=` compare two values of the same type",
        )

    def logic_operand(self, op: str, t: Type, span: Span) -> None:
        self.error("E0305", f"`{op}` needs `Bool` operands, found `{t}`", span)

    def operator(self, op: str, lt: Type, rt: Type, order: bool, span: Span) -> None:
        if op == "+" and (lt is STRING or rt is STRING):
            help = "convert the other side with `to_string(…)`"
        elif op == "+":
            help = "`+` adds two Ints or joins two Strings"
        elif order:
            help = f"`{op}` compares two Ints or two Strings"
        else:
            help = f"`{op}` works on Ints"
        self.error("E0305", f"cannot apply `{op}` to `{lt}` and `{rt}`", span, help)

    def unary(self, op: str, t: Type, want: Type, span: Span) -> None:
        self.error("E0305", f"cannot apply `{op}` to `{t}`", span, f"`{op}` needs {a(want)}")

"""Fuzz the language at scale: mutated programs through parse, check,
compile, run and fmt, counting every way hale can fail its author.

Seeds are every `.hl` file the project ships or tests with. Input number k
is a pure function of (--seed, k): a seed file, then one to three
mutations — a character deleted, inserted or replaced; a token deleted,
repeated, swapped or replaced; a run of tokens repeated up to 1,000 times;
a piece of another seed spliced in; a construct nested up to 3,000 deep
(parentheses, brackets, calls, unary operators, `+` chains, `if`s, loops,
map literals), a huge number or string, or a whole function that grows a
value without bound, appended so that it parses. The input goes through
what `hale check`, `hale run` and `hale fmt` do (a mutation that would
make it longer than MAX_INPUT, 1 MiB, is left out):

- load and check, the input standing in for its seed's file in the seed's
  genome (every syntax error is recovered from, so every input is checked);
- with no error: compile, bind nothing, and call up to three of its fns
  with simple arguments under a small step budget, printing the result as
  `hale run` does;
- when it parses: format it, and format the output again.

Counted: internal errors (an exception out of check, compile or run, or an
E0499 diagnostic: what `hale check`/`hale run` would print as an internal
error), tracebacks (an exception out of fmt, which prints it, or a worker
that died), hangs (an input that takes more than 5 s of CPU), and fmt
output that is not idempotent or does not reparse to the same program.
Every such input is saved under --out with what happened. Hangs are found
by a watchdog reading each worker's CPU time, so a loaded machine does not
make slow inputs look hung.

The result of a call is printed by `hale run`'s own function, so a value
that run prints without fault is not counted. Each saved input's .txt names
its input number and its seed's genome root; `--replay DIR` runs every input
saved in DIR again through this checkout and says which still fail (the
watchdog is not used there: a hang is judged by a run).

    nice -n 10 .venv/bin/python bench/fuzz.py [--inputs N] [--workers W] [--seed S]
    .venv/bin/python bench/fuzz.py --replay bench/fuzz-crashes
"""

from __future__ import annotations

import argparse
import hashlib
import multiprocessing as mp
import os
import random
import re
import resource
import sys
import time
import traceback
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

HANG_CPU_SECONDS = 5.0
HANG_WALL_SECONDS = 120.0  # a worker that uses no CPU for this long is stuck too
STEP_BUDGET = 2_000
MEMORY_LIMIT = 2 << 30  # per worker: a runaway input gets MemoryError, not the machine
KINDS = ("inputs", "parsed", "checked", "ran", "formatted", "internal", "traceback", "hang")
KINDS += ("fmt_not_idempotent", "fmt_changed_program")
SLOT = {k: i for i, k in enumerate(KINDS)}

# --- seeds and mutations ---------------------------------------------------------


def seeds() -> list[tuple[str, str, str]]:
    """(genome root, module path, text) of every shipped or fixture `.hl` file."""
    from hale_lang.roots import genome_root

    out = []
    skip = {".git", ".venv", "build", "fuzz-crashes"}
    for file in sorted(REPO.rglob("*.hl")):
        if skip & set(file.relative_to(REPO).parts):
            continue
        root = genome_root(file)
        out.append((str(root), file.relative_to(root).as_posix(), file.read_text()))
    return out


TOKEN = re.compile(
    r'//[^\n]*|"(?:\\.|[^"\\\n])*"|[A-Za-z_][A-Za-z0-9_]*|[0-9][0-9_]*'
    r"|::|->|==|!=|<=|>=|&&|\|\||[-+*/%]=|\s+|.",
    re.S,
)
POOL = (
    "fn const struct import host type let if else while for in break continue return true "
    "false as { } ( ) [ ] ; : , . = + - * / % == != < <= > >= && || ! :: -> += "
    "x xs Int String Bool List Map Json Void __x dna elif 0 1 1_ 1__0 007 "
).split() + ['""', '"a"', '"\\q"', '"\\u{110000}"', '"{}"', "9" * 30, "'a'", "#", "é", '"']
ALPHABET = "{}()[];:,.=<>!&|+-*/%_\"'\\/ \n\t0123456789axyzIS#é\x00\u2028"
# sizes for most inputs, and for the few (HUGE_SHARE) that stress the limits:
# a huge input costs as much as a hundred ordinary ones
DEPTHS, HUGE_DEPTHS = (3, 3, 10, 10, 30, 100), (300, 1000, 3000)
REPEATS, HUGE_REPEATS = (2, 2, 3, 5, 10), (50, 200, 1000)
DIGITS, HUGE_DIGITS = (10, 30, 300), (4300, 5000, 100_000)
HUGE_SHARE = 0.03
# A mutation that would make the input longer than this is not made: past it
# an input only measures the parser's linear speed (20 MB, a huge repetition
# of a huge number, take some 10 s of CPU through parse, check and fmt twice).
MAX_INPUT = 1 << 20


def nested(rng: random.Random, d: int) -> str:
    """An expression or statements nested `d` deep."""
    return rng.choice(
        [
            "(" * d + "1" + ")" * d,
            "[" * d + "]" * d,
            "f(" * d + ")" * d,
            "-" * d + "1",
            "!" * d + "true",
            " + ".join(["1"] * d),
            " && ".join(["true"] * d),
            "x" + ".a" * d,
            "x" + "[0]" * d,
            '{"a": ' * d + "1" + "}" * d,
            "if true { " * d + "x = 1; " + "} " * d,
            "while false { " * d + "} " * d,
            "for i in [1] { " * d + "} " * d,
            "9" * (d * 10),
            '"' + "ab" * (d * 20) + '"',
        ]
    )


GROWERS = [
    "fn grow() -> Int {{ let x = 3; let i = 0; while i < {n} {{ x = x * x; i += 1; }} return x; }}",
    'fn grow() -> String {{ let s = "ab"; let i = 0; while i < {n} {{ s = s + s; i += 1; }} return s; }}',
    "fn grow() -> List<Int> {{ let xs = [1]; let i = 0; while i < {n} {{ xs = xs.concat(xs); i += 1; }} return xs; }}",
    "fn grow() -> Int {{ return grow() + {n}; }}",
    "fn grow() -> Int {{ let x = 2; return x * x * x * x * x * x * x * x * {n}; }}",
    "fn grow() -> String {{ return to_string({big}); }}",
    'fn grow() -> Int {{ return to_int("{big}"); }}',
    'fn grow() -> String {{ return format("{{}}", {big}); }}',
    'fn grow() -> Json {{ return json_parse("{deep}"); }}',
    'fn grow() -> String {{ return json_str(json_parse("{deep}")); }}',
    'fn grow() -> Map<String, Int> {{ let m = {{"a": 1}}; let i = 0; while i < {n} {{ m.insert(to_string(i), i); i += 1; }} return m; }}',
    "fn grow() -> Int {{ let i = 0; while true {{ i += 1; }} return i; }}",
]


def tokens(text: str) -> list[str]:
    return TOKEN.findall(text)


def mutate(rng: random.Random, text: str, others: list[str], huge: bool) -> str:
    depth = rng.choice(HUGE_DEPTHS if huge else DEPTHS)
    op = rng.randrange(12)
    if op <= 2 or not text:  # characters
        at = rng.randrange(len(text) + 1)
        ch = rng.choice(ALPHABET)
        return (
            text[:at] + ch + text[at:],
            text[:at] + text[at + 1 :],
            text[:at] + ch + text[at + 1 :],
        )[op % 3 if text else 0]
    toks = tokens(text)
    i = rng.randrange(len(toks))
    if op == 3:
        del toks[i]
    elif op == 4:
        toks.insert(i, toks[i])
    elif op == 5 and i + 1 < len(toks):
        toks[i], toks[i + 1] = toks[i + 1], toks[i]
    elif op == 6:
        toks[i] = rng.choice(POOL) + rng.choice(["", " "])
    elif op == 7:  # repeat a run of tokens
        j = min(len(toks), i + rng.randint(1, 20))
        toks[i:j] = toks[i:j] * rng.choice(HUGE_REPEATS if huge else REPEATS)
    elif op == 8:  # splice a piece of another seed
        other = tokens(rng.choice(others)) or [""]
        a = rng.randrange(len(other))
        toks[i:i] = other[a : a + rng.randint(1, 40)]
    elif op == 9:  # a nested construct somewhere
        toks.insert(i, nested(rng, depth))
    elif op == 10:  # a nested construct where it parses: a function's body
        body = nested(rng, depth)
        stmt = body if body.startswith(("if", "while", "for")) else f"let y = {body};"
        toks.append(f"\nfn nest() {{ let x = 1; {stmt} }}\n")
    else:  # a function that grows a value without bound
        grower = rng.choice(GROWERS)
        n = rng.choice((10, 40, 100, 10_000))
        big = "9" * rng.choice(HUGE_DIGITS if huge else DIGITS)
        deep = "[" * depth + "]" * depth
        toks.append("\n" + grower.format(n=n, big=big, deep=deep) + "\n")
    return "".join(toks)


def make_input(seed: int, k: int, pool: list[tuple[str, str, str]]) -> tuple[str, str, str]:
    """Input number k: (genome root, module path, text), the same every time."""
    rng = random.Random(seed * 1_000_003 + k)
    root, path, text = rng.choice(pool)
    texts = [t for _, _, t in pool]
    huge = rng.random() < HUGE_SHARE
    for _ in range(rng.choice((1, 1, 2, 3))):
        grown = mutate(rng, text, texts, huge)
        text = grown if len(grown) <= MAX_INPUT else text
    return root, path, text


# --- one input through the toolchain ---------------------------------------------


ARGS_BY_TYPE = {"Int": 3, "String": "a", "Bool": True, "Json": {"a": [1]}}


def run_one(root: str, path: str, text: str, cache) -> list[tuple[str, str]]:
    """What happened to one input: a list of (kind, detail) to count."""
    from hale_lang.checker import check
    from hale_lang.loader import Loader

    out: list[tuple[str, str]] = []
    try:
        program = Loader(root, cache, texts={path: text}).load(path)
        module = program.modules.get(path)
        if module is not None and not module.errors:
            out.append(("parsed", ""))
        diags = program.diagnostics + check(program)
    except Exception:
        return [("internal", "check: " + traceback.format_exc())]
    out += _internal_diagnostics(diags, "check")
    if not any(d.is_error for d in diags):
        out.append(("checked", ""))
        out += _compile_and_run(program, path)
    if module is not None and not module.errors:
        out += _format(text, path)
    return out


def _internal_diagnostics(diags, stage: str) -> list[tuple[str, str]]:
    return [("internal", f"{stage}: {d.code} {d.message}") for d in diags if d.code == "E0499"]


def _compile_and_run(program, path: str) -> list[tuple[str, str]]:
    from hale_lang.compiler import compile_program
    from hale_lang.diagnostics import HaleError
    from hale_lang.program import Program
    from hale_runtime.cli.lang import result_text

    try:
        built = Program(compile_program(program), program.sources, [], None, STEP_BUDGET)
    except HaleError as e:
        return _internal_diagnostics(e.diagnostics, "load")
    except Exception:
        return [("internal", "compile: " + traceback.format_exc())]
    out: list[tuple[str, str]] = [("ran", "")]
    for item in program.modules[path].items[:50]:
        args = _arguments(item)
        if args is None:
            continue
        try:
            result_text(built.call_json(path, item.name, args), item.name)  # as `hale run` prints
        except HaleError as e:
            out += _internal_diagnostics(e.diagnostics, f"run {item.name}")
        except Exception:
            out.append(("internal", f"run {item.name}: " + traceback.format_exc()))
        if len(out) > 3:
            break
    return out


def _arguments(item) -> list | None:
    from hale_lang import nodes as n

    if not isinstance(item, n.FnDecl):
        return None
    args = []
    for p in item.params:
        head = p.type.path[-1]
        if head in ARGS_BY_TYPE:
            args.append(ARGS_BY_TYPE[head])
        elif head == "List":
            args.append([])
        elif head == "Map":
            args.append({})
        else:
            return None  # a struct or host value: not made up here
    return args


def _format(text: str, path: str) -> list[tuple[str, str]]:
    from hale_lang.formatter import format_source
    from hale_runtime.cli.fmt import _same_program

    try:
        once = format_source(text, path)
        twice = format_source(once, path)
        same = _same_program(text, once, path)
    except Exception:
        return [("traceback", "fmt: " + traceback.format_exc())]
    out = [("formatted", "")]
    if twice != once:
        out.append(("fmt_not_idempotent", "fmt(fmt(x)) != fmt(x)"))
    if not same:
        out.append(("fmt_changed_program", "the formatted text is another program"))
    return out


# --- workers and the watchdog -------------------------------------------------------

BAD = ("internal", "traceback", "hang", "fmt_not_idempotent", "fmt_changed_program")


def signature(kind: str, detail: str) -> str:
    """What makes two failures the same bug: the kind, the innermost frame
    and the exception's type (or the diagnostic's code and first words)."""
    lines = detail.strip().splitlines()
    frames = [x.strip() for x in lines if x.strip().startswith("File ")]
    last = lines[-1] if lines else ""
    return f"{kind} | {frames[-1] if frames else lines[0][:60] if lines else ''} | {last.split(':')[0][:80]}"


def save(out: Path, kind: str, root: str, path: str, text: str, detail: str) -> None:
    """The input beside what happened; its seed's genome root is written
    from the repository, so --replay finds it in another checkout."""
    digest = hashlib.sha256(text.encode()).hexdigest()[:12]
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{kind}-{digest}.hl").write_text(text)
    where = Path(root).relative_to(REPO).as_posix()
    (out / f"{kind}-{digest}.txt").write_text(f"seed file: {where} :: {path}\n\n{detail}\n")


def replay(folder: str) -> int:
    """Each saved input again, through this checkout: what still fails."""
    from hale_lang.cache import ParseCache

    failing = 0
    for hl in sorted(Path(folder).glob("*.hl")):
        head = hl.with_suffix(".txt").read_text().splitlines()[0]
        where, path = head.removeprefix("seed file: ").split(" :: ")
        happened = run_one(str(REPO / where), path, hl.read_text(), ParseCache())
        bad = sorted({kind for kind, _ in happened if kind in BAD})
        failing += bool(bad)
        print(f"{hl.name}: {', '.join(bad) or 'fixed'}")
    print(f"{failing} of {len(list(Path(folder).glob('*.hl')))} saved inputs still fail")
    return 1 if failing else 0


def worker(seed: int, ks: range, current, counts, out: str) -> None:
    from hale_lang.cache import ParseCache

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    pool = seeds()
    cache = ParseCache()
    saved: dict[str, int] = {}  # a few inputs for each signature, not every one
    for k in ks:
        current.value = k
        root, path, text = make_input(seed, k, pool)
        if len(cache._trees) > 256:
            cache = ParseCache()
        kinds = set()
        for kind, detail in run_one(root, path, text, cache):
            if kind in kinds:
                continue
            kinds.add(kind)
            counts[SLOT[kind]] += 1
            sig = signature(kind, detail) if kind in BAD else ""
            if kind in BAD and saved.get(sig, 0) < 3:
                saved[sig] = saved.get(sig, 0) + 1
                save(Path(out), kind, root, path, text, f"input {k}: {sig}\n\n{detail}")
        counts[SLOT["inputs"]] += 1
    current.value = -1


def cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Slot:
    """One worker process over its share of the inputs, restarted past a hang."""

    def __init__(self, seed: int, ks: range, out: str):
        self.seed, self.ks, self.out = seed, ks, out
        self.counts = mp.Array("q", len(KINDS), lock=False)  # this worker's alone
        self.current = mp.Value("q", -2, lock=False)
        self.start(ks)

    def start(self, ks: range) -> None:
        self.ks = ks
        self.current.value = -2
        args = (self.seed, ks, self.current, self.counts, self.out)
        self.proc = mp.Process(target=worker, args=args, daemon=True)
        self.proc.start()
        self.seen, self.since_cpu, self.since_wall = -2, cpu_seconds(self.proc.pid), time.time()

    def poll(self, pool) -> bool:
        """Watch the worker; False once its share is done."""
        k = self.current.value
        if not self.proc.is_alive():
            if k == -1 or (self.proc.exitcode == 0 and k >= 0):
                return False
            self.lost(pool, k, "traceback", f"the worker died (exit code {self.proc.exitcode})")
            return self.resume(k)
        if k != self.seen:
            self.seen, self.since_cpu, self.since_wall = k, cpu_seconds(self.proc.pid), time.time()
            return True
        cpu = cpu_seconds(self.proc.pid) - self.since_cpu
        if k >= 0 and (cpu > HANG_CPU_SECONDS or time.time() - self.since_wall > HANG_WALL_SECONDS):
            self.proc.kill()
            self.proc.join()
            self.lost(pool, k, "hang", f"more than {HANG_CPU_SECONDS:.0f} s of CPU")
            return self.resume(k)
        return True

    def lost(self, pool, k: int, kind: str, detail: str) -> None:
        root, path, text = make_input(self.seed, k, pool)
        self.counts[SLOT[kind]] += 1
        self.counts[SLOT["inputs"]] += 1
        save(Path(self.out), kind, root, path, text, f"input {k}: {detail}")

    def resume(self, k: int) -> bool:
        rest = range(k + self.ks.step, self.ks.stop, self.ks.step)
        if not rest:
            return False
        self.start(rest)
        return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inputs", type=int, default=10_000)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--start", type=int, default=0, help="the first input number")
    parser.add_argument("--out", default=str(REPO / "bench" / "fuzz-crashes"))
    parser.add_argument("--every", type=float, default=60.0, help="seconds between progress lines")
    parser.add_argument("--replay", metavar="DIR", help="run the inputs saved in DIR again, only")
    args = parser.parse_args()
    if args.replay:
        return replay(args.replay)
    pool = seeds()
    stop = args.start + args.inputs
    slots = [
        Slot(args.seed, range(args.start + w, stop, args.workers), args.out)
        for w in range(args.workers)
    ]
    began = last = time.time()
    live = list(slots)
    while live:
        time.sleep(0.2)
        live = [s for s in live if s.poll(pool)]
        if time.time() - last > args.every:
            last = time.time()
            print(report(slots, time.time() - began), flush=True)
    print(report(slots, time.time() - began))
    print(f"seeds: {len(pool)} files; crashing inputs saved under {args.out}")
    return 1 if any(s.counts[SLOT[k]] for s in slots for k in BAD) else 0


def report(slots: list[Slot], seconds: float) -> str:
    c = {k: sum(s.counts[SLOT[k]] for s in slots) for k in KINDS}
    rate = c["inputs"] / seconds if seconds else 0.0
    return (
        f"{c['inputs']:,} inputs in {seconds:,.0f} s ({rate:,.0f}/s): "
        f"internal errors {c['internal']}, tracebacks {c['traceback']}, hangs {c['hang']}, "
        f"fmt not idempotent {c['fmt_not_idempotent']}, fmt changed the program "
        f"{c['fmt_changed_program']} | parsed {c['parsed']:,}, checked clean {c['checked']:,}, "
        f"ran {c['ran']:,}, formatted {c['formatted']:,}"
    )


if __name__ == "__main__":
    raise SystemExit(main())

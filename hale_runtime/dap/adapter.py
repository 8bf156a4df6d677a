"""`hale dap`: a Debug Adapter Protocol server over stdio, stepping one genome fn.

The adapter drives the TUI debugger's own machinery (hale_runtime/tui/stepping.py):
`launch` builds the genome and calls the fn named by `program`
(`dna/org/sums.hl:total`) with the `args` given (JSON), with the language's
debug hooks on, recording every statement and return as a TraceFrame
(where, the call stack, each local already written in Hale's syntax by
hale_lang/show.py). A Stepper then walks that recording, so every request
after `launch` reads memory only: `next` is the Stepper's `over`, `stepIn`
its `step`, `stepOut` its `out`, `continue` runs to the next breakpoint
(or to the end, which ends the session), and since the run is recorded,
`stepBack` and `reverseContinue` walk it backwards.

The stack of a frame is rebuilt from the recording: the frame itself, then,
for each shallower depth, the last statement recorded at that depth before
it (the call being made), with the locals it had then. Frame ids are those
depths, so a scope's variables reference is its frame's id.

Messages are framed as LSP's are (`Content-Length` headers); one thread
reads and answers in order, since nothing runs in the background.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, BinaryIO

from hale_lang.roots import genome_root
from hale_runtime import errors
from hale_runtime.tui.stepping import Stepper, Trace, TraceFrame, parse_target, record_fn

THREAD = 1


class LaunchRefused(errors.Refused):
    """A launch that cannot start; the message names the fix."""


class Adapter:
    def __init__(self, inp: BinaryIO, out: BinaryIO):
        self.inp, self.out = inp, out
        self.seq = 0
        self.root = Path.cwd()
        self.trace: Trace | None = None
        self.stepper: Stepper | None = None
        self.breakpoints: dict[str, set[int]] = {}  # a source's path, as sent -> lines
        self.stop_on_entry = True
        self.done = False

    # --- the wire ------------------------------------------------------------------

    def read(self) -> dict | None:
        length = None
        while True:
            line = self.inp.readline()
            if not line:
                return None
            if line in (b"\r\n", b"\n"):
                break
            name, _, value = line.decode("ascii", "replace").partition(":")
            if name.strip().lower() == "content-length":
                length = int(value)
        if length is None:
            return None
        return json.loads(self.inp.read(length))

    def send(self, message: dict) -> None:
        self.seq += 1
        body = json.dumps({"seq": self.seq, **message}, ensure_ascii=False).encode()
        self.out.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.out.flush()

    def event(self, name: str, body: dict | None = None) -> None:
        self.send({"type": "event", "event": name, "body": body or {}})

    def respond(self, req: dict, body: Any = None, error: str = "") -> None:
        message = {
            "type": "response",
            "request_seq": req["seq"],
            "command": req["command"],
            "success": not error,
        }
        if error:
            message["message"] = error
            message["body"] = {"error": {"id": 1, "format": error, "showUser": True}}
        elif body is not None:
            message["body"] = body
        self.send(message)

    def serve(self) -> int:
        while not self.done:
            req = self.read()
            if req is None:
                return 0
            if req.get("type") != "request":
                continue
            handler = getattr(self, "do_" + req.get("command", ""), None)
            if handler is None:
                self.respond(req, error=f"hale dap does not support `{req.get('command')}`")
                continue
            try:
                handler(req, req.get("arguments") or {})
            except (LaunchRefused, ValueError, KeyError, TypeError) as e:  # a bad request
                self.respond(req, error=str(e))
        return 0

    # --- the session ---------------------------------------------------------------

    def do_initialize(self, req: dict, args: dict) -> None:
        self.respond(
            req,
            {
                "supportsConfigurationDoneRequest": True,
                "supportsStepBack": True,
                "supportsTerminateRequest": True,
            },
        )
        self.event("initialized")

    def do_launch(self, req: dict, args: dict) -> None:
        program = str(args.get("program") or "")
        if not program:
            raise LaunchRefused('launch needs "program": "<file.hl>:<fn>"')
        path, fn = parse_target(program)
        cwd = Path(args.get("cwd") or Path.cwd())
        file = Path(path) if Path(path).is_absolute() else cwd / path
        self.root = genome_root(file).resolve()
        target = f"{file.resolve().relative_to(self.root).as_posix()}:{fn}"
        texts = [
            json.dumps(a) for a in args.get("args") or []
        ]  # JSON values, as launch.json holds them
        from hale_lang.diagnostics import HaleError

        try:
            self.trace = record_fn(self.root, target, texts)
        except HaleError as e:
            raise LaunchRefused(f"{program}: {e}") from None
        self.stop_on_entry = bool(args.get("stopOnEntry", False))
        self.stepper = Stepper(self.trace, self._marks())
        self.respond(req)

    def do_setBreakpoints(self, req: dict, args: dict) -> None:
        source = args.get("source") or {}
        raw = str(source.get("path") or source.get("name") or "")
        module = self._module(raw)
        lines = [int(b["line"]) for b in args.get("breakpoints") or []]
        self.breakpoints[raw] = set(lines)
        reached = {f.line for f in (self.trace.frames if self.trace else ()) if f.path == module}
        out = []
        for line in lines:
            ok = self.trace is None or line in reached
            b = {"verified": ok, "line": line, "source": source}
            if not ok:
                b["message"] = "this run never reaches that line"
            out.append(b)
        if self.stepper is not None:
            self.stepper.breakpoints = self._marks()
        self.respond(req, {"breakpoints": out})

    def do_setExceptionBreakpoints(self, req: dict, args: dict) -> None:
        self.respond(req, {"breakpoints": []})

    def do_configurationDone(self, req: dict, args: dict) -> None:
        self.respond(req)
        st = self.stepper
        if st is None or not st.trace.frames:  # a launch refused, or nothing ran
            self._finish()
        elif self.stop_on_entry:
            self._stopped("entry")
        elif st.on_breakpoint(st.frame) or st.continue_():
            self._stopped("breakpoint")
        else:
            self._finish()

    def do_threads(self, req: dict, args: dict) -> None:
        self.respond(req, {"threads": [{"id": THREAD, "name": "hale"}]})

    def do_stackTrace(self, req: dict, args: dict) -> None:
        frames = []
        for depth, f in self._stack():
            frames.append(
                {
                    "id": depth,
                    "name": f.fn,
                    "line": f.line,
                    "column": 1,
                    "source": self._source(f.path),
                }
            )
        self.respond(req, {"stackFrames": frames, "totalFrames": len(frames)})

    def do_scopes(self, req: dict, args: dict) -> None:
        ref = int(args["frameId"])
        scope = {"name": "Locals", "variablesReference": ref, "expensive": False}
        self.respond(req, {"scopes": [scope]})

    def do_variables(self, req: dict, args: dict) -> None:
        frame = dict(self._stack()).get(int(args["variablesReference"]))
        out = []
        if frame is not None:
            out = [{"name": k, "value": v, "variablesReference": 0} for k, v in frame.locals]
            if frame.event == "return":
                out.append({"name": "(returned)", "value": frame.value, "variablesReference": 0})
        self.respond(req, {"variables": out})

    def do_next(self, req: dict, args: dict) -> None:
        self._move(req, lambda st: st.over())

    def do_stepIn(self, req: dict, args: dict) -> None:
        self._move(req, lambda st: _step(st, 1))

    def do_stepOut(self, req: dict, args: dict) -> None:
        self._move(req, lambda st: st.out())

    def do_continue(self, req: dict, args: dict) -> None:
        self.respond(req, {"allThreadsContinued": True})
        st = self._stepper()
        if st.breakpoints and st.continue_():
            self._stopped("breakpoint")
        else:
            self._finish()

    def do_stepBack(self, req: dict, args: dict) -> None:
        self._move(req, lambda st: st.over(forward=False), back=True)

    def do_reverseContinue(self, req: dict, args: dict) -> None:
        self.respond(req)
        st = self._stepper()
        if not (st.breakpoints and st.continue_(forward=False)):
            st.pos = 0
            self._stopped("entry")
        else:
            self._stopped("breakpoint")

    def do_pause(self, req: dict, args: dict) -> None:
        self.respond(req)
        self._stopped("pause")

    def do_terminate(self, req: dict, args: dict) -> None:
        self.respond(req)
        self._finish()

    def do_disconnect(self, req: dict, args: dict) -> None:
        self.respond(req)
        self.done = True

    # --- helpers -------------------------------------------------------------------

    def _stepper(self) -> Stepper:
        if self.stepper is None:
            raise LaunchRefused("nothing is launched: send `launch` first")
        return self.stepper

    def _move(self, req: dict, how, back: bool = False) -> None:
        self.respond(req)
        st = self._stepper()
        if how(st):
            self._stopped("step")
        elif back:
            self._stopped("entry")
        else:
            self._finish()

    def _stopped(self, reason: str) -> None:
        body = {"reason": reason, "threadId": THREAD, "allThreadsStopped": True}
        self.event("stopped", body)

    def _finish(self) -> None:
        trace = self.trace
        if trace is not None:
            text = f"error: {trace.error}" if trace.error else f"returned {trace.result}"
            self.event("output", {"category": "console", "output": text + "\n"})
        self.event("exited", {"exitCode": 1 if trace is None or trace.error else 0})
        self.event("terminated")

    def _stack(self) -> list[tuple[int, TraceFrame]]:
        """(depth, frame) from the innermost call out (see the module docstring)."""
        st = self._stepper()
        here = st.frame
        if here is None:
            return []
        out, want = [(here.depth, here)], here.depth - 1
        for f in reversed(st.trace.frames[: st.pos]):
            if want < 1:
                break
            if f.depth == want and f.event == "line":
                out.append((want, f))
                want -= 1
        return out

    def _marks(self) -> list[tuple[str, int]]:
        return [(self._module(raw), n) for raw, lines in self.breakpoints.items() for n in lines]

    def _module(self, path: str) -> str:
        p = Path(path)
        if p.is_absolute() and p.resolve().is_relative_to(self.root):
            return p.resolve().relative_to(self.root).as_posix()
        return p.as_posix()

    def _source(self, module: str) -> dict:
        file = self.root / module
        if not file.is_file():
            from hale_lang.loader import STD_PREFIX, STDLIB_DIR

            if module.startswith(STD_PREFIX):
                file = STDLIB_DIR / module[len(STD_PREFIX) :]
        return {"name": Path(module).name, "path": str(file)}


def _step(st: Stepper, delta: int) -> bool:
    before = st.pos
    st.step(delta)
    return st.pos != before


def serve() -> int:
    """Speak DAP on stdin and stdout until the client disconnects."""
    return Adapter(sys.stdin.buffer, sys.stdout.buffer).serve()

"""The application under the host: what `dna/compose.yaml` names, run beside
the organization by `hale dna dev`.

compose.yaml is Docker Compose's file, and Compose ignores top-level keys
that start with `x-`, so the application is `x-application`: a command (a
list of words, or one line for /bin/sh), its working folder (relative to
the project) and its environment. The host starts it in a session of its
own (so it is one process group the fence can kill with everything it
started), guarded by the fence like the organization, right after
asserting the lease. Its standard output and error go straight to a log
under `.git/hale/app/`, opened for appending, so the host is never in the
path of its output and no line is lost if the host dies. When it exits the
host starts it again: at once the first time, then after 1, 2, 4 … up to
60 s while it keeps exiting within `QUICK_S` of starting, so a crash loop
costs a process a minute, not a core. It stops with the node (SIGTERM to
its group, SIGKILL after the grace), at once when the lease is lost.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hale_runtime.errors import Refused

KEY = "x-application"
NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,62}")
FIELDS = ("name", "command", "folder", "environment")
QUICK_S = 10.0  # an exit this soon after starting counts toward the backoff
MOST_BACKOFF_S = 60.0
LOG_ROTATE = 8 << 20  # a log past this many bytes is moved to `.1` at the next start
INSTANCE_ENV, EVENTS_ENV = "HALE_DNA_INSTANCE", "HALE_DNA_EVENTS"


class ApplicationRefused(Refused):
    """dna/compose.yaml names an application that cannot be run; says why."""


@dataclass(frozen=True)
class AppSpec:
    name: str
    argv: tuple[str, ...]
    folder: Path
    environment: dict[str, str] = field(default_factory=dict)

    def shown(self) -> str:
        """The command on one line, cut at 72 characters (a shell script's lines joined)."""
        argv = self.argv
        if argv[:2] == ("/bin/sh", "-c"):
            lines = [line.strip() for line in argv[2].splitlines() if line.strip()]
            argv = ("sh", "-c", "; ".join(lines))
        text = shlex.join(argv)
        return text if len(text) <= 72 else text[:71] + "…"


def read_spec(root: Path) -> AppSpec | None:
    """The application `dna/compose.yaml` names, None when it names none."""
    compose = root / "dna" / "compose.yaml"
    if not compose.is_file():
        return None
    import yaml

    where = "dna/compose.yaml"
    try:
        document = yaml.safe_load(compose.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as error:
        raise ApplicationRefused(f"{where} is not YAML: {_first_line(error)}") from None
    if not isinstance(document, dict) or document.get(KEY) is None:
        return None
    return _spec(root, document[KEY], f"{where}: {KEY}")


def _spec(root: Path, found: Any, where: str) -> AppSpec:
    if not isinstance(found, dict):
        raise ApplicationRefused(f"{where} is a mapping of {', '.join(FIELDS)}")
    unknown = sorted(str(k) for k in found if k not in FIELDS)
    if unknown:
        raise ApplicationRefused(f"{where} has no field {unknown[0]} (it has {', '.join(FIELDS)})")
    name = found.get("name", "app")
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise ApplicationRefused(f"{where}.name is a word of a-z, 0-9 and -, not {name!r}")
    folder = root / str(found.get("folder") or ".")
    if not folder.is_dir():
        raise ApplicationRefused(f"{where}.folder {found.get('folder')!r} is not a folder here")
    return AppSpec(name, _argv(found.get("command"), where), folder, _env(found, where))


def _argv(command: Any, where: str) -> tuple[str, ...]:
    if isinstance(command, str) and command.strip():
        return ("/bin/sh", "-c", command)
    if isinstance(command, list) and command and all(isinstance(w, str) for w in command):
        return tuple(command)
    why = f"{where}.command is a list of words or one line for /bin/sh"
    raise ApplicationRefused(why if command is not None else f"{where} names no command")


def _env(found: dict, where: str) -> dict[str, str]:
    env = found.get("environment") or {}
    if not isinstance(env, dict):
        raise ApplicationRefused(f"{where}.environment is a mapping of names to values")
    out = {}
    for name, value in env.items():
        if not isinstance(name, str) or not isinstance(value, str | int | float | bool):
            raise ApplicationRefused(f"{where}.environment.{name} is a text value")
        out[name] = str(value).lower() if isinstance(value, bool) else str(value)
    return out


def _exit_text(code: int | None) -> str:
    if code is None:
        return "still running"
    return f"killed by signal {-code}" if code < 0 else f"exited with code {code}"


def _first_line(error: Exception) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__


def instance_of(name: str, holder: str) -> str:
    """The instance this node runs of application `name`: `<name>@<holder>`."""
    return f"{name}@{holder}"


class Application:
    """One application run under the host: started, watched, restarted, stopped."""

    def __init__(self, spec: AppSpec, folder: Path, holder: str):
        self.spec, self.holder = spec, holder
        self.instance = instance_of(spec.name, holder)
        folder.mkdir(parents=True, exist_ok=True)
        self.log_path = folder / f"{spec.name}.log"
        self.events_path = folder / f"{spec.name}.events"
        self.proc: subprocess.Popen | None = None
        self.started_at = 0.0
        self.quick_exits = 0
        self.due = 0.0  # monotonic time the next start is due, after an exit
        self.starts = 0
        self._echoed = 0  # bytes of the log already echoed (dev)

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    def start(self, env: dict[str, str]) -> int:
        """Start it in a session of its own, its output appended to the log; its pid."""
        self._rotate()
        self.starts += 1
        self.note(f"starting {self.spec.shown()} in {self.spec.folder} (start {self.starts})")
        child_env = {**env, **self.spec.environment}
        child_env.update({INSTANCE_ENV: self.instance, EVENTS_ENV: str(self.events_path)})
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(
                self.spec.argv,
                cwd=self.spec.folder,
                env=child_env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.started_at = time.monotonic()
        return self.proc.pid

    def exited(self) -> int | None:
        """Its exit code once it has exited (and the next start is scheduled), else None."""
        if self.proc is None or self.proc.poll() is None:
            return None
        code, ran = self.proc.returncode, time.monotonic() - self.started_at
        self.quick_exits = self.quick_exits + 1 if ran < QUICK_S else 0
        wait = 0.0 if self.quick_exits <= 1 else min(MOST_BACKOFF_S, 2.0 ** (self.quick_exits - 2))
        self.due = time.monotonic() + wait
        self.note(f"{_exit_text(code)} after {ran:.1f}s; starting again in {wait:g}s")
        self.proc = None
        return code

    def waiting(self) -> bool:
        """Exited, and its next start is due now."""
        return self.proc is None and time.monotonic() >= self.due

    def stop(self, grace_s: float) -> None:
        from hale_runtime.node import children

        if self.proc is not None:
            code = children.stop(self.proc, grace_s)
            self.note(f"stopped with the node ({_exit_text(code)})")
            self.proc = None

    def note(self, line: str) -> None:
        """A line of the host's own in the application's log."""
        stamp = time.strftime("%Y-%m-%d %H:%M:%SZ", time.gmtime())
        with open(self.log_path, "a", encoding="utf-8") as log:
            log.write(f"[hale {stamp}] {self.spec.name}: {line}\n")

    def new_lines(self) -> list[str]:
        """The log's whole lines written since the last call (what dev echoes)."""
        with contextlib.suppress(FileNotFoundError):
            with open(self.log_path, "rb") as log:
                size = log.seek(0, os.SEEK_END)
                if size < self._echoed:
                    self._echoed = 0  # rotated
                log.seek(self._echoed)
                data = log.read()
            whole = data[: data.rfind(b"\n") + 1]
            self._echoed += len(whole)
            return whole.decode("utf-8", "replace").splitlines()
        return []

    def _rotate(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            if self.log_path.stat().st_size > LOG_ROTATE:
                self.log_path.replace(self.log_path.with_suffix(".log.1"))
                self._echoed = 0

"""The parse cache: a module's syntax tree by the hash of its text.

Parsing dominates a cold build, and a long-lived process (the organization,
the debugger, a test session) parses the same vendored files again and
again. Trees are kept in memory by (path, sha256 of text); an unchanged file
is parsed once per process. Across processes the build cache in `build.py`
keeps whole checked, compiled programs instead, which is cheaper to load
than trees.

Cached trees are shared, so the checker's annotations on them are too: a
module's annotations depend only on its own text and its imports, which the
build key covers.
"""

from __future__ import annotations

import hashlib

from . import nodes as n


class ParseCache:
    _default: ParseCache | None = None

    def __init__(self, limit: int = 512):
        self.limit = limit
        self._trees: dict[tuple[str, str], n.Module] = {}

    @classmethod
    def default(cls) -> ParseCache:
        if cls._default is None:
            cls._default = cls()
        return cls._default

    def parse(self, text: str, path: str) -> n.Module:
        """The module, with its syntax errors on `errors` (see parser.parse_module)."""
        from .parser import parse_module as parse

        key = (path, hashlib.sha256(text.encode()).hexdigest())
        tree = self._trees.get(key)
        if tree is None:
            tree = parse(text, path)
            if len(self._trees) >= self.limit:
                self._trees.pop(next(iter(self._trees)))
            self._trees[key] = tree
        return tree

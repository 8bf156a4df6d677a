"""A lean LALR(1) driver over the parse table Lark builds for our grammar.

Lark's own loop goes through a ParserState object, a callback wrapper per
reduction and attribute chains per action. Here the table is flattened once
into plain dicts: per state, terminal -> ("shift", next state) or a reduction
(size, nonterminal, callback), and per state the goto on each nonterminal.
Unit reductions of `?rule`s (one child, no alias), about half of all the
reductions an expression makes through the precedence ladder, pass their
child up with no call at all (only the top state changes), and a chain of
them is one table lookup (`_chase`). Every other
reduction calls Lark's own callback for the rule, so placeholders, inlined
`_rules` and our transformer behave exactly as under `Lark.parse`; only an
inlined rule's result is lighter than Lark's Tree (`_Expanded`). Symbol
names are plain interned strings: Lark's are Tokens, whose Python-level
`__eq__` a dict lookup would call at every goto.

Errors are raised as Lark's UnexpectedToken, which `syntax_errors.py` turns
into a diagnostic, unless a recovery is given (`recovery.py`): then the
driver hands it the stacks and the token stream at each error and goes on
from the token it returns. The happy path pays nothing for that: recovery
lives entirely in the branch taken on a missing action.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from functools import partial
from typing import Any

from lark import Token
from lark.exceptions import UnexpectedToken
from lark.parse_tree_builder import ChildFilterLALR, ChildFilterLALR_NoPlaceholders
from lark.parsers.lalr_analysis import Shift

END = "$END"


class Driver:
    def __init__(self, lark: Any, start: str = "start"):
        parser = lark.parser.parser.parser  # ParsingFrontend -> LALR_Parser -> _Parser
        table, callbacks = parser.parse_table, parser.callbacks
        self.start_state = table.start_states[start]
        self.end_state = table.end_states[start]
        self.actions: dict[Any, dict[str, tuple[bool, Any]]] = {}
        self.gotos: dict[Any, dict[str, Any]] = {}
        reductions: dict[Any, tuple[int, str, Callable | None]] = {}
        for state, row in table.states.items():
            acts, gotos = {}, {}
            for symbol, (action, arg) in row.items():
                if action is Shift:
                    symbol = sys.intern(str(symbol))
                    (acts if symbol.isupper() or symbol == END else gotos)[symbol] = (True, arg)
                else:
                    if arg not in reductions:
                        reductions[arg] = _reduction(arg, callbacks[arg])
                    acts[sys.intern(str(symbol))] = (False, reductions[arg])
            self.actions[state] = acts
            self.gotos[state] = {sys.intern(str(s)): a for s, (_, a) in gotos.items()}
        # the hot loop's table: per state, terminal -> (SHIFT, next state),
        # (UNIT, nonterminal) or (CALL, reduction)
        self.hot = {
            state: {t: _hot(shift, arg) for t, (shift, arg) in acts.items()}
            for state, acts in self.actions.items()
        }
        self.chase = self._chase()

    def _chase(self) -> dict[str, dict[Any, dict[str, Any]]]:
        """Unit reductions run in chains (an operand climbs `atom`, `primary`,
        `postfix_e`, … in turn), each only changing the top state: the state
        below stays, so where a chain ends is known in advance. Per unit
        nonterminal, per state below it, per lookahead: the top state once
        the whole chain has run (stopping at the end state on END, as the
        loop does, and where the next action is not a unit reduction)."""
        units = {arg for acts in self.hot.values() for what, arg in acts.values() if what is UNIT}
        terminals = {kind for acts in self.hot.values() for kind in acts}
        chase: dict[str, dict[Any, dict[str, Any]]] = {}
        for below, gotos in self.gotos.items():
            for origin in units.intersection(gotos):
                ends = {}
                for kind in terminals:  # those with no action here too: the loop refuses them
                    state = gotos[origin]
                    while not (state == self.end_state and kind == END):
                        action = self.hot[state].get(kind)
                        if action is None or action[0] is not UNIT:
                            break
                        state = self.gotos[below][action[1]]
                    ends[kind] = state
                chase.setdefault(origin, {})[below] = ends
        return chase

    def parse(self, tokens: Iterable[Token], recovery: Any = None, ended: bool = False) -> Any:
        """The tree of `tokens`, which end with an END token if `ended`."""
        hot, gotos, chase, end_state = self.hot, self.gotos, self.chase, self.end_state
        states, values = [self.start_state], []
        stream = iter(tokens) if ended else _with_end(tokens)
        for tok in stream:
            kind = tok.type
            while True:
                try:
                    what, arg = hot[states[-1]][kind]
                except KeyError:
                    if recovery is None:
                        raise UnexpectedToken(tok, self.accepts(states)) from None
                    tok = recovery.resume(states, values, tok, stream)
                    kind = tok.type
                    continue
                if what is SHIFT:
                    states.append(arg)
                    values.append(tok)
                    break
                if what is UNIT:  # one child passed up: only the top state changes
                    state = chase[arg][states[-2]][kind]  # the whole chain at once
                    if state == end_state and kind == END:
                        return values[-1]
                    states[-1] = state
                    continue
                size, origin, callback = arg
                if size:
                    children = values[-size:]
                    del states[-size:]
                    del values[-size:]
                else:
                    children = []
                values.append(callback(children))
                state = gotos[states[-1]][origin]
                if state == end_state and kind == END:
                    return values[-1]
                states.append(state)
        raise AssertionError("the token stream ended without $END")  # pragma: no cover

    def accepts(self, states: list) -> set[str]:
        """The terminals that would be shifted from here after any reductions
        (LALR tables reduce on lookaheads that fail later; those don't count)."""
        return {t for t in self.actions[states[-1]] if self.shifts(states, t)}

    def shifts(self, states: list, terminal: str, depth: int | None = None) -> bool:
        """Would `terminal` be shifted from here (from the stack's first
        `depth` states, if given), after any reductions?"""
        k = len(states) if depth is None else depth
        return self._simulate(states, k, [], terminal) is not None

    def shifts_after(self, states: list, first: str, then: str) -> bool:
        """Would `then` be shifted once `first` had been?"""
        at = self._simulate(states, len(states), [], first)
        if at is None:
            return False
        k, extra = at
        top = extra[-1] if extra else states[k - 1]
        extra.append(self.actions[top][first][1])
        return self._simulate(states, k, extra, then) is not None

    def feed(self, states: list, values: list, tok: Token) -> None:
        """Reduce and shift one token the table accepts here (for recovery;
        the same steps as `parse`, out of its hot loop)."""
        while True:
            shift, arg = self.actions[states[-1]][tok.type]
            if shift:
                states.append(arg)
                values.append(tok)
                return
            size, origin, callback = arg
            children = values[-size:] if size else []
            if size:
                del states[-size:]
                del values[-size:]
            values.append(children[0] if callback is None else callback(children))
            states.append(self.gotos[states[-1]][origin])

    def _simulate(self, states: list, k: int, extra: list, terminal: str):
        """Run the reductions `terminal` causes on a virtual stack, the first
        `k` states of `states` plus `extra` above them, touching neither:
        (k, extra) as they stand just before its shift, or None when it is
        not accepted. Costs the reductions made, not the stack's depth."""
        actions, gotos = self.actions, self.gotos
        while True:
            top = extra[-1] if extra else states[k - 1]
            action = actions[top].get(terminal)
            if action is None:
                return None
            shift, arg = action
            if shift:
                return k, extra
            size, origin, _ = arg
            if size > len(extra):
                k -= size - len(extra)
                extra = []
            elif size:
                extra = extra[:-size]
            state = gotos[extra[-1] if extra else states[k - 1]][origin]
            if terminal == END and state == self.end_state:
                return k, extra
            extra = [*extra, state]


SHIFT, UNIT, CALL = "shift", "unit", "call"


def _hot(shift: bool, arg: Any) -> tuple[str, Any]:
    if shift:
        return SHIFT, arg
    size, origin, callback = arg
    return (UNIT, origin) if callback is None else (CALL, arg)


class _Expanded:
    """What an inlined `_rule` reduces to: its children, for the rule above it
    to take in (Lark's ChildFilter reads only `.children`); lighter than the
    Tree Lark's default callback builds through three calls."""

    __slots__ = ("children",)

    def __init__(self, children: list):
        self.children = children


def _append_to_first(children: list) -> _Expanded:
    """`_r: _r x`, a repetition growing: the left one takes x in place."""
    first = children[0]
    first.children.append(children[1])
    return first


def _fast(rule: Any, callback: Callable) -> Callable:
    """The callback of an inlined `_rule` without a default Tree (see
    _Expanded), and Lark's child filters as one list display each."""
    inlined = rule.origin.name.startswith("_") and rule.alias is None
    if inlined and isinstance(callback, partial) and _is_default(callback):
        return _Expanded
    if type(callback) in (ChildFilterLALR, ChildFilterLALR_NoPlaceholders):
        builder = callback.node_builder
        if inlined and _is_default(builder):
            if callback.to_include == [(0, True), (1, False)] and len(rule.expansion) == 2:
                return _append_to_first
            builder = _Expanded
        return _filter(callback, builder)
    return callback


def _is_default(f: Any) -> bool:
    return isinstance(f, partial) and f.func.__name__ == "default_callback"


def _filter(callback: Any, builder: Callable) -> Callable:
    """What Lark's ChildFilter does, looping over its plan at every
    reduction: the kept children, an inlined rule's spliced in, and None for
    each `[item]` left out, written once as a list display (the plan comes
    from the grammar, so `eval` sees nothing but indices)."""
    parts: list[str] = []
    for entry in callback.to_include:
        i, expand, nones = entry if len(entry) == 3 else (*entry, 0)
        parts += ["None"] * nones
        parts.append(f"*c[{i}].children" if expand else f"c[{i}]")
    parts += ["None"] * getattr(callback, "append_none", 0)
    return eval(f"lambda c: f([{', '.join(parts)}])", {"f": builder})  # noqa: S307


def _reduction(rule: Any, callback: Callable) -> tuple[int, str, Callable | None]:
    callback = _fast(rule, callback)
    size = len(rule.expansion)
    unit = rule.options.expand1 and size == 1 and rule.alias is None
    unit = unit and not rule.origin.name.startswith("_")
    unit = unit and not rule.expansion[0].name.startswith("_")
    # plain interned strings: Lark names rules with Tokens, whose Python-level
    # __eq__ every goto lookup would call
    return size, sys.intern(str(rule.origin.name)), None if unit else callback


def _with_end(tokens: Iterable[Token]):
    last = None
    for tok in tokens:
        last = tok
        yield tok
    if last is None:
        yield Token(END, "", 0, 1, 1, 1, 1, 0)
    else:
        yield Token.new_borrow_pos(END, "", last)

"""A lean LALR(1) driver over the parse table Lark builds for our grammar.

Lark's own loop goes through a ParserState object, a callback wrapper per
reduction and attribute chains per action. Here the table is flattened once
into plain dicts: per state, terminal -> ("shift", next state) or a reduction
(size, nonterminal, callback), and per state the goto on each nonterminal.
Unit reductions of `?rule`s (one child, no alias), about half of all the
reductions an expression makes through the precedence ladder, pass their
child up with no call at all. Every other reduction calls Lark's own
callback for the rule, so placeholders, inlined `_rules` and our transformer
behave exactly as under `Lark.parse`.

Errors are raised as Lark's UnexpectedToken, which `syntax_errors.py` turns
into a diagnostic, unless a recovery is given (`recovery.py`): then the
driver hands it the stacks and the token stream at each error and goes on
from the token it returns. The happy path pays nothing for that: recovery
lives entirely in the branch taken on a missing action.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from lark import Token
from lark.exceptions import UnexpectedToken
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
                    (acts if symbol.isupper() or symbol == END else gotos)[symbol] = (True, arg)
                else:
                    if arg not in reductions:
                        reductions[arg] = _reduction(arg, callbacks[arg])
                    acts[symbol] = (False, reductions[arg])
            self.actions[state] = acts
            self.gotos[state] = {s: a for s, (_, a) in gotos.items()}

    def parse(self, tokens: Iterable[Token], recovery: Any = None) -> Any:
        actions, gotos = self.actions, self.gotos
        states, values = [self.start_state], []
        stream = _with_end(tokens)
        for tok in stream:
            kind = tok.type
            while True:
                try:
                    shift, arg = actions[states[-1]][kind]
                except KeyError:
                    if recovery is None:
                        raise UnexpectedToken(tok, self.accepts(states)) from None
                    tok = recovery.resume(states, values, tok, stream)
                    kind = tok.type
                    continue
                if shift:
                    states.append(arg)
                    values.append(tok)
                    break
                size, origin, callback = arg
                if size:
                    children = values[-size:]
                    del states[-size:]
                    del values[-size:]
                else:
                    children = []
                values.append(children[0] if callback is None else callback(children))
                state = gotos[states[-1]][origin]
                if kind == END and state == self.end_state:
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


def _reduction(rule: Any, callback: Callable) -> tuple[int, str, Callable | None]:
    size = len(rule.expansion)
    unit = rule.options.expand1 and size == 1 and rule.alias is None
    unit = unit and not rule.origin.name.startswith("_")
    unit = unit and not rule.expansion[0].name.startswith("_")
    return size, rule.origin.name, None if unit else callback


def _with_end(tokens: Iterable[Token]):
    last = None
    for tok in tokens:
        last = tok
        yield tok
    if last is None:
        yield Token(END, "", 0, 1, 1, 1, 1, 0)
    else:
        yield Token.new_borrow_pos(END, "", last)

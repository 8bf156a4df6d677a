"""Metering a call: work on big values costs steps, live values meet a ceiling.

Steps. A call's budget is one iterator (`_C`, see runtime.py and `steps`); every
loop iteration, and each call that goes on to loop or call, takes one step
from it. A `for` over a range pays for its iterations in advance (`loop`, or
`batches` for one with no loop inside), so it iterates a plain range at C
speed: a short range at once, a long one RANGE_BATCH iterations at a time;
`break` and `return` give back what was paid and not run (`refund`).
Near the end of a budget, a loop's advance can make E0404 come up to
RANGE_BATCH steps early in the loops inside it. Work whose cost grows with
the size of values takes more, charged at once by moving the iterator
(`__setstate__`), so charging a million steps costs as little as one:
- Int `*` by the digit counts of its operands, `/` and `%` by those of the
  quotient and divisor, conversions to and from text by the digits
  (numbers.py has the cost model, in nanoseconds; a step is NS_PER_STEP);
- String concatenation by the length it produces, one step per
  STR_PER_STEP characters; a List's by its length, one per LIST_PER_STEP;
- natives by the length of what they build, the same way.

Generated code decides inline whether an operation is small (Int operands
within 2**62, results shorter than the thresholds below) and calls this
module only for big ones, so small work pays a comparison and nothing more.

Memory. The values a call holds are estimated from the big ones it builds:
every value of BIG_BYTES or more built at an allocation point (the
operations above, the natives) is held in a list, and so is every list or
map of GROWTH elements or more that a `push`, `insert` or `m[k] = v` site
grows, each GROWTH times the site runs (a range loop that grows a local
holds it instead when it starts and at each batch it pays for, so the
site in its body runs with no countdown: `loop(..., watch)`; such a loop's
batches are paced by how much its containers grew per item, `_Pace`, so it
passes the ceiling by about WATCH_BYTES, not by a batch of heavy items). A value is
live while anything but that list refers to it (its reference count says
so); containers are sized by their slots and a sample
of their elements, since they can grow after they are built. A String that
a `s += …` site grows is held once a batch, not at every append, since a
second reference makes CPython copy it at the next append. When
what was built since the last sweep could take the call past its ceiling,
a sweep drops the dead values and totals the live ones; past the ceiling is
E0417 (after one garbage collection, for cycles). Between sweeps the
estimate may run over the ceiling by a slack of an eighth of it, so a call
near its ceiling does not sweep at every allocation. Small values are not
counted: a step builds only so many of them, so the step budget bounds them.

The meter of the running call is per thread (`current()`); natives find it
there. Outside a call a meter with no limits answers.
"""

from __future__ import annotations

import functools
import gc
import itertools
import operator
import sys
import threading
from collections.abc import Iterable, Iterator
from itertools import islice
from operator import length_hint

from .fault import Fault
from .numbers import div_cost, int_text, mul_cost, text_cost
from .sizes import (  # noqa: F401 (the host and the CLI read them here)
    DEFAULT_MAX_MEMORY,
    MEMORY_ENV,
    default_ceiling,
    parse_size,
    size_text,
)

NS_PER_STEP = 50
STR_PER_STEP = 4096
LIST_PER_STEP = 512
BIG_BYTES = 4096
SMALL_INT = 1 << 62  # operands below this multiply and divide for nothing
APPEND_BATCH = 1 << 24  # most characters a `s += …` site appends between charges
APPEND_COUNT = 4096  # most appends of a literal between two charges
RANGE_BATCH = 1024  # a long range loop pays for this many iterations at a time
FIRST_WATCHED = 16  # a loop that grows containers starts with batches this short
WATCH_BYTES = 1 << 18  # most a loop's containers may grow by between two of its checks
GROWTH = 256  # a site that grows a list or map has it held every this many runs
SAMPLE = 8  # elements sampled to size a container
NEST_DEPTH = 32  # levels of containers in containers a size estimate descends (types nest 32)

_getsizeof = sys.getsizeof
_flat = itertools.chain.from_iterable
_getrefcount = sys.getrefcount


class Meter:
    """One call's step budget and memory estimate."""

    __slots__ = (
        "steps_iter",
        "budget",
        "ceiling",
        "held",
        "ids",
        "lens",
        "live",
        "pending",
        "slack",
    )

    def __init__(self, steps, budget: int, ceiling: int):
        self.steps_iter, self.budget, self.ceiling = steps, budget, ceiling
        self.held: list[object] = []
        self.ids: dict[int, int] = {}  # id of a held value -> its size when last counted
        self.lens: dict[int, int] = {}  # id -> length when `grew` last held it
        self.live = self.pending = 0
        self.slack = ceiling

    # --- steps -----------------------------------------------------------------

    def charge(self, steps: int) -> None:
        """Take `steps` more from the budget, or fail with E0404."""
        if steps <= 0:
            return
        it = self.steps_iter
        left = length_hint(it)
        if steps > left:
            it.__setstate__(self.budget)
            raise Fault("E0404", "step limit exceeded", BIG_STEP_HELP.format(steps, left))
        it.__setstate__(self.budget - left + steps)

    def charge_ns(self, ns: int) -> None:
        self.charge(ns // NS_PER_STEP)

    def loop(self, a: int, b: int, watch: tuple = ()) -> Iterator[int]:
        """The items of a range loop, its steps paid in advance: all at once
        for a short range, else RANGE_BATCH at a time. Past the budget the
        iterator raises E0404 where the next step would be taken. The
        containers in `watch` grow in the loop: they are held (`grew`) now
        and at each batch, in place of a countdown at every site."""
        at_once = self._at_once(a, b, watch)
        if at_once is not None:
            return at_once
        chunks = _Batches(self, a, b, watch)
        ranged = _RangeSteps.from_iterable(chunks)
        ranged.batches = chunks
        return ranged

    def items(self, seq: list | tuple | str, watch: tuple = ()) -> _Items:
        """The items of a List, a Map's keys or a String's characters for a
        loop with no loop inside, as `batches` gives a range's."""
        return _Items(self, seq, watch)

    def batches(self, a: int, b: int, watch: tuple = ()) -> Iterable[Iterator[int]]:
        """The items of a range loop as `loop` pays for them, a batch at a
        time: an iterator over each batch. A loop with no loop inside runs
        `for batch in …: for i in batch:`, so its items come at C speed and
        it can run code of its own between two batches."""
        at_once = self._at_once(a, b, watch)
        return (at_once,) if at_once is not None else _Batches(self, a, b, watch)

    def _at_once(self, a: int, b: int, watch: tuple) -> Iterator[int] | None:
        """The items of a short range the budget affords, paid for; else None.
        A loop that grows containers takes at most FIRST_WATCHED at once."""
        count = b - a
        if watch:
            if count > FIRST_WATCHED:
                return None
            self.watched(watch)
        it = self.steps_iter
        left = length_hint(it)
        if count <= RANGE_BATCH and count <= left:
            if count > 0:
                it.__setstate__(self.budget - left + count)
            return iter(range(a, b))
        return None

    def refund(self, items: Iterator[int]) -> None:
        """A range loop left early (`items` from `loop`, or the batch of
        `batches` it was in): give back what it paid for and will not run."""
        cur = items if type(items) is _RANGE_ITER else items.batches.current
        left = length_hint(cur)
        if left:
            it = self.steps_iter
            it.__setstate__(self.budget - length_hint(it) - left)

    def watched(self, watch: tuple) -> int:
        """Hold the containers a loop grows, as `grew` does, whatever their
        length; returns their estimated size."""
        total = 0
        for xs in watch:
            n = len(xs)
            if self.lens.get(id(xs)) == n:  # held, and no longer since: as it was
                total += self.ids.get(id(xs), 0)
                continue
            size = self.size_of(xs)
            total += size
            if size >= BIG_BYTES:
                self.lens[id(xs)] = n
                self._note(xs, size)
        return total

    # --- memory ----------------------------------------------------------------

    def before(self, size: int) -> None:
        """Refuse to build one value of `size` bytes past the ceiling."""
        if size > self.ceiling:
            raise _over_ceiling(size, self.ceiling, "one value")

    def built(self, value: object) -> object:
        """Note a value just built; returns it."""
        size = self.size_of(value)
        if size < BIG_BYTES:
            return value
        self._note(value, size)
        return value

    def _note(self, value: object, size: int) -> None:
        """Hold a value of `size` bytes (BIG_BYTES or more), or note its growth."""
        self.before(size)
        known = self.ids.get(id(value))
        if known is None:
            self.held.append(value)
        self.ids[id(value)] = size
        self.pending += size - (known or 0)  # a held container: only its growth
        if self.pending > self.slack:
            self.sweep()

    def check(self, size: int) -> None:
        """A value of `size` bytes exists that is not held: does it fit
        beside the live ones?"""
        self.before(size)
        if self.live + self.pending + size > self.ceiling:
            self.sweep()
            if self.live + size > self.ceiling:
                raise _over_ceiling(self.live + size, self.ceiling, "the values this call holds")

    def sweep(self) -> None:
        total = self._live()
        if total > self.ceiling:
            gc.collect()
            total = self._live()
            if total > self.ceiling:
                raise _over_ceiling(total, self.ceiling, "the values this call holds")
        self.live, self.pending = total, 0
        self.slack = max(self.ceiling - total, self.ceiling // 8)

    def _live(self) -> int:
        alive, total = [], 0
        held, self.held = self.held, []
        while held:
            value = held.pop()  # newest first: a dead container frees what it held
            if _getrefcount(value) <= 2:  # only `value` here, and the argument
                self.ids.pop(id(value), None)
                self.lens.pop(id(value), None)
                continue
            alive.append(value)
            total += self.size_of(value)
        alive.reverse()
        self.held = alive
        return total

    def size_of(self, value: object, depth: int = 0) -> int:
        """Bytes of `value`: its own, and for a container its slots and an
        estimate of its elements from a sample (held ones count themselves):
        evenly spread over a list, the first entries of a map. A sampled
        element that is itself a container is estimated the same way, to
        NEST_DEPTH levels, with a sample that halves at each level, so a list
        of lists of Strings counts its Strings and one estimate stays cheap."""
        size = _getsizeof(value)
        t = type(value)
        if (t is list or t is dict) and value:
            n = len(value)
            k = max(SAMPLE >> depth, 1)
            if t is list:
                sample = value[:: max(n // k, 1)][:k]
                groups = len(sample)
            else:
                items = list(islice(value.items(), k))
                sample, groups = list(_flat(items)), len(items)
            ids = self.ids
            if depth >= NEST_DEPTH:
                each = sum(_getsizeof(x) for x in sample if id(x) not in ids)
            else:
                each = sum(self.size_of(x, depth + 1) for x in sample if id(x) not in ids)
            size += each * n // groups
        return size


class _Batches:
    """The batches of a long range loop, each paid for as it starts."""

    __slots__ = ("meter", "a", "b", "current", "watch")

    def __init__(self, meter: Meter, a: int, b: int, watch: tuple = ()):
        self.meter, self.a, self.b, self.watch = meter, a, b, watch
        self.current: Iterator[int] = iter(())

    def __iter__(self) -> Iterator[Iterator[int]]:
        m, a, b, watch = self.meter, self.a, self.b, self.watch
        pace = _Pace(m, watch) if watch else None
        batch = pace.batch if pace is not None else RANGE_BATCH
        while a < b:
            if pace is not None and a > self.a:
                batch = pace.next()
            n = min(b - a, batch)
            left = length_hint(m.steps_iter)
            self.current = iter(range(a, a + min(n, left)))
            m.steps_iter.__setstate__(m.budget - left + min(n, left))
            if pace is not None:
                pace.ran = n
            yield self.current
            if left < n:
                raise Fault("E0404", "step limit exceeded", STEP_HELP)
            a += n


class _Items:
    """A loop's items a batch at a time, each batch paid for as it starts: as
    many as are left then (a List may grow or shrink while it is read), up
    to RANGE_BATCH. Each batch takes them from one iterator of the sequence,
    so the loop reads the List as it is at each item. Past the budget it
    raises E0404 where the next step would be taken.

    A List the loop grows as it reads it (`for y in xs { xs.push(y) }`) has
    one item left at every batch's start, and batches of one cost more than
    the items. Once a batch has read all that was left and more came, the
    next batches read ahead of what is left, twice the last each time: such
    a batch counts its items as they pass (`zip` with a count, in C), so
    what it paid for and did not run is given back exactly, whether the List
    ends under it or the loop breaks."""

    __slots__ = ("meter", "seq", "it", "start", "paid", "watch", "counted")

    def __init__(self, meter: Meter, seq: list | tuple | str, watch: tuple):
        self.meter, self.seq, self.watch = meter, seq, watch
        self.it = iter(seq)
        self.start = self.paid = 0
        self.counted: Iterator[int] | None = None

    def __iter__(self) -> Iterator[Iterator[object]]:
        m, it, watch = self.meter, self.it, self.watch
        ahead = 0  # how far the next batch reads past what is left
        pace = _Pace(m, watch) if watch else None
        cap = pace.batch if pace is not None else RANGE_BATCH
        first = True
        while left := length_hint(it):
            if pace is not None and not first:
                cap = pace.next()
            first = False
            budget = length_hint(m.steps_iter)
            if not budget:
                raise Fault("E0404", "step limit exceeded", STEP_HELP)
            k = min(max(left, ahead), cap, budget)
            m.steps_iter.__setstate__(m.budget - budget + k)
            self.start, self.paid = len(self.seq) - left, k
            if pace is not None:
                pace.ran = k
            if k <= left:
                self.counted = None
                yield islice(it, k)
                ahead = 2 * k if left and k == left and length_hint(it) else 0
            else:
                self.counted = counted = itertools.count()
                yield map(_first, zip(islice(it, k), counted, strict=False))
                self.refund()
                ahead = 2 * k if length_hint(it) else 0

    def refund(self) -> None:
        """The loop left part way through a batch: give back what it paid for
        and did not run. A counted batch knows how many ran. Otherwise the
        iterator's place is its sequence's length less what is left, while
        it is inside the sequence; past its end (the List shrank under it)
        nothing is given back."""
        if self.counted is not None:
            unrun = self.paid - next(self.counted)
            self.counted = None
        else:
            left = length_hint(self.it)
            if not left:
                return
            unrun = self.paid - (len(self.seq) - left - self.start)
        if 0 < unrun <= self.paid:
            steps = self.meter.steps_iter
            steps.__setstate__(self.meter.budget - length_hint(steps) - unrun)


_first = operator.itemgetter(0)


class _Pace:
    """How long the batches of a loop that grows containers (its `watch`)
    are, so that they grow by at most about WATCH_BYTES (or a sixteenth of
    the ceiling) between two checks, whatever one item weighs: the first
    batch is FIRST_WATCHED items, and each next one is what the last one's
    growth per item affords, at most twice the last and RANGE_BATCH. At each
    check the containers are held (`Meter.watched`), so the ceiling sees
    them. A batch whose items grew nothing doubles."""

    __slots__ = ("meter", "watch", "size", "batch", "ran", "bytes")

    def __init__(self, meter: Meter, watch: tuple):
        self.meter, self.watch = meter, watch
        self.size = meter.watched(watch)
        self.batch = self.ran = FIRST_WATCHED
        self.bytes = min(WATCH_BYTES, meter.ceiling // 16) or WATCH_BYTES

    def next(self) -> int:
        """Check the containers after a batch of `ran` items; the next batch's length."""
        size = self.meter.watched(self.watch)
        grown, self.size = size - self.size, size
        ran = max(self.ran, 1)
        batch = min(2 * ran, RANGE_BATCH)
        if grown > 0:
            batch = max(1, min(batch, self.bytes * ran // grown))
        self.batch = batch
        return batch


class _RangeSteps(itertools.chain):
    """A chain over a range loop's batches (C speed), that knows them."""

    __slots__ = ("batches",)


_RANGE_ITER = type(iter(range(0)))


class _Unmetered(Meter):
    """Outside any call: nothing is charged or counted."""

    def charge(self, steps: int) -> None:
        return None

    def built(self, value: object) -> object:
        return value

    def before(self, size: int) -> None:
        return None

    def loop(self, a: int, b: int, watch: tuple = ()) -> Iterator[int]:
        return iter(range(a, b))

    def batches(self, a: int, b: int, watch: tuple = ()) -> Iterable[Iterator[int]]:
        return (iter(range(a, b)),)

    def items(self, seq: list | tuple | str, watch: tuple = ()) -> _AllItems:
        return _AllItems(seq)

    def refund(self, items: Iterator[int]) -> None:
        return None


class _AllItems:
    """Outside any call: the items in one batch, nothing paid or given back."""

    __slots__ = ("seq",)

    def __init__(self, seq: list | tuple | str):
        self.seq = seq

    def __iter__(self) -> Iterator[Iterator[object]]:
        return iter((iter(self.seq),))

    def refund(self) -> None:
        return None


_UNMETERED = _Unmetered(iter(()), 0, 0)
STEP_BYTES_MAX = 1 << 26  # budgets up to this many steps walk a bytes object


def steps(budget: int) -> Iterator[int]:
    """A fresh step iterator of `budget` steps, every item true (`compress`
    takes a loop's items by it). Up to STEP_BYTES_MAX steps it walks a bytes
    object of ones, shared by every call of that budget: its items are
    CPython's cached small ints, so a step allocates nothing, where a range
    iterator makes a new int at every step past 256. A bigger budget walks a
    range. Both count down with `length_hint` and move with `__setstate__`."""
    if budget > STEP_BYTES_MAX:
        return iter(range(1, budget + 1))
    return iter(_ones(max(budget, 0)))


@functools.lru_cache(maxsize=4)
def _ones(n: int) -> bytes:
    return b"\x01" * n


_local = threading.local()


def current() -> Meter:
    return getattr(_local, "meter", _UNMETERED)


def enter(meter: Meter) -> Meter | None:
    """Make `meter` the running call's; returns the one it replaces."""
    saved = getattr(_local, "meter", None)
    _local.meter = meter
    return saved


def leave(saved: Meter | None) -> None:
    _local.meter = saved if saved is not None else _UNMETERED


STEP_HELP = "every loop iteration and call is a step; look for a loop that never ends"
BIG_STEP_HELP = (
    "work on a big value costs steps by its size: this needed {:,}, and {:,} were left; "
    "keep values small, or work on them in pieces"
)
MEMORY_HELP = (
    "the ceiling is per call (`hale run --max-memory`, or the host's setting); "
    "build smaller values, or work on them in pieces"
)


def _over_ceiling(size: int, ceiling: int, what: str) -> Fault:
    return Fault(
        "E0417",
        f"memory ceiling exceeded: {what} would need {size_text(size, up=True)}, over this "
        f"call's ceiling of {size_text(ceiling)}",
        MEMORY_HELP,
    )


# --- what generated code calls for big operations ---------------------------------


def mul(a: int, b: int) -> int:
    m = current()
    m.before((a.bit_length() + b.bit_length()) // 8 + 32)
    m.charge_ns(mul_cost(a, b))
    return m.built(a * b)


def floordiv(a: int, b: int) -> int:
    if b:
        current().charge_ns(div_cost(a, b))
    return a // b


def mod(a: int, b: int) -> int:
    if b:
        current().charge_ns(div_cost(a, b))
    return a % b


def concat(value: str | list, ops: int = 1) -> str | list:
    """A String or List `ops` concatenations produced, that came out big."""
    per = STR_PER_STEP if type(value) is str else LIST_PER_STEP
    m = current()
    m.charge(len(value) * ops // per)
    return m.built(value)


def append_batch(ceiling: int) -> int:
    """Characters of results a `s += …` site appends between two charges."""
    return min(APPEND_BATCH, ceiling // 16)


def appended(s: str, produced: int) -> int:
    """A `s += …` site produced `produced` characters of results since its
    last charge: charge them, hold `s`, start a new batch (returns 0).
    Holding `s` costs one copy at the next append (CPython appends in place
    only to a String nothing else refers to), which a batch of at least
    len(s) characters pays for many times over."""
    m = current()
    m.charge(produced // STR_PER_STEP)
    m.built(s)
    return 0


_APPEND_ONES = b"\x01" * APPEND_COUNT


def appended_literal(s: str, count: int, piece: int) -> tuple[int, Iterator[int]]:
    """A `s += "literal"` site appended `count` times since its last charge:
    charge each as producing the length `s` has now, hold `s` (see
    `appended`), and return how many appends make the next charge, so that
    `s` grows by at most a batch between two, with an iterator of the
    appends to let pass before it (the site pulls one an append)."""
    m = current()
    m.charge(count * len(s) // STR_PER_STEP)
    m.built(s)
    k = _literal_batch(m.ceiling, piece)
    return k, iter(_APPEND_ONES[: k - 1])


def appended_run(s: str, before: int, count: int, piece: int) -> int:
    """A batch of a range loop ended (or a `break` left it) with a `s +=
    "literal"` site in it, the only one to assign `s` there, of a `piece` of
    at most RUN_PIECE characters: `s` had `before` of them when the batch
    started. Adds the batch's appends to `count`, those not yet charged, and
    charges them as `appended_literal` does once the next batch could take
    them past its batch (so `s` grows by at most that between two charges);
    returns those left to charge."""
    count += (len(s) - before) // piece
    m = current()
    if count + RANGE_BATCH > _literal_batch(m.ceiling, piece):
        m.charge(count * len(s) // STR_PER_STEP)
        m.built(s)
        return 0
    return count


RUN_PIECE = 64  # a run batch of such pieces is within the smallest ceiling's append batch


def _literal_batch(ceiling: int, piece: int) -> int:
    """Appends of a `piece`-character literal between two charges."""
    return max(1, min(APPEND_COUNT, append_batch(ceiling) // max(piece, 1)))


def grew(xs: list | dict) -> int:
    """A site that can grow a container (`push`, `insert`, `m[k] = v`) ran
    GROWTH times: hold the container, so its elements count from now on.
    Returns the site's next countdown."""
    m = current()
    n = len(xs)
    if n >= GROWTH and m.lens.get(id(xs)) != n:
        m.lens[id(xs)] = n
        m.built(xs)
    return GROWTH


def int_to_text(n: int) -> str:
    if -SMALL_INT < n < SMALL_INT:
        return str(n)
    m = current()
    m.charge_ns(text_cost(n))
    return m.built(int_text(n))

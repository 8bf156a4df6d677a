"""A node in a race, run as its own process by the race tests and the bench.

`python claim_racer.py MODE DSN START_AT ARGS…` opens memory, waits for the
wall-clock moment START_AT (so every racer starts together), runs MODE and
prints its results as one JSON document on stdout:

- take HOLDER KEY…: take each key once (ttl 60 s); the grants it got.
- churn HOLDER SECONDS NKEYS TTL_S: take random keys of NKEYS again and
  again for SECONDS, releasing half of what it gets at once and letting the
  rest expire; every grant, with whether its release landed.
- project NAME ROWS WHO: move projection NAME from row n to n+1 until ROWS,
  each move writing node row:<n+1> {"by": WHO}; the rows this racer moved
  and how many moves it lost to the other racers.
- migrate: migrate the schema; (before, after).
"""

from __future__ import annotations

import json
import random
import sys
import time

from hale_runtime.memory import Node, open_memory


def take(store, holder: str, keys: list[str]) -> list[dict]:
    random.shuffle(keys)
    grants = [store.take(key, holder, 60) for key in keys]
    return [grant_json(g) for g in grants if g is not None]


def churn(store, holder: str, seconds: float, nkeys: int, ttl_s: float) -> list[dict]:
    grants, stop = [], time.monotonic() + seconds
    while time.monotonic() < stop:
        grant = store.take(f"k{random.randrange(nkeys)}", holder, ttl_s)
        if grant is None:
            continue
        row = grant_json(grant)
        if random.random() < 0.5:
            row["released"] = store.release(grant.key, holder, grant.token)
        grants.append(row)
    return grants


def project(store, name: str, rows: int, who: str) -> dict:
    moved, lost = [], 0
    while True:
        at = store.cursor(name)
        n = int(at) if at is not None else 0
        if n >= rows:
            return {"moved": moved, "lost": lost}
        ops = [Node(f"row:{n + 1}", "row", {"by": who})]
        if store.apply_projection(name, at, str(n + 1), ops):
            moved.append(n + 1)
        else:
            lost += 1


def grant_json(grant) -> dict:
    return {"key": grant.key, "holder": grant.holder, "token": grant.token,
            "until": grant.until, "now": grant.now, "released": False}  # fmt: skip


def main(mode: str, dsn: str, start_at: str, *args: str) -> None:
    store = open_memory(dsn)
    time.sleep(max(0.0, float(start_at) - time.time()))
    if mode == "take":
        result = take(store, args[0], list(args[1:]))
    elif mode == "churn":
        result = churn(store, args[0], float(args[1]), int(args[2]), float(args[3]))
    elif mode == "project":
        result = project(store, args[0], int(args[1]), args[2])
    elif mode == "migrate":
        result = store.migrate()
    else:
        raise SystemExit(f"unknown mode {mode}")
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main(*sys.argv[1:])

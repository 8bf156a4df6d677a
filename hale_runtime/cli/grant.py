"""`hale dna grant`: the Board's grant to the Leader, the Reviews it decides.

`grant leader --reviews operating[,…] [--until ISO]` writes `grant.given`
(key `grant/leader`), replacing whatever grant the Leader had; `grant
revoke leader` writes `grant.revoked`; `grant` alone lists the grants.
Only the Board's holder (or genesis while the Board is unheld) writes
either (record/grants.py): the verb judges its row before it writes, so a
refused one writes nothing and says why (exit 1). A family is what
`hale dna review` lists a Review under, and a grant names only families
the record has opened Reviews of, so a typo grants nothing silently.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import click

from hale_runtime.cli.common import EXIT_USAGE, fail, json_option


@click.command("grant")
@click.argument("words", nargs=-1)
@click.option("--reviews", default="", help="the families of Reviews it covers: operating[,…]")
@click.option("--until", default="", help="when it ends: an ISO 8601 time (UTC unless it says)")
@json_option
def grant(words: tuple[str, ...], reviews: str, until: str, as_json: bool) -> None:
    """Grant the Leader Reviews (`grant leader --reviews operating`), end it
    (`grant revoke leader`), or list the grants (`grant`)."""
    from hale_runtime.cli.keys import landed, synced_record, write_judged
    from hale_runtime.record.grants import key_of
    from hale_runtime.record.kinds import GRANT_GIVEN, GRANT_REVOKED

    revoking = len(words) == 2 and words[0] == "revoke"
    if len(words) > 1 and not revoking or (not words or revoking) and (reviews or until):
        fail("`hale dna grant leader --reviews <family>[,…] [--until <time>]`, "
             "`hale dna grant revoke leader`, or `hale dna grant`", EXIT_USAGE)  # fmt: skip
    if as_json and words:
        fail("--json lists the grants: `hale dna grant --json`", EXIT_USAGE)
    record = synced_record()
    if not words and as_json:
        from hale_runtime.cli.shapes import emit

        emit(grants_json(record.trust, record.clock()))
        return
    if not words:
        for line in grant_lines(record.trust, record.clock()):
            click.echo(line)
        return
    position = _position(words[-1])
    if not record.trust.genesis:
        fail("a grant is proven by key: the record has no genesis yet (`hale dna upgrade`)")
    key, by = key_of(position), record.who
    if revoking:
        ended = {"position": position, "by": by}
        write_judged(record, GRANT_REVOKED, key, ended, f"grant revoke {position}")
        click.echo(f"{key} is revoked: position:{position} decides no Reviews (grant.revoked)")
        landed(record)
        return
    body: dict[str, Any] = {"position": position, "reviews": _families(record, reviews), "by": by}
    if until:
        body["until"] = _until(until, record.clock())
    write_judged(record, GRANT_GIVEN, key, body, f"grant {position}")
    click.echo(f"{key}: position:{position} decides {_says(body)} (grant.given)")
    landed(record)


def grant_lines(trust: Any, now: int) -> list[str]:
    """`hale dna grant`: each grant, its holder, and whether it still covers anything."""
    given = trust.grants.given
    if not given:
        return ["grants: none (the Board decides every Review)"]
    lines = [f"grants: {len(given)}"]
    for position, g in sorted(given.items()):
        holder = trust.holders.get(position) or "nobody"
        ended = "" if g.live(now) else " (ended)"
        lines.append(
            f"  grant/{position}: position:{position} ({holder}) decides {g.says()}{ended}"
        )
    return lines


def grants_json(trust: Any, now: int) -> dict[str, Any]:
    """`hale dna grant --json`: each grant, its holder, and whether it is live."""
    out = []
    for position, g in sorted(trust.grants.given.items()):
        holder = trust.holders.get(position) or None
        out.append({"position": position, "holder": holder, "reviews": list(g.reviews),
                    "until": g.until, "live": g.live(now)})  # fmt: skip
    return {"grants": out}


def _says(body: dict[str, Any]) -> str:
    from hale_runtime.record.grants import Grant

    return Grant(tuple(body["reviews"]), body.get("until")).says()


def _position(word: str) -> str:
    from hale_runtime.record.grants import GRANTABLE, LEADER

    position = word.removeprefix("position:")
    if position not in GRANTABLE:
        fail(f"only the Leader is granted Reviews: `hale dna grant {LEADER} …`", EXIT_USAGE)
    return position


def _families(record: Any, given: str) -> list[str]:
    """The families `--reviews` names, each one the record has opened Reviews of."""
    families = list(dict.fromkeys(f.strip() for f in given.split(",") if f.strip()))
    if not families:
        fail("say which Reviews: `--reviews <family>[,…]` (`hale dna review` lists them)", 2)
    opened = sorted(set(record.trust.grants.families.values()))
    unknown = [f for f in families if f not in opened]
    if unknown:
        fail(
            f"the record has no Reviews of {', '.join(unknown)} "
            f"(it has: {', '.join(opened) or 'none'})",
            EXIT_USAGE,
        )
    return families


def _until(text: str, now: int) -> int:
    """`--until` as UTC milliseconds: an ISO 8601 time, UTC unless it names a zone."""
    try:
        at = datetime.fromisoformat(text)
    except ValueError:
        fail(f"--until {text} is no ISO 8601 time (e.g. 2026-12-31T18:00Z)", EXIT_USAGE)
    if at.tzinfo is None:
        at = at.replace(tzinfo=UTC)
    ms = int(at.timestamp() * 1000)
    if ms <= now:
        fail(f"--until {text} is past: a grant ends after it is given", EXIT_USAGE)
    return ms

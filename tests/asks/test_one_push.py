"""One push a round: every ask the organization heard in a round is answered
in one batch, each under its own plan claim, with one pull before and one
push after, its rows one commit; the claims are given back only once that
push landed, and a push that does not land keeps them (before, a planned
ask cost three syncs one after another and about five commits)."""

from __future__ import annotations

from ask_helpers import Project, relayed

from hale_runtime.record import Record, RecordError

ASKER = "ann@box:c1"


def heard_asks(project: Project, n: int) -> list:
    record = Record.open(project.root, who=ASKER)
    rows = record.append_many(
        [("intent.requested", f"i-{k}", {"objective": f"ask {k}", "target": ".", "by": ASKER})
         for k in range(n)]
    )  # fmt: skip
    return [relayed(row) for row in rows]


def counted(node) -> dict[str, int]:
    count = {"push": 0, "pull": 0}
    node.intake.sync = lambda: count.__setitem__("push", count["push"] + 1)
    node.intake.pull = lambda: count.__setitem__("pull", count["pull"] + 1)
    return count


def commits(project: Project) -> int:
    return sum(1 for _ in Record.open(project.root).repo.walk(
        Record.open(project.root).repo.references["refs/dna/record"].target))  # fmt: skip


def test_a_round_of_planned_asks_is_one_pull_one_push_one_commit(project: Project) -> None:
    node = project.node()  # the Leader plans (the offline provider answers at once)
    count = counted(node)
    for message in heard_asks(project, 12):
        node.intake.hear(message)
    before = commits(project)
    assert node.intake.tick() == []  # every word came within the round: nothing left over
    assert count == {"push": 1, "pull": 1}
    offered = project.rows("intent.offered")
    assert sorted(r.key for r in offered) == sorted(f"i-{k}" for k in range(12))
    assert all(r.body["planned"] for r in offered)
    assert len(project.rows("workflow.admitted")) == 12
    # the intake's rows, the engine's rounds, the release rows: a few commits for the
    # whole round (one, with durable holds), where each ask took about five
    assert commits(project) - before <= 4
    assert {r.key for r in project.rows("claim.released")} == {f"plan/i-{k}" for k in range(12)}
    assert all(node.memory.claim(f"plan/i-{k}") is None for k in range(12))


def test_a_batch_whose_push_does_not_land_keeps_its_claims(project: Project) -> None:
    node = project.node()

    def refused() -> None:
        raise RecordError("sync: the remote refused")

    node.intake.sync, node.intake.pull = refused, lambda: None
    for message in heard_asks(project, 3):
        node.intake.hear(message)
    node.intake.tick()
    assert len(project.rows("intent.offered")) == 3  # written here, not at the remote
    assert all(node.memory.claim(f"plan/i-{k}") is not None for k in range(3))  # they run out
    assert not project.rows("claim.released")

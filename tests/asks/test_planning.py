"""The Leader's planning: the claim plan/<intent>, one word per ask, the admission it binds."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

from ask_helpers import Failing, Project, Scripted, age_claim, ask_row, relayed

from hale_runtime.asks import Ask, Brief, prompt
from hale_runtime.asks.genome import law, read_genome
from hale_runtime.engine import BudgetPolicy
from hale_runtime.engine.cases import case_lines, open_cases
from hale_runtime.record.practices import ratified_practices

PERSON = json.dumps(
    {"kind": "person", "class": "operations", "whom": "ann", "obligation": "by friday"}
)


def test_the_leader_is_claimed_asked_journaled_then_released(project: Project) -> None:
    provider = Scripted('{"kind": "product", "class": "feature"}', price=700)
    node = project.node(provider=provider)
    assert node.offer("i-1", objective="add a health check") == "offered: t1"
    order = [line for line in project.lines() if "i-1" in line or line.endswith(" t1")]
    order.remove("workflow.settled t1")  # the edit leaf ran (the editor's model call)
    assert order == [
        "claim.taken plan/i-1", "model.called plan/i-1", "intent.offered i-1",
        "workflow.admitted t1", "task.born t1", "claim.released plan/i-1",
    ]  # fmt: skip
    taken = project.rows("claim.taken", "plan/i-1")[0].body
    assert taken["holder"] == "org@box:c0ffee00" and taken["token"] == 1 and taken["until"] > 0
    called = project.rows("model.called", "plan/i-1")[0].body
    assert called["micros"] == 700 and called["model"] == "scripted"
    offered = project.rows("intent.offered", "i-1")[0].body
    assert offered == {
        "definition": "ask-edit@1", "planned": True, "kind": "product", "class": "feature",
        "target": ".",
    }  # fmt: skip
    assert node.memory.claim("plan/i-1") is None  # given back


def test_a_persons_job_is_ask_person_handed_to_whom_the_leader_named(project: Project) -> None:
    node = project.node(provider=Scripted(PERSON))
    node.offer("i-1", objective="renew the tls certificate")
    offered = project.rows("intent.offered", "i-1")[0].body
    assert offered["definition"] == "ask-person@1"
    assert (offered["whom"], offered["obligation"]) == ("ann", "by friday")
    case = project.rows("board.case")[0].body
    assert case["objective"] == "renew the tls certificate (for ann, by friday)"
    (listed,) = open_cases(project.record())
    assert (listed.attempt, listed.whom) == ("t1/wf1/s0/p/a0", "ann")
    assert case_lines([listed])[2].endswith(", for ann: a case on the Board's queue")


def test_a_word_naming_no_kind_and_no_class_leaves_the_defaults(project: Project) -> None:
    node = project.node(provider=Scripted("considered: health check endpoint"))
    node.offer("i-1", objective="add a health check", target="api")
    offered = project.rows("intent.offered", "i-1")[0].body
    assert (offered["kind"], offered["class"], offered["target"]) == (
        "application",
        "change",
        "api",
    )
    assert offered["definition"] == "ask-edit@1" and offered["planned"] is True


def test_the_word_never_widens_the_ask(project: Project) -> None:
    node = project.node(provider=Scripted('{"kind": "organism", "target": "src"}'))
    node.offer("i-1", objective="fix the login form", target="src/web")
    offered = project.rows("intent.offered", "i-1")[0].body
    assert offered["target"] == "src/web" and offered["not_widened"] == "src"
    narrower = project.node(provider=Scripted('{"target": "src/web/login"}'))
    narrower.offer("i-2", objective="fix the login form", target="src/web")
    assert project.rows("intent.offered", "i-2")[0].body["target"] == "src/web/login"
    admitted = project.rows("workflow.admitted")[-1].body
    assert admitted["inputs"]["objective"] == "fix the login form (target: src/web/login)"


def test_an_unknown_kind_is_ignored(project: Project) -> None:
    node = project.node(provider=Scripted("kind: galaxy\nclass: refactor"))
    node.offer("i-1", objective="x")
    offered = project.rows("intent.offered", "i-1")[0].body
    assert (offered["kind"], offered["class"]) == ("application", "refactor")


def test_two_nodes_racing_for_one_plan_claim(project: Project) -> None:
    slow = Scripted(PERSON)
    slow.gate = __import__("threading").Event()
    with ThreadPoolExecutor(1) as pool:
        a = project.node("a@box:c0ffee00", provider=slow, executor=pool)
        b_provider = Scripted(PERSON)
        b = project.node("b@box:c0ffee00", provider=b_provider)
        row = ask_row(project, "renew the certificate")
        assert a.intake.on_intent_requested(relayed(row)).startswith("in planning")
        before = project.lines()
        said = b.intake.on_intent_requested(relayed(row))
        assert said == f"planning elsewhere: a@box:c0ffee00 holds plan/{row.key}"
        assert project.lines() == before  # wrote nothing
        assert b_provider.prompts == []
        # offered again while the word is out: not asked of the Leader twice
        assert a.intake.on_intent_requested(relayed(row)).startswith("in planning")
        slow.gate.set()
        a.intake.planning[row.key].future.result()
        assert a.intake.tick() == ["offered: t1"]
    assert len(slow.prompts) == 1
    assert b.intake.on_intent_requested(relayed(row)) == "answered before"
    assert len(project.rows("intent.offered")) == 1 and len(project.rows("model.called")) == 1


def test_the_claim_expires_and_the_ask_comes_back_to_another_node(project: Project) -> None:
    stuck = Scripted(PERSON)
    stuck.gate = __import__("threading").Event()
    with ThreadPoolExecutor(1) as pool:
        a = project.node("a@box:c0ffee00", provider=stuck, executor=pool)
        b = project.node("b@box:c0ffee00", provider=Scripted('{"kind": "product"}'))
        row = ask_row(project, "renew the certificate")
        a.intake.on_intent_requested(relayed(row))
        assert b.intake.on_intent_requested(relayed(row)).startswith("planning elsewhere")
        age_claim(project.memory_path, f"plan/{row.key}", 300_000)  # 300 s pass for the claim
        assert b.intake.on_intent_requested(relayed(row)) == "offered: t1"
        assert project.rows("claim.taken")[-1].body["token"] == 2
        stuck.gate.set()  # a's word comes back late: journaled, but a no longer holds the claim
        a.intake.planning[row.key].future.result()
        said = a.intake.tick()
    assert said[0].startswith(f"not admitting {row.key}: fenced")
    assert len(project.rows("intent.offered")) == 1
    plan_calls = [r for r in project.rows("model.called") if r.key.startswith("plan/")]
    assert len(plan_calls) == 2  # every call is a row, the late one too


def test_a_word_already_journaled_is_not_asked_again(project: Project) -> None:
    project.record().append(
        "model.called",
        "plan/i-1",
        {"call": "plan/i-1#1", "model": "m", "micros": 5, "answer": PERSON},
    )
    provider = Scripted('{"kind": "product"}')
    node = project.node(provider=provider)
    assert node.offer("i-1", objective="renew the certificate") == "offered: t1"
    assert provider.prompts == []
    assert project.rows("intent.offered", "i-1")[0].body["definition"] == "ask-person@1"


def test_budget_exhausted_mid_ask(project: Project) -> None:
    """The ask is in planning at a node that dies; the window is spent meanwhile; when the
    claim expires the ask comes back and is refused with the budget's text."""
    stuck = Scripted(PERSON)
    stuck.gate = __import__("threading").Event()
    budget = BudgetPolicy("day", 3000)
    with ThreadPoolExecutor(1) as pool:
        a = project.node("a@box:c0ffee00", provider=stuck, executor=pool, budget=budget)
        row = ask_row(project, "renew the certificate")
        assert a.intake.on_intent_requested(relayed(row)).startswith("in planning")
        legs = project.record("leg@box:c2")
        for n in range(3):
            legs.append(
                "model.called", f"t9/x/a{n}", {"call": f"l#{n}", "model": "m", "micros": 1000}
            )
        age_claim(project.memory_path, f"plan/{row.key}", 300_000)
        b_provider = Scripted(PERSON)
        b = project.node("b@box:c0ffee00", provider=b_provider, budget=budget)
        said = b.intake.on_intent_requested(relayed(row))
        stuck.gate.set()
    assert (
        said == "refused: budget exhausted (spent 3000 of 3000 micro-dollars this day in 3 call(s))"
    )
    assert b_provider.prompts == [] and not project.rows("workflow.admitted")


def test_a_leader_call_priced_past_what_is_left_is_not_made(project: Project) -> None:
    provider = Scripted(PERSON, price=1000)
    node = project.node(provider=provider, budget=BudgetPolicy("day", 1500))
    project.record().append("model.called", "x", {"call": "x#0", "model": "m", "micros": 1000})
    said = node.offer("i-1", objective="renew the certificate")
    assert said == "refused: planning costs 1000 micro-dollars, past the 500 left"
    assert provider.prompts == [] and not project.rows("model.called", "plan/i-1")
    assert node.memory.claim("plan/i-1") is None
    released = project.rows("claim.released", "plan/i-1")
    assert len(released) == 1


def test_a_failing_provider_refuses_the_ask_as_a_row(project: Project) -> None:
    node = project.node(provider=Failing())
    said = node.offer("i-1", objective="anything")
    assert said.startswith("refused: the Leader could not be asked: the model endpoint")
    assert project.rows("intent.refused", "i-1") and node.memory.claim("plan/i-1") is None


def test_the_brief_is_charter_purpose_law_and_ratified_practices(project: Project) -> None:
    from ask_helpers import catalog_of_new_genome

    genome = read_genome(project.root)
    assert genome.planned and genome.leader
    assert genome.budget == BudgetPolicy("day", 25_000_000)
    record = project.record()
    digest = record.put_receipt({"kind": "practice", "target": "org", "text": "small steps"})
    other = record.put_receipt({"kind": "practice", "target": "leg", "text": "not for org"})
    record.append("practice.ratified", "operating/small", {"receipt": digest})
    record.append("practice.ratified", "operating/leg", {"receipt": other})
    brief = Brief(
        genome.charter, genome.purpose, tuple(law(genome, catalog_of_new_genome())),
        tuple(ratified_practices(record)),
    )  # fmt: skip
    provider = Scripted()
    node = project.node(provider=provider, brief=brief)
    node.offer("i-1", objective="add a health check")
    sent = provider.prompts[0]
    assert sent == prompt(brief, Ask.from_body("i-1", {"objective": "add a health check"}))
    assert "never widen what was asked" in sent  # the charter
    assert "one reviewed change at a time" in sent  # the purpose
    assert "position leader: held by organism" in sent and "ask-person@1:" in sent  # the law
    assert "operating/small: small steps" in sent and "not for org" not in sent


def test_no_leader_when_the_organization_does_not_plan(project: Project) -> None:
    main = project.root / "dna/org/main.hl"
    main.write_text(main.read_text().replace("planned: true", "planned: false"))
    assert read_genome(project.root).leader is False


def test_a_word_out_past_its_claim_is_bound_when_the_ask_is_planned_again(
    project: Project,
) -> None:
    """The same node, its claim expired while its word was still out: it takes the claim
    again and waits for the word it asked for, rather than ask again. One call, one
    `model.called` row, one admission."""
    import threading

    stuck = Scripted(PERSON)
    stuck.gate = threading.Event()
    with ThreadPoolExecutor(2) as pool:
        a = project.node("a@box:c0ffee00", provider=stuck, executor=pool)
        row = ask_row(project, "renew the certificate")
        assert a.intake.on_intent_requested(relayed(row)).startswith("in planning")
        age_claim(project.memory_path, f"plan/{row.key}", 300_000)
        assert a.intake.on_intent_requested(relayed(row)).startswith("in planning")
        assert a.intake.late == [] and project.rows("claim.taken")[-1].body["token"] == 2
        stuck.gate.set()
        for p in a.intake.planning.values():
            p.future.result()
        said = a.intake.tick()
    assert said == ["offered: t1"] and len(stuck.prompts) == 1
    assert len(project.rows("intent.offered")) == 1
    (called,) = [r for r in project.rows("model.called") if r.key.startswith("plan/")]
    assert called.body["call"] == f"plan/{row.key}#2"


def test_a_superseded_body_s_word_is_bound_though_its_row_is_void(project: Project) -> None:
    """Body A (epoch 1) journaled the Leader's word, but it landed after B's epoch 2:
    void under the epoch rule, yet the call was made and paid for. B binds its word
    rather than ask the Leader again."""
    ref = "refs/dna/owners/a/body"
    b = project.record()
    b.append("body.epoch", ref, {"n": 2, "holder": b.who})
    a = project.record()
    a.epoch = (ref, 1)
    body = {"call": "plan/i-1#1", "model": "m", "micros": 5, "answer": PERSON}
    word = a.append("model.called", "plan/i-1", body)
    provider = Scripted('{"kind": "product"}')
    node = project.node(provider=provider)
    node.record.epoch = (ref, 2)
    assert node.record.stale(word).startswith("stale: ")
    assert node.offer("i-1", objective="renew the certificate") == "offered: t1"
    assert provider.prompts == []
    assert project.rows("intent.offered", "i-1")[0].body["definition"] == "ask-person@1"


def test_a_restart_takes_up_only_its_own_owner_s_attempts(project: Project) -> None:
    """Over a shared record, owner b's organization restarting finds owner a's open
    attempt in the fold: it is a's live body's, and b's engine leaves it alone."""
    a = project.node("a@box:c0ffee00", owner="a")
    for owner in ("a", "b"):
        row = ask_row(project, f"judge it for {owner}", owner=owner, judgment=True)
        assert a.intake.on_intent_requested(relayed(row)).startswith(("offered", "not ours"))
    b = project.node("b@box:c0ffee00", owner="b")
    assert b.offer("i-0001", objective="judge it for b", owner="b", judgment=True) == "offered: t2"
    restarted = project.node("b@box:c0ffee00", owner="b")

    def open_() -> set[str]:
        engine = restarted.engine
        return {x.id.split("/")[0] for x in engine.to_reconcile + engine.unclaimed}

    assert open_() == {"t1", "t2"}
    restarted.settler.read()
    restarted.engine.keep_mine(lambda attempt: not restarted.settler.not_ours(attempt))
    assert open_() == {"t2"}

"""The projected graph and the projection cursor, on SQLite and PostgreSQL:
holders, definition nodes, convenes edges, and a cursor that two racing
processes move one row at a time, each row applied exactly once."""

from __future__ import annotations

from racers import race  # noqa: E402

from hale_runtime.memory import DropEdge, Edge, Node, SetHolder, open_memory  # noqa: E402


def test_positions_and_their_holders(store):
    assert store.holder_of("position:leader") is None
    store.set_holder("position:leader", "ann@box:c1")
    store.set_holder("board", "bob")
    assert store.holder_of("leader") == store.holder_of("position:leader") == "ann@box:c1"
    store.set_holder("leader", None)
    assert store.positions() == {"board": "bob", "leader": None}


def test_definition_nodes_and_convenes_edges(store):
    store.upsert_node("definition:optimize-walk", "definition", {"revision": 1})
    store.upsert_node("definition:optimize-walk", "definition", {"revision": 2})
    store.upsert_edge(
        "position:leader", "convenes", "definition:optimize-walk", {"cadence": "every 1d"}
    )
    store.upsert_edge("position:leader", "reads", "definition:optimize-walk")
    assert store.node("definition:optimize-walk").props == {"revision": 2}
    assert store.node("definition:nothing") is None
    assert store.nodes(kind="definition") == [
        Node("definition:optimize-walk", "definition", {"revision": 2})
    ]
    assert store.edges(kind="convenes") == [
        Edge("position:leader", "convenes", "definition:optimize-walk", {"cadence": "every 1d"})
    ]
    store.apply([DropEdge("position:leader", "convenes", "definition:optimize-walk")])
    assert [e.kind for e in store.edges()] == ["reads"]


def test_the_cursor_moves_only_from_where_it_is(store):
    assert store.cursor("record") is None
    assert store.advance_cursor("record", None, "1")
    assert not store.advance_cursor("record", None, "1")
    assert not store.advance_cursor("record", "0", "2")
    assert store.advance_cursor("record", "1", "2")
    assert store.cursor("record") == "2"
    assert store.cursor("other") is None


def test_a_projection_that_lost_the_race_applies_nothing(store):
    ops = [SetHolder("leader", "ann"), Node("definition:a", "definition")]
    assert store.apply_projection("record", None, "1", ops)
    assert not store.apply_projection("record", None, "1", [SetHolder("leader", "eve")])
    assert not store.apply_projection("record", "0", "1", [Node("definition:b", "definition")])
    assert store.holder_of("leader") == "ann"
    assert [n.id for n in store.nodes()] == ["definition:a"]


def test_two_racing_projectors_apply_every_row_exactly_once(store_dsn):
    rows = 1000
    results = race("project", store_dsn, [["record", str(rows), p] for p in ("p1", "p2")])
    moved = [result["moved"] for result in results]
    assert sorted(moved[0] + moved[1]) == list(range(1, rows + 1))
    # both moved rows, or one lost a move to the other: they did overlap
    # (SQLite's write lock is not fair, so one racer may take nearly every row)
    assert all(moved) or sum(r["lost"] for r in results), "the projectors never raced"
    with open_memory(store_dsn) as store:
        assert store.cursor("record") == str(rows)
        written = {n.id: n.props["by"] for n in store.nodes(kind="row")}
    assert written == {f"row:{n}": "p1" for n in moved[0]} | {f"row:{n}": "p2" for n in moved[1]}

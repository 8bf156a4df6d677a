"""A key on the debugger's main screen asks for no layout pass (a layout cost
the screen a second frame a key): the panes and the bars redraw in place,
and the row pane lays out again only when the row is taller than the pane
(or the last one was), so it always holds the whole row."""

from __future__ import annotations

import asyncio

from textual.widgets import Static

from hale_runtime.tui.app import DebugApp
from hale_runtime.tui.model import DebugModel
from hale_runtime.tui.widgets import Detail, Timeline, TreeView

SIZE = (80, 20)  # a short row pane: rows both shorter and taller than it


def layouts_asked(app: DebugApp, widgets: list) -> list[str]:
    """The widgets' ids each time one asks for a layout pass."""
    asked: list[str] = []
    for widget in widgets:
        refresh = widget.refresh

        def noted(*regions, _refresh=refresh, _id=widget.id, **kwargs):
            if kwargs.get("layout"):
                asked.append(str(_id))
            return _refresh(*regions, **kwargs)

        widget.refresh = noted
    return asked


def test_a_key_asks_for_no_layout_and_the_row_pane_holds_the_whole_row(rows):
    async def run() -> None:
        app = DebugApp(DebugModel(rows))
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("home")
            q = app.screen.query_one
            detail = q(Detail)
            panes = [q(Timeline), q(TreeView), detail, q("#bar", Static), q("#status", Static)]
            asked = layouts_asked(app, panes)
            pane = detail.parent.content_size
            heights, kept = set(), 0  # keys that left the row pane's height as it was
            for key in ["j"] * 12 + ["k"] * 6 + ["end", "home"]:
                before, at = detail.size.height, len(asked)
                await pilot.press(key)
                whole = detail.get_content_height(pane, pane, detail.content_size.width)
                assert detail.size.height == max(whole, pane.height), key
                if before == detail.size.height:
                    assert asked[at:] == [], key
                    kept += 1
                heights.add(whole)
            assert kept >= 12
            assert min(heights) < pane.height < max(heights)  # rows both sides of the pane

    asyncio.run(run())
